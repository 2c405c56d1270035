"""Hints that a game changed, for watch streams: "game g is at version v".

A hint only wakes watchers; the move log stays the truth, so a watcher that
misses a hint catches up from the log at its next wake (watchers also wake on a
timer).

A hint may carry the rows its commit logged (this process's own moves, and other
replicas' through the NATS change feed): the hub keeps the latest few of each
watched game, and a watcher woken by a hint whose rows follow on from its version
takes them instead of reading the log (``rows_after``). They are the committed rows
themselves, so the log stays the truth; where they do not follow on (a hint lost, a
hint without rows, the hub's rows dropped after a lost connection) the watcher reads
the log as before, as it does after ``wake_all`` and on a timed re-read (a period
with no hint). A version lost can only be the latest: the next hint's rows do not
follow on from it, so only the last hint of a game waits for the timer, as before.

Within one process the hub fans hints out; across replicas on PostgreSQL each
replica LISTENs on a dedicated connection to the NOTIFY that a move's
transaction sends, delivered only if that transaction commits.

A move's transaction sends its NOTIFY only while some replica holds a watch lease
on the game (store/watch_leases.py): a notifying commit takes a server-wide lock,
and many games have no watcher.

A replica LISTENs only while it has watch streams open (and for a while after the
last one closes): PostgreSQL wakes every listening connection for every
notification, whichever replica's move sent it, so a replica serving no watchers
(moves only: bots, robots, tournaments' tables) would otherwise spend CPU on every
move of the whole service, and so would the database, once per such replica.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import structlog

from ..services.ports import LogRecord
from .postgres import NOTIFY_CHANNEL

# How long a replica's own NOTIFY waits before it reaches the hub (``_hint``): the
# move path hints at once, with the rows, unless it was cut off after COMMIT.
OWN_HINT_DELAY_SECONDS = 0.5

# The rows a hub keeps per watched game: a watcher more than this many moves behind
# the latest hint reads the log. Most are one move (or one turn) behind at most.
ROWS_KEPT = 4

log = structlog.get_logger("tranca.notify")


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Signal:
    """One watcher's wake-up: set by a hint, cleared by the watcher before it reads.

    What ``asyncio.Event`` is to a single waiter, in a fraction of its memory, with
    the timed wait built in: an ``Event`` keeps a deque of waiters (over 600 bytes),
    and ``asyncio.wait_for(event.wait(), t)`` runs a task of its own for each wait.
    A replica with 10,000 watch streams holds 10,000 of these (docs/PERFORMANCE.md,
    "Memory per watch stream")."""

    __slots__ = ("_set", "_timer", "_waiter", "reread")

    def __init__(self) -> None:
        self._set = False
        self._waiter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        # Set with the wake-up by ``Hub.wake_all``: hints may have been lost, so the
        # watcher's next read is the log's, whatever rows came since.
        self.reread = False

    def set(self, reread: bool = False) -> None:
        self._set = True
        self.reread = self.reread or reread
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            _wake(waiter)

    def clear(self) -> None:
        self._set = False
        self.reread = False

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float | None = None) -> asyncio.Future[None]:
        """Done once set (at once if it is), or after ``timeout`` seconds: the
        caller reads ``is_set`` if it cares which. One waiter at a time."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        if self._set:
            waiter.set_result(None)
            return waiter
        self.close()
        self._waiter = waiter
        if timeout is not None:
            self._timer = loop.call_later(timeout, _wake, waiter)
        return waiter

    def close(self) -> None:
        """Drop the pending wait's timer (the watcher is gone)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class Hub:
    """In-process fan-out of hints to the watchers of each game."""

    def __init__(self) -> None:
        self._watchers: dict[str, set[Signal]] = {}
        # The latest version hinted for each watched game: a version may be hinted
        # more than once (a quick-play or tournament table's NOTIFY after the
        # matchmaker's own hint; a replica's own NOTIFY, a moment after its move
        # path's), and waking the watchers again for a version they were woken for
        # would have each of them read the log for nothing.
        self._hinted: dict[str, int] = {}
        self._count = 0
        # Set while a PostgresListener LISTENs: hints from other replicas arrive only
        # then. It starts with the first watcher and, once it does, wakes every
        # watcher to re-read the log, so a move committed before the LISTEN took
        # effect is read and any later one hints.
        self.listening = asyncio.Event()
        self.watchers_changed = asyncio.Event()
        # Told when a game gets its first watcher here (True) and loses its last
        # (False): the NATS change feed subscribes and unsubscribes (nats_feed.py).
        self.on_game: Callable[[str, bool], None] | None = None
        # Set by the NATS change feed while it is connected: watchers then re-read
        # the log less often (services/games.py, WATCH_POLL_STEADY_SECONDS).
        self.steady = False
        # The latest committed rows hinted for each watched game, in version order
        # without gaps, ending at its ``_hinted`` version (``rows_after``).
        self._rows: dict[str, tuple[LogRecord, ...]] = {}

    def subscribe(self, game_id: str) -> Subscribed:
        """``with hub.subscribe(game_id) as signal``: the signal is set by every hint
        of the game until the block is left. (A plain object rather than a
        generator-based context manager: one is held by every open watch stream.)"""
        return Subscribed(self, game_id)

    def _add(self, game_id: str, signal: Signal) -> None:
        watchers = self._watchers.get(game_id)
        if watchers is None:
            watchers = self._watchers[game_id] = set()
            if self.on_game is not None:
                self.on_game(game_id, True)
        watchers.add(signal)
        self._count += 1
        if self._count == 1:
            self.watchers_changed.set()

    def _remove(self, game_id: str, signal: Signal) -> None:
        signal.close()
        watchers = self._watchers.get(game_id)
        if watchers is None or signal not in watchers:
            return
        watchers.discard(signal)
        self._count -= 1
        if not watchers:
            del self._watchers[game_id]
            self._hinted.pop(game_id, None)
            self._rows.pop(game_id, None)
            if self.on_game is not None:
                self.on_game(game_id, False)
        if self._count == 0:
            self.watchers_changed.set()

    def publish(
        self, game_id: str, version: int | None = None, rows: Sequence[LogRecord] = ()
    ) -> None:
        """Wake the game's watchers, unless they were already woken for ``version``
        or a later one (a hint without a version always wakes them). ``rows``: the
        rows the commit of ``version`` logged, its last at ``version``."""
        watchers = self._watchers.get(game_id)
        if not watchers:
            return
        if version is not None:
            if version <= self._hinted.get(game_id, -1):
                return
            self._hinted[game_id] = version
            self._keep(game_id, version, rows)
        else:
            self._rows.pop(game_id, None)  # no longer known to end at the latest
        for event in watchers:
            event.set()

    def _keep(self, game_id: str, version: int, rows: Sequence[LogRecord]) -> None:
        if not rows or rows[-1].version != version:
            self._rows.pop(game_id, None)
            return
        kept = self._rows.get(game_id, ())
        if kept and kept[-1].version + 1 == rows[0].version:
            # Follows on: keep the older ones too, for a watcher a hint behind.
            kept = (*kept, *rows)[-max(ROWS_KEPT, len(rows)) :]
        else:
            kept = tuple(rows)
        self._rows[game_id] = kept

    def rows_after(self, game_id: str, version: int) -> Sequence[LogRecord] | None:
        """The committed rows after ``version`` up to the latest version hinted, if
        this hub holds all of them; None otherwise (the caller reads the log)."""
        kept = self._rows.get(game_id)
        if not kept or kept[-1].version != self._hinted.get(game_id):
            return None
        if version >= kept[-1].version:
            return ()  # nothing after it has been hinted
        if kept[0].version > version + 1:
            return None  # some rows before these were not kept (or never came)
        return kept[version + 1 - kept[0].version :]

    def wake_all(self) -> None:
        """After a lost connection: hints may have been missed, so everyone re-reads
        (the log: the rows kept may no longer end at the latest version)."""
        self._rows.clear()
        for watchers in self._watchers.values():
            for event in watchers:
                event.set(reread=True)

    @property
    def open_watches(self) -> int:
        return self._count

    @property
    def open_games(self) -> int:
        return len(self._watchers)

    def watched_games(self) -> set[str]:
        """The games with at least one watcher in this process."""
        return set(self._watchers)


class Subscribed:
    """A watcher's place in the hub, as a context manager (``Hub.subscribe``)."""

    __slots__ = ("_game_id", "_hub", "_signal")

    def __init__(self, hub: Hub, game_id: str) -> None:
        self._hub = hub
        self._game_id = game_id
        self._signal = Signal()

    def __enter__(self) -> Signal:
        self._hub._add(self._game_id, self._signal)
        return self._signal

    def __exit__(self, *_exc: object) -> None:
        self._hub._remove(self._game_id, self._signal)


