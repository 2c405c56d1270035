"""The tournaments' use cases (``Tournaments``): create, read, list and export a
tournament, register and check in entrants, record forfeits, withdrawals, corrections
and a cancellation; its rounds (``rounds.py``) and its schedule (``schedule.py``)
are the classes it extends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace

from ...platform import tournament_export as export
from ...platform.chips import InsufficientChips
from ...platform.tournament_events import (
    Event,
    cancel_event,
    check_in_event,
    correction_event,
    latest_result,
    register_event,
    result_event,
    unregister_event,
    withdraw_event,
)
from ...platform.tournaments import (
    Entrant,
    Outcome,
    Tournament,
)
from ...reasons import Reason
from ...table.action_kinds import ActionKind
from ...table.game import (
    FINISHED,
    NO_RESULT,
    Action,
    GameError,
)
from ..access import Credentials
from ..compute import off_loop
from ..errors import Refusal, Refused, malformed
from ..games import robot_level_allowed
from ..moves import now_ms
from ..paging import offset_token, parse_offset
from .dtos import NewTournament, TournamentShown
from .errors import cannot_pay, not_found, refused
from .ports import (
    TournamentQuery,
    TournamentRow,
    TournamentSummary,
)
from .prize_money import count_chips, shown_money
from .projection import rebuilt, standings_of, written
from .results import FROM_FORFEIT, FROM_GAME
from .schedule import ScheduledRuns
from .validation import MAX_ENTRANTS, tournament_config

# ListTournaments' pages.
DEFAULT_PAGE, MAX_PAGE = 50, 200
# The outcomes an organiser records (RecordForfeit); a game's own result is recorded
# by the settlement.
FORFEIT_OUTCOMES = frozenset({Outcome.A_FORFEITS, Outcome.B_FORFEITS, Outcome.DOUBLE_NO_SHOW})


class Tournaments(ScheduledRuns):
    """The tournaments' use cases, every RPC of TournamentService: those of its rounds
    and its schedule from the classes it extends, the others here."""

    async def create(self, credentials: Credentials, new: NewTournament) -> TournamentShown:
        app = await self.access.calling_app(credentials)
        config = tournament_config(new, app)
        robot_level_allowed(new.table, self.robot_max_level)
        name = new.name.strip()
        fresh = config.new_tournament()
        done = await written("", config, fresh, [])
        try:
            tournament_id = await self.repo.create_tournament(app.id, name, config, done)
        except InsufficientChips as exc:
            raise cannot_pay(exc) from None
        count_chips(done.chips)
        row = await self._load(app, tournament_id)
        return await self._shown(row, await rebuilt(row))

    async def get(self, credentials: Credentials, tournament_id: str) -> TournamentShown:
        """The tournament as stored: rebuilt from its events without pairing any
        round again, its standings as its latest change stored them.

        A tournament this process has shown at its current version is answered
        again as it was (its version read, one integer, and nothing rebuilt: the
        same ``TournamentShown``, which the caller must not change), but for a
        duplicate tournament's decks shown, which follow its games' statuses."""
        app = await self.access.calling_app(credentials)
        if not tournament_id:
            raise malformed("tournament_id is required")
        version = await self.repo.tournament_version(tournament_id, app.id)
        if version is None:
            raise not_found()
        kept = self._kept.get(tournament_id)
        if kept is None or kept.row.version != version or kept.row.app_id != app.id:
            row = await self._load(app, tournament_id)
            kept = await self._shown(row, await rebuilt(row))
        elif kept.row.config.duplicate:
            decks = await self._decks_shown(kept.row, kept.tournament, kept.games)
            if decks != kept.decks_shown:
                kept = replace(kept, decks_shown=decks)
        self._keep(kept)
        return kept

    async def record_forfeit(
        self,
        credentials: Credentials,
        tournament_id: str,
        round_no: int,
        table_no: int,
        outcome: Outcome | None,
    ) -> TournamentShown:
        """A table of the current round forfeited by one side or both (``outcome``:
        one of ``FORFEIT_OUTCOMES``; None for none of them)."""
        app = await self.access.calling_app(credentials)
        if outcome is None or outcome not in FORFEIT_OUTCOMES:
            raise malformed("outcome is TABLE_OUTCOME_A_FORFEITS, _B_FORFEITS or _DOUBLE_NO_SHOW")
        forfeit = outcome

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if not t.rounds or round_no != len(t.rounds):
                raise refused(
                    Reason.ROUND_NOT_CURRENT, f"round {round_no} is not the current round"
                )
            tables = t.rounds[-1].tables
            if not 1 <= table_no <= len(tables):
                raise malformed(f"round {round_no} has tables 1 to {len(tables)}")
            if t.result(tables[table_no - 1]) == forfeit:
                return []  # a retry (even of the forfeit that ended the tournament)
            latest = latest_result(row.events, round_no, table_no)
            if latest and latest["source"] == FROM_GAME and latest.get("reason") not in NO_RESULT:
                # The game's own result (a win or a draw) was settled with it: rated,
                # scored and paid. A forfeit now would credit a win the ratings call a
                # loss. A level end the game did not decide (an annulled knockout
                # table, a table that never started) stays the organiser's to rule on.
                raise refused(Reason.TABLE_DECIDED, f"table {table_no} has its game's result")
            if t.is_over:
                raise refused(Reason.TOURNAMENT_OVER, "the tournament is over")
            t.record(round_no, table_no, forfeit)
            return [result_event(round_no, table_no, forfeit, FROM_FORFEIT, now_ms())]

        shown = await self._change(app, tournament_id, change)
        # A retry closes it too, should the call have died between the two writes.
        if await self._close_unstarted(shown.games.get((round_no, table_no))):
            return await self._shown(shown.row, shown.tournament, shown.standings)
        return shown

    async def withdraw(
        self, credentials: Credentials, tournament_id: str, entrant: str
    ) -> TournamentShown:
        """An entrant withdrawn: it keeps its results and is not paired again."""
        app = await self.access.calling_app(credentials)

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if entrant not in t.entrants:
                raise Refused(Refusal.NOT_FOUND, Reason.ENTRANT_NOT_FOUND, "no such entrant")
            if entrant in t.withdrawn:
                return []
            if t.is_over:
                raise refused(Reason.TOURNAMENT_OVER, "the tournament is over")
            if row.config.registration and not t.rounds:
                # Before the start, a registration withdrawn leaves the field.
                t.remove_entrant(entrant)
                return [unregister_event(entrant, now_ms())]
            t.withdraw(entrant)
            return [withdraw_event(entrant, now_ms())]

        return await self._change(app, tournament_id, change)

    # ----- cancelling ----------------------------------------------------------------

    async def cancel(
        self, credentials: Credentials, tournament_id: str, reason: str
    ) -> TournamentShown:
        """The organiser cancels the tournament: it is over (status cancelled), no
        round starts again, and the games of the current round still going are ended
        (by the app: they count for no one and every stake goes back). Its results so
        far stay. A repeat changes nothing; a finished tournament is not cancelled."""
        app = await self.access.calling_app(credentials)

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if t.cancelled:
                return []
            if t.is_over:
                raise refused(Reason.TOURNAMENT_OVER, "the tournament is over")
            t.cancelled = True
            return [cancel_event(reason.strip(), now_ms())]

        shown = await self._change(app, tournament_id, change)
        statuses = await self.repo.game_statuses(list(shown.games.values()))
        for game_id, status in statuses.items():
            if status == FINISHED:
                continue
            if await self._close_unstarted(game_id):
                continue
            with contextlib.suppress(GameError):  # over meanwhile
                await self.matches.moves.apply(game_id, Action(ActionKind.END))
        return shown

    # ----- corrections ---------------------------------------------------------------

    async def correct_result(
        self,
        credentials: Credentials,
        tournament_id: str,
        round_no: int,
        table_no: int,
        outcome: Outcome | None,
        reason: str,
    ) -> TournamentShown:
        """The organiser corrects a table's result after its round (any outcome; a
        knockout round's only until the next round is paired). The correction is an
        event of its own (the audit trail: the result it replaced, the reason, when),
        the standings are recomputed with it and the table's players told. What the
        game already counted for (ratings, ranking points, chips) stays: they were
        settled with the game. A repeat of the same correction changes nothing. Once a
        tournament with an entry fee has finished (its prizes paid), its results are
        final (PRIZES_PAID)."""
        app = await self.access.calling_app(credentials)
        if outcome is None:
            raise malformed("outcome is a table outcome")
        reason = reason.strip()
        if not reason:
            raise malformed("a correction needs its reason")
        wanted = outcome

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if not 1 <= round_no <= len(t.rounds):
                raise refused(Reason.ROUND_NOT_PLAYED, f"round {round_no} has not been played")
            if row.config.prizes.entry_fee and t.is_over and not t.cancelled:
                # The prize pool was paid by the final standings: a correction would
                # make them disagree with the chips paid.
                raise refused(Reason.PRIZES_PAID, "the prizes are paid: the results are final")
            tables = t.rounds[round_no - 1].tables
            if not 1 <= table_no <= len(tables):
                raise malformed(f"round {round_no} has tables 1 to {len(tables)}")
            current = t.result(tables[table_no - 1])
            if current is None:
                # Not decided yet: its game's end, or RecordForfeit, decides it.
                raise refused(Reason.NO_RESULT_YET, f"table {table_no} has no result to correct")
            if current == wanted:
                return []
            try:
                previous = t.correct(round_no, table_no, wanted)
            except ValueError as exc:
                raise refused(Reason.RESULT_FIXED, str(exc)) from None
            return [correction_event(round_no, table_no, wanted, previous, reason, now_ms())]

        return await self._change(app, tournament_id, change)

    # ----- exports -----------------------------------------------------------------

    async def export(
        self,
        credentials: Credentials,
        tournament_id: str,
        rounds: bool,
        as_json: bool,
        round_no: int,
    ) -> str:
        """The standings (or, with ``rounds``, the pairings and results of round
        ``round_no``, 0: of every round) as CSV or JSON (``tournament_export``)."""
        app = await self.access.calling_app(credentials)
        if round_no < 0:
            raise malformed("round is 0 (every round) or a round's number")
        row = await self._load(app, tournament_id)
        t = await rebuilt(row)
        if rounds:
            games = await self.repo.table_games(row.id)
            rows = await off_loop(export.round_rows, t, row.events, games, round_no)
            columns: Sequence[str] = export.ROUND_COLUMNS
        else:
            standings = row.standings if row.standings is not None else await standings_of(t)
            _, prizes = shown_money(row, t, standings)
            rows = export.standings_rows(t, standings, prizes)
            columns = export.STANDINGS_COLUMNS
        if as_json:
            return await off_loop(export.as_json, rows)
        return await off_loop(export.as_csv, columns, rows)

    # ----- registration ------------------------------------------------------------

    async def register(
        self, credentials: Credentials, tournament_id: str, entrant: Entrant
    ) -> TournamentShown:
        """An entrant registered by the app (an open tournament's): last in seed order,
        within the registration window and the entry limit; in a Swiss with late
        registration also after the start, until the chosen round has started (it
        is paired from the next round, with no points for those it missed). A retry
        (the same entrant and players, still in) changes nothing."""
        app = await self.access.calling_app(credentials)
        players = tuple(p.strip() for p in entrant.players)
        if not entrant.id or not all(players):
            raise malformed("an entrant needs an id and its player ids")
        if len(set(players)) != len(players):
            raise malformed("an entrant's players are different players")
        wanted = Entrant(entrant.id, players)

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if t.entrants.get(wanted.id) == wanted and wanted.id not in t.withdrawn:
                return []  # a retry
            why = row.config.registration_refused(t, self.clock(), MAX_ENTRANTS)
            if why is not None:
                full = why == Reason.TOURNAMENT_FULL
                raise refused(why, "the tournament is full" if full else "registration is closed")
            try:
                t.add_entrant(wanted)
            except ValueError as exc:
                raise Refused(Refusal.EXISTS, Reason.ENTRANT_EXISTS, str(exc)) from None
            return [register_event(wanted, now_ms())]

        return await self._change(app, tournament_id, change)

    async def check_in(
        self, credentials: Credentials, tournament_id: str, entrant: str
    ) -> TournamentShown:
        """The entrant is here: within the check-in window (``check_in_seconds``
        before a scheduled start, until round 1); those not checked in are dropped
        when round 1 starts. A repeat changes nothing."""
        app = await self.access.calling_app(credentials)

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if entrant not in t.entrants:
                raise Refused(Refusal.NOT_FOUND, Reason.ENTRANT_NOT_FOUND, "no such entrant")
            if entrant in t.checked_in:
                return []
            why = row.config.check_in_refused(t, self.clock())
            if why is not None:
                raise refused(why, "check-in is not open")
            t.checked_in.add(entrant)
            return [check_in_event(entrant, now_ms())]

        return await self._change(app, tournament_id, change)

    async def list_tournaments(
        self, credentials: Credentials, query: TournamentQuery
    ) -> tuple[list[TournamentSummary], str]:
        """The app's tournaments matching ``query`` (by start time, then creation), a
        page at a time; the next page's token ("" after the last)."""
        app = await self.access.calling_app(credentials)
        offset = parse_offset(query.page_token)
        size = query.page_size or DEFAULT_PAGE
        if not 1 <= size <= MAX_PAGE:
            raise malformed(f"page_size is 0 (the default {DEFAULT_PAGE}) to {MAX_PAGE}")
        found = await self.repo.list_tournaments(app.id, query, offset, size + 1)
        more = len(found) > size
        return found[:size], offset_token(offset + size) if more else ""
