"""The fake of the quick play ports: tickets, parties, planned tables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tranca.platform import chips
from tranca.services.ports import (
    SeatToken,
)
from tranca.services.quick_play import AlreadyWaiting, PlannedTable, TicketRecord, TicketStatus
from tranca.table.events import Event

from .games import GamesMemory
from .records import OPEN_TICKETS


class QuickPlayMemory(GamesMemory):
    """The quick play ports, in memory."""

    # ----- quick play -------------------------------------------------------------------

    async def add_ticket(self, ticket: TicketRecord, events: Sequence[Event] = ()) -> TicketRecord:
        for t in self.tickets.values():
            if ticket.request_id and (t.app_id, t.request_id) == (ticket.app_id, ticket.request_id):
                return t
        for t in self.tickets.values():
            if t.app_id == ticket.app_id and t.status in OPEN_TICKETS:
                both = set(t.player_ids) & set(ticket.player_ids)
                if both:
                    raise AlreadyWaiting(sorted(both)[0], t.id)
        self.tickets[ticket.id] = ticket
        self._write_events(ticket.app_id, events)
        return ticket

    async def join_party(
        self, ticket_id: str, partner: int, name: str, now: int
    ) -> TicketRecord | None:
        t = self.tickets.get(ticket_id)
        if t is None or t.status != TicketStatus.FORMING:
            return None
        names = list(t.display_names)
        names[partner] = name or names[partner]
        t = replace(t, status=TicketStatus.WAITING, display_names=tuple(names), created_ms=now)
        self.tickets[ticket_id] = t
        return t

    async def ticket(self, app_id: str, ticket_id: str) -> TicketRecord | None:
        t = self.tickets.get(ticket_id)
        return t if t is not None and t.app_id == app_id else None

    async def end_ticket(self, ticket_id: str, reason: str, now: int) -> TicketRecord | None:
        t = self.tickets.get(ticket_id)
        if t is not None and t.status in OPEN_TICKETS:
            t = replace(t, status=TicketStatus.CANCELLED, reason=reason, ended_ms=now)
            self.tickets[ticket_id] = t
        return t

    async def player_tickets(
        self, app_id: str, player_id: str, before: tuple[int, str] | None, limit: int
    ) -> list[TicketRecord]:
        mine = sorted(
            (
                t
                for t in self.tickets.values()
                if t.app_id == app_id
                and player_id in t.player_ids
                and (before is None or (t.created_ms, t.id) < before)
            ),
            key=lambda t: (t.created_ms, t.id),
            reverse=True,
        )
        return mine[:limit]

    async def waiting_tickets(self, limit: int) -> list[TicketRecord]:
        waiting = [t for t in self.tickets.values() if t.status == TicketStatus.WAITING]
        return sorted(waiting, key=lambda t: (t.created_ms, t.id))[:limit]

    async def write_table(self, table: PlannedTable, now: int) -> bool:
        if any(self.tickets[i].status != TicketStatus.WAITING for i in table.seats):
            return False
        if table.stake is not None:
            s = table.stake
            for player in s.player_ids:
                balance = self.chips.get((s.app_id, player), 0)
                if balance < s.amount:
                    raise chips.InsufficientChips(player, balance, s.amount)
            for player in s.player_ids:
                self.chips[(s.app_id, player)] -= s.amount
        await self.create_game(table.new)
        for change in table.changes:
            assert await self.commit(change) is not None
        for ticket_id, seats in table.seats.items():
            self.tickets[ticket_id] = replace(
                self.tickets[ticket_id],
                status=TicketStatus.MATCHED,
                game_id=table.new.game_id,
                seats=seats,
                ended_ms=now,
            )
        return True

    async def expire_tickets(self, before: int, now: int) -> int:
        old = [
            t.id
            for t in self.tickets.values()
            if t.status in OPEN_TICKETS and t.created_ms < before
        ]
        for ticket_id in old:
            await self.end_ticket(ticket_id, "EXPIRED", now)
        return len(old)

    async def mean_ratings(self, app_id: str, player_ids: Sequence[str]) -> float:
        return 25.0

    async def add_tokens(self, tokens: Sequence[tuple[str, SeatToken]]) -> None:
        for game_id, token in tokens:
            await self.add_token(game_id, token)
