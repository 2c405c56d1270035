"""Watch leases: each replica tells the database which games it has watch streams
open on, so that only those games' moves send a hint (store/move_path.py,
``PG_WRITE_MOVE_SQL``).

Why: on PostgreSQL a hint is a NOTIFY, and every notifying commit takes one lock
shared by the whole server, every database's notifying commits included (in
PostgreSQL's async.c, ``PreCommit_Notify``: a heavyweight lock on "database 0",
which keeps the notification queue in commit order), and holds it through its WAL
flush, so notifying commits run one at a time. Sent with every move, it cost about
an eighth of the move throughput on a 2-core machine (docs/PERFORMANCE.md), and
many games are played with nobody watching (bots playing from SubmitMove's
answers, robots, load tests). A game whose players keep a watch open still
notifies on every move.

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
from typing import Protocol

import structlog

from .hints import Hub

log = structlog.get_logger("tranca.watch_leases")

LEASE_SECONDS = 60.0
RENEW_SECONDS = 20.0
# Games per renewing statement: a replica with very many watched games renews them
# in short statements rather than one that locks them all at once (a move of a game
# waits for the statement that locks its row, and the sweeper skips locked games).
RENEW_BATCH = 100


class LeaseStore(Protocol):
    """What the leases need of the store (repository.Store; a stand-in in the tests)."""

    is_postgres: bool

    async def lease_watches(self, game_ids: list[str], seconds: float) -> None: ...


class WatchLeases:
    """This replica's leases, renewed for as long as the hub has watchers."""

    def __init__(
        self, store: LeaseStore, hub: Hub, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._store = store
        self._hub = hub
        self._clock = clock
        self.enabled = store.is_postgres
        # Game id -> when this replica's lease on it ends at the latest, on the local
        # clock: the time the lease was asked for plus its length, which the database's
        # own clock (read after the request was sent) can only extend.
        self._held: dict[str, float] = {}
        # Leases being written: watchers opening at once on one game (a reconnection
        # after a replica restarts, a crowd of spectators) wait for one write rather
        # than each writing the same row in turn.
        self._writing: dict[str, asyncio.Future[None]] = {}

    def held_until(self, game_id: str) -> float | None:
        return self._held.get(game_id)

    async def hold(self, game_id: str) -> None:
        """A lease on ``game_id``, committed before this returns (a watch stream calls
        it before it first reads the log), unless this replica already holds one with
        more than half of its time left.

        Best effort: if the lease cannot be written, the watch goes on without it
        (its watchers then catch up on their timer, as after a lost hint) rather
        than fail for want of something that only makes it prompt."""
        if not self.enabled:
            return
        if self._held.get(game_id, float("-inf")) - self._clock() > LEASE_SECONDS / 2:
            return
        writing = self._writing.get(game_id)
        if writing is None:
            writing = asyncio.ensure_future(self._write(game_id))
            self._writing[game_id] = writing
            writing.add_done_callback(lambda _: self._writing.pop(game_id, None))
        try:
            # Shielded: a watcher that goes away does not cut short the write the
            # others are waiting for.
            await asyncio.shield(writing)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("watch_lease_not_taken", game_id=game_id, error=str(exc))

    async def _write(self, game_id: str) -> None:
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
