"""TournamentService: protobuf in, a use case of ``services.tournaments.Tournaments``,
protobuf out. Nothing else happens here: the requests' enums become the domain's
(``Format``, ``Outcome``), their table options and rules' overrides are read as
GameService reads them (``convert.py``), and the tournament's view, its rounds and
standings as the use case computed them (``services.tournaments.views``), are written
back as protobuf. See docs/platform/tournaments.md.
"""

from __future__ import annotations

from ..services.compute import off_loop_if_large
from ..services.tournaments import (
    CANCELLED,
    FINISHED,
    REGISTERED,
    RUNNING,
    Entrant,
    Format,
    KnockoutTie,
    NewTournament,
    Outcome,
    Points,
    RoundShown,
    RoundTimeout,
    RoundView,
    TieBreaker,
    TournamentQuery,
    Tournaments,
    TournamentShown,
    TournamentView,
    round_shown_view,
    tournament_view,
)
from ..v1 import platform_pb2 as pb
from ..v1 import platform_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .convert import overrides_from_pb, table_from_pb
from .servicer import rpc

FORMATS = {
    pb.TOURNAMENT_FORMAT_ROUND_ROBIN: Format.ROUND_ROBIN,
    pb.TOURNAMENT_FORMAT_SWISS: Format.SWISS,
    pb.TOURNAMENT_FORMAT_SINGLE_ELIMINATION: Format.SINGLE_ELIMINATION,
}
FORMAT_PB = {v: k for k, v in FORMATS.items()}
STATUS_PB = {
    REGISTERED: pb.TOURNAMENT_STATUS_REGISTERED,
    RUNNING: pb.TOURNAMENT_STATUS_RUNNING,
    FINISHED: pb.TOURNAMENT_STATUS_FINISHED,
    CANCELLED: pb.TOURNAMENT_STATUS_CANCELLED,
}
OUTCOME_PB = {
    Outcome.A_WINS: pb.TABLE_OUTCOME_A_WINS,
    Outcome.B_WINS: pb.TABLE_OUTCOME_B_WINS,
    Outcome.DRAW: pb.TABLE_OUTCOME_DRAW,
    Outcome.A_FORFEITS: pb.TABLE_OUTCOME_A_FORFEITS,
    Outcome.B_FORFEITS: pb.TABLE_OUTCOME_B_FORFEITS,
    Outcome.DOUBLE_NO_SHOW: pb.TABLE_OUTCOME_DOUBLE_NO_SHOW,
}
KNOCKOUT_TIES = {
    pb.KNOCKOUT_TIE_UNSPECIFIED: KnockoutTie.HIGHER_SEED,
    pb.KNOCKOUT_TIE_HIGHER_SEED: KnockoutTie.HIGHER_SEED,
    pb.KNOCKOUT_TIE_PLAY_OFF: KnockoutTie.PLAY_OFF,
}
KNOCKOUT_TIE_PB = {
    KnockoutTie.HIGHER_SEED: pb.KNOCKOUT_TIE_HIGHER_SEED,
    KnockoutTie.PLAY_OFF: pb.KNOCKOUT_TIE_PLAY_OFF,
}
STATUSES = {v: k for k, v in STATUS_PB.items()}
OUTCOMES = {v: k for k, v in OUTCOME_PB.items()}
TIE_BREAKER_PB = {
    TieBreaker.BUCHHOLZ: pb.TIE_BREAKER_BUCHHOLZ,
    TieBreaker.SONNEBORN_BERGER: pb.TIE_BREAKER_SONNEBORN_BERGER,
    TieBreaker.WINS: pb.TIE_BREAKER_WINS,
}
TIE_BREAKERS = {v: k for k, v in TIE_BREAKER_PB.items()}
FORMAT_BY_NAME = {f.value: v for f, v in FORMAT_PB.items()}
ROUND_TIMEOUTS = {
    pb.ROUND_TIMEOUT_UNSPECIFIED: RoundTimeout.DOUBLE_NO_SHOW,
    pb.ROUND_TIMEOUT_DOUBLE_NO_SHOW: RoundTimeout.DOUBLE_NO_SHOW,
    pb.ROUND_TIMEOUT_DRAW: RoundTimeout.DRAW,
}
ROUND_TIMEOUT_PB = {
    RoundTimeout.DOUBLE_NO_SHOW: pb.ROUND_TIMEOUT_DOUBLE_NO_SHOW,
    RoundTimeout.DRAW: pb.ROUND_TIMEOUT_DRAW,
}
FORFEITS = {
    pb.TABLE_OUTCOME_A_FORFEITS: Outcome.A_FORFEITS,
    pb.TABLE_OUTCOME_B_FORFEITS: Outcome.B_FORFEITS,
    pb.TABLE_OUTCOME_DOUBLE_NO_SHOW: Outcome.DOUBLE_NO_SHOW,
}


