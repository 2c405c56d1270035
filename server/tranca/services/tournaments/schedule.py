"""A scheduled tournament run by the replicas' sweepers: each round started at its time
and a round's tables still without a result settled by its clock.
"""

from __future__ import annotations

import contextlib

import structlog

from ...platform.tournament_events import (
    SCHEDULE_LEASE_MS,
    Event,
    next_due,
    result_event,
)
from ...platform.tournaments import (
    Tournament,
)
from ...table.action_kinds import ActionKind
from ...table.game import (
    Action,
    GameError,
)
from ..errors import Refused
from ..moves import now_ms
from .ports import TournamentRow
from .projection import rebuilt
from .results import FROM_CLOCK
from .rounds import RoundStarts

log = structlog.get_logger("tranca.tournaments")


# Scheduled tournaments a sweep claims at once.
SCHEDULE_BATCH = 10


class ScheduledRuns(RoundStarts):
    """The sweepers' part: due scheduled tournaments claimed and advanced a step."""

    async def run_due(self) -> int:
        """What scheduled tournaments need now, run by every replica's sweeper: claim
        the tournaments due (``TournamentRepository.claim_due``: through the
        database, so replicas share the work and no state stays in a process) and
        advance each (``advance``). Returns how many were advanced."""
        claimed = await self.repo.claim_due(self.clock(), SCHEDULE_LEASE_MS, SCHEDULE_BATCH)
        acted = 0
        for tournament_id, app_id in claimed:
            try:
                acted += await self.advance(app_id, tournament_id)
            except Exception:
                # Logged; the claim's lease runs out and a sweep tries again.
                log.exception("tournament_schedule_failed", tournament_id=tournament_id)
        return acted

    async def advance(self, app_id: str, tournament_id: str) -> int:
        """One step of a scheduled tournament, if one is due: start round 1 at the
        start time, the next round once the current one is over (and its break has
        passed), or settle the current round's tables still without a result at its
        deadline by the organiser's ``round_timeout`` (their games, if still going,
        are ended: they count for no one, as a forfeited table's game). Then store
        when it is next due. Returns 1 if it acted."""
        row = await self._load(app_id, tournament_id)
        t = await rebuilt(row)
        due = next_due(row.config, t, row.events)
        now = self.clock()
        if due is None or due > now:
            await self.repo.set_due(row, due)  # a claim that came early: put it back
            return 0
        current = len(t.rounds)
        if current == 0 or t.round_complete(current):
            try:
                await self._start_round(app_id, tournament_id, current + 1)
            except Refused as exc:
                # No round can be paired (too few entrants left): nothing more to do
                # by itself; the organiser decides.
                log.warning(
                    "tournament_round_not_started", tournament_id=tournament_id, reason=exc.reason
                )
                await self.repo.set_due(row, None)
                return 0
            return 1
        await self._settle_round_by_clock(app_id, tournament_id, current)
        return 1

    async def _settle_round_by_clock(self, app_id: str, tournament_id: str, round_no: int) -> None:
        """The round's tables without a result get the clock's (``round_timeout``); the
        games still going at them are ended (by the app, for no one)."""
        decided: list[int] = []

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            decided.clear()
            if len(t.rounds) != round_no:
                return []
            events: list[Event] = []
            at = now_ms()
            for tb in t.rounds[-1].tables:
                if t.result(tb) is None:
                    outcome = row.config.timeout_outcome(t, tb)
                    t.record(round_no, tb.number, outcome)
                    events.append(result_event(round_no, tb.number, outcome, FROM_CLOCK, at))
                    decided.append(tb.number)
            return events

        shown = await self._change(app_id, tournament_id, change)
        for table_no in decided:
            game_id = shown.games.get((round_no, table_no))
            if game_id is None:
                continue
            if await self._close_unstarted(game_id):
                continue
            # Over meanwhile: its settlement finds the clock's result.
            with contextlib.suppress(GameError):
                await self.matches.moves.apply(game_id, Action(ActionKind.END))
