"""Quick play's tickets in the database (``services.quick_play.TicketRepository``):
what a ticket asks for, the one waiting ticket of each player, every ticket of each
player (newest first, for listing), and the write of a table the matchmaker made:
its tickets locked (PostgreSQL: ``FOR UPDATE SKIP LOCKED``) and still waiting, its
game, joins, first deal and stake, and its tickets matched, in one short
transaction. Which tables the tickets make is decided in ``services/quick_play.py``
and ``platform/matchmaking.py``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform import ratings
from ..services.ports import GameRecord, SeatToken
from ..services.quick_play import (
    AlreadyWaiting,
    PlannedTable,
    TicketRecord,
    TicketStatus,
)
from ..table.events import Event
from . import ledger
from .codec import dumps, loads
from .database import insert_ignoring_duplicates
from .models import MatchTicket, PlayerRating, PlayerTicket, TicketPlayer
from .notifications_store import write_events
from .repository import Store

__all__ = ["QuickPlayStore"]

EXPIRED = "EXPIRED"
# Attempts at writing a new ticket when another ticket of its players is written at
# the same instant and ends at once (see ``add_ticket``).
ADD_ATTEMPTS = 3
# The tickets that have not ended: a party forming, or waiting for a table.
OPEN = (TicketStatus.FORMING, TicketStatus.WAITING)


def _row(ticket: TicketRecord) -> dict[str, Any]:
    return {
        "id": ticket.id,
        "app_id": ticket.app_id,
        "player_ids": dumps(list(ticket.player_ids)),
        "display_names": dumps(list(ticket.display_names)),
        "preset": ticket.preset,
        "players": ticket.players,
        "competitive": ticket.competitive,
        "stake": ticket.stake,
        "rating": ticket.rating,
        "robots_after_ms": ticket.robots_after_ms,
        "turn_seconds": ticket.turn_seconds,
        "status": ticket.status.value,
        "reason": "",
        "created_ms": ticket.created_ms,
        "request_id": ticket.request_id,
    }


class _WaitedElsewhere(Exception):
    """A player's key was taken by a ticket that ended before its id was read."""


def _ticket(r: Any) -> TicketRecord:
    return TicketRecord(
        id=r.id,
        app_id=r.app_id,
        player_ids=tuple(loads(r.player_ids)),
        display_names=tuple(loads(r.display_names)),
        preset=r.preset,
        players=int(r.players),
        competitive=bool(r.competitive),
        stake=int(r.stake),
        rating=float(r.rating),
        robots_after_ms=int(r.robots_after_ms),
        turn_seconds=int(r.turn_seconds),
        status=TicketStatus(r.status),
        reason=r.reason,
        created_ms=int(r.created_ms),
        ended_ms=None if r.ended_ms is None else int(r.ended_ms),
        game_id=r.game_id,
        seats=tuple(loads(r.seats)) if r.seats else (),
        request_id=r.request_id,
    )


async def _stop_waiting(conn: AsyncConnection, ticket_ids: Sequence[str]) -> None:
    await conn.execute(delete(TicketPlayer).where(TicketPlayer.ticket_id.in_(list(ticket_ids))))


