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

Bounded: the latest version of the ``kept`` games shown most recently; a game shown
again at a new version replaces its entry. A viewer that comes after its version's
entry has gone builds it again, so the bound costs only time.
"""

from __future__ import annotations

from ..services.games import Shown, WatchUpdate
from ..v1 import game_pb2 as pb
from .convert import add_seat_view, logged_to_pb, public_view_to_pb

# Games whose latest shown version is kept encoded: the viewers of a version come
# within moments of each other (the move's answer, then its hint's watchers), so a
# few thousand cover every game moving at once on a replica; about 1 KB each.
KEPT = 2048


class _Encoded:
    """One game's public view at ``version``, and the watch message without the
    viewer's fields (built by the first watcher of the version)."""

    __slots__ = ("version", "view", "watched")

    def __init__(self, version: int, view: bytes) -> None:
        self.version = version
        self.view = view
        self.watched: bytes | None = None


class SharedViews:
    """This replica's encoded public views, by game: see the module's docstring."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._games: dict[str, _Encoded] = {}
        self.built = 0  # public views built (the others were decoded from these)

    def __len__(self) -> int:
        return len(self._games)

    def fill(self, out: pb.GameView, shown: Shown) -> None:
        """Write ``shown`` as its seat sees it into ``out`` (an empty view, usually a
        response's field): the same message ``convert.view_to_pb`` builds."""
        out.MergeFromString(self._encoded(shown).view)
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
        if encoded.watched is None:
            whole = pb.WatchGameResponse(move=logged_to_pb(change))
            whole.view.MergeFromString(encoded.view)
            encoded.watched = whole.SerializeToString()
        out.MergeFromString(encoded.watched)
        add_seat_view(out.view, shown.state, shown.seat, shown.deadline_at)
        return out

    def _encoded(self, shown: Shown) -> _Encoded:
        games = self._games
        encoded = games.get(shown.game_id)
        if encoded is not None and encoded.version == shown.version:
            return encoded
        view = public_view_to_pb(shown.game_id, shown.version, shown.state)
        built = _Encoded(shown.version, view.SerializeToString())
        self.built += 1
        if encoded is not None and encoded.version > shown.version:
            return built  # a viewer behind the game's latest: not kept in its place
        encoded = built
        # Newest last: a game shown again moves to the end, and the first is the one
        # shown longest ago.
        games.pop(shown.game_id, None)
        if len(games) >= self.kept:
            del games[next(iter(games))]
        games[shown.game_id] = encoded
        return encoded
