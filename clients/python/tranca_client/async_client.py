"""``AsyncTrancaClient``: the asyncio client of the Tranca game service (see
``tranca_client.client`` for its retries and credentials)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, TypeVar

import grpc

from ._auth import ANY, APP, PLAYER
from .chat import AsyncChat
from .connection import (
    _WATCH_RESUMABLE,
    API_KEY_HEADER,
    DEFAULT_ADDRESS,
    DEFAULT_TIMEOUT,
    RATE_LIMITED,
    RetryPolicy,
    _channel,
    _retry_after,
)
from .errors import (
    ResourceExhausted,
    RuleRejected,
    TrancaError,
    Unavailable,
    VersionConflict,
    error_from_rpc,
)
from .invitations import AsyncInvitations
from .moves import parse_move
from .platform_calls import AsyncPlatformCalls
from .progression import AsyncProgression
from .quick_play import AsyncQuickPlay
from .sessions import AsyncSessions
from .social import AsyncSocial
from .tables import AsyncTables
from .v1 import admin_pb2_grpc as apb_grpc
from .v1 import chat_pb2_grpc as chpb_grpc
from .v1 import game_pb2 as pb
from .v1 import game_pb2_grpc as pb_grpc
from .v1 import invitations_pb2_grpc as ipb_grpc
from .v1 import notifications_pb2_grpc as npb_grpc
from .v1 import platform_pb2_grpc as ppb_grpc
from .v1 import progression_pb2_grpc as xpb_grpc
from .v1 import quick_play_pb2_grpc as qpb_grpc
from .v1 import session_pb2_grpc as spb_grpc
from .v1 import social_pb2_grpc as sopb_grpc
from .v1 import tables_pb2_grpc as tpb_grpc

Req = TypeVar("Req")
Resp = TypeVar("Resp")
T = TypeVar("T")

KnobOverride = bool | int | str | Sequence[int] | pb.KnobValue
"""A rules knob override: a bool, an int, a string, a list of ints or a KnobValue."""

_APP, _PLAYER, _ANY = APP, PLAYER, ANY


def knob_value(value: KnobOverride) -> pb.KnobValue:
    """A ``tranca.v1.KnobValue`` from a Python value."""
    if isinstance(value, pb.KnobValue):
        return value
    if isinstance(value, bool):
        return pb.KnobValue(bool_value=value)
    if isinstance(value, int):
        return pb.KnobValue(int_value=value)
    if isinstance(value, str):
        return pb.KnobValue(string_value=value)
    return pb.KnobValue(int_list=pb.IntList(values=[int(v) for v in value]))


class AsyncTrancaClient(
    AsyncQuickPlay,
    AsyncSessions,
    AsyncSocial,
    AsyncChat,
    AsyncInvitations,
    AsyncTables,
    AsyncProgression,
    AsyncPlatformCalls,
):
    """An asyncio client of the Tranca game service.

    Create it inside a running event loop, and close it (or use ``async with``)::

        async with AsyncTrancaClient("127.0.0.1:50051", api_key=KEY) as app:
            game = await app.create_game("tranca-000", players=2)
            me = await app.join(game.game_id, seat=0, player_name="ana")
            ...
            view = await me.get_view(game.game_id)
            legal = await me.legal_moves(game.game_id)
            done = await me.submit_move(game.game_id, "draw", expected_version=view.version)

    Arguments (all but ``address`` keyword-only):

    - ``address``: ``host:port`` of the service;
    - ``api_key``: the app's key, for app calls (create, join, list);
    - ``token``: a player token (from ``join_game``), for a seat's calls;
    - ``insecure``: plaintext (True) or TLS (False); None (default): plaintext to a
      loopback address, TLS with the system's roots elsewhere;
    - ``root_certificates``: PEM roots for TLS (implies TLS);
    - ``client_certificate``: ``(certificate chain PEM, private key PEM)`` for a
      server that asks for client certificates (mutual TLS; implies TLS);
    - ``timeout``: the deadline of each attempt of a unary call, seconds (None: none);
    - ``retry``: a ``RetryPolicy``;
    - ``channel_options``: extra gRPC channel options;
    - ``interceptors``: ``grpc.aio`` client interceptors (for tracing, tests...);
    - ``channel``: an existing ``grpc.aio.Channel`` to use (the client does not close
      it), instead of making one.
    """

    def __init__(
        self,
        address: str = DEFAULT_ADDRESS,
        *,
        api_key: str | None = None,
        token: str | None = None,
        insecure: bool | None = None,
        root_certificates: bytes | None = None,
        client_certificate: tuple[bytes, bytes] | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
        interceptors: Sequence[grpc.aio.ClientInterceptor] = (),
        channel: grpc.aio.Channel | None = None,
        language: str | None = None,
    ) -> None:
        self.address = address
        self.api_key = api_key
        self.token = token
        # Sent as ``accept-language``: the service words its refusals in it (pt-BR,
        # es or en; ``TrancaError.localized``).
        self.language = language
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.seat = -1  # the seat of ``token``, when ``join`` made this client
        self._owns_channel = channel is None
        self.channel = channel or _channel(
            address, insecure, root_certificates, client_certificate, channel_options, interceptors
        )
        self._stub = pb_grpc.GameServiceStub(self.channel)
        self._players = ppb_grpc.PlayerServiceStub(self.channel)
        self._tournaments = ppb_grpc.TournamentServiceStub(self.channel)
        self._quick = qpb_grpc.QuickPlayServiceStub(self.channel)
        self._sessions = spb_grpc.SessionServiceStub(self.channel)
        self._admin = apb_grpc.AdminServiceStub(self.channel)
        self._social = sopb_grpc.SocialServiceStub(self.channel)
        self._notifications = npb_grpc.NotificationServiceStub(self.channel)
        self._chat = chpb_grpc.ChatServiceStub(self.channel)
        self._invitations = ipb_grpc.InvitationServiceStub(self.channel)
        self._tables = tpb_grpc.TableServiceStub(self.channel)
        self._progression = xpb_grpc.ProgressionServiceStub(self.channel)

    # ----- life ------------------------------------------------------------------------

    def with_token(self, token: str) -> AsyncTrancaClient:
        """A client for the seat of ``token``, sharing this client's connection, API
        key, deadline and retry policy. Closing it does not close the connection."""
        return AsyncTrancaClient(
            self.address,
            api_key=self.api_key,
            token=token,
            timeout=self.timeout,
            retry=self.retry,
            channel=self.channel,
            language=self.language,
        )

    async def close(self) -> None:
        """Close the connection (if this client made it)."""
        if self._owns_channel:
            await self.channel.close()

    async def __aenter__(self) -> AsyncTrancaClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def wait_ready(self, timeout: float = 10.0) -> None:
        """Wait until the connection is up; raises ``Unavailable`` after ``timeout``."""
        try:
            await asyncio.wait_for(self.channel.channel_ready(), timeout)
        except TimeoutError:
            raise Unavailable(f"no connection to {self.address} after {timeout:g} s") from None

    # ----- plumbing --------------------------------------------------------------------

    def _metadata(self, auth: str) -> tuple[tuple[str, str], ...]:
        key = ((API_KEY_HEADER, self.api_key),) if self.api_key else ()
        bearer = (("authorization", f"Bearer {self.token}"),) if self.token else ()
        language = (("accept-language", self.language),) if self.language else ()
        if auth == _APP:
            return (key or bearer) + language
        return (bearer or key) + language

    async def _unary(
        self,
        method: grpc.aio.UnaryUnaryMultiCallable[Req, Resp],
        request: Req,
        auth: str,
        *,
        retry: bool,
        conflicts: bool = False,
    ) -> Resp:
        """Call ``method``; ``retry``: retry after UNAVAILABLE/DEADLINE_EXCEEDED;
        ``conflicts``: retry after ABORTED, for calls that send no expected version
        (there ABORTED only means another write won the race: nothing was done)."""
        attempt = unanswered = 0
        while True:
            attempt += 1
            try:
                return await method(request, metadata=self._metadata(auth), timeout=self.timeout)
            except grpc.aio.AioRpcError as exc:
                error = error_from_rpc(exc)
                error.attempts, error.unanswered = attempt, unanswered
                if attempt < self.retry.max_attempts:
                    if error.reason == RATE_LIMITED:
                        # Refused before anything was done: safe for every call.
                        await asyncio.sleep(_retry_after(error, self.retry.delay(attempt)))
                        continue
                    if retry and error.code in self.retry.retry_on:
                        unanswered += 1
                        await asyncio.sleep(self.retry.delay(attempt))
                        continue
                    if conflicts and isinstance(error, VersionConflict):
                        await asyncio.sleep(self.retry.delay(attempt) / 4)
                        continue
                raise error from exc

    # ----- app calls -------------------------------------------------------------------

    async def list_presets(self) -> list[pb.Preset]:
        """Every rule preset with its knobs. Needs an API key."""
        out = await self._unary(self._stub.ListPresets, pb.ListPresetsRequest(), _APP, retry=True)
        return list(out.presets)

    async def create_game(
        self,
        preset: str = "tranca-000",
        players: int = 4,
        *,
        overrides: Mapping[str, KnobOverride] | None = None,
        seed: int = 0,
        deck: Sequence[str] = (),
        spectators_allowed: bool = False,
        label: str = "",
        table: pb.TableOptions | None = None,
        owner_player_id: str = "",
    ) -> pb.GameSummary:
        """Create a game waiting for ``players`` players; returns its summary (its id
        is ``.game_id``). ``overrides`` maps knob names to values, e.g.
        ``{"target_score": 0}`` for a single deal; ``table`` sets the table's options
        (time per turn, robots, private, competitive, stake...). A private table's
        invite code is in ``create_table``'s answer. ``owner_player_id``: the player
        who owns the table (invites to it; a private table admits their friends
        without the code). Needs an API key. Not retried."""
        out = await self.create_table(
            preset,
            players,
            overrides=overrides,
            seed=seed,
            deck=deck,
            spectators_allowed=spectators_allowed,
            label=label,
            table=table,
            owner_player_id=owner_player_id,
        )
        return out.game

    async def create_table(
        self,
        preset: str = "tranca-000",
        players: int = 4,
        *,
        overrides: Mapping[str, KnobOverride] | None = None,
        seed: int = 0,
        deck: Sequence[str] = (),
        spectators_allowed: bool = False,
        label: str = "",
        table: pb.TableOptions | None = None,
        owner_player_id: str = "",
    ) -> pb.CreateGameResponse:
        """``create_game``'s whole answer: the summary and, for a private table, the
        invite code (shown once). Not retried."""
        rules = pb.Rules(preset=preset)
        for name, value in (overrides or {}).items():
            rules.overrides[name].CopyFrom(knob_value(value))
        request = pb.CreateGameRequest(
            rules=rules,
            players=players,
            seed=seed,
            deck=list(deck),
            spectators_allowed=spectators_allowed,
            label=label,
            table=table,
            owner_player_id=owner_player_id,
        )
        return await self._unary(self._stub.CreateGame, request, _APP, retry=False)

    async def join_game(
        self,
        game_id: str,
        seat: int = -1,
        *,
        player_name: str = "",
        spectator: bool = False,
        player_id: str = "",
        invite_code: str = "",
        player_address: str = "",
        robot: bool = False,
    ) -> pb.JoinGameResponse:
        """Take ``seat`` (-1: the lowest free one), or join as a spectator; returns the
        seat and its token (shown once). Needs the game's app's API key. Not retried
        after UNAVAILABLE or DEADLINE_EXCEEDED (a lost answer may have taken the seat:
        SEAT_TAKEN on a second try); retried after ABORTED (another join won the race
        to write, nothing was done). ``player_id`` is the app's id for the player
        (needed at competitive tables), ``invite_code`` a private table's, and
        ``player_address`` the player's network address as the app saw it.
        ``robot``: seat one of the server's robots instead, which plays the seat
        until the match ends (a practice table with robots only); no token then."""
        request = pb.JoinGameRequest(
            game_id=game_id,
            seat=seat,
            player_name=player_name,
            spectator=spectator,
            player_id=player_id,
            invite_code=invite_code,
            player_address=player_address,
            robot=robot,
        )
        return await self._unary(self._stub.JoinGame, request, _APP, retry=False, conflicts=True)

    async def join(
        self, game_id: str, seat: int = -1, *, player_name: str = "", **kwargs: Any
    ) -> AsyncTrancaClient:
        """``join_game`` and a client for the seat taken (see ``with_token``); the
        seat is ``client.seat``, the token ``client.token``. ``kwargs``: the other
        arguments of ``join_game`` (player_id, invite_code, player_address); a
        robot's seat has no token: seat robots with ``join_game(..., robot=True)``."""
        if kwargs.get("robot"):
            raise ValueError("a robot's seat has no token: use join_game(..., robot=True)")
        joined = await self.join_game(game_id, seat, player_name=player_name, **kwargs)
        client = self.with_token(joined.player_token)
        client.seat = joined.seat
        return client

    async def list_games(
        self,
        status: pb.GameStatus.ValueType = pb.GAME_STATUS_UNSPECIFIED,
        *,
        page_size: int = 50,
        page_token: str = "",
        open_only: bool = False,
    ) -> pb.ListGamesResponse:
        """One page of the app's games, newest first (``next_page_token`` for more);
        ``open_only``: public tables waiting for players only. Needs an API key."""
        request = pb.ListGamesRequest(
            status=status, page_size=page_size, page_token=page_token, open_only=open_only
        )
        return await self._unary(self._stub.ListGames, request, _APP, retry=True)

    # ----- game calls ------------------------------------------------------------------

    async def start_game(self, game_id: str) -> pb.GameView:
        """Deal the first deal once every seat is taken; returns the caller's view.
        Needs the app's key or a seated player's token. Retried after UNAVAILABLE,
        DEADLINE_EXCEEDED and a VERSION_CONFLICT (a join or another start got in
        first); a retry that finds the game started (by the lost first attempt, or by
        the racing starter) returns the current view. A first attempt that finds the
        game started raises ``RuleRejected(reason="GAME_STARTED")``."""
        request = pb.StartGameRequest(game_id=game_id)
        try:
            out = await self._unary(self._stub.StartGame, request, _ANY, retry=True, conflicts=True)
        except RuleRejected as exc:
            if exc.reason == "GAME_STARTED" and exc.attempts > 1:
                return await self.get_view(game_id)
            raise
        return out.view

    async def get_view(self, game_id: str) -> pb.GameView:
        """The game as the caller may see it (a token sees its hand)."""
        out = await self._unary(
            self._stub.GetView, pb.GetViewRequest(game_id=game_id), _ANY, retry=True
        )
        return out.view

    async def legal_moves(self, game_id: str) -> pb.ListLegalMovesResponse:
        """Every move the token's seat may make now, in canonical order, and the
        version they are legal at (``.version``, ``.moves``); no moves when it is not
        the seat's turn. Needs a player token."""
        return await self._unary(
            self._stub.ListLegalMoves,
            pb.ListLegalMovesRequest(game_id=game_id),
            _PLAYER,
            retry=True,
        )

    async def submit_move(
        self,
        game_id: str,
        move: pb.Move | str,
        *,
        expected_version: int,
        request_id: str | None = None,
        include_legal_moves: bool = False,
    ) -> pb.SubmitMoveResponse:
        """Play ``move`` (a ``tranca.v1.Move`` or the notation: ``"meld 4H 5H 6H"``)
        for the token's seat, against ``expected_version``. With
        ``include_legal_moves`` the answer's ``legal_moves`` lists the seat's next
        legal moves (empty once the turn has passed): no ``legal_moves`` call needed.

        Retries after UNAVAILABLE/DEADLINE_EXCEEDED reuse the request id (a new UUID
        unless given), so the move is applied at most once; ``replayed`` in the answer
        says a retry got the first answer. A retry refused with ABORTED (it may have
        raced its own first attempt) asks once more with the same id before raising.
        Raises ``RuleRejected`` (the rules say no),
        ``InvalidRequest`` (malformed), ``VersionConflict`` with a fresh ``view`` (the
        game moved on), ``AlreadyExists`` (the request id was used for another move).
        """
        if isinstance(move, str):
            move = parse_move(move)
        request = pb.SubmitMoveRequest(
            game_id=game_id,
            expected_version=expected_version,
            request_id=request_id or uuid.uuid4().hex,
            move=move,
            include_legal_moves=include_legal_moves,
        )
        answer: pb.SubmitMoveResponse = await self._submit(self._stub.SubmitMove, request)
        return answer

    async def _submit(self, method: Any, request: Any) -> Any:
        """A move or a turn, retried with its request id; a version conflict raised
        with the game's view as it is now (or None if that cannot be read)."""
        try:
            return await self._unary(method, request, _PLAYER, retry=True)
        except VersionConflict as exc:
            conflict = exc
        if conflict.attempts > 1:
            # A retry refused with ABORTED may have raced its own first attempt, still
            # running on the server and applied since: the log knows, so ask again
            # with the same request id (a replayed answer if it was applied).
            try:
                return await self._unary(method, request, _PLAYER, retry=True)
            except VersionConflict as exc:
                conflict = exc
        try:
            conflict.view = await self.get_view(request.game_id)
        except TrancaError:
            conflict.view = None
        raise conflict

    async def submit_turn(
        self,
        game_id: str,
        moves: Sequence[pb.Move | str],
        *,
        expected_version: int,
        request_id: str | None = None,
        include_legal_moves: bool = False,
    ) -> pb.SubmitTurnResponse:
        """Play ``moves`` in order for the token's seat, in one call, all or none:
        say the melds, adds and discard that follow the turn's draw. Each is logged as
        its own move at its own version; the answer's ``version`` and ``view`` are
        the game after the last. If one is refused, nothing is played and the error's
        ``move_index`` says which (from 1), with its ``reason``.

        Retries and conflicts as ``submit_move`` (one request id for the sequence,
        a new UUID unless given: a retry is applied at most once)."""
        request = pb.SubmitTurnRequest(
            game_id=game_id,
            expected_version=expected_version,
            request_id=request_id or uuid.uuid4().hex,
            moves=[parse_move(m) if isinstance(m, str) else m for m in moves],
            include_legal_moves=include_legal_moves,
        )
        answer: pb.SubmitTurnResponse = await self._submit(self._stub.SubmitTurn, request)
        return answer

    async def play(
        self, view: pb.GameView, move: pb.Move | str, *, request_id: str | None = None
    ) -> pb.GameView:
        """``submit_move`` against ``view`` (its game and version); returns the new
        view."""
        done = await self.submit_move(
            view.game_id, move, expected_version=view.version, request_id=request_id
        )
        return done.view

    async def leave_game(self, game_id: str, *, request_id: str | None = None) -> int:
        """Give up the token's seat: before the start it frees the seat, afterwards the
        seat's side resigns. Retried with the same request id. Returns the version."""
        request = pb.LeaveGameRequest(game_id=game_id, request_id=request_id or uuid.uuid4().hex)
        out = await self._unary(self._stub.LeaveGame, request, _PLAYER, retry=True, conflicts=True)
        return out.version

    async def get_replay(self, game_id: str) -> pb.GetReplayResponse:
        """The move log, and every finished deal as dealt."""
        return await self._unary(
            self._stub.GetReplay, pb.GetReplayRequest(game_id=game_id), _ANY, retry=True
        )

    # ----- a seat's table actions ------------------------------------------------------

    async def heartbeat(self, game_id: str) -> bool:
        """Tell the server the token's player is at the table (an open ``watch`` does
        too); returns whether a robot holds the seat (``reclaim_seat`` takes it back)."""
        out = await self._unary(
            self._stub.Heartbeat, pb.HeartbeatRequest(game_id=game_id), _PLAYER, retry=True
        )
        return out.robot_seated

    async def reclaim_seat(self, game_id: str, *, request_id: str | None = None) -> pb.GameView:
        """Take the token's seat back from the robot that played it. Retried with the
        same request id."""
        request = pb.ReclaimSeatRequest(game_id=game_id, request_id=request_id or uuid.uuid4().hex)
        out = await self._unary(
            self._stub.ReclaimSeat, request, _PLAYER, retry=True, conflicts=True
        )
        return out.view

    async def set_automatic(
        self, game_id: str, on: bool, *, request_id: str | None = None
    ) -> pb.GameView:
        """Automatic mode (003: "Juego en modo automático"): ``on``, the server's robot
        plays the token's seat from now on, shown to every seat
        (``SeatInfo.automatic``); off, the player takes it back. Retried with the same
        request id."""
        request = pb.SetAutomaticRequest(
            game_id=game_id, on=on, request_id=request_id or uuid.uuid4().hex
        )
        out = await self._unary(
            self._stub.SetAutomatic, request, _PLAYER, retry=True, conflicts=True
        )
        return out.view

    async def vote_annul(
        self, game_id: str, *, request_id: str | None = None
    ) -> pb.VoteAnnulResponse:
        """Vote to annul the match by agreement; ``.annulled`` once every person at
        the table voted. Retried with the same request id."""
        request = pb.VoteAnnulRequest(game_id=game_id, request_id=request_id or uuid.uuid4().hex)
        return await self._unary(self._stub.VoteAnnul, request, _PLAYER, retry=True, conflicts=True)

    async def add_entropy(
        self, game_id: str, entropy: str, *, request_id: str | None = None
    ) -> pb.DealCommitment:
        """Mix ``entropy`` into a verifiable table's shuffles (before the start);
        returns the commitment it is mixed with. Retried with the same request id."""
        request = pb.AddEntropyRequest(
            game_id=game_id, entropy=entropy, request_id=request_id or uuid.uuid4().hex
        )
        out = await self._unary(self._stub.AddEntropy, request, _ANY, retry=True, conflicts=True)
        return out.commitment

    async def update_table_options(
        self,
        game_id: str,
        table: pb.TableOptions,
        *,
        spectators_allowed: bool = False,
        expected_version: int = 0,
        request_id: str | None = None,
    ) -> pb.GameView:
        """As the table head (``view.head_seat``), set the waiting table's options
        (``table`` whole: start from ``view.table``; 003's "Opciones de mesa"). A
        change of stake or rated play asks the other seats to agree again
        (``consent_to_options``). ``expected_version``: the version you saw (0: the
        game as it is now; a stale one raises ``VersionConflict``). Retried with the
        same request id."""
        request = pb.UpdateTableOptionsRequest(
            game_id=game_id,
            table=table,
            spectators_allowed=spectators_allowed,
            expected_version=expected_version,
            request_id=request_id or uuid.uuid4().hex,
        )
        out = await self._unary(
            self._stub.UpdateTableOptions,
            request,
            _PLAYER,
            retry=True,
            conflicts=not expected_version,
        )
        return out.view

    async def consent_to_options(
        self, game_id: str, *, request_id: str | None = None
    ) -> pb.GameView:
        """Agree to the table's stake and rated play as the head last set them
        (``SeatInfo.consent_pending``); the match starts once every seat has.
        Retried with the same request id."""
        request = pb.ConsentToOptionsRequest(
            game_id=game_id, request_id=request_id or uuid.uuid4().hex
        )
        out = await self._unary(
            self._stub.ConsentToOptions, request, _PLAYER, retry=True, conflicts=True
        )
        return out.view

    # ----- live ------------------------------------------------------------------------

    async def watch_updates(
        self, game_id: str, from_version: int = 0
    ) -> AsyncIterator[pb.WatchGameResponse]:
        """Every change of the game as ``WatchGameResponse`` (``.view``, and ``.move``
        when a move made it), in order, without gaps or duplicates.

        ``from_version`` 0 starts with the current view; N starts with version N + 1.
        A broken stream (the connection dropped, the server restarted...) is resumed
        from the last version seen, with the retry policy's backoff; after
        ``retry.max_attempts`` reconnections in a row without an update the error is
        raised. The iteration ends after the update that finishes the match.
        """
        last = from_version
        failures = 0
        while True:
            call = self._stub.WatchGame(
                pb.WatchGameRequest(game_id=game_id, from_version=last),
                metadata=self._metadata(_ANY),
            )
            got_any = False
            try:
                async for update in call:
                    version = update.view.version
                    if last and version <= last:
                        continue  # already delivered
                    last, failures, got_any = version, 0, True
                    yield update
                    if update.view.status == pb.GAME_STATUS_FINISHED:
                        return
                # The server ended the stream without the end of the match: it ends
                # streams this way only when the match is over (at or before ``last``).
                if not got_any:
                    view = await self.get_view(game_id)
                    if view.status == pb.GAME_STATUS_FINISHED and view.version <= last:
                        return
                error: TrancaError = Unavailable("the watch stream ended early")
            except grpc.aio.AioRpcError as exc:
                error = error_from_rpc(exc)
                resumable = (
                    error.code in _WATCH_RESUMABLE
                    or error.reason == RATE_LIMITED
                    # The server may not have seen the broken stream close yet.
                    or (isinstance(error, ResourceExhausted) and last > from_version)
                )
                if not resumable:
                    raise error from None
            finally:
                call.cancel()
            failures += 1
            error.attempts = failures
            if failures >= self.retry.max_attempts:
                raise error
            await asyncio.sleep(_retry_after(error, self.retry.delay(failures)))

    async def watch(self, game_id: str, from_version: int = 0) -> AsyncIterator[pb.GameView]:
        """The caller's view after every change, as ``watch_updates`` (resumed after a
        broken stream, no gap, no duplicate); ends with the match::

            async for view in client.watch(game_id):
                if view.turn == view.seat: ...
        """
        async for update in self.watch_updates(game_id, from_version):
            yield update.view
