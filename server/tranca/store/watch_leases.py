"""Watch leases: each replica tells the database which games it has watch streams
open on, so that only those games' moves send a hint (store/direct.py,
``PG_WRITE_MOVE_SQL``).

Why: on PostgreSQL a hint is a NOTIFY, and every notifying commit takes one lock
shared by the whole server, every database's notifying commits included (in
PostgreSQL's async.c, ``PreCommit_Notify``: a heavyweight lock on "database 0",
which keeps the notification queue in commit order), and holds it through its WAL
flush, so notifying commits run one at a time. Sent with every move, it cost about
an eighth of the move throughput on a 2-core machine (docs/PERFORMANCE.md), and
most games have nobody watching them.

A lease runs ``LEASE_SECONDS`` on the database's clock (``games.watched_until``) and
is renewed every ``RENEW_SECONDS`` while the replica still has a watcher of the game;
a replica that stops, or crashes, lets its leases run out. A watch stream takes its
lease before it first reads the log, so a move either sees the lease and hints, or
committed before it and is read (the argument is at ``PG_WRITE_MOVE_SQL``). Should a
lease lapse all the same (the database out of reach at renewal time), the watchers
still catch up on their timer: hints make updates prompt, the log makes them
complete.

On SQLite no hint crosses processes, and there is nothing to lease.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import structlog

from .notify import Hub
from .repository import Store

log = structlog.get_logger("tranca.watch_leases")

LEASE_SECONDS = 60.0
RENEW_SECONDS = 20.0
# Games per renewing statement: a replica with very many watched games renews them
# in bounded statements rather than one that locks them all at once.
RENEW_BATCH = 1000


class WatchLeases:
    """This replica's leases, renewed for as long as the hub has watchers."""

    def __init__(self, store: Store, hub: Hub, clock: Callable[[], float] = time.monotonic) -> None:
        self._store = store
        self._hub = hub
        self._clock = clock
        self.enabled = store.is_postgres
        # Game id -> when this replica's lease on it ends at the latest, on the local
        # clock: the time the lease was asked for plus its length, which the database's
        # own clock (read after the request was sent) can only extend.
        self._held: dict[str, float] = {}

    def held_until(self, game_id: str) -> float | None:
        return self._held.get(game_id)

    async def hold(self, game_id: str) -> None:
        """A lease on ``game_id``, committed before this returns (a watch stream calls
        it before it first reads the log), unless this replica already holds one with
        more than half of its time left."""
        if not self.enabled:
            return
        if self._held.get(game_id, float("-inf")) - self._clock() > LEASE_SECONDS / 2:
            return
        asked = self._clock()
        await self._store.lease_watches([game_id], LEASE_SECONDS)
        self._held[game_id] = max(self._held.get(game_id, asked), asked + LEASE_SECONDS)

    async def renew(self) -> None:
        """Every game with a watcher here leased again; the others forgotten (their
        leases run out on their own)."""
        watched = self._hub.watched_games()
        for game_id in [g for g in self._held if g not in watched]:
            del self._held[game_id]
        games = sorted(watched)
        for start in range(0, len(games), RENEW_BATCH):
            batch = games[start : start + RENEW_BATCH]
            asked = self._clock()
            await self._store.lease_watches(batch, LEASE_SECONDS)
            for game_id in batch:
                self._held[game_id] = asked + LEASE_SECONDS

    async def renew_forever(self, interval: float = RENEW_SECONDS) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await self.renew()
            except Exception as exc:  # the database out of reach: try again next time
                log.warning("watch_leases_not_renewed", games=self._hub.open_games, error=str(exc))