class PostgresListener:
    """A dedicated asyncpg connection, reconnecting with a liveness check, that
    LISTENs on the hint channel while the hub has watchers (and for ``linger``
    seconds after the last one leaves, so that watch streams opening and closing
    do not turn it on and off each time); every hint goes to the hub."""

    PING_SECONDS = 5.0

    def __init__(
        self,
        dsn: str,
        hub: Hub,
        on_state: Callable[[bool], None] | None = None,
        linger: float = 30.0,
        origin: str = "",
    ) -> None:
        self.dsn = dsn
        self.hub = hub
        # This replica's name in its own moves' hints (``PostgresMovePath.origin``):
        # skipped, since the move path hinted this hub at the commit, with the rows.
        self.origin = origin
        self.linger = linger
        self._on_state = on_state
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="pg-listener")

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def _hint(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        game_id, _, rest = payload.partition(":")
        version, _, origin = rest.partition(":")
        hinted = int(version) if version.isdigit() else None
        if origin and origin == self.origin and hinted is not None:
            # This replica's own move: its move path hinted the hub at the commit,
            # with the rows. Only if that never happened (the call cut off after
            # COMMIT) does this wake the watchers, a moment later, to read the log;
            # otherwise the hub has the version already and it does nothing.
            asyncio.get_running_loop().call_later(
                OWN_HINT_DELAY_SECONDS, self.hub.publish, game_id, hinted
            )
            return
        self.hub.publish(game_id, hinted)

    async def _run(self) -> None:
        import asyncpg

        delay = 0.2
        while not self._stopping.is_set():
            conn = None
            try:
                conn = await asyncpg.connect(self.dsn, timeout=5)
                delay = 0.2
                if self._on_state:
                    self._on_state(True)
                await self._serve(conn)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure: reconnect
                if self._on_state:
                    self._on_state(False)
                log.warning("listener_lost", error=str(exc))
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
            finally:
                self.hub.listening.clear()
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close(timeout=2)

    async def _serve(self, conn: Any) -> None:
        """LISTEN while there are watchers (UNLISTEN after ``linger`` without any),
        checking the connection every ``PING_SECONDS``."""
        loop = asyncio.get_running_loop()
        hub = self.hub
        idle_since: float | None = None
        next_ping = loop.time() + self.PING_SECONDS
        while not self._stopping.is_set():
            hub.watchers_changed.clear()
            now = loop.time()
            if hub.open_watches:
                idle_since = None
                if not hub.listening.is_set():
                    await conn.add_listener(NOTIFY_CHANNEL, self._hint)
                    hub.listening.set()
                    hub.wake_all()  # anything sent before is in the log: re-read it
            elif hub.listening.is_set():
                idle_since = now if idle_since is None else idle_since
                if now - idle_since >= self.linger:
                    await conn.remove_listener(NOTIFY_CHANNEL, self._hint)
                    hub.listening.clear()
                    idle_since = None
            if now >= next_ping:
                await conn.fetchval("SELECT 1", timeout=5)  # liveness
                next_ping = now + self.PING_SECONDS
            wake = next_ping
            if idle_since is not None:
                wake = min(wake, idle_since + self.linger)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(hub.watchers_changed.wait(), max(0.0, wake - now))
