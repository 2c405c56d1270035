"""Quick play's matchmaker: a replica's passes over the waiting tickets. A pass reads
them, plans the tables they make (``platform.matchmaking``, pure: who plays whom, who
sits where, robots where allowed), and writes each table in a transaction of its
own (``TicketRepository.write_table``: the tickets locked and checked still waiting,
the game created, joined, dealt and staked, the tickets matched, the players'
events). Any number of replicas run passes at once; a table whose ticket another
replica took meanwhile is simply not made here (see ``quick_play.py``).

Players one of whom blocked the other (``KeptApart``, read once a pass for the
players waiting) are never planned at one table. A block made between a pass's read
and its write does not undo a table already planned: the pass is a second long.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Sequence
from typing import Protocol

import structlog

from tranca_rules.presets import make_rules

from .. import metrics
from ..platform import chips, matchmaking
from ..reasons import Reason
from ..table.events import Event, EventKind
from ..table.game import Setup, TableOptions
from .ports import Notifier, Stake
from .quick_play import PASS_LIMIT, TICKET_TTL_MS, PlannedTable, TicketRecord, TicketRepository
from .table_builder import SeatPlan, build_table

log = structlog.get_logger("tranca.matchmaker")


class KeptApart(Protocol):
    async def kept_apart(self, players: Sequence[tuple[str, str]]) -> matchmaking.Apart:
        """Of the (app id, player id) given, the pairs of one app one of whom blocked
        the other (``matchmaking.apart_key``)."""
        ...


def plan_tables(
    tickets: Sequence[TicketRecord], now: int, apart: matchmaking.Apart = frozenset()
) -> list[PlannedTable]:
    """The tables ``tickets`` make now (``platform.matchmaking``), each as the game and
    changes to write: created, every seat joined (players, or robots where the table's
    ticket allows them), and started."""
    by_id = {t.id: t for t in tickets}
    planned: list[PlannedTable] = []
    for table in matchmaking.match([t.domain() for t in tickets], now, apart):
        first = by_id[table.tickets[0].id]
        kind = table.kind
        robots = matchmaking.robots_allowed(kind)
        options = TableOptions(
            turn_seconds=first.turn_seconds,
            # A silent player's seat goes to a robot at practice tables (003's room);
            # robot seats need it too.
            robot_grace_seconds=max(first.turn_seconds, 30) if robots else 0,
            competitive=kind.competitive,
            stake=kind.stake,
        )
        setup = Setup(
            make_rules(kind.preset, {}), kind.players, secrets.randbits(63), table=options
        )
        game_id = secrets.token_hex(16)
        names = {
            p: n
            for t in table.tickets
            for p, n in zip(by_id[t.id].player_ids, by_id[t.id].display_names, strict=True)
        }
        ticket_of = {p: t.id for t in table.tickets for p in by_id[t.id].player_ids}
        plans: list[SeatPlan] = []
        for seat, player in enumerate(table.seats):
            if player is None:
                plans.append(SeatPlan(robot=True))
                continue
            # The player's "match found", written with its seat: no table without
            # its events, no event without its table.
            found = {
                "game_id": game_id,
                "seat": seat,
                "ticket_id": ticket_of[player],
                "preset": kind.preset,
                "players": kind.players,
                "competitive": kind.competitive,
                "stake": kind.stake,
            }
            event = Event(player, EventKind.MATCH_FOUND, game_id, found)
            plans.append(SeatPlan(player, names[player], events=(event,)))
        # Created, every seat joined, and dealt: the changes ``Moves`` would write.
        built = build_table(
            kind.app_id, setup, plans, now=now, label="quick play", game_id=game_id, deal=True
        )
        stake = None
        if kind.stake:
            seated = tuple(p for p in table.seats if p is not None)
            stake = Stake(kind.app_id, seated, kind.stake)
        seats = {
            t.id: tuple(table.seats.index(p) for p in by_id[t.id].player_ids) for t in table.tickets
        }
        planned.append(
            PlannedTable(
                built.new,
                built.changes,
                stake,
                seats,
                tuple(now - by_id[t.id].created_ms for t in table.tickets),
            )
        )
    return planned


class Matchmaker:
    """One replica's passes over the waiting tickets (any number of replicas run
    them at once: see the module's docstring)."""

    def __init__(
        self,
        repo: TicketRepository,
        notifier: Notifier | None = None,
        clock: Callable[[], int] = lambda: 0,
        blocks: KeptApart | None = None,
    ) -> None:
        self.repo = repo
        self.notifier = notifier
        self.clock = clock
        self.blocks = blocks

    async def match_once(self) -> int:
        """One pass: the waiting tickets read, the tables they make planned, and each
        written in a transaction of its own (another replica's pass may have taken a
        ticket meanwhile: that table is not made here, and its other tickets wait for
        the next pass). The tables made."""
        now = self.clock()
        expired = await self.repo.expire_tickets(now - TICKET_TTL_MS, now)
        if expired:
            metrics.TICKETS_ENDED.labels("expired").inc(expired)
        tickets = await self.repo.waiting_tickets(PASS_LIMIT)
        apart: matchmaking.Apart = frozenset()
        if self.blocks is not None and len(tickets) > 1:
            waiting = [(t.app_id, p) for t in tickets for p in t.player_ids]
            apart = await self.blocks.kept_apart(waiting)
        made = 0
        for table in plan_tables(tickets, now, apart):
            try:
                written = await self.repo.write_table(table, now)
            except chips.InsufficientChips as exc:
                await self._uncovered(table, exc.player, now)
                continue
            if not written:
                continue
            made += 1
            metrics.TABLES_MATCHED.inc()
            metrics.TICKETS_ENDED.labels("matched").inc(len(table.seats))
            for waited in table.waited_ms:
                metrics.MATCH_WAIT.observe(waited / 1000)
            if self.notifier is not None:
                self.notifier.publish(table.new.game_id, len(table.changes))
        return made

    async def _uncovered(self, table: PlannedTable, player: str, now: int) -> None:
        """The player who cannot cover the table's stake stops waiting (reason
        INSUFFICIENT_CHIPS); the table's other tickets wait on, for the next pass."""
        for ticket_id in table.seats:
            ticket = await self.repo.ticket(table.new.app_id, ticket_id)
            if ticket is not None and player in ticket.player_ids:
                await self.repo.end_ticket(ticket_id, Reason.INSUFFICIENT_CHIPS, now)
                metrics.TICKETS_ENDED.labels("insufficient_chips").inc()

    async def run(self, interval: float) -> None:
        """Pass after pass, ``interval`` seconds apart, until cancelled; a failed pass
        is logged and the next one tries again."""
        while True:
            try:
                await self.match_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("match_pass_failed")
            await asyncio.sleep(interval)


__all__ = ["KeptApart", "Matchmaker", "plan_tables"]
