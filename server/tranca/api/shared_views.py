"""A game's view at a version, encoded once for all of its viewers on this replica.

At one version of one game every viewer sees the same thing but three fields: its
seat, its own hand and the turn's deadline (``rules.views.hand_of``: a seat's view is
a spectator's plus its hand; the deadline is not in the log). A move is shown to its
mover, in SubmitMove's answer, and then to every watch stream of the game here:
players and spectators, woken together by the move's hint. Each used to build the
whole view, about 30 µs of Python a message, which was most of what a watched move
cost beyond an unwatched one (docs/PERFORMANCE.md, "Watched games on the NATS feed").
Here the first viewer of a version builds the part everyone sees and encodes it; every
viewer's message is then decoded from those bytes with its own seat's fields added,
about 4 µs. A watch stream's message also shows the logged move, the same for every
viewer, so it is kept encoded with the view.

Why one game id and version may stand for the view: every ``Shown`` the services
hand out is the game as committed at that version (after the write, read back from
the snapshot, or folded from the log up to it), and the log decides what a version
is, so one game at one version has one public view. Nothing uncommitted is shown.

Bounded: the latest ``VERSIONS_KEPT`` versions of each of the ``kept`` games whose
latest version came most recently (a turn makes several versions at once, each
delivered by every watcher). A viewer further behind gets a message built for it
alone, as before, so the bound costs only time.
"""

from __future__ import annotations

from ..services.games import Shown, WatchUpdate
from ..v1 import game_pb2 as pb
from .convert import add_seat_view, logged_to_pb, public_view_to_pb

# Games whose latest versions are kept encoded: the viewers of a version come within
# moments of each other (the move's answer, then its hint's watchers), so a few
# thousand cover every game moving at once on a replica; under 1 KB a version.
KEPT = 2048
# The versions kept per game: a turn (SubmitTurn) makes several at once, its answer
# shows the last, and every watcher then delivers each of them in order.
VERSIONS_KEPT = 8


class _Encoded:
    """One game's public view at a version, and the watch message without the
    viewer's fields (built by the first watcher of the version)."""

    __slots__ = ("view", "watched")

    def __init__(self, view: bytes) -> None:
        self.view = view
        self.watched: bytes | None = None


class _Game:
    """One game's kept versions: the latest shown, and the few before it."""

    __slots__ = ("latest", "versions")

    def __init__(self, latest: int) -> None:
        self.latest = latest
        self.versions: dict[int, _Encoded] = {}


class SharedViews:
    """This replica's encoded public views, by game: see the module's docstring."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._games: dict[str, _Game] = {}
        self.built = 0  # public views built (the others were decoded from these)

    def __len__(self) -> int:
        return len(self._games)

    def fill(self, out: pb.GameView, shown: Shown) -> None:
        """Write ``shown`` as its seat sees it into ``out`` (an empty view, usually a
        response's field): the same message ``convert.view_to_pb`` builds."""
        encoded = self._encoded(shown)
        if encoded is None:
            out.CopyFrom(self._public(shown))
        else:
            out.MergeFromString(encoded.view)
        add_seat_view(out, shown.state, shown.seat, shown.deadline_at)

    def watch_response(self, update: WatchUpdate) -> pb.WatchGameResponse:
        """A watch stream's message: the game as its seat sees it, and the logged
        change that made its version (none on a stream's first view)."""
        shown, change = update.shown, update.change
        out = pb.WatchGameResponse()
        if change is None:
            self.fill(out.view, shown)
            return out
        encoded = self._encoded(shown)
        if encoded is None:
            out.view.CopyFrom(self._public(shown))
            out.move.CopyFrom(logged_to_pb(change))
        else:
            if encoded.watched is None:
                whole = pb.WatchGameResponse(move=logged_to_pb(change))
                whole.view.MergeFromString(encoded.view)
                encoded.watched = whole.SerializeToString()
            out.MergeFromString(encoded.watched)
        add_seat_view(out.view, shown.state, shown.seat, shown.deadline_at)
        return out

    def _public(self, shown: Shown) -> pb.GameView:
        self.built += 1
        return public_view_to_pb(shown.game_id, shown.version, shown.state, shown.board_hidden)

    def _encoded(self, shown: Shown) -> _Encoded | None:
        """The public view of ``shown``'s version, encoded: kept, or built and kept
        if it is among its game's latest ``VERSIONS_KEPT``; None for a viewer further
        behind (its message is built for it alone, as is every one if ``kept`` is 0)."""
        games, version = self._games, shown.version
        game = games.get(shown.game_id)
        if game is not None:
            encoded = game.versions.get(version)
            if encoded is not None:
                return encoded
            if version <= game.latest - VERSIONS_KEPT:
                return None
        elif self.kept <= 0:
            return None
        else:
            if len(games) >= self.kept:
                del games[next(iter(games))]  # the game whose latest came longest ago
            game = games[shown.game_id] = _Game(version)
        encoded = _Encoded(self._public(shown).SerializeToString())
        if version > game.latest:
            # A new latest: the game moves to the end of the order, and versions no
            # longer among its latest few are dropped.
            game.latest = version
            games[shown.game_id] = games.pop(shown.game_id)
            for old in [v for v in game.versions if v <= version - VERSIONS_KEPT]:
                del game.versions[old]
        game.versions[version] = encoded
        return encoded
