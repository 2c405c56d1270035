"""The GameService servicer: protobuf in, a use case of ``tranca.services``, protobuf
out. Nothing else happens here: no rule, no read or write of its own, no retry.

Each call's errors become gRPC statuses in one place (``rpc``, ``errors.py``); a bug
is logged with an incident id and answered INTERNAL without details.
"""

from __future__ import annotations

import functools
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
import structlog

from .. import metrics
from ..reasons import Reason
from ..services.domain_refusals import rule_violated
from ..services.errors import malformed
from ..services.game_views import (
    KNOB_RANGES,
    DealReplayView,
    commitment_of,
    deal_replay_view,
    preset_values,
    summary_of,
)
from ..services.games import Games, Joining, NewTable
from ..services.lobby import Lobby, LobbyFilter, Play
from ..services.move_values import read_move, read_turn
from ..services.ports import GameRecord
from ..services.table_options import NewOptions, TableHead
from ..services.tables import Tables
from ..v1 import game_pb2 as pb
from ..v1 import game_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .convert import (
    ROBOT_LEVEL_TO_PB,
    STATUS,
    STATUS_NAMES,
    commitment_value_to_pb,
    deal_board_to_pb,
    deal_result_to_pb,
    extend_moves,
    logged_to_pb,
    move_value_from_pb,
    overrides_from_pb,
    preset_to_pb,
    rules_to_pb,
    table_from_pb,
    table_to_pb,
)
from .errors import ApiError, abort, to_api_error
from .shared_views import SharedViews

log = structlog.get_logger("tranca.api")

Req = TypeVar("Req")
Resp = TypeVar("Resp")


def rpc(name: str) -> Callable[..., Any]:
    """Metrics, logging and error mapping around a unary method."""

    def wrap(
        fn: Callable[[Any, Req, Ctx], Awaitable[Resp]],
    ) -> Callable[[Any, Req, Ctx], Awaitable[Resp]]:
        @functools.wraps(fn)
        async def handler(self: Any, request: Req, context: Ctx) -> Resp:
            started = time.perf_counter()
            code = "OK"
            try:
                return await fn(self, request, context)
            except Exception as exc:
                err = _refusal(exc, name)
                code = err.code.name
                await abort(context, err)
                raise  # abort raises; this line is never reached
            finally:
                metrics.rpc_count(name, code).inc()
                metrics.rpc_latency(name).observe(time.perf_counter() - started)

        return handler

    return wrap


def stream_rpc(
    name: str, gauge: Any = None
) -> Callable[
    [Callable[[Any, Req, Ctx], AsyncIterator[Resp]]], Callable[[Any, Req, Ctx], AsyncIterator[Resp]]
]:
    """Metrics, error mapping and the open-stream ``gauge`` (if any) around a
    server-streaming method: what ``rpc`` is to a unary one. A client that goes away
    cancels the stream (counted as CANCELLED)."""

    def wrap(
        fn: Callable[[Any, Req, Ctx], AsyncIterator[Resp]],
    ) -> Callable[[Any, Req, Ctx], AsyncIterator[Resp]]:
        @functools.wraps(fn)
        async def handler(self: Any, request: Req, context: Ctx) -> AsyncIterator[Resp]:
            started = time.perf_counter()
            code = "OK"
            if gauge is not None:
                gauge.inc()
            try:
                # Not ``async for out in ...: yield out``: the loop's variable would keep
                # the last message alive while the stream waits, for every open stream.
                updates = aiter(fn(self, request, context))
                while True:
                    try:
                        yield await anext(updates)
                    except StopAsyncIteration:
                        break
            except Exception as exc:
                err = _refusal(exc, name)
                code = err.code.name
                await abort(context, err)
            except BaseException:  # a cancellation: the client went away
                code = "CANCELLED"
                raise
            finally:
                if gauge is not None:
                    gauge.dec()
                metrics.RPCS.labels(name, code).inc()
                metrics.RPC_LATENCY.labels(name).observe(time.perf_counter() - started)

        return handler

    return wrap


