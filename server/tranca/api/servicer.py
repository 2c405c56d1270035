"""The GameService servicer: protobuf in, domain calls, protobuf out.

Each call reads what it needs from the database and keeps nothing afterwards; a
watch stream keeps the game only for the life of the stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, NoReturn, TypeAlias, TypeVar

import grpc
import structlog

from ..app.game import (
    BY_ROBOT,
    FINISHED,
    PLAYING,
    WAITING,
    Action,
    GameState,
    Setup,
    TableOptions,
    apply_action,
    new_game,
    play_action,
)
from ..platform.fairness import deal_reveal, new_server_secret
from ..rules.cards import card_text, full_deck, parse_card, shuffled_deck
from ..rules.engine import legal_moves
from ..rules.errors import RuleViolation
from ..rules.match import deal_seed
from ..rules.moves import KIND_NAMES, parse_move
from ..rules.presets import KNOB_RANGES, PRESETS, Rules, make_rules
from ..store import tournament_store
from ..store.notify import Hub
from ..store.repository import (
    AppRecord,
    GameRecord,
    SeatGame,
    Store,
    TokenRecord,
    hash_secret,
    new_seat_token,
    now_ms,
)
from ..store.starting import check_can_cover, start_match
from ..store.watch_leases import WatchLeases
from ..v1 import game_pb2 as pb
from ..v1 import game_pb2_grpc as pb_grpc
from . import metrics, presence, table_actions
from .auth import Caller, Credentials, peer_address, require_app, require_player
from .convert import (
    STATUS,
    STATUS_NAMES,
    deal_result_to_pb,
    extend_moves,
    move_from_pb,
    move_to_pb,
    overrides_from_pb,
    preset_to_pb,
    rules_to_pb,
    table_from_pb,
    table_to_pb,
    view_to_pb,
)
from .errors import ApiError, abort, malformed, rate_limited, to_api_error
from .limits import (
    DEFAULT_TOKEN_LIFETIME,
    MAX_TOKEN_LIFETIME,
    MIN_TOKEN_LIFETIME,
    RateLimiter,
    WatchCounts,
)

log = structlog.get_logger("tranca.api")

FIXED_DECK = "fixed_deck"
# A player id's length (JoinGameRequest.player_id's max_chars; tournaments' entrants).
MAX_PLAYER_ID = 128
MAX_TURN_SECONDS = 24 * 3600
MAX_STAKE = 10**12
# The highest point limit a table sets: the target_score knob's range (RULES.md).
MAX_POINT_LIMIT = KNOB_RANGES["target_score"][1]
WATCH_POLL_SECONDS = 10.0

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Ctx: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
# Builds the caller's INVALID_ARGUMENT error from a message (see rules_and_table).
Refuse: TypeAlias = Callable[[str], ApiError]


def _not_found() -> ApiError:
    return ApiError(grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND", "no such game")


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
                err = to_api_error(exc)
                if err is None:
                    # A bug: log it with an id, and tell the caller nothing else (no SQL,
                    # no state, no secrets in an error message).
                    incident = secrets.token_hex(6)
                    log.exception("rpc_failed", method=name, incident=incident)
                    err = ApiError(
                        grpc.StatusCode.INTERNAL, "INTERNAL", f"internal error {incident}"
                    )
                code = err.code.name
                if isinstance(exc, RuleViolation):
                    metrics.REJECTIONS.labels(exc.reason.value).inc()
                if err.reason == "VERSION_CONFLICT":
                    metrics.CONFLICTS.inc()
                await abort(context, err)
                raise  # abort raises; this line is never reached
            finally:
                metrics.rpc_count(name, code).inc()
                metrics.rpc_latency(name).observe(time.perf_counter() - started)

        return handler

    return wrap


class GameService(pb_grpc.GameServiceServicer):
    def __init__(
        self,
        store: Store,
        hub: Hub,
        max_watches_per_token: int = 4,
        token_limiter: RateLimiter | None = None,
        app_limiter: RateLimiter | None = None,
        db_timeout: float = 5.0,
        max_watches_per_app: int = 1000,
        credentials: Credentials | None = None,
        token_lifetime_seconds: int = DEFAULT_TOKEN_LIFETIME,
    ) -> None:
        self.store = store
        self.hub = hub
        self.credentials = credentials or Credentials(store)
        self.token_lifetime_seconds = token_lifetime_seconds
        self.token_limiter = token_limiter or RateLimiter(100, 200)
        self.app_limiter = app_limiter or RateLimiter(2000, 4000)
        self.db_timeout = db_timeout
        # Open watch streams per credential in this process: a player token's (by its
        # hash) and an API key's (by its app).
        self.watches = WatchCounts(max_watches_per_token, max_watches_per_app)
        # When this process last wrote each seat's presence (tables with robots).
        self.presence = presence.Presence(store)
        # The games this replica's watchers want hints of (server.py renews them).
        self.watch_leases = WatchLeases(store, hub)

    # ----- helpers -----------------------------------------------------------------

    async def _identify(self, context: Ctx) -> Caller:
        """Who is calling, within the rate limits of their token or app."""
        caller = await self.credentials.identify(context)
        if caller.player is not None:
            self._limit_player(caller.player)
        else:
            assert caller.app is not None
            self._limited(self.app_limiter.take(caller.app.id))
        return caller

    async def _seat_game(self, context: Ctx) -> SeatGame | None:
        """For a call with a player token: its seat and game in one read (the move
        path's only read), within the token's rate limit. None for other callers,
        who go through ``_identify``."""
        loaded = await self.credentials.seat_game(context)
        if loaded is None:
            return None
        self._limit_player(loaded.player)
        return loaded

    def _limit_player(self, player: TokenRecord) -> None:
        """Each player token has its own bucket (keyed by its hash)."""
        self._limited(self.token_limiter.take(player.token_hash))

    @staticmethod
    def _limited(wait: float) -> None:
        if wait:
            raise rate_limited(wait)

    async def _game_for(self, caller: Caller, game_id: str) -> GameRecord:
        """The game, if the caller may see it; NOT_FOUND otherwise (other apps' games
        are invisible, not forbidden)."""
        if not game_id:
            raise malformed("game_id is required")
        game = await self.store.game(game_id)
        if caller.app is not None and game.app_id != caller.app.id:
            raise _not_found()
        if caller.player is not None and caller.player.game_id != game_id:
            raise _not_found()
        return game

    async def _no_player_token(self, context: Ctx, game_id: str, *, game_first: bool) -> NoReturn:
        """A seat's call made without a player token: the error its credentials call
        for (missing or bad ones, a game it may not see, or PLAYER_TOKEN_REQUIRED)."""
        caller = await self._identify(context)
        if game_first:
            await self._game_for(caller, game_id)
        require_player(caller, game_id)
        raise AssertionError("require_player refuses a caller without a player token")

    @staticmethod
    def _same_game(loaded: SeatGame, game_id: str) -> None:
        """A token of another game sees no game of this id (as ``_game_for``)."""
        if not game_id:
            raise malformed("game_id is required")
        if loaded.player.game_id != game_id:
            raise _not_found()

    def _viewer_seat(self, caller: Caller, game: GameRecord) -> int:
        if caller.player is not None:
            if caller.player.seat < 0 and not game.state.setup.spectators_allowed:
                raise _no_spectators()
            return caller.player.seat
        return -1

    # ----- RPCs --------------------------------------------------------------------

    @rpc("ListPresets")
    async def ListPresets(
        self, request: pb.ListPresetsRequest, context: Ctx
    ) -> pb.ListPresetsResponse:
        require_app(await self._identify(context))
        return pb.ListPresetsResponse(
            presets=[preset_to_pb(PRESETS[n]) for n in sorted(PRESETS)],
            knob_ranges=[
                pb.KnobRange(knob=knob, min=low, max=high)
                for knob, (low, high) in sorted(KNOB_RANGES.items())
            ],
        )

    @rpc("CreateGame")
    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Ctx
    ) -> pb.CreateGameResponse:
        app = require_app(await self._identify(context))
        rules, table = rules_and_table(request.rules, request.players, request.table, malformed)
        deck = None
        if request.deck:
            deck = fixed_deck(
                app,
                request.deck,
                rules.jokers,
                malformed,
                field="deck",
                wrong_cards="deck must hold exactly the cards of the preset's deck",
            )
        if table.verifiable and deck is not None:
            raise malformed("a verifiable table shuffles its own deck: give no deck")
        seed = request.seed or secrets.randbits(63)
        secret = new_server_secret() if table.verifiable else None
        setup = Setup(rules, request.players, seed, deck, request.spectators_allowed, table, secret)
        state = new_game(setup)
        invite = "ti_" + secrets.token_urlsafe(12) if table.private else ""
        game_id = await self.store.create_game(
            app.id, setup, state, request.label, hash_secret(invite) if invite else None
        )
        game = await self.store.game(game_id)
        return pb.CreateGameResponse(game=_summary(game), invite_code=invite)

    @rpc("JoinGame")
    async def JoinGame(self, request: pb.JoinGameRequest, context: Ctx) -> pb.JoinGameResponse:
        caller = await self._identify(context)
        require_app(caller)
        game = await self._game_for(caller, request.game_id)
        name = request.player_name.strip()
        lifetime = request.token_lifetime_seconds or self.token_lifetime_seconds
        if not MIN_TOKEN_LIFETIME <= lifetime <= MAX_TOKEN_LIFETIME:
            raise malformed(
                f"token_lifetime_seconds is {MIN_TOKEN_LIFETIME} to {MAX_TOKEN_LIFETIME}"
                " (0: the server's default)"
            )
        expires_at = now_ms() + lifetime * 1000
        table = game.state.setup.table
        if table.private:
            # Spectators of a private table need the invitation too.
            wanted = await self.store.invite_hash(game.id)
            given = hash_secret(request.invite_code) if request.invite_code else ""
            if wanted is None or not secrets.compare_digest(wanted, given):
                raise ApiError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "INVITE_REQUIRED",
                    "this table is private: JoinGame needs its invite code",
                )
        player_id = request.player_id.strip()
        if request.robot and (request.spectator or player_id):
            raise malformed("a robot's seat is no spectator's and has no player_id")
        if request.spectator:
            if not game.state.setup.spectators_allowed:
                raise ApiError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "NO_SPECTATORS",
                    "this game has no spectators",
                )
            token = await self.store.add_spectator(game.id, name, expires_at)
            return pb.JoinGameResponse(seat=-1, player_token=token, token_expires_at_ms=expires_at)
        seat = request.seat
        if seat == -1:
            free = [i for i, s in enumerate(game.state.seats) if not s.taken]
            if not free or game.state.status != WAITING:
                raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, "GAME_FULL", "no free seat")
            seat = free[0]
        elif not 0 <= seat < game.state.setup.players:
            raise malformed(f"seat must be -1 or 0..{game.state.setup.players - 1}")
        if request.robot:
            # The server's robot plays the seat (the sweeper, store/sweeper.py); the game
            # refuses it at a table without robots or a competitive one. No token.
            await self.store.commit_action(
                game.id,
                Action("join", seat, name=name or f"robot {seat}", by=BY_ROBOT),
                expected_version=None,
            )
            return pb.JoinGameResponse(seat=seat)
        if table.competitive and not player_id:
            raise malformed("a competitive table needs every seat's player_id")
        await check_can_cover(self.store, game.app_id, player_id, table.stake)
        address = request.player_address.strip() or peer_address(context.peer())
        token, seat_token = new_seat_token(
            seat, name, player_id or None, address, expires_at=expires_at
        )
        await self.store.commit_action(
            game.id,
            Action("join", seat, name=name or f"player {seat}", player_id=player_id),
            expected_version=None,
            new_token=seat_token,
        )
        return pb.JoinGameResponse(seat=seat, player_token=token, token_expires_at_ms=expires_at)

    @rpc("StartGame")
    async def StartGame(self, request: pb.StartGameRequest, context: Ctx) -> pb.StartGameResponse:
        caller = await self._identify(context)
        game = await self._game_for(caller, request.game_id)
        if caller.player is not None and caller.player.seat < 0:
            raise ApiError(grpc.StatusCode.PERMISSION_DENIED, "SPECTATOR", "spectators cannot act")
        done = await start_match(self.store, game.id)
        seat = caller.player.seat if caller.player is not None else -1
        # The start set a timed table's first turn deadline: the view shows it, as
        # GetView would (a start never leaves an earlier deadline standing).
        deadline = done.deadline_at if done.deadline_set else None
        view = view_to_pb(game.id, done.version, done.state, seat, deadline)
        return pb.StartGameResponse(view=view)

    @rpc("GetView")
    async def GetView(self, request: pb.GetViewRequest, context: Ctx) -> pb.GetViewResponse:
        loaded = await self._seat_game(context)
        if loaded is not None:
            self._same_game(loaded, request.game_id)
            seat = loaded.player.seat
            if seat < 0 and not loaded.state.setup.spectators_allowed:
                raise _no_spectators()
            await self.presence.touch(request.game_id, seat, loaded.state)
            view = view_to_pb(
                request.game_id, loaded.version, loaded.state, seat, loaded.deadline_at
            )
            return pb.GetViewResponse(view=view)
        caller = await self._identify(context)
        game = await self._game_for(caller, request.game_id)
        seat = self._viewer_seat(caller, game)
        view = view_to_pb(game.id, game.version, game.state, seat, game.deadline_at)
        return pb.GetViewResponse(view=view)

    @rpc("ListLegalMoves")
    async def ListLegalMoves(
        self, request: pb.ListLegalMovesRequest, context: Ctx
    ) -> pb.ListLegalMovesResponse:
        loaded = await self._seat_game(context)
        if loaded is None:
            await self._no_player_token(context, request.game_id, game_first=True)
        self._same_game(loaded, request.game_id)
        player = require_player(Caller(player=loaded.player), request.game_id)
        await self.presence.touch(request.game_id, player.seat, loaded.state)
        out = pb.ListLegalMovesResponse(version=loaded.version)
        _add_legal_moves(out.moves, loaded.state, player.seat)
        return out

    @rpc("SubmitMove")
    async def SubmitMove(
        self, request: pb.SubmitMoveRequest, context: Ctx
    ) -> pb.SubmitMoveResponse:
        loaded = await self._seat_game(context)
        if not request.game_id:
            raise malformed("game_id is required")
        if loaded is None:
            await self._no_player_token(context, request.game_id, game_first=False)
        player = require_player(Caller(player=loaded.player), request.game_id)
        if not request.request_id:
            raise malformed("request_id is required")
        if not request.HasField("move"):
            raise malformed("move is required")
        move = move_from_pb(request.move)
        done = await self.store.commit_move(
            loaded,
            play_action(player.seat, move),
            expected_version=request.expected_version,
            request_id=request.request_id,
        )
        if done.replayed:
            metrics.REPLAYS.inc()
        else:
            metrics.moves_applied(KIND_NAMES[move.kind]).inc()
        # Game id, version, seat and move kind only: never a secret, never a card. At
        # debug level: the move log holds every move, and at info a busy server would
        # write a line per move (`tranca serve --log-level debug` shows them).
        log.debug(
            "move",
            game_id=request.game_id,
            version=done.version,
            seat=player.seat,
            kind=KIND_NAMES[move.kind],
            replayed=done.replayed,
        )
        # The move's own write set the deadline when it started a turn; else it stands.
        deadline = done.deadline_at if done.deadline_set else loaded.deadline_at
        out = pb.SubmitMoveResponse(
            version=done.version,
            view=view_to_pb(request.game_id, done.version, done.state, player.seat, deadline),
            replayed=done.replayed,
        )
        if request.include_legal_moves:
            _add_legal_moves(out.legal_moves, done.state, player.seat)
        return out

    @rpc("LeaveGame")
    async def LeaveGame(self, request: pb.LeaveGameRequest, context: Ctx) -> pb.LeaveGameResponse:
        caller = await self._identify(context)
        game = await self._game_for(caller, request.game_id)
        player = require_player(caller, game.id)
        # Once the game is under way (or over, for a retried resignation) leaving resigns;
        # the game logic refuses a resignation from a finished game.
        kind = "leave" if game.state.status == WAITING else "resign"
        done = await self.store.commit_action(
            game.id,
            Action(kind, player.seat),
            expected_version=None,
            request_id=request.request_id or None,
            revoke_seat=player.seat if kind == "leave" else None,
        )
        return pb.LeaveGameResponse(version=done.version)

    @rpc("ListGames")
    async def ListGames(self, request: pb.ListGamesRequest, context: Ctx) -> pb.ListGamesResponse:
        app = require_app(await self._identify(context))
        size = request.page_size or 50
        if not 1 <= size <= 500:
            raise malformed("page_size is 1..500")
        try:
            offset = int(request.page_token or "0")
        except ValueError:
            offset = -1
        if not 0 <= offset < 2**62:  # an offset the database takes
            raise malformed("bad page_token")
        status = None
        if request.status:
            status = STATUS_NAMES.get(request.status)
            if status is None:
                raise malformed("status is one of the GameStatus values (unset: every status)")
        games = await self.store.list_games(
            app.id, status, size + 1, offset, open_only=request.open_only
        )
        out = pb.ListGamesResponse(games=[_summary(g) for g in games[:size]])
        if len(games) > size:
            out.next_page_token = str(offset + size)
        return out

    # Seats' table actions: presence and robots (presence.py), annulment and entropy
    # (table_actions.py).

    @rpc("Heartbeat")
    async def Heartbeat(self, request: pb.HeartbeatRequest, context: Ctx) -> pb.HeartbeatResponse:
        return await presence.heartbeat(self, request, context)

    @rpc("ReclaimSeat")
    async def ReclaimSeat(
        self, request: pb.ReclaimSeatRequest, context: Ctx
    ) -> pb.ReclaimSeatResponse:
        return await presence.reclaim_seat(self, request, context)

    @rpc("VoteAnnul")
    async def VoteAnnul(self, request: pb.VoteAnnulRequest, context: Ctx) -> pb.VoteAnnulResponse:
        return await table_actions.vote_annul(self, request, context)

    @rpc("AddEntropy")
    async def AddEntropy(
        self, request: pb.AddEntropyRequest, context: Ctx
    ) -> pb.AddEntropyResponse:
        return await table_actions.add_entropy(self, request, context)

    @rpc("GetReplay")
    async def GetReplay(self, request: pb.GetReplayRequest, context: Ctx) -> pb.GetReplayResponse:
        caller = await self._identify(context)
        game = await self._game_for(caller, request.game_id)
        self._viewer_seat(caller, game)
        g = game.state
        setup = g.setup
        out = pb.GetReplayResponse(
            game_id=game.id, rules=rules_to_pb(setup.rules), players=setup.players
        )
        # A table of a duplicate tournament round shares its seed and decks with the
        # round's other tables: while one of them plays, they are its hidden cards, so
        # the seed and every deck (and proof) wait until every game of the round ends.
        cards_shown = not await tournament_store.duplicate_round_in_play(self.store, game.id)
        if g.status == FINISHED and cards_shown:
            out.seed = setup.seed
        rows = await self.store.log(game.id)
        # Rebuild the game from its log to read every finished deal's result.
        state = new_game(setup)
        results: dict[int, pb.DealResult] = {}
        for row in rows:
            apply_action(state, row.action, row.version)
            if state.last_deal is not None:
                n = int(state.last_deal["deal_number"])
                results.setdefault(n, deal_result_to_pb(state.last_deal))
            out.moves.append(_logged(row, state.deal_number))
        match = state.match
        if match is None:
            return out
        secret = setup.server_secret
        shown: list[int] = sorted(results)
        if secret is not None and state.status == FINISHED and state.deal_number not in results:
            # A verifiable match that ended inside a deal (a resignation, an annulment):
            # nothing of that deal is hidden any more, so its proof is shown too.
            shown.append(state.deal_number)
        for index in shown:
            replay = pb.DealReplay(deal_number=index, dealer=match.dealer_of(index - 1))
            if index in results:
                replay.result.CopyFrom(results[index])
            if not cards_shown:
                out.deals.append(replay)  # its dealer and result, not its cards
                continue
            if secret is not None:
                reveal = deal_reveal(secret, index, state.entropy, setup.rules.jokers)
                replay.deck.extend(reveal.deck.split())
                replay.reveal.CopyFrom(
                    pb.DealReveal(
                        deal_number=index,
                        commitment=reveal.commitment,
                        server_seed=reveal.server_seed,
                        entropy=reveal.entropy,
                        seed=reveal.seed,
                    )
                )
            else:
                deck = (
                    setup.deck
                    if index == 1 and setup.deck
                    else shuffled_deck(setup.rules.jokers, deal_seed(setup.seed, index - 1))
                )
                replay.deck.extend(card_text(c) for c in deck)
            out.deals.append(replay)
        return out

    async def WatchGame(
        self, request: pb.WatchGameRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchGameResponse]:
        started = time.perf_counter()
        code = "OK"
        metrics.WATCHES.inc()
        try:
            caller = await self._identify(context)
            game = await self._game_for(caller, request.game_id)
            seat = self._viewer_seat(caller, game)
            if caller.player is not None:
                key, cap = f"token:{caller.player.token_hash}", self.watches.per_token
            else:
                assert caller.app is not None
                key, cap = f"app:{caller.app.id}", self.watches.per_app
            with self.watches.hold(key, cap):
                async for update in self._watch(game, seat, request.from_version):
                    yield update
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        except Exception as exc:
            err = to_api_error(exc)
            if err is None:
                incident = secrets.token_hex(6)
                log.exception("watch_failed", incident=incident)
                err = ApiError(grpc.StatusCode.INTERNAL, "INTERNAL", f"internal error {incident}")
            code = err.code.name
            await abort(context, err)
        finally:
            metrics.WATCHES.dec()
            metrics.RPCS.labels("WatchGame", code).inc()
            metrics.RPC_LATENCY.labels("WatchGame").observe(time.perf_counter() - started)

    async def _watch(
        self, game: GameRecord, seat: int, from_version: int
    ) -> AsyncIterator[pb.WatchGameResponse]:
        """Every version after ``from_version``, in order and without gaps: the state
        is folded forward from the log, so nothing is skipped even if hints are lost."""
        if from_version < 0:
            raise malformed("from_version must be 0 or more")
        if from_version > game.version:
            raise malformed(f"from_version {from_version} is ahead of the game ({game.version})")
        table = game.state.setup.table
        # A seat's open stream says its player is there (tables with robots), at most
        # once per presence interval; the wait below wakes up for it.
        present = seat >= 0 and table.robot_grace_seconds > 0
        wait = (
            min(WATCH_POLL_SECONDS, presence.presence_interval(table.robot_grace_seconds))
            if present
            else WATCH_POLL_SECONDS
        )
        with self.hub.subscribe(game.id) as hint:
            # Before the log is first read: from here on every move of the game hints
            # this replica's listener, and any move before is in what is read. (A
            # finished game has no move left to hint.)
            if game.state.status != FINISHED:
                await self.watch_leases.hold(game.id)
            if from_version == 0:
                state: GameState = game.state
                version = game.version
                view = view_to_pb(game.id, version, state, seat, game.deadline_at)
                yield pb.WatchGameResponse(view=view)
            else:
                setup = game.state.setup
                state = new_game(setup)
                for row in await self.store.log(game.id, 0, from_version):
                    apply_action(state, row.action, row.version)
                version = from_version
            while True:
                hint.clear()
                if present:
                    await self.presence.touch(game.id, seat, state)
                rows = await self.store.log(game.id, version)
                # A timed table's turn deadline is not in the log: read with the game's
                # version, and shown on the view of that version (the batch's last).
                deadline_version, deadline = -1, None
                if rows and table.turn_seconds:
                    deadline_version, deadline = await self.store.deadline_of(game.id)
                for row in rows:
                    apply_action(state, row.action, row.version)
                    version = row.version
                    shown = deadline if version == deadline_version else None
                    yield pb.WatchGameResponse(
                        view=view_to_pb(game.id, version, state, seat, shown),
                        move=_logged(row, state.deal_number),
                    )
                if state.status == FINISHED:
                    return  # nothing follows the end of a match
                # Re-read the log on a timer too: a hint may have been lost.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(hint.wait(), wait)


def check_table_options(t: TableOptions) -> None:
    """Refuse incoherent table options with INVALID_ARGUMENT."""
    if not 0 <= t.turn_seconds <= MAX_TURN_SECONDS:
        raise malformed(f"table.turn_seconds is 0 (no limit) to {MAX_TURN_SECONDS}")
    if not 0 <= t.robot_grace_seconds <= MAX_TURN_SECONDS:
        raise malformed(f"table.robot_grace_seconds is 0 (no robots) to {MAX_TURN_SECONDS}")
    if not 0 <= t.stake <= MAX_STAKE:
        raise malformed(f"table.stake is 0 to {MAX_STAKE}")
    if t.stake and not t.competitive:
        raise malformed("a stake needs a competitive table (003: practice plays for no chips)")
    if not 0 <= t.point_limit <= MAX_POINT_LIMIT:
        raise malformed(f"table.point_limit is 0 (the preset's) to {MAX_POINT_LIMIT}")
    if t.express and t.point_limit:
        raise malformed("an express table has no point limit (003: 'sin límite de puntos')")


def rules_and_table(
    rules_pb: pb.Rules, players: int, table_pb: pb.TableOptions, refuse: Refuse
) -> tuple[Rules, TableOptions]:
    """The rules and table options of a new game (CreateGame) or of every game of a
    tournament: the preset is required and must be played by ``players``, refused
    through ``refuse`` (the caller's INVALID_ARGUMENT reason); the table's options are
    checked, and set the length of the match (express, point limit)."""
    if not rules_pb.preset:
        raise refuse("rules.preset is required (see ListPresets)")
    overrides = overrides_from_pb(rules_pb)
    rules = make_rules(rules_pb.preset, overrides)
    if players not in rules.player_counts:
        allowed = ", ".join(str(n) for n in rules.player_counts)
        raise refuse(f"{rules.name} is played by {allowed} players")
    table = table_from_pb(table_pb)
    check_table_options(table)
    return make_rules(rules_pb.preset, table.match_overrides(overrides)), table


def fixed_deck(
    app: AppRecord,
    cards: Sequence[str],
    jokers: bool,
    refuse: Refuse,
    *,
    field: str,
    wrong_cards: str,
) -> list[int]:
    """A deck order the caller fixes (``cards``: one card text each): PERMISSION_DENIED
    without the fixed_deck permission; through ``refuse`` a card that does not parse
    (``field: why``) or a deck that is not exactly the rules' deck (``wrong_cards``)."""
    if FIXED_DECK not in app.permissions:
        raise ApiError(
            grpc.StatusCode.PERMISSION_DENIED,
            "FIXED_DECK_NOT_ALLOWED",
            "this API key may not fix the deck order",
        )
    try:
        deck = [parse_card(c) for c in cards]
    except ValueError as exc:
        raise refuse(f"{field}: {exc}") from None
    if sorted(deck) != sorted(full_deck(jokers)):
        raise refuse(wrong_cards)
    return deck


def _no_spectators() -> ApiError:
    return ApiError(
        grpc.StatusCode.PERMISSION_DENIED, "NO_SPECTATORS", "this game has no spectators"
    )


def _add_legal_moves(field: Any, state: GameState, seat: int) -> None:
    """The seat's legal moves now, in canonical order; none when it is not its turn."""
    deal = state.deal
    if state.status == PLAYING and deal is not None and deal.turn == seat:
        extend_moves(field, legal_moves(deal))


def _summary(game: GameRecord) -> pb.GameSummary:
    g = game.state
    return pb.GameSummary(
        game_id=game.id,
        status=STATUS[g.status],
        preset=g.setup.rules.name,
        players=g.setup.players,
        seats_taken=sum(1 for s in g.seats if s.taken),
        version=game.version,
        label=game.label,
        created_at=int(game.created_at),
        table=table_to_pb(g.setup.table),
    )


def _logged(row: Any, deal_number: int) -> pb.LoggedMove:
    action: Action = row.action
    out = pb.LoggedMove(
        version=row.version,
        deal_number=deal_number,
        seat=action.seat,
        actor=row.actor,
        played_at=int(row.created_at),
    )
    if action.kind == "move":
        out.move.CopyFrom(move_to_pb(parse_move(action.move)))
    else:
        out.move.text = action.kind
    return out
