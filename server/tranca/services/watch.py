"""Watching a game: the stream of every version after a given one as one reader sees
it, folded forward from the log and woken by the change hints (``Hints``), with the
leases that make every replica's moves hint this one (``Leases``). ``Games.watch``
checks who is watching and opens a stream here."""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Protocol

import orjson

from ..table.action_kinds import ActionKind
from ..table.game import FINISHED, GameState, Setup, apply_action, new_game
from .boards import fold
from .errors import malformed
from .game_values import LoggedChange, Shown, WatchUpdate
from .limits import WatchCounts
from .ports import GameRecord, GameRepository, LogRecord, Wakeup
from .presence import Presence, presence_interval

WATCH_POLL_SECONDS = 10.0
# The re-read's period while the hints say they are steady (the NATS change feed
# connected): then the re-read only covers a message lost on a live connection, and
# each idle stream's read every 10 s is what one replica's many streams cost most
# (10,000 streams: 1,000 log reads a second). When the feed drops, every watcher is
# woken and goes back to WATCH_POLL_SECONDS until it is back.
WATCH_POLL_STEADY_SECONDS = 60.0
# How long a watch stream keeps its game's state as objects after it delivered a
# move, before it keeps it encoded until the next (``WatchStreams.stream``).
WATCH_HOT_SECONDS = 5.0

# The game at a version as one seat sees it (``Games.shown``).
ShowFn = Callable[[str, int, GameState, int, "int | None"], Awaitable[Shown]]


class WatchRepository(GameRepository, Protocol):
    """The reads of a watch stream beyond the log (``GameRepository``)."""

    async def deadline_of(self, game_id: str) -> tuple[int, int | None]: ...


