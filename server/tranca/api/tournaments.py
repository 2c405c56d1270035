"""TournamentService: tournaments whose tables are GameService games.

A tournament is its configuration and its events (``store/tournament_store.py``);
the pure ``platform.tournaments.Tournament`` rebuilt from them pairs the rounds and
ranks the entrants. StartRound creates a round's games with every seat taken, in one
transaction with the round's pairing, and then starts them; a game's result reaches
the tournament through the settlement (``tournament_store.record_game_result``).
See docs/platform/tournaments.md.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import grpc
import structlog

from ..app.game import (
    FINISHED,
    WAITING,
    Action,
    GameError,
    Setup,
    TableOptions,
    apply_action,
    new_game,
)
from ..platform.duplicate import DuplicateRound
from ..platform.fairness import deck_size, new_server_secret
from ..platform.tournaments import Entrant, Format, Outcome, Round, Tournament
from ..rules.cards import card_text
from ..rules.presets import Rules
from ..store import tournament_store as ts
from ..store.direct import SeatToken
from ..store.repository import AppRecord, Store, new_seat_token, now_ms
from ..store.starting import start_match
from ..v1 import platform_pb2 as pb
from ..v1 import platform_pb2_grpc as pb_grpc
from . import metrics
from .auth import Credentials, calling_app
from .errors import ApiError, malformed
from .limits import DEFAULT_TOKEN_LIFETIME, RateLimiter
from .servicer import MAX_PLAYER_ID, Ctx, fixed_deck, rpc, rules_and_table

log = structlog.get_logger("tranca.api.tournaments")

MAX_ENTRANTS = 256
MAX_SWISS_ROUNDS = 64
# Games of a round started at once: enough that a large round starts in a few round
# trips, few enough not to take every database connection of the pool.
CONCURRENT_STARTS = 8

FORMATS = {
    pb.TOURNAMENT_FORMAT_ROUND_ROBIN: Format.ROUND_ROBIN,
    pb.TOURNAMENT_FORMAT_SWISS: Format.SWISS,
    pb.TOURNAMENT_FORMAT_SINGLE_ELIMINATION: Format.SINGLE_ELIMINATION,
}
FORMAT_PB = {v: k for k, v in FORMATS.items()}
STATUS_PB = {
    ts.REGISTERED: pb.TOURNAMENT_STATUS_REGISTERED,
    ts.RUNNING: pb.TOURNAMENT_STATUS_RUNNING,
    ts.FINISHED: pb.TOURNAMENT_STATUS_FINISHED,
}
OUTCOME_PB = {
    Outcome.A_WINS: pb.TABLE_OUTCOME_A_WINS,
    Outcome.B_WINS: pb.TABLE_OUTCOME_B_WINS,
    Outcome.DRAW: pb.TABLE_OUTCOME_DRAW,
    Outcome.A_FORFEITS: pb.TABLE_OUTCOME_A_FORFEITS,
    Outcome.B_FORFEITS: pb.TABLE_OUTCOME_B_FORFEITS,
    Outcome.DOUBLE_NO_SHOW: pb.TABLE_OUTCOME_DOUBLE_NO_SHOW,
}
FORFEITS = {
    pb.TABLE_OUTCOME_A_FORFEITS: Outcome.A_FORFEITS,
    pb.TABLE_OUTCOME_B_FORFEITS: Outcome.B_FORFEITS,
    pb.TABLE_OUTCOME_DOUBLE_NO_SHOW: Outcome.DOUBLE_NO_SHOW,
}


def _bad_config(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, "BAD_TOURNAMENT", message)


def _not_found() -> ApiError:
    return ApiError(grpc.StatusCode.NOT_FOUND, "TOURNAMENT_NOT_FOUND", "no such tournament")


def _refused(reason: str, message: str) -> ApiError:
    return ApiError(grpc.StatusCode.FAILED_PRECONDITION, reason, message)


def _busy() -> ApiError:
    return ApiError(
        grpc.StatusCode.ABORTED, "TOURNAMENT_CONFLICT", "the tournament kept changing: retry"
    )


# (round, table) -> game id, and (round, table, seat) -> a new seat's token.
Games = dict[tuple[int, int], str]
Tokens = dict[tuple[int, int, int], str]


class TournamentService(pb_grpc.TournamentServiceServicer):
    def __init__(
        self,
        store: Store,
        app_limiter: RateLimiter,
        token_lifetime_seconds: int = DEFAULT_TOKEN_LIFETIME,
        credentials: Credentials | None = None,
    ) -> None:
        self.store = store
        self.app_limiter = app_limiter
        self.credentials = credentials or Credentials(store)
        self.token_lifetime_ms = token_lifetime_seconds * 1000

    # ----- helpers -----------------------------------------------------------------

    async def _app(self, context: Ctx) -> AppRecord:
        return await calling_app(self.credentials, self.app_limiter, context)

    async def _load(self, app: AppRecord, tournament_id: str) -> ts.TournamentRow:
        """The app's tournament; other apps' tournaments are invisible (NOT_FOUND)."""
        if not tournament_id:
            raise malformed("tournament_id is required")
        row = await ts.load_tournament(self.store, tournament_id, app.id)
        if row is None:
            raise _not_found()
        return row

    async def _answer(self, row: ts.TournamentRow, t: Tournament) -> pb.Tournament:
        games = await ts.table_games(self.store, row.id)
        shown: set[int] = set()
        if row.config.duplicate:
            statuses = await ts.game_statuses(self.store, list(games.values()))
            shown = {r.number for r in t.rounds if deck_shown(t, r.number, games, statuses)}
        return tournament_to_pb(row, t, games, shown)

    async def _change(
        self,
        app: AppRecord,
        tournament_id: str,
        change: Callable[[ts.TournamentRow, Tournament], list[dict[str, Any]]],
    ) -> pb.Tournament:
        """Apply ``change`` (the events to append, after checks that raise) to the
        tournament as it is now, retrying on a lost compare-and-swap."""
        for _ in range(ts.CAS_ATTEMPTS):
            row = await self._load(app, tournament_id)
            t = row.rebuild()
            new = change(row, t)
            if not new:
                return await self._answer(row, t)
            if await ts.append_events(self.store, row, new, ts.status_of(t)):
                await refresh_running_gauge(self.store)
                return await self._answer(row, t)
        raise _busy()

    # ----- RPCs --------------------------------------------------------------------

    @rpc("CreateTournament")
    async def CreateTournament(
        self, request: pb.CreateTournamentRequest, context: Ctx
    ) -> pb.CreateTournamentResponse:
        app = await self._app(context)
        config = config_from_pb(request, app)
        name = request.name.strip()
        tournament_id = await ts.create_tournament(self.store, app.id, name, config)
        row = await self._load(app, tournament_id)
        return pb.CreateTournamentResponse(tournament=await self._answer(row, row.rebuild()))

    @rpc("GetTournament")
    async def GetTournament(
        self, request: pb.GetTournamentRequest, context: Ctx
    ) -> pb.GetTournamentResponse:
        app = await self._app(context)
        row = await self._load(app, request.tournament_id)
        return pb.GetTournamentResponse(tournament=await self._answer(row, row.rebuild()))

    @rpc("StartRound")
    async def StartRound(
        self, request: pb.StartRoundRequest, context: Ctx
    ) -> pb.StartRoundResponse:
        app = await self._app(context)
        if request.round < 1:
            raise malformed("round is 1 or more: the round expected next")
        for _ in range(ts.CAS_ATTEMPTS):
            row = await self._load(app, request.tournament_id)
            t = row.rebuild()
            if request.round <= len(t.rounds):
                return await self._round_again(row, t, request.round)
            if len(t.rounds) >= t.total_rounds:
                raise _refused("TOURNAMENT_OVER", "every round has been played")
            if request.round != len(t.rounds) + 1:
                raise _refused("ROUND_OUT_OF_ORDER", f"the next round is round {len(t.rounds) + 1}")
            if t.rounds and not t.round_complete(len(t.rounds)):
                raise _refused(
                    "ROUND_NOT_COMPLETE", f"round {len(t.rounds)} still has tables without a result"
                )
            try:
                rnd = t.pair_next_round()
            except ValueError as exc:
                raise _refused("NOT_ENOUGH_ENTRANTS", str(exc)) from None
            expires = now_ms() + self.token_lifetime_ms
            games, tokens = self._round_games(row, t, rnd, expires)
            status = ts.status_of(t)
            if not await ts.write_round(self.store, row, [ts.pair_event(t)], status, games):
                continue  # another change won: re-read (a concurrent StartRound's round)
            await refresh_running_gauge(self.store)
            # Whatever happens to a start, answer with the tokens (a retry of the
            # round starts a game left waiting, and answers fresh tokens).
            await self._start_all([g.game_id for g in games], best_effort=True)
            by_table = {(g.round_no, g.table_no): g.game_id for g in games}
            # A round just started has no result yet: its deck is not shown.
            answer = round_to_pb(
                row.config, t, rnd, by_table, tokens, show_deck=False, token_expires_at=expires
            )
            return pb.StartRoundResponse(round=answer)
        raise _busy()

    async def _round_again(
        self, row: ts.TournamentRow, t: Tournament, number: int
    ) -> pb.StartRoundResponse:
        """A round already started. If it is the current round, its games still
        waiting (a start that failed after the round was written) are started now, a
        start refused again being the answer (e.g. a seat without the chips for the
        table's stake); then every seat of every table whose game is not finished is
        given a fresh token, so that an organiser whose first answer was lost (the
        network, a deadline) recovers the seats by retrying. The seats' earlier tokens
        stay valid. An earlier round is answered without tokens."""
        rnd = t.rounds[number - 1]
        games = await ts.table_games(self.store, row.id)
        ids = [games[(number, tb.number)] for tb in rnd.tables if (number, tb.number) in games]
        statuses = await ts.game_statuses(self.store, ids)
        tokens: Tokens = {}
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
                statuses = await ts.game_statuses(self.store, ids)
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
            await ts.add_seat_tokens(self.store, new)
        show = deck_shown(t, number, games, statuses)
        return pb.StartRoundResponse(
            round=round_to_pb(
                row.config, t, rnd, games, tokens, show_deck=show, token_expires_at=expires
            )
        )

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
            await start_match(self.store, game_id)
        except GameError as exc:
            if exc.reason in ("GAME_STARTED", "GAME_OVER"):
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

    def _round_games(
        self, row: ts.TournamentRow, t: Tournament, rnd: Round, expires_at: int
    ) -> tuple[list[ts.TableGame], Tokens]:
        """Each table's new game with every seat joined, and the seats' tokens (valid
        until ``expires_at``, epoch ms)."""
        config = row.config
        rules = config.game_rules()
        table = TableOptions.from_dict(config.table)
        dup = config.duplicate_round(rnd.number)
        games: list[ts.TableGame] = []
        tokens: Tokens = {}
        for tb in rnd.tables:
            setup = table_setup(rules, config.table_size, table, dup)
            state = new_game(setup)
            joins: list[Action] = []
            seat_tokens: list[SeatToken] = []
            for seat, player_id in enumerate(config.seats(t, tb)):
                join = Action("join", seat, name=player_id, player_id=player_id)
                apply_action(state, join, seat + 1)
                joins.append(join)
                token, seat_token = new_seat_token(
                    seat, player_id, player_id, expires_at=expires_at
                )
                seat_tokens.append(seat_token)
                tokens[(rnd.number, tb.number, seat)] = token
            games.append(
                ts.TableGame(
                    rnd.number,
                    tb.number,
                    uuid.uuid4().hex,
                    f"tournament {row.id} round {rnd.number} table {tb.number}",
                    setup,
                    state,
                    joins,
                    seat_tokens,
                )
            )
        return games, tokens

    @rpc("RecordForfeit")
    async def RecordForfeit(
        self, request: pb.RecordForfeitRequest, context: Ctx
    ) -> pb.RecordForfeitResponse:
        app = await self._app(context)
        outcome = FORFEITS.get(request.outcome)
        if outcome is None:
            raise malformed("outcome is TABLE_OUTCOME_A_FORFEITS, _B_FORFEITS or _DOUBLE_NO_SHOW")

        def change(row: ts.TournamentRow, t: Tournament) -> list[dict[str, Any]]:
            if not t.rounds or request.round != len(t.rounds):
                raise _refused(
                    "ROUND_NOT_CURRENT", f"round {request.round} is not the current round"
                )
            tables = t.rounds[-1].tables
            if not 1 <= request.table <= len(tables):
                raise malformed(f"round {request.round} has tables 1 to {len(tables)}")
            if t.result(tables[request.table - 1]) == outcome:
                return []  # a retry (even of the forfeit that ended the tournament)
            if t.is_over:
                raise _refused("TOURNAMENT_OVER", "the tournament is over")
            t.record(request.round, request.table, outcome)
            return [ts.result_event(request.round, request.table, outcome, "forfeit")]

        tournament = await self._change(app, request.tournament_id, change)
        return pb.RecordForfeitResponse(tournament=tournament)

    @rpc("WithdrawEntrant")
    async def WithdrawEntrant(
        self, request: pb.WithdrawEntrantRequest, context: Ctx
    ) -> pb.WithdrawEntrantResponse:
        app = await self._app(context)

        def change(row: ts.TournamentRow, t: Tournament) -> list[dict[str, Any]]:
            if request.entrant not in t.entrants:
                raise ApiError(grpc.StatusCode.NOT_FOUND, "ENTRANT_NOT_FOUND", "no such entrant")
            if request.entrant in t.withdrawn:
                return []
            if t.is_over:
                raise _refused("TOURNAMENT_OVER", "the tournament is over")
            t.withdraw(request.entrant)
            return [ts.withdraw_event(request.entrant)]

        tournament = await self._change(app, request.tournament_id, change)
        return pb.WithdrawEntrantResponse(tournament=tournament)


async def refresh_running_gauge(store: Store) -> None:
    """tranca_tournaments_running from the database (every replica sets the same)."""
    metrics.TOURNAMENTS_RUNNING.set(await ts.count_running(store))


# ----- configuration ----------------------------------------------------------------------


def config_from_pb(request: pb.CreateTournamentRequest, app: AppRecord) -> ts.TournamentConfig:
    """The tournament's configuration, every refusal an INVALID_ARGUMENT (or
    PERMISSION_DENIED for decks without the permission)."""
    fmt = FORMATS.get(request.format)
    if fmt is None:
        raise _bad_config("format is required")
    if request.table_size not in (2, 4):
        raise _bad_config("table_size is 2, or 4 for partnerships")
    if not 2 <= len(request.entrants) <= MAX_ENTRANTS:
        raise _bad_config(f"a tournament has 2 to {MAX_ENTRANTS} entrants")
    entrants = []
    for e in request.entrants:
        ids = tuple(p.strip() for p in e.player_ids)
        if not e.id:
            raise _bad_config(f"entrant ids are 1 to {MAX_PLAYER_ID} characters")
        if not all(ids):
            raise _bad_config(f"player ids are 1 to {MAX_PLAYER_ID} characters")
        entrants.append(Entrant(e.id, ids))
    rules, table = rules_and_table(request.rules, request.table_size, request.table, _bad_config)
    if request.duplicate and table.verifiable:
        raise _bad_config("a verifiable table shuffles its own decks: no duplicate deals")
    if request.round_decks and not request.duplicate:
        raise _bad_config("round_decks are for duplicate deals")
    if request.rounds < 0 or request.rounds > MAX_SWISS_ROUNDS:
        raise _bad_config(f"rounds is 0 (the format's) to {MAX_SWISS_ROUNDS}")
    decks: list[tuple[int, ...]] = []
    for number, text in enumerate(request.round_decks):
        deck = fixed_deck(
            app,
            text.replace(",", " ").split(),  # the separators of rules.cards.parse_cards
            rules.jokers,
            _bad_config,
            field=f"round_decks[{number}]",
            wrong_cards=f"round_decks[{number}] must hold the {deck_size(rules.jokers)} cards",
        )
        decks.append(tuple(deck))
    config = ts.TournamentConfig(
        fmt,
        tuple(entrants),
        request.table_size,
        request.seed or secrets.randbits(63),
        (request.rounds or None) if fmt == Format.SWISS else None,
        rules.to_dict(),
        table.to_dict(),
        request.duplicate,
        tuple(decks),
    )
    try:
        t = config.new_tournament()
    except ValueError as exc:
        raise _bad_config(str(exc)) from None
    if len(decks) > t.total_rounds:
        raise _bad_config(f"round_decks: the tournament has {t.total_rounds} rounds")
    return config


def table_setup(
    rules: Rules, players: int, table: TableOptions, dup: DuplicateRound | None
) -> Setup:
    """A table's setup: with duplicate deals the round's deck and match seed (so the
    first dealer and every later deal match too), otherwise a fresh seed."""
    if dup is not None:
        return Setup(rules, players, dup.match_seed, list(dup.deck), False, table)
    secret = new_server_secret() if table.verifiable else None
    return Setup(rules, players, secrets.randbits(63), None, False, table, secret)


# ----- protobuf ---------------------------------------------------------------------------


def deck_shown(t: Tournament, round_no: int, games: Games, statuses: dict[str, str]) -> bool:
    """Whether a duplicate round's deck may be shown: once every table of the round has
    a result and every game of the round is finished. Before, the deck is the cards
    still in play at some table (GUARANTEES: "an app sees no hand"), including a table
    whose game goes on after the organiser recorded a forfeit."""
    return t.round_complete(round_no) and ts.round_dealt_out(round_no, games, statuses)


def round_to_pb(
    config: ts.TournamentConfig,
    t: Tournament,
    rnd: Round,
    games: Games,
    tokens: Tokens,
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


def tournament_to_pb(
    row: ts.TournamentRow, t: Tournament, games: Games, decks_shown: set[int]
) -> pb.Tournament:
    """The tournament; ``decks_shown``: the duplicate rounds whose deck is shown."""
    out = pb.Tournament(
        tournament_id=row.id,
        name=row.name,
        format=FORMAT_PB[t.format],
        status=STATUS_PB[ts.status_of(t)],
        table_size=t.table_size,
        total_rounds=t.total_rounds,
        champion=t.champion or "",
        duplicate=row.config.duplicate,
    )
    for e in row.config.entrants:
        out.entrants.add(id=e.id, player_ids=list(e.players))
    for rnd in t.rounds:
        show = rnd.number in decks_shown
        out.rounds.append(round_to_pb(row.config, t, rnd, games, {}, show_deck=show))
    for s in t.standings():
        out.standings.add(
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