class QuickPlayStore:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def _by_request(self, app_id: str, request_id: str | None) -> TicketRecord | None:
        if request_id is None:
            return None
        async with self.store.reading() as conn:
            return await self._by_request_in(conn, app_id, request_id)

    @staticmethod
    async def _by_request_in(
        conn: AsyncConnection, app_id: str, request_id: str | None
    ) -> TicketRecord | None:
        q = select(MatchTicket).where(
            MatchTicket.app_id == app_id, MatchTicket.request_id == request_id
        )
        row = (await conn.execute(q)).first()
        return None if row is None else _ticket(row)

    async def _waiting_in(self, app_id: str, player_ids: Sequence[str]) -> tuple[str, str] | None:
        """One of the players waiting, and the ticket it waits in; None if none."""
        q = select(TicketPlayer.player_id, TicketPlayer.ticket_id).where(
            TicketPlayer.app_id == app_id, TicketPlayer.player_id.in_(list(player_ids))
        )
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else (str(row.player_id), str(row.ticket_id))

    async def add_ticket(self, ticket: TicketRecord, events: Sequence[Event] = ()) -> TicketRecord:
        first = await self._by_request(ticket.app_id, ticket.request_id)
        if first is not None:  # a plain read: most retries end here
            return first
        for _ in range(ADD_ATTEMPTS):
            try:
                return await self._add_ticket(ticket, events)
            except _WaitedElsewhere:
                # Another ticket of one of its players, written at the same instant,
                # took the player's key, and had ended (matched, cancelled) by the
                # time its id was read: try again.
                continue
        raise AlreadyWaiting(ticket.player_ids[0], None)

    async def _add_ticket(self, ticket: TicketRecord, events: Sequence[Event]) -> TicketRecord:
        """One attempt: the ticket's row first, so that the request id's key decides
        between two calls sent at once, then the players' keys. ``_WaitedElsewhere``:
        a player's key was taken by a ticket that has ended since."""
        try:
            async with self.store.writing() as conn:
                written = await conn.execute(
                    insert_ignoring_duplicates(conn, MatchTicket).values(**_row(ticket))
                )
                if written.rowcount == 0:
                    # The same request, asked through another call at the same time:
                    # PostgreSQL's insert waited for that call's transaction and found
                    # its row committed (SQLite's writers take turns); this call
                    # answers with that ticket and writes nothing.
                    first = await self._by_request_in(conn, ticket.app_id, ticket.request_id)
                    if first is None:  # the id's key, not the request's: cannot be
                        raise RuntimeError(f"ticket id {ticket.id} taken")
                    return first
                waiting = (
                    await conn.execute(
                        select(TicketPlayer.player_id, TicketPlayer.ticket_id).where(
                            TicketPlayer.app_id == ticket.app_id,
                            TicketPlayer.player_id.in_(list(ticket.player_ids)),
                        )
                    )
                ).first()
                if waiting is not None:
                    raise AlreadyWaiting(str(waiting.player_id), str(waiting.ticket_id))
                await conn.execute(
                    insert(TicketPlayer),
                    [
                        {"app_id": ticket.app_id, "player_id": p, "ticket_id": ticket.id}
                        for p in ticket.player_ids
                    ],
                )
                await conn.execute(
                    insert(PlayerTicket),
                    [
                        {
                            "app_id": ticket.app_id,
                            "player_id": p,
                            "ticket_id": ticket.id,
                            "created_ms": ticket.created_ms,
                        }
                        for p in ticket.player_ids
                    ],
                )
                await write_events(conn, ticket.app_id, events, ticket.created_ms)
        except IntegrityError:
            # Another ticket of one of the players, written at the same instant by
            # another call: the players' key let that one in.
            held = await self._waiting_in(ticket.app_id, ticket.player_ids)
            if held is None:
                raise _WaitedElsewhere from None
            raise AlreadyWaiting(*held) from None
        return ticket

    async def ticket(self, app_id: str, ticket_id: str) -> TicketRecord | None:
        q = select(MatchTicket).where(MatchTicket.id == ticket_id, MatchTicket.app_id == app_id)
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else _ticket(row)

    async def join_party(
        self, ticket_id: str, partner: int, name: str, now: int
    ) -> TicketRecord | None:
        async with self.store.writing() as conn:
            row = (
                await conn.execute(
                    select(MatchTicket.display_names).where(
                        MatchTicket.id == ticket_id, MatchTicket.status == TicketStatus.FORMING
                    )
                )
            ).first()
            if row is None:
                return None
            names = list(loads(row.display_names))
            names[partner] = name or names[partner]
            done = await conn.execute(
                update(MatchTicket)
                .where(MatchTicket.id == ticket_id, MatchTicket.status == TicketStatus.FORMING)
                .values(status=TicketStatus.WAITING, display_names=dumps(names), created_ms=now)
            )
            if done.rowcount != 1:
                return None
            await conn.execute(
                update(PlayerTicket)
                .where(PlayerTicket.ticket_id == ticket_id)
                .values(created_ms=now)
            )
            found = (
                await conn.execute(select(MatchTicket).where(MatchTicket.id == ticket_id))
            ).first()
        return None if found is None else _ticket(found)

    async def end_ticket(self, ticket_id: str, reason: str, now: int) -> TicketRecord | None:
        async with self.store.writing() as conn:
            # On PostgreSQL the update waits for a pass holding the ticket: then it
            # finds the ticket matched and changes nothing.
            done = await conn.execute(
                update(MatchTicket)
                .where(MatchTicket.id == ticket_id, MatchTicket.status.in_(OPEN))
                .values(status=TicketStatus.CANCELLED, reason=reason, ended_ms=now)
            )
            if done.rowcount:
                await _stop_waiting(conn, [ticket_id])
            row = (
                await conn.execute(select(MatchTicket).where(MatchTicket.id == ticket_id))
            ).first()
        return None if row is None else _ticket(row)

    async def player_tickets(
        self, app_id: str, player_id: str, before: tuple[int, str] | None, limit: int
    ) -> list[TicketRecord]:
        q = (
            select(MatchTicket)
            .join(PlayerTicket, PlayerTicket.ticket_id == MatchTicket.id)
            .where(PlayerTicket.app_id == app_id, PlayerTicket.player_id == player_id)
            .order_by(PlayerTicket.created_ms.desc(), PlayerTicket.ticket_id.desc())
            .limit(limit)
        )
        if before is not None:
            created, ticket_id = before
            q = q.where(
                or_(
                    PlayerTicket.created_ms < created,
                    and_(PlayerTicket.created_ms == created, PlayerTicket.ticket_id < ticket_id),
                )
            )
        async with self.store.reading() as conn:
            return [_ticket(r) for r in (await conn.execute(q)).all()]

    async def waiting_tickets(self, limit: int) -> list[TicketRecord]:
        q = (
            select(MatchTicket)
            .where(MatchTicket.status == TicketStatus.WAITING)
            .order_by(MatchTicket.created_ms, MatchTicket.id)
            .limit(limit)
        )
        async with self.store.reading() as conn:
            return [_ticket(r) for r in (await conn.execute(q)).all()]

    async def write_table(self, table: PlannedTable, now: int) -> bool:
        store = self.store
        ticket_ids = sorted(table.seats)
        async with store.writing() as conn:
            q = select(MatchTicket.id).where(
                MatchTicket.id.in_(ticket_ids), MatchTicket.status == TicketStatus.WAITING
            )
            if store.is_postgres:
                # A ticket another pass is writing (or a cancel is ending) right now
                # is skipped, not waited for: then this table is not made here.
                q = q.with_for_update(skip_locked=True)
            held = {r.id for r in (await conn.execute(q)).all()}
            if held != set(ticket_ids):
                return False
            await self._write_table(conn, table, now)
        return True

    async def expire_tickets(self, before: int, now: int) -> int:
        # A plain read first: most passes find nothing to expire, and need not take
        # a write transaction (SQLite's one writer) for it.
        async with self.store.reading() as conn:
            stale = (
                await conn.execute(
                    select(MatchTicket.id)
                    .where(MatchTicket.status.in_(OPEN), MatchTicket.created_ms < before)
                    .limit(1)
                )
            ).first()
        if stale is None:
            return 0
        async with self.store.writing() as conn:
            q = select(MatchTicket.id).where(
                MatchTicket.status.in_(OPEN), MatchTicket.created_ms < before
            )
            if self.store.is_postgres:
                q = q.with_for_update(skip_locked=True)
            expired = [r.id for r in (await conn.execute(q)).all()]
            if expired:
                await conn.execute(
                    update(MatchTicket)
                    .where(MatchTicket.id.in_(expired))
                    .values(status=TicketStatus.CANCELLED, reason=EXPIRED, ended_ms=now)
                )
                await _stop_waiting(conn, expired)
        return len(expired)

    async def _write_table(self, conn: AsyncConnection, table: PlannedTable, now: int) -> None:
        """A table's game, joins and start (the same writes as ``Store.commit``'s), its
        stake (``chips.InsufficientChips`` undoes the transaction), and its tickets
        matched, in the caller's transaction."""
        store = self.store
        game_id = table.new.game_id
        await store.sql.insert_game_in(conn, store.game_insert(table.new))
        for change in table.changes:
            if await store.sql.run_change(conn, store.move_write(change)) is None:
                raise RuntimeError(f"game {game_id} changed while it was written")
        if table.stake is not None:
            s = table.stake
            await ledger.stake(conn, s.app_id, game_id, list(s.player_ids), s.amount)
        for ticket_id, seats in table.seats.items():
            await conn.execute(
                update(MatchTicket)
                .where(MatchTicket.id == ticket_id)
                .values(
                    status=TicketStatus.MATCHED,
                    game_id=game_id,
                    seats=dumps(list(seats)),
                    ended_ms=now,
                )
            )
        await _stop_waiting(conn, list(table.seats))

    async def mean_ratings(self, app_id: str, player_ids: Sequence[str]) -> float:
        q = select(PlayerRating.player_id, PlayerRating.mu).where(
            PlayerRating.app_id == app_id, PlayerRating.player_id.in_(list(player_ids))
        )
        async with self.store.reading() as conn:
            rated = {r.player_id: float(r.mu) for r in (await conn.execute(q)).all()}
        mus = [rated.get(p, ratings.DEFAULT_MU) for p in player_ids]
        return sum(mus) / len(mus)

    async def add_tokens(self, tokens: Sequence[tuple[str, SeatToken]]) -> None:
        await self.store.add_tokens(tokens)

    async def game(self, game_id: str) -> GameRecord:
        return await self.store.game(game_id)