def _refusal(exc: Exception, method: str) -> ApiError:
    """The status a call's exception is answered with, counted in the metrics."""
    err = to_api_error(exc)
    if err is None:
        # A bug: log it with an id, and tell the caller nothing else (no SQL, no state,
        # no secrets in an error message).
        incident = secrets.token_hex(6)
        log.exception("rpc_failed", method=method, incident=incident)
        return ApiError(grpc.StatusCode.INTERNAL, Reason.INTERNAL, f"internal error {incident}")
    violated = rule_violated(exc)
    if violated is not None:
        metrics.REJECTIONS.labels(violated).inc()
    if err.reason == Reason.VERSION_CONFLICT:
        metrics.CONFLICTS.inc()
    return err


PLAY = {
    pb.PLAY_FILTER_UNSPECIFIED: Play.ANY,
    pb.PLAY_FILTER_PRACTICE: Play.PRACTICE,
    pb.PLAY_FILTER_RATED: Play.RATED,
}


class GameService(pb_grpc.GameServiceServicer):
    def __init__(self, games: Games, tables: Tables, lobby: Lobby, head: TableHead) -> None:
        self.games = games
        self.tables = tables
        self.lobby = lobby
        self.head = head
        # Each game's view at its latest versions, encoded once for the move's answer
        # and every watch stream of the game here (shared_views.py).
        self.views = SharedViews()

    @rpc("ListPresets")
    async def ListPresets(
        self, request: pb.ListPresetsRequest, context: Ctx
    ) -> pb.ListPresetsResponse:
        await self.games.access.calling_app(credentials(context))
        return pb.ListPresetsResponse(
            presets=[preset_to_pb(p) for p in preset_values()],
            knob_ranges=[
                pb.KnobRange(knob=knob, min=low, max=high)
                for knob, (low, high) in sorted(KNOB_RANGES.items())
            ],
            robot_level=ROBOT_LEVEL_TO_PB[self.games.robot_level],
            robot_max_level=ROBOT_LEVEL_TO_PB[self.games.robot_max_level],
        )

    @rpc("CreateGame")
    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Ctx
    ) -> pb.CreateGameResponse:
        game, invite = await self.games.create(
            credentials(context),
            NewTable(
                request.rules.preset,
                overrides_from_pb(request.rules),
                request.players,
                table_from_pb(request.table),
                request.seed,
                list(request.deck),
                request.label,
                request.spectators_allowed,
                request.owner_player_id,
            ),
        )
        return pb.CreateGameResponse(game=summary_to_pb(game), invite_code=invite)

    @rpc("JoinGame")
    async def JoinGame(self, request: pb.JoinGameRequest, context: Ctx) -> pb.JoinGameResponse:
        seated = await self.games.join(
            credentials(context),
            request.game_id,
            Joining(
                request.seat,
                request.player_name,
                request.player_id,
                request.spectator,
                request.robot,
                request.invite_code,
                request.player_address,
                request.token_lifetime_seconds,
            ),
        )
        return pb.JoinGameResponse(
            seat=seated.seat, player_token=seated.token, token_expires_at_ms=seated.expires_at
        )

    @rpc("StartGame")
    async def StartGame(self, request: pb.StartGameRequest, context: Ctx) -> pb.StartGameResponse:
        shown = await self.games.start(credentials(context), request.game_id)
        out = pb.StartGameResponse()
        self.views.fill(out.view, shown)
        return out

    @rpc("GetView")
    async def GetView(self, request: pb.GetViewRequest, context: Ctx) -> pb.GetViewResponse:
        shown = await self.games.view(credentials(context), request.game_id)
        out = pb.GetViewResponse()
        self.views.fill(out.view, shown)
        return out

    @rpc("ListLegalMoves")
    async def ListLegalMoves(
        self, request: pb.ListLegalMovesRequest, context: Ctx
    ) -> pb.ListLegalMovesResponse:
        shown = await self.games.legal_moves(credentials(context), request.game_id)
        out = pb.ListLegalMovesResponse(version=shown.version)
        extend_moves(out.moves, shown.legal)
        return out

    @rpc("SubmitMove")
    async def SubmitMove(
        self, request: pb.SubmitMoveRequest, context: Ctx
    ) -> pb.SubmitMoveResponse:
        wire = move_value_from_pb(request.move) if request.HasField("move") else None
        moved = await self.games.move(
            credentials(context),
            request.game_id,
            read_move(wire),
            expected_version=request.expected_version,
            request_id=request.request_id,
            with_legal_moves=request.include_legal_moves,
        )
        out = pb.SubmitMoveResponse(version=moved.shown.version, replayed=moved.replayed)
        self.views.fill(out.view, moved.shown)
        if request.include_legal_moves:
            extend_moves(out.legal_moves, moved.legal)
        return out

    @rpc("SubmitTurn")
    async def SubmitTurn(
        self, request: pb.SubmitTurnRequest, context: Ctx
    ) -> pb.SubmitTurnResponse:
        moved = await self.games.turn(
            credentials(context),
            request.game_id,
            read_turn([move_value_from_pb(m) for m in request.moves]),
            expected_version=request.expected_version,
            request_id=request.request_id,
            with_legal_moves=request.include_legal_moves,
        )
        out = pb.SubmitTurnResponse(version=moved.shown.version, replayed=moved.replayed)
        self.views.fill(out.view, moved.shown)
        if request.include_legal_moves:
            extend_moves(out.legal_moves, moved.legal)
        return out

    @rpc("LeaveGame")
    async def LeaveGame(self, request: pb.LeaveGameRequest, context: Ctx) -> pb.LeaveGameResponse:
        version = await self.games.leave(credentials(context), request.game_id, request.request_id)
        return pb.LeaveGameResponse(version=version)

    @rpc("ListGames")
    async def ListGames(self, request: pb.ListGamesRequest, context: Ctx) -> pb.ListGamesResponse:
        status = None
        if request.status:
            status = STATUS_NAMES.get(request.status)
            if status is None:
                raise malformed("status is one of the GameStatus values (unset: every status)")
        games, next_page = await self.games.list(
            credentials(context), status, request.page_size, request.page_token, request.open_only
        )
        return pb.ListGamesResponse(
            games=[summary_to_pb(g) for g in games], next_page_token=next_page
        )

    @rpc("ListOpenTables")
    async def ListOpenTables(
        self, request: pb.ListOpenTablesRequest, context: Ctx
    ) -> pb.ListOpenTablesResponse:
        play = PLAY.get(request.play)
        if play is None:
            raise malformed("play is one of the PlayFilter values")
        wanted = LobbyFilter(
            preset=request.preset,
            players=request.players,
            play=play,
            min_stake=request.min_stake,
            max_stake=request.max_stake if request.HasField("max_stake") else None,
            min_free_seats=request.min_free_seats or 1,
        )
        tables, next_page = await self.lobby.open_tables(
            credentials(context), wanted, request.page_size, request.page_token
        )
        return pb.ListOpenTablesResponse(
            tables=[summary_to_pb(g) for g in tables], next_page_token=next_page
        )

    @rpc("Heartbeat")
    async def Heartbeat(self, request: pb.HeartbeatRequest, context: Ctx) -> pb.HeartbeatResponse:
        robot = await self.tables.heartbeat(credentials(context), request.game_id)
        return pb.HeartbeatResponse(robot_seated=robot)

    @rpc("ReclaimSeat")
    async def ReclaimSeat(
        self, request: pb.ReclaimSeatRequest, context: Ctx
    ) -> pb.ReclaimSeatResponse:
        shown = await self.tables.reclaim(credentials(context), request.game_id, request.request_id)
        out = pb.ReclaimSeatResponse()
        self.views.fill(out.view, shown)
        return out

    @rpc("SetAutomatic")
    async def SetAutomatic(
        self, request: pb.SetAutomaticRequest, context: Ctx
    ) -> pb.SetAutomaticResponse:
        shown = await self.tables.set_automatic(
            credentials(context), request.game_id, request.on, request.request_id
        )
        out = pb.SetAutomaticResponse()
        self.views.fill(out.view, shown)
        return out

    @rpc("VoteAnnul")
    async def VoteAnnul(self, request: pb.VoteAnnulRequest, context: Ctx) -> pb.VoteAnnulResponse:
        done = await self.tables.vote_annul(
            credentials(context), request.game_id, request.request_id
        )
        return pb.VoteAnnulResponse(version=done.version, votes=done.votes, annulled=done.annulled)

    @rpc("AddEntropy")
    async def AddEntropy(
        self, request: pb.AddEntropyRequest, context: Ctx
    ) -> pb.AddEntropyResponse:
        state = await self.tables.add_entropy(
            credentials(context), request.game_id, request.entropy, request.request_id
        )
        return pb.AddEntropyResponse(commitment=commitment_value_to_pb(commitment_of(state)))

    @rpc("UpdateTableOptions")
    async def UpdateTableOptions(
        self, request: pb.UpdateTableOptionsRequest, context: Ctx
    ) -> pb.UpdateTableOptionsResponse:
        shown = await self.head.update(
            credentials(context),
            request.game_id,
            NewOptions(
                table_from_pb(request.table),
                request.spectators_allowed,
                request.expected_version or None,
                request.request_id,
            ),
        )
        out = pb.UpdateTableOptionsResponse()
        self.views.fill(out.view, shown)
        return out

    @rpc("ConsentToOptions")
    async def ConsentToOptions(
        self, request: pb.ConsentToOptionsRequest, context: Ctx
    ) -> pb.ConsentToOptionsResponse:
        shown = await self.head.consent(credentials(context), request.game_id, request.request_id)
        out = pb.ConsentToOptionsResponse()
        self.views.fill(out.view, shown)
        return out

    @rpc("GetReplay")
    async def GetReplay(self, request: pb.GetReplayRequest, context: Ctx) -> pb.GetReplayResponse:
        replay = await self.games.replay(credentials(context), request.game_id)
        setup = replay.game.state.setup
        out = pb.GetReplayResponse(
            game_id=replay.game.id, rules=rules_to_pb(setup.rules), players=setup.players
        )
        if replay.seed is not None:
            out.seed = replay.seed
        out.moves.extend(logged_to_pb(m) for m in replay.moves)
        out.deals.extend(deal_replay_to_pb(deal_replay_view(d)) for d in replay.deals)
        return out

    @stream_rpc("WatchGame", metrics.WATCHES)
    async def WatchGame(
        self, request: pb.WatchGameRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchGameResponse]:
        updates = self.games.watch(credentials(context), request.game_id, request.from_version)
        while True:  # no loop variable: the last update is not kept while the stream waits
            try:
                yield self.views.watch_response(await anext(updates))
            except StopAsyncIteration:
                return