def new_tournament_from_pb(request: pb.CreateTournamentRequest) -> NewTournament:
    """The request's fields as the use case takes them (it checks them all)."""
    rules = request.rules
    return NewTournament(
        name=request.name,
        format=FORMATS.get(request.format),
        entrants=[Entrant(e.id, tuple(e.player_ids)) for e in request.entrants],
        table_size=request.table_size,
        preset=rules.preset,
        overrides=lambda: overrides_from_pb(rules),
        table=table_from_pb(request.table),
        seed=request.seed,
        rounds=request.rounds,
        duplicate=request.duplicate,
        round_decks=list(request.round_decks),
        # An unknown value (a newer client's) reads as the default.
        knockout_tie=KNOCKOUT_TIES.get(request.knockout_tie, KnockoutTie.HIGHER_SEED),
        start_deadline_seconds=request.start_deadline_seconds,
        start_at=request.start_at_ms,
        round_break_seconds=request.round_break_seconds,
        round_time_limit_seconds=request.round_time_limit_seconds,
        round_timeout=ROUND_TIMEOUTS.get(request.round_timeout, RoundTimeout.DOUBLE_NO_SHOW),
        registration=request.registration_open,
        max_entrants=request.max_entrants,
        late_registration_rounds=request.late_registration_rounds,
        check_in_seconds=request.check_in_seconds,
        registration_opens_at=request.registration_opens_at_ms,
        registration_closes_at=request.registration_closes_at_ms,
        points=(
            Points(request.points.win, request.points.draw, request.points.loss, request.points.bye)
            if request.HasField("points")
            else None
        ),
        tie_breaks=[TIE_BREAKERS.get(b) for b in request.tie_breaks],
        playoff=request.playoff_size,
        spectators=request.spectators_allowed,
        entry_fee=request.entry_fee,
        payout=list(request.payout_percents),
        house_percent=request.house_percent if request.HasField("house_percent") else None,
    )


# The key of this transport's translation kept with a view (``TournamentView.
# translations``): a read of an unchanged tournament translates nothing again.
TRANSLATION_KEY = "grpc"


async def as_pb(shown: TournamentShown) -> pb.Tournament:
    """The tournament's view as protobuf, translated once per view, in a worker thread
    for a large tournament: a thousand-entrant one is thousands of tables, too many
    to translate on the event loop (every call's); a 64-entrant one's 200 take a
    millisecond, less than the trip."""
    view = await tournament_view(shown)
    kept = view.translations.get(TRANSLATION_KEY)
    if isinstance(kept, pb.Tournament):
        return kept
    out = await off_loop_if_large(view.table_count, view_to_pb, view)
    view.translations[TRANSLATION_KEY] = out
    return out


