"""Hints that a game changed, for watch streams: "game g is at version v".

A hint only wakes watchers; the move log stays the truth, so a watcher that
misses a hint catches up from the log at its next wake (watchers also wake on a
timer). Within one process the hub fans hints out; across replicas on PostgreSQL
each replica LISTENs on a dedicated connection to the NOTIFY that every move's
transaction sends, delivered only if that transaction commits.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator

import structlog

from .repository import NOTIFY_CHANNEL

log = structlog.get_logger("tranca.notify")


class Hub:
    """In-process fan-out of hints to the watchers of each game."""

    def __init__(self) -> None:
        self._watchers: dict[str, set[asyncio.Event]] = {}

    @contextlib.contextmanager
    def subscribe(self, game_id: str) -> Iterator[asyncio.Event]:
        event = asyncio.Event()
        self._watchers.setdefault(game_id, set()).add(event)
        try:
            yield event
        finally:
            watchers = self._watchers.get(game_id)
            if watchers is not None:
                watchers.discard(event)
                if not watchers:
                    del self._watchers[game_id]

    def publish(self, game_id: str, version: int | None = None) -> None:
        for event in self._watchers.get(game_id, ()):
            event.set()

    def wake_all(self) -> None:
        """After a lost connection: hints may have been missed, so everyone re-reads."""
        for watchers in self._watchers.values():
            for event in watchers:
                event.set()

    @property
    def open_watches(self) -> int:
        return sum(len(w) for w in self._watchers.values())


class PostgresListener:
    """LISTEN on the hint channel on a dedicated asyncpg connection, reconnecting
    with a liveness check; every hint goes to the hub."""

    def __init__(self, dsn: str, hub: Hub, on_state: Callable[[bool], None] | None = None) -> None:
        self.dsn = dsn
        self.hub = hub
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
        game_id, _, version = payload.partition(":")
        self.hub.publish(game_id, int(version) if version.isdigit() else None)

    async def _run(self) -> None:
        import asyncpg

        delay = 0.2
        while not self._stopping.is_set():
            conn = None
            try:
                conn = await asyncpg.connect(self.dsn, timeout=5)
                await conn.add_listener(NOTIFY_CHANNEL, self._hint)
                delay = 0.2
                if self._on_state:
                    self._on_state(True)
                self.hub.wake_all()  # anything sent while we were away is in the log
                while not self._stopping.is_set():
                    await asyncio.sleep(5)
                    await conn.fetchval("SELECT 1", timeout=5)  # liveness
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure: reconnect
                if self._on_state:
                    self._on_state(False)
                log.warning("listener_lost", error=str(exc))
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close(timeout=2)