def summary_to_pb(game: GameRecord) -> pb.GameSummary:
    g = summary_of(game)
    return pb.GameSummary(
        game_id=g.game_id,
        status=STATUS[g.status],
        preset=g.preset,
        players=g.players,
        seats_taken=g.seats_taken,
        version=g.version,
        label=g.label,
        created_at=g.created_at,
        table=table_to_pb(g.table),
        player_names=g.player_names,
        player_ids=g.player_ids,
        table_id=g.table_id,
        match_number=g.match_number,
        head_seat=g.head_seat,
        options_version=g.options_version,
    )


def deal_replay_to_pb(deal: DealReplayView) -> pb.DealReplay:
    out = pb.DealReplay(deal_number=deal.deal_number, dealer=deal.dealer)
    if deal.result is not None:
        out.result.CopyFrom(deal_result_to_pb(deal.result))
    if deal.final_board is not None:
        out.final_board.CopyFrom(deal_board_to_pb(deal.final_board))
    if deal.reveal is not None:
        reveal = deal.reveal
        out.deck.extend(reveal.deck.split())
        out.reveal.CopyFrom(
            pb.DealReveal(
                deal_number=deal.deal_number,
                commitment=reveal.commitment,
                server_seed=reveal.server_seed,
                entropy=reveal.entropy,
                seed=reveal.seed,
            )
        )
    elif deal.deck is not None:
        out.deck.extend(deal.deck)
    return out
