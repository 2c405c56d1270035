"""Tournaments in the database: their configuration and events, and the games of
their tables, read and written for the use cases of ``services/tournaments.py``
(``TournamentStore`` is its ``TournamentRepository``, ``TournamentTransaction`` its
``TournamentResults`` inside the settlement's transaction). What a tournament is,
how it is rebuilt from its events and what a change appends are decided there and in
``platform/tournament_events.py``; this module only stores and loads.

A tournament row holds what it was created with (``config``, JSON), every change
since (``events``, a JSON list, oldest first) and the standings that change left
(``standings``, JSON, written in the change's transaction: a read shows them as
stored and computes nothing). A large row's JSON is decoded and encoded in a worker
thread (a thousand-entrant event's events are half a megabyte), a small one's here
(``compute.off_loop_if_large``: 30 kB, a 64-entrant event's, take 0.1 ms). Every
change is a compare-and-swap on ``tournaments.version`` (``UPDATE ... WHERE version
= :read``), so two concurrent changes never both apply to the same version: the
loser's write finds nothing to update, and the use case re-reads and sees the
other's.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.tournament_events import RUNNING, Event, TournamentConfig
from ..platform.tournaments import Standing
from ..services.compute import off_loop_if_large
from ..services.moves import now_ms
from ..services.ports import SeatToken
from ..services.tournaments import (
    GamesByTable,
    TableGame,
    TableOfGame,
    TournamentQuery,
    TournamentRow,
    TournamentSummary,
    Written,
)
from . import ledger
from .codec import dumps, loads
from .models import Game, TournamentGame, TournamentRecord
from .notifications_store import write_events
from .repository import Store

__all__ = ["TournamentStore", "TournamentTransaction"]

# The bound of a round's transaction, per table (the store's own timeout at least).
ROUND_WRITE_SECONDS_PER_TABLE = 0.05


def _decode(r: Any) -> TournamentRow:
    standings = None if r.standings is None else [Standing.from_dict(s) for s in loads(r.standings)]
    return TournamentRow(
        r.id,
        r.app_id,
        r.name,
        int(r.version),
        TournamentConfig.from_dict(loads(r.config)),
        list(loads(r.events)),
        standings,
        str(r.status),
    )


async def _row(r: Any) -> TournamentRow:
    return await off_loop_if_large(len(r.events) // 1024, _decode, r)


def _summaries(rows: Sequence[Any]) -> list[TournamentSummary]:
    out = []
    for r in rows:
        config = loads(r.config)
        out.append(
            TournamentSummary(
                str(r.id),
                str(r.name),
                str(r.status),
                str(r.format or config.get("format", "")),
                str(r.preset or config.get("rules", {}).get("name", "")),
                int(r.start_at or 0),
                int(r.entrants if r.entrants is not None else len(config.get("entrants", ()))),
                bool(config.get("registration", False)),
                int(config.get("max_entrants") or 0),
                int((config.get("prizes") or {}).get("entry_fee") or 0),
            )
        )
    return out


def _encode(events: list[Event], standings: Sequence[Standing]) -> tuple[str, str]:
    return dumps(events), dumps([s.to_dict() for s in standings])


async def _swap(
    conn: AsyncConnection, row: TournamentRow, events: list[Event], written: Written
) -> bool:
    """The compare-and-swap of every change: written only if nobody changed the
    tournament since ``row`` was read, with what the change left (``written``: its
    status, standings, when a sweeper is next due, entrants in)."""
    events_text, standings_text = await off_loop_if_large(
        len(events), _encode, events, written.standings
    )
    done = await conn.execute(
        update(TournamentRecord)
        .where(TournamentRecord.id == row.id, TournamentRecord.version == row.version)
        .values(
            version=row.version + 1,
            status=written.status,
            events=events_text,
            standings=standings_text,
            due_at=written.due_at,
            entrants=written.entrants,
        )
    )
    if done.rowcount != 1:
        return False
    # The prize pool's fees, refunds and prizes: with the change, or (an entry fee a
    # player cannot cover raising) not at all.
    await ledger.tournament(conn, row.app_id, row.id, row.version + 1, written.chips)
    # What the players are told: with the change, in its transaction, or not at all.
    await write_events(conn, row.app_id, written.notices, now_ms())
    return True


class TournamentStore:
    """The tournaments of one database (``services.tournaments.TournamentRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def create_tournament(
        self, app_id: str, name: str, config: TournamentConfig, written: Written
    ) -> str:
        tournament_id = uuid.uuid4().hex
        async with self.store.writing() as conn:
            await conn.execute(
                insert(TournamentRecord).values(
                    id=tournament_id,
                    app_id=app_id,
                    name=name,
                    status=written.status,
                    version=0,
                    config=dumps(config.to_dict()),
                    events="[]",
                    standings=dumps([st.to_dict() for st in written.standings]),
                    due_at=written.due_at,
                    entrants=written.entrants,
                    preset=str(config.rules.get("name", ""))[:64],
                    format=config.format.value,
                    start_at=config.start_at,
                )
            )
            # The entry fees of the entrants given at creation, in its transaction.
            await ledger.tournament(conn, app_id, tournament_id, 0, written.chips)
        return tournament_id

    async def load_tournament(self, tournament_id: str, app_id: str) -> TournamentRow | None:
        """The app's tournament; None for an unknown id or another app's tournament."""
        q = select(TournamentRecord).where(
            TournamentRecord.id == tournament_id, TournamentRecord.app_id == app_id
        )
        async with self.store.reading() as conn:
            r = (await conn.execute(q)).first()
        return None if r is None else await _row(r)

    async def tournament_version(self, tournament_id: str, app_id: str) -> int | None:
        """The app's tournament's version (what its next change will swap); None for
        an unknown id or another app's tournament. One integer read: a reader that
        holds the tournament as of that version needs nothing else."""
        q = select(TournamentRecord.version).where(
            TournamentRecord.id == tournament_id, TournamentRecord.app_id == app_id
        )
        async with self.store.reading() as conn:
            version = (await conn.execute(q)).scalar_one_or_none()
        return None if version is None else int(version)

    async def table_games(self, tournament_id: str) -> GamesByTable:
        """The game of every table created so far, by (round, table)."""
        q = select(TournamentGame.round, TournamentGame.table_no, TournamentGame.game_id).where(
            TournamentGame.tournament_id == tournament_id
        )
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return {(int(r.round), int(r.table_no)): str(r.game_id) for r in rows}

    async def game_statuses(self, game_ids: Sequence[str]) -> dict[str, str]:
        if not game_ids:
            return {}
        q = select(Game.id, Game.status).where(Game.id.in_(list(game_ids)))
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return {str(r.id): str(r.status) for r in rows}

    async def add_seat_tokens(self, tokens: Sequence[tuple[str, SeatToken]]) -> None:
        """More tokens for seats already taken (``(game_id, token)`` pairs): a StartRound
        retry's, for an organiser whose first answer was lost. The seat's earlier tokens
        stay valid; a seat's revocation (``revoke_seat``) revokes them all."""
        await self.store.add_tokens(tokens)

    async def count_running(self) -> int:
        """Tournaments running now (every app's): the tranca_tournaments_running gauge."""
        q = (
            select(func.count())
            .select_from(TournamentRecord)
            .where(TournamentRecord.status == RUNNING)
        )
        async with self.store.reading() as conn:
            return int((await conn.execute(q)).scalar_one())

    async def append_events(self, row: TournamentRow, new: list[Event], written: Written) -> bool:
        """Append events to the tournament as ``row`` read it, with what they leave;
        False if it changed since."""
        async with self.store.writing() as conn:
            return await _swap(conn, row, [*row.events, *new], written)

    async def list_tournaments(
        self, app_id: str, query: TournamentQuery, offset: int, limit: int
    ) -> list[TournamentSummary]:
        """The app's tournaments matching ``query``, by start time then creation."""
        T = TournamentRecord
        q = select(T.id, T.name, T.status, T.format, T.preset, T.start_at, T.entrants, T.config)
        q = q.where(T.app_id == app_id)
        if query.status:
            q = q.where(T.status == query.status)
        if query.preset:
            q = q.where(T.preset == query.preset)
        if query.starts_after:
            q = q.where(T.start_at >= query.starts_after)
        if query.starts_before:
            q = q.where(T.start_at < query.starts_before, T.start_at > 0)
        q = q.order_by(T.start_at, T.created_at, T.id).offset(offset).limit(limit)
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return await asyncio.to_thread(_summaries, rows)

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[tuple[str, str]]:
        """The scheduled tournaments due by ``now`` (``(id, app_id)``, oldest due
        first), each claimed by moving its ``due_at`` to ``now + lease_ms`` with a
        compare-and-swap on the ``due_at`` read: of two replicas sweeping at once
        exactly one claims each. A replica that dies holding a claim loses it when
        the lease runs out."""
        q = (
            select(TournamentRecord.id, TournamentRecord.app_id, TournamentRecord.due_at)
            .where(TournamentRecord.due_at <= now)
            .order_by(TournamentRecord.due_at)
            .limit(limit)
        )
        async with self.store.reading() as conn:
            due = (await conn.execute(q)).all()
        claimed: list[tuple[str, str]] = []
        for r in due:
            async with self.store.writing() as conn:
                done = await conn.execute(
                    update(TournamentRecord)
                    .where(TournamentRecord.id == r.id, TournamentRecord.due_at == r.due_at)
                    .values(due_at=now + lease_ms)
                )
            if done.rowcount == 1:
                claimed.append((str(r.id), str(r.app_id)))
        return claimed

    async def set_due(self, row: TournamentRow, due_at: int | None) -> bool:
        """When the tournament is next due, if it is still at ``row``'s version (a
        claim that found nothing to do yet, or was beaten to it); False otherwise (the
        change that moved it wrote its own)."""
        async with self.store.writing() as conn:
            done = await conn.execute(
                update(TournamentRecord)
                .where(TournamentRecord.id == row.id, TournamentRecord.version == row.version)
                .values(due_at=due_at)
            )
        return done.rowcount == 1

    async def write_round(
        self,
        row: TournamentRow,
        new: list[Event],
        games: Sequence[TableGame],
        written: Written,
    ) -> bool:
        """The pairing of a round and all its games with their seats taken, in one
        transaction: a crash leaves either the whole round or nothing, and of two
        concurrent StartRounds exactly one writes (the other's swap fails first and it
        writes nothing). False if the tournament changed since ``row`` was read.

        Each game is written as ``Store.create_game`` writes a game, then each join
        as ``Store.commit`` writes a change (the games row at the next version, the
        log row, the seat's token: the database's one write of a change), only all in
        one transaction; the use case starts them afterwards (``Matches.start``)."""
        store = self.store
        # Four statements a table (the game, its two or four joins, its link): a
        # 512-table round is thousands, longer than one call's usual bound.
        async with store.writing(ROUND_WRITE_SECONDS_PER_TABLE * len(games)) as conn:
            # The swap first: on PostgreSQL it locks the tournament's row, so a
            # concurrent StartRound waits here and then finds the version moved on.
            if not await _swap(conn, row, [*row.events, *new], written):
                return False
            for g in games:
                await store.sql.insert_game_in(conn, store.game_insert(g.new))
                for join in g.joins:
                    if await store.sql.run_change(conn, store.move_write(join)) is None:
                        raise RuntimeError(f"game {g.game_id} changed while it was written")
                await conn.execute(
                    insert(TournamentGame).values(
                        game_id=g.game_id,
                        tournament_id=row.id,
                        round=g.round_no,
                        table_no=g.table_no,
                    )
                )
        return True


class TournamentTransaction:
    """A game's tournament table inside the caller's transaction (the settlement's):
    ``services.tournaments.TournamentResults`` on ``conn``."""

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn
        # The table of a game as this transaction read it (the settlement asks twice:
        # whether a forfeit decided it, then to record its result); a change drops it.
        self._tables: dict[str, TableOfGame | None] = {}

    async def table_of_game(self, game_id: str) -> TableOfGame | None:
        """The tournament table ``game_id`` is played at, its tournament's row read
        and, on PostgreSQL, locked until the transaction ends: any other change of the
        tournament waits, so that this transaction's swap cannot lose (a settlement is
        not retried lightly). On SQLite the transaction holds the database's write
        lock."""
        if game_id in self._tables:
            return self._tables[game_id]
        conn = self.conn
        link = (
            await conn.execute(
                select(
                    TournamentGame.tournament_id, TournamentGame.round, TournamentGame.table_no
                ).where(TournamentGame.game_id == game_id)
            )
        ).first()
        if link is None:
            return None
        q = select(TournamentRecord).where(TournamentRecord.id == link.tournament_id)
        if conn.dialect.name == "postgresql":
            q = q.with_for_update()
        r = (await conn.execute(q)).first()
        if r is None:
            return None
        found = TableOfGame(await _row(r), int(link.round), int(link.table_no))
        self._tables[game_id] = found
        return found

    async def append_events(self, row: TournamentRow, new: list[Event], written: Written) -> bool:
        """Append events to the tournament as ``row`` read it, with what they leave,
        in this transaction; False if it changed since."""
        self._tables.clear()
        return await _swap(self.conn, row, [*row.events, *new], written)