class WatchStreams:
    """The open watch streams of this process: each folds its game forward from the
    log; the log reads of streams woken together are shared (``_rows_after``)."""

    def __init__(
        self,
        repo: WatchRepository,
        presence: Presence,
        watches: WatchCounts,
        hints: Hints,
        leases: Leases,
        shown: ShowFn,
    ) -> None:
        self.repo = repo
        self.presence = presence
        self.watches = watches
        self.hints = hints
        self.leases = leases
        self.shown = shown
        # The log reads of watch streams under way, by (game, after version): the
        # watchers of a game woken by one hint ask for the same rows (_rows_after).
        self._reads: dict[tuple[str, int], asyncio.Future[Sequence[LogRecord] | None]] = {}

    async def stream(
        self, game: GameRecord, seat: int, from_version: int, key: str, cap: int
    ) -> AsyncGenerator[WatchUpdate, None]:
        """Every version of ``game`` after ``from_version`` as ``seat`` sees it (-1: an
        app or a spectator), in order and without gaps, to the match's end; counted
        as one of the ``cap`` streams ``key`` (a player token or an API key) may hold.
        Between wakes the stream keeps the folded state encoded and nothing else it
        does not need (docs/PERFORMANCE.md, "Memory per watch stream")."""
        with self.watches.hold(key, cap):
            if from_version < 0:
                raise malformed("from_version must be 0 or more")
            if from_version > game.version:
                raise malformed(
                    f"from_version {from_version} is ahead of the game ({game.version})"
                )
            game_id = game.id
            # As created: the log folds from it (the head's changes of options are in it).
            setup = game.state.created
            table = game.state.setup.table
            # A seat's open stream says its player is there (tables with robots), at
            # most once per presence interval; the wait below wakes up for it.
            grace = table.robot_grace_seconds
            present = seat >= 0 and grace > 0
            wait = (
                min(WATCH_POLL_SECONDS, presence_interval(grace)) if present else WATCH_POLL_SECONDS
            )
            with self.hints.subscribe(game_id) as hint:
                # Before the log is first read: from here on every move of the game
                # hints this replica's listener, and any move before is in what is
                # read. (A finished game has no move left to hint.)
                if game.state.status != FINISHED:
                    await self.leases.hold(game_id)
                if from_version == 0:
                    state = game.state
                    version = game.version
                    yield WatchUpdate(
                        await self.shown(game_id, version, state, seat, game.deadline_at)
                    )
                else:
                    state = new_game(setup)
                    for row in await self.repo.log(game_id, 0, from_version):
                        apply_action(state, row.action, row.version)
                    version = from_version
                del game
                status = state.status
                # Kept encoded while the stream waits (``freeze``), as objects for
                # WATCH_HOT_SECONDS after it delivered a move: an active game's next
                # move comes soon, and the encoding's round trip would cost every
                # watcher about 45 us a move.
                live: GameState | None = None
                frozen = freeze(state)
                del state
                # The first read is the log's (a move committed before this replica
                # took the game's hints is only there), and so is a timed re-read's and
                # one after a lost connection (hints may have been lost); a hint's wake
                # takes the rows that came with it where they follow on.
                first = True
                while True:
                    hinted = hint.is_set() and not hint.reread and not first
                    first = False
                    hint.clear()
                    if present:
                        await self.presence.touch_seat(game_id, seat, grace, status)
                    rows = self.hints.rows_after(game_id, version) if hinted else None
                    if rows is None:
                        rows = await self._rows_after(game_id, version)
                    if rows:
                        # A timed table's turn deadline is not in the log: read with
                        # the game's version, and shown on the view of that version
                        # (the batch's last).
                        deadline_version, deadline = -1, None
                        if live is None:
                            live, frozen = thaw(frozen, setup), b""
                        # The time per turn as the head last set it, before the start.
                        if live.setup.table.turn_seconds or any(
                            row.action.kind == ActionKind.OPTIONS for row in rows
                        ):
                            deadline_version, deadline = await self.repo.deadline_of(game_id)
                        for row in rows:
                            ended = fold(live, row.action, row.version)
                            version = row.version
                            shown = deadline if version == deadline_version else None
                            yield WatchUpdate(
                                await self.shown(game_id, version, live, seat, shown),
                                LoggedChange(row, live.deal_number, ended),
                            )
                        status = live.status
                        del row
                    del rows
                    if status == FINISHED:
                        return  # nothing follows the end of a match
                    # Re-read the log on a timer too: a hint may have been lost.
                    period = wait
                    if not present and getattr(self.hints, "steady", False):
                        period = max(wait, WATCH_POLL_STEADY_SECONDS)
                    if live is not None:
                        hot = min(WATCH_HOT_SECONDS, period)
                        await hint.wait(hot)
                        if hint.is_set():
                            continue  # the next move: read it with the state at hand
                        frozen = freeze(live)
                        live = None
                        period -= hot
                        if period <= 0:
                            continue
                    await hint.wait(period)

    async def _rows_after(self, game_id: str, version: int) -> Sequence[LogRecord]:
        """The game's log after ``version``, for a watch stream: one read for all the
        watchers here that ask for the same rows at once (a hint wakes every watcher
        of the game together, and those at the same version want the same rows).
        The rows are read from the log all the same, once."""
        key = (game_id, version)
        pending = self._reads.get(key)
        if pending is not None:
            shared = await asyncio.shield(pending)
            if shared is not None:
                return shared
            return await self.repo.log(game_id, version)  # the first reader failed
        pending = self._reads[key] = asyncio.get_running_loop().create_future()
        try:
            rows = await self.repo.log(game_id, version)
        except BaseException:
            pending.set_result(None)  # the others read for themselves
            raise
        finally:
            if self._reads.get(key) is pending:
                del self._reads[key]
        pending.set_result(rows)
        return rows


def freeze(state: GameState) -> bytes:
    """A watch stream's folded state while it waits: the snapshot's encoding (the
    setup is kept apart, shared by the game's readers), compressed. Compressed for
    its size (about 600 bytes rather than 1,100-1,600), and also because orjson's
    own bytes keep the capacity of its output buffer, about 7.5 KB."""
    return zlib.compress(orjson.dumps(state.to_dict(with_setup=False)), 1)


def thaw(frozen: bytes, setup: Setup) -> GameState:
    return GameState.from_dict(orjson.loads(zlib.decompress(frozen)), setup)


class Hints(Protocol):
    """Hints that a game changed (``store/hints.py``'s hub): a watcher subscribes and
    is woken for each new version, from this process's moves and other replicas'.
    A hub may say it is ``steady`` (the NATS change feed connected): watchers then
    re-read on the longer ``WATCH_POLL_STEADY_SECONDS``."""

    def subscribe(self, game_id: str) -> contextlib.AbstractContextManager[Wakeup]: ...

    def rows_after(self, game_id: str, version: int) -> Sequence[LogRecord] | None:
        """The committed rows after ``version`` that came with the latest hints, if
        the hub holds every one up to the latest version hinted; None otherwise."""
        ...


class Leases(Protocol):
    """The replica's watch leases (``store/watch_leases.py``): while it holds one on a
    game, every replica's moves of the game hint it."""

    async def hold(self, game_id: str) -> None: ...