class TournamentService(pb_grpc.TournamentServiceServicer):
    def __init__(self, tournaments: Tournaments) -> None:
        self.tournaments = tournaments

    @rpc("CreateTournament")
    async def CreateTournament(
        self, request: pb.CreateTournamentRequest, context: Ctx
    ) -> pb.CreateTournamentResponse:
        shown = await self.tournaments.create(credentials(context), new_tournament_from_pb(request))
        return pb.CreateTournamentResponse(tournament=await as_pb(shown))

    @rpc("GetTournament")
    async def GetTournament(
        self, request: pb.GetTournamentRequest, context: Ctx
    ) -> pb.GetTournamentResponse:
        shown = await self.tournaments.get(credentials(context), request.tournament_id)
        return pb.GetTournamentResponse(tournament=await as_pb(shown))

    @rpc("StartRound")
    async def StartRound(
        self, request: pb.StartRoundRequest, context: Ctx
    ) -> pb.StartRoundResponse:
        override = None
        if request.pairings or request.byes:
            override = (
                [(p.entrant_a, p.entrant_b) for p in request.pairings],
                list(request.byes),
            )
        started = await self.tournaments.start_round(
            credentials(context), request.tournament_id, request.round, override
        )
        return pb.StartRoundResponse(round=round_shown_to_pb(started))

    @rpc("RecordForfeit")
    async def RecordForfeit(
        self, request: pb.RecordForfeitRequest, context: Ctx
    ) -> pb.RecordForfeitResponse:
        shown = await self.tournaments.record_forfeit(
            credentials(context),
            request.tournament_id,
            request.round,
            request.table,
            FORFEITS.get(request.outcome),  # None: not a forfeit (refused)
        )
        return pb.RecordForfeitResponse(tournament=await as_pb(shown))

    @rpc("WithdrawEntrant")
    async def WithdrawEntrant(
        self, request: pb.WithdrawEntrantRequest, context: Ctx
    ) -> pb.WithdrawEntrantResponse:
        shown = await self.tournaments.withdraw(
            credentials(context), request.tournament_id, request.entrant
        )
        return pb.WithdrawEntrantResponse(tournament=await as_pb(shown))

    @rpc("RegisterEntrant")
    async def RegisterEntrant(
        self, request: pb.RegisterEntrantRequest, context: Ctx
    ) -> pb.RegisterEntrantResponse:
        e = request.entrant
        shown = await self.tournaments.register(
            credentials(context), request.tournament_id, Entrant(e.id, tuple(e.player_ids))
        )
        return pb.RegisterEntrantResponse(tournament=await as_pb(shown))

    @rpc("CheckInEntrant")
    async def CheckInEntrant(
        self, request: pb.CheckInEntrantRequest, context: Ctx
    ) -> pb.CheckInEntrantResponse:
        shown = await self.tournaments.check_in(
            credentials(context), request.tournament_id, request.entrant
        )
        return pb.CheckInEntrantResponse(tournament=await as_pb(shown))

    @rpc("CancelTournament")
    async def CancelTournament(
        self, request: pb.CancelTournamentRequest, context: Ctx
    ) -> pb.CancelTournamentResponse:
        shown = await self.tournaments.cancel(
            credentials(context), request.tournament_id, request.reason
        )
        return pb.CancelTournamentResponse(tournament=await as_pb(shown))

    @rpc("CorrectResult")
    async def CorrectResult(
        self, request: pb.CorrectResultRequest, context: Ctx
    ) -> pb.CorrectResultResponse:
        shown = await self.tournaments.correct_result(
            credentials(context),
            request.tournament_id,
            request.round,
            request.table,
            OUTCOMES.get(request.outcome),
            request.reason,
        )
        return pb.CorrectResultResponse(tournament=await as_pb(shown))

    @rpc("ExportTournament")
    async def ExportTournament(
        self, request: pb.ExportTournamentRequest, context: Ctx
    ) -> pb.ExportTournamentResponse:
        as_json = request.format == pb.EXPORT_FORMAT_JSON
        content = await self.tournaments.export(
            credentials(context),
            request.tournament_id,
            request.content == pb.EXPORT_CONTENT_ROUNDS,
            as_json,
            request.round,
        )
        kind = "application/json" if as_json else "text/csv"
        return pb.ExportTournamentResponse(content_type=kind, content=content)

    @rpc("ListTournaments")
    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: Ctx
    ) -> pb.ListTournamentsResponse:
        query = TournamentQuery(
            status=STATUSES.get(request.status, ""),
            preset=request.preset,
            starts_after=request.starts_after_ms,
            starts_before=request.starts_before_ms,
            page_size=request.page_size,
            page_token=request.page_token,
        )
        found, token = await self.tournaments.list_tournaments(credentials(context), query)
        out = pb.ListTournamentsResponse(next_page_token=token)
        for f in found:
            out.tournaments.add(
                tournament_id=f.id,
                name=f.name,
                format=FORMAT_BY_NAME.get(f.format, pb.TOURNAMENT_FORMAT_UNSPECIFIED),
                status=STATUS_PB.get(f.status, pb.TOURNAMENT_STATUS_UNSPECIFIED),
                preset=f.preset,
                start_at_ms=f.start_at,
                entrants=f.entrants,
                registration_open=f.registration,
                max_entrants=f.max_entrants,
                entry_fee=f.entry_fee,
            )
        return out


