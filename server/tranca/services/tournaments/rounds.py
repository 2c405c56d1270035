"""A tournament's rounds started: paired, written with every table's game and its seats
taken, and the games started; a round already started answered again with fresh
seat tokens.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import structlog

from ...platform.tournament_events import (
    Event,
    drop_no_shows,
    pair_event,
)
from ...platform.tournaments import (
    Format,
    Round,
    Tournament,
)
from ...reasons import Reason
from ...table.game import (
    FINISHED,
    WAITING,
    GameError,
)
from ..access import Credentials
from ..compute import off_loop
from ..credentials import new_seat_token
from ..errors import malformed
from ..moves import now_ms
from ..ports import SeatToken
from .core import CAS_ATTEMPTS, TournamentCore
from .dtos import RoundShown
from .errors import busy, refused
from .ports import TokensBySeat, TournamentRow
from .prize_money import count_chips
from .projection import deck_shown, rebuilt, written
from .round_tables import seated_round_tables
from .validation import PairingOverride, overridden

log = structlog.get_logger("tranca.tournaments")


# Games of a round started at once: enough that a large round starts in a few round
# trips, few enough not to take every database connection of the pool.
CONCURRENT_STARTS = 8


class RoundStarts(TournamentCore):
    """StartRound: a round paired, written whole with its seated tables, its games
    started; a round already started answered again (``_round_again``)."""

    async def start_round(
        self,
        credentials: Credentials,
        tournament_id: str,
        number: int,
        override: PairingOverride | None = None,
    ) -> RoundShown:
        """Pair round ``number`` (the next one), write it with all its games and start
        them; a round already started is answered again (``_round_again``).
        ``override``: the organiser's pairing of a Swiss round (its tables and byes)
        instead of the server's."""
        app = await self.access.calling_app(credentials)
        return await self._start_round(app.id, tournament_id, number, override)

    async def _start_round(
        self,
        app_id: str,
        tournament_id: str,
        number: int,
        override: PairingOverride | None = None,
    ) -> RoundShown:
        if number < 1:
            raise malformed("round is 1 or more: the round expected next")
        for _ in range(CAS_ATTEMPTS):
            row = await self._load(app_id, tournament_id)
            t = await rebuilt(row)
            if number <= len(t.rounds):
                return await self._round_again(row, t, number)
            # Round 1 with check-in: the entrants not checked in leave the field,
            # written with the round.
            dropped = drop_no_shows(row.config, t, now_ms())
            before = [dropped] if dropped else []
            if t.cancelled:
                raise refused(Reason.TOURNAMENT_OVER, "the tournament was cancelled")
            if len(t.rounds) >= t.total_rounds:
                raise refused(Reason.TOURNAMENT_OVER, "every round has been played")
            if number != len(t.rounds) + 1:
                raise refused(
                    Reason.ROUND_OUT_OF_ORDER, f"the next round is round {len(t.rounds) + 1}"
                )
            if t.rounds and not t.round_complete(len(t.rounds)):
                raise refused(
                    Reason.ROUND_NOT_COMPLETE,
                    f"round {len(t.rounds)} still has tables without a result",
                )
            if override is not None:
                rnd = overridden(t, number, override)
            else:
                try:
                    rnd = await self._pair(row, t, before)
                except ValueError as exc:
                    raise refused(Reason.NOT_ENOUGH_ENTRANTS, str(exc)) from None
            expires = now_ms() + self.token_lifetime_ms
            # Hundreds of games dealt for a large round: in a worker thread.
            games, tokens = await off_loop(seated_round_tables, row, t, rnd, expires)
            paired = pair_event(t, now_ms())
            if override is not None:
                paired["manual"] = True  # the organiser's pairing
            new: list[Event] = [*before, paired]
            # (The standings move with the round's byes.)
            done = await written(row, row.config, t, new)
            if not await self.repo.write_round(row, new, games, done):
                continue  # another change won: re-read (a concurrent StartRound's round)
            count_chips(done.chips)  # the no-shows' fees back
            await self.refresh_running_gauge()
            # Whatever happens to a start, answer with the tokens (a retry of the
            # round starts a game left waiting, and answers fresh tokens).
            await self._start_all([g.game_id for g in games], best_effort=True)
            by_table = {(g.round_no, g.table_no): g.game_id for g in games}
            # A round just started has no result yet: its deck is not shown.
            return RoundShown(row.config, t, rnd, by_table, tokens, False, expires)
        raise busy()

    async def _pair(self, row: TournamentRow, t: Tournament, before: Sequence[Event]) -> Round:
        """Pair ``t``'s next round (``t`` is ``row`` with the events ``before``
        applied): a Swiss round in the worker process (its search may take seconds),
        then taken into ``t`` as stored rounds are; a round robin's or a knockout's
        here (they pair without searching)."""
        if t.format != Format.SWISS or t.is_knockout_round(len(t.rounds) + 1):
            # (A play-off's first round ranks the Swiss: in a worker thread.)
            return await off_loop(t.pair_next_round)
        event = await self.compute.pair_round(row.config, [*row.events, *before])
        pairs = [(str(a), str(b)) for a, b in event["tables"]]
        return t.restore_round(int(event["round"]), pairs, [str(e) for e in event["byes"]])

    async def _round_again(self, row: TournamentRow, t: Tournament, number: int) -> RoundShown:
        """A round already started. If it is the current round, its games still
        waiting (a start that failed after the round was written) are started now, a
        start refused again being the answer (e.g. a seat without the chips for the
        table's stake); then every seat of every table whose game is not finished is
        given a fresh token, so that an organiser whose first answer was lost (the
        network, a deadline) recovers the seats by retrying. The seats' earlier tokens
        stay valid. An earlier round is answered without tokens."""
        rnd = t.rounds[number - 1]
        games = await self.repo.table_games(row.id)
        ids = [games[(number, tb.number)] for tb in rnd.tables if (number, tb.number) in games]
        statuses = await self.repo.game_statuses(ids)
        tokens: TokensBySeat = {}
        expires = now_ms() + self.token_lifetime_ms
        if number == len(t.rounds):
            # Tables with a result (a forfeit recorded because the game could not
            # start, say) are left as they are.
            waiting = [
                games[(number, tb.number)]
                for tb in rnd.tables
                if t.result(tb) is None
                and statuses.get(games.get((number, tb.number), "")) == WAITING
            ]
            if waiting:
                await self._start_all(waiting, best_effort=False)
                statuses = await self.repo.game_statuses(ids)
            new: list[tuple[str, SeatToken]] = []
            for tb in rnd.tables:
                game_id = games.get((number, tb.number))
                if game_id is None or statuses.get(game_id) == FINISHED:
                    continue
                for seat, player_id in enumerate(row.config.seats(t, tb)):
                    token, seat_token = new_seat_token(
                        seat, player_id, player_id, expires_at=expires
                    )
                    new.append((game_id, seat_token))
                    tokens[(number, tb.number, seat)] = token
            await self.repo.add_seat_tokens(new)
        show = deck_shown(t, number, games, statuses)
        return RoundShown(row.config, t, rnd, games, tokens, show, expires)

    async def _start_all(self, game_ids: Sequence[str], *, best_effort: bool) -> None:
        """Start the games, a few at a time; unless ``best_effort``, the first failure
        is raised once every start has ended (none is left half-way)."""
        gate = asyncio.Semaphore(CONCURRENT_STARTS)

        async def one(game_id: str) -> None:
            async with gate:
                await self._start(game_id, best_effort=best_effort)

        done = await asyncio.gather(*(one(g) for g in game_ids), return_exceptions=True)
        for outcome in done:
            if isinstance(outcome, BaseException):
                raise outcome

    async def _start(self, game_id: str, *, best_effort: bool) -> None:
        try:
            await self.matches.start(game_id)
        except GameError as exc:
            if exc.reason in (Reason.GAME_STARTED, Reason.GAME_OVER):
                return  # a concurrent retry started it
            if not best_effort:
                raise
            log.warning("tournament_game_not_started", game_id=game_id, reason=exc.reason)
        except Exception:
            if not best_effort:
                raise
            # Logged, not raised: the seats' tokens must reach the caller; a retry of
            # StartRound starts the game.
            log.exception("tournament_game_not_started", game_id=game_id)
