"""TournamentService: protobuf in, a use case of ``services.tournaments.Tournaments``,
protobuf out. Nothing else happens here: the requests' enums become the domain's
(``Format``, ``Outcome``), their table options and rules' overrides are read as
GameService reads them (``convert.py``), and the tournament, its rounds and
standings are written back as protobuf. See docs/platform/tournaments.md.
"""

from __future__ import annotations

from collections import OrderedDict

from ..platform.tournament_events import (
    CANCELLED,
    FINISHED,
    REGISTERED,
    RUNNING,
    RoundTimeout,
    TournamentConfig,
    next_due,
    status_of,
)
from ..platform.tournaments import (
    Entrant,
    Format,
    KnockoutTie,
    Outcome,
    Points,
    Round,
    TieBreaker,
    Tournament,
)
from ..rules.cards import card_text
from ..services.compute import off_loop_if_large
from ..services.tournaments import (
    GamesByTable,
    NewTournament,
    RoundShown,
    TokensBySeat,
    TournamentQuery,
    Tournaments,
    TournamentShown,
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


async def as_pb(shown: TournamentShown) -> pb.Tournament:
    """``shown_to_pb``, in a worker thread for a large tournament: a thousand-entrant
    one is thousands of tables, too many to translate on the event loop (every
    call's); a 64-entrant one's 200 take a millisecond, less than the trip."""
    tables = sum(len(r.tables) for r in shown.tournament.rounds)
    return await off_loop_if_large(tables, shown_to_pb, shown)


# GetTournament's translations kept (the latest of each tournament read, by id): the
# use case answers reads of a tournament that has not changed with the same
# ``TournamentShown``, translated once.
TRANSLATIONS_KEPT = 32


class TournamentService(pb_grpc.TournamentServiceServicer):
    def __init__(self, tournaments: Tournaments) -> None:
        self.tournaments = tournaments
        self._translated: OrderedDict[str, tuple[TournamentShown, pb.Tournament]] = OrderedDict()

    async def _translation(self, shown: TournamentShown) -> pb.Tournament:
        """``as_pb(shown)``, once per ``shown`` (the latest of each tournament)."""
        key = shown.row.id
        kept = self._translated.get(key)
        if kept is not None and kept[0] is shown:
            self._translated.move_to_end(key)
            return kept[1]
        out = await as_pb(shown)
        self._translated[key] = (shown, out)
        self._translated.move_to_end(key)
        while len(self._translated) > TRANSLATIONS_KEPT:
            self._translated.popitem(last=False)
        return out

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
        return pb.GetTournamentResponse(tournament=await self._translation(shown))

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
    return round_to_pb(
        r.config,
        r.tournament,
        r.round,
        r.games,
        r.tokens,
        show_deck=r.deck_shown,
        token_expires_at=r.token_expires_at,
    )


def round_to_pb(
    config: TournamentConfig,
    t: Tournament,
    rnd: Round,
    games: GamesByTable,
    tokens: TokensBySeat,
    *,
    show_deck: bool,
    token_expires_at: int = 0,
) -> pb.TournamentRound:
    """The round as the organiser sees it; seats given a token in ``tokens`` show it
    with its expiry ``token_expires_at`` (epoch ms)."""
    out = pb.TournamentRound(number=rnd.number, byes=list(rnd.byes))
    dup = config.duplicate_round(rnd.number)
    if dup is not None and show_deck:
        out.deck.extend(card_text(c) for c in dup.deck)
    for tb in rnd.tables:
        result = t.result(tb)
        table = out.tables.add(
            number=tb.number,
            entrant_a=tb.a,
            entrant_b=tb.b,
            game_id=games.get((rnd.number, tb.number), ""),
            outcome=OUTCOME_PB[result] if result is not None else pb.TABLE_OUTCOME_UNSPECIFIED,
        )
        for seat, player_id in enumerate(config.seats(t, tb)):
            token = tokens.get((rnd.number, tb.number, seat), "")
            table.seats.add(
                seat=seat,
                player_id=player_id,
                player_token=token,
                token_expires_at_ms=token_expires_at if token else 0,
            )
    return out


def shown_to_pb(shown: TournamentShown) -> pb.Tournament:
    """The tournament, its rounds (the decks of ``shown.decks_shown`` only) and its
    standings."""
    row, t = shown.row, shown.tournament
    out = pb.Tournament(
        tournament_id=row.id,
        name=row.name,
        format=FORMAT_PB[t.format],
        status=STATUS_PB[status_of(t)],
        table_size=t.table_size,
        total_rounds=t.total_rounds,
        champion=t.champion or "",
        duplicate=row.config.duplicate,
        start_deadline_seconds=row.config.start_deadline_seconds,
    )
    if t.format == Format.SINGLE_ELIMINATION or t.playoff:
        out.knockout_tie = KNOCKOUT_TIE_PB[row.config.knockout_tie]
    p = row.config.points
    out.points.CopyFrom(pb.TournamentPoints(win=p.win, draw=p.draw, loss=p.loss, bye=p.bye))
    out.tie_breaks.extend(TIE_BREAKER_PB[b] for b in row.config.tie_breaks)
    out.playoff_size = t.playoff
    out.spectators_allowed = row.config.spectators
    for event in row.events:
        if event["type"] == "correction":
            previous = event.get("previous") or ""
            out.corrections.add(
                round=int(event["round"]),
                table=int(event["table"]),
                previous=OUTCOME_PB[Outcome(previous)]
                if previous
                else pb.TABLE_OUTCOME_UNSPECIFIED,
                outcome=OUTCOME_PB[Outcome(event["outcome"])],
                reason=str(event.get("reason", "")),
                at_ms=int(event.get("at") or 0),
            )
    out.swiss_rounds = t.swiss_rounds if t.format == Format.SWISS else 0
    config = row.config
    if config.scheduled:
        out.start_at_ms = config.start_at
        out.round_break_seconds = config.round_break_seconds
        out.round_time_limit_seconds = config.round_time_limit_seconds
        out.round_timeout = ROUND_TIMEOUT_PB[config.round_timeout]
        out.next_at_ms = next_due(config, t, row.events) or 0
    if config.registration:
        out.registration_open = True
        out.max_entrants = config.max_entrants
        out.late_registration_rounds = config.late_registration_rounds
        out.registration_opens_at_ms = config.registration_opens_at
        out.registration_closes_at_ms = config.registration_closes_at
    out.check_in_seconds = config.check_in_seconds
    out.checked_in.extend(e for e in t.ids if e in t.checked_in)
    for entrant_id in t.ids:  # registered entrants too, in seed order
        e = t.entrants[entrant_id]
        out.entrants.add(id=e.id, player_ids=list(e.players))
    for rnd in t.rounds:
        show = rnd.number in shown.decks_shown
        out.rounds.append(round_to_pb(row.config, t, rnd, shown.games, {}, show_deck=show))
    prizes = config.prizes
    if prizes.entry_fee:
        out.entry_fee = prizes.entry_fee
        out.payout_percents.extend(prizes.payout)
        out.house_percent = prizes.house_percent
    out.prize_pool = shown.prize_pool
    for s in shown.standings:
        out.standings.add(
            prize=shown.prizes.get(s.entrant, 0),
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