# ----- protobuf ---------------------------------------------------------------------------


def round_shown_to_pb(r: RoundShown) -> pb.TournamentRound:
    return round_to_pb(round_shown_view(r))


def round_to_pb(view: RoundView) -> pb.TournamentRound:
    """The round as the organiser sees it (seats with a new token show it)."""
    out = pb.TournamentRound(number=view.number, byes=list(view.byes))
    out.deck.extend(view.deck)
    for tb in view.tables:
        table = out.tables.add(
            number=tb.number,
            entrant_a=tb.entrant_a,
            entrant_b=tb.entrant_b,
            game_id=tb.game_id,
            outcome=outcome_pb(tb.outcome),
        )
        for seat in tb.seats:
            table.seats.add(
                seat=seat.seat,
                player_id=seat.player_id,
                player_token=seat.player_token,
                token_expires_at_ms=seat.token_expires_at,
            )
    return out


def outcome_pb(outcome: Outcome | None) -> pb.TableOutcome.ValueType:
    return OUTCOME_PB[outcome] if outcome is not None else pb.TABLE_OUTCOME_UNSPECIFIED


def view_to_pb(view: TournamentView) -> pb.Tournament:
    """The tournament, its rounds and its standings."""
    out = pb.Tournament(
        tournament_id=view.id,
        name=view.name,
        format=FORMAT_PB[view.format],
        status=STATUS_PB[view.status],
        table_size=view.table_size,
        total_rounds=view.total_rounds,
        champion=view.champion,
        duplicate=view.duplicate,
        start_deadline_seconds=view.start_deadline_seconds,
    )
    if view.knockout_tie is not None:
        out.knockout_tie = KNOCKOUT_TIE_PB[view.knockout_tie]
    p = view.points
    out.points.CopyFrom(pb.TournamentPoints(win=p.win, draw=p.draw, loss=p.loss, bye=p.bye))
    out.tie_breaks.extend(TIE_BREAKER_PB[b] for b in view.tie_breaks)
    out.playoff_size = view.playoff_size
    out.spectators_allowed = view.spectators
    for c in view.corrections:
        out.corrections.add(
            round=c.round,
            table=c.table,
            previous=outcome_pb(c.previous),
            outcome=OUTCOME_PB[c.outcome],
            reason=c.reason,
            at_ms=c.at,
        )
    out.swiss_rounds = view.swiss_rounds
    if view.scheduled and view.round_timeout is not None:
        out.start_at_ms = view.start_at
        out.round_break_seconds = view.round_break_seconds
        out.round_time_limit_seconds = view.round_time_limit_seconds
        out.round_timeout = ROUND_TIMEOUT_PB[view.round_timeout]
        out.next_at_ms = view.next_at
    if view.registration:
        out.registration_open = True
        out.max_entrants = view.max_entrants
        out.late_registration_rounds = view.late_registration_rounds
        out.registration_opens_at_ms = view.registration_opens_at
        out.registration_closes_at_ms = view.registration_closes_at
    out.check_in_seconds = view.check_in_seconds
    out.checked_in.extend(view.checked_in)
    for e in view.entrants:
        out.entrants.add(id=e.id, player_ids=list(e.players))
    out.rounds.extend(round_to_pb(r) for r in view.rounds)
    if view.entry_fee:
        out.entry_fee = view.entry_fee
        out.payout_percents.extend(view.payout)
        out.house_percent = view.house_percent
    out.prize_pool = view.prize_pool
    for sv in view.standings:
        s = sv.standing
        out.standings.add(
            prize=sv.prize,
            rank=s.rank,
            entrant=s.entrant,
            points=s.points,
            wins=s.wins,
            draws=s.draws,
            losses=s.losses,
            byes=s.byes,
            forfeits=s.forfeits,
            buchholz=s.buchholz,
            sonneborn_berger=s.sonneborn_berger,
            withdrawn=s.withdrawn,
        )
    return out
