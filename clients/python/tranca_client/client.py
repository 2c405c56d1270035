"""The clients: ``AsyncTrancaClient`` (asyncio) and ``TrancaClient`` (blocking).

Both wrap ``tranca.v1.GameService`` (and, for an app, ``PlayerService`` and
``TournamentService``) with typed errors (``tranca_client.errors``), per-call
credentials, a default deadline, and retries that are safe:

- reads (``get_view``, ``legal_moves``, ``get_replay``, ``list_games``,
  ``list_presets``, ``get_tournament``, ``list_tournaments``,
  ``export_tournament``...) are retried after UNAVAILABLE or DEADLINE_EXCEEDED;
- ``submit_move`` and ``leave_game`` carry a request id made by the client (a UUID
  unless you pass one); a retry reuses the same id, so a move whose answer was lost
  is applied once and the retry gets the first answer (``replayed`` is then true);
- ``start_game`` is retried, and a retry finding the game started returns its view;
- a seat's table actions (``reclaim_seat``, ``vote_annul``, ``add_entropy``) carry a
  request id as ``submit_move`` does; ``grant_chips`` is idempotent by its grant id;
- a tournament's changes (``start_round``, ``record_forfeit``, ``withdraw_entrant``,
  ``register_entrant``, ``check_in_entrant``, ``cancel_tournament``,
  ``correct_result``) are retried, after ABORTED too (TOURNAMENT_CONFLICT: it kept
  changing under the call, nothing was done): the server makes a repeat of each
  change nothing; ``create_tournament`` is not retried (a lost answer may have made
  the tournament, and a retry would make a second);
- ``create_game`` and ``join_game`` are not retried after UNAVAILABLE or
  DEADLINE_EXCEEDED (a lost answer could have made a game or taken a seat): they
  raise ``Unavailable`` and the caller decides;
- calls that send no expected version (``join_game``, ``start_game``,
  ``leave_game``) are retried after ABORTED: another write won the race to the
  game's row and nothing was done;
- ABORTED (another move got in first) is never retried blindly: ``submit_move``
  fetches a fresh view and raises ``VersionConflict`` carrying it;
- RESOURCE_EXHAUSTED with reason RATE_LIMITED (refused before anything was done) is
  retried by every call, after the server's ``retry_after_ms`` hint.

Retries are bounded (``RetryPolicy.max_attempts``) with exponential backoff and
jitter; each attempt has its own deadline (``timeout``).

Credentials: an API key (``x-api-key``) identifies an app, a player token
(``authorization: Bearer``) one seat of one game. A client may hold both: calls that
need an app send the key, calls that need a seat send the token, and calls that take
either (``start_game``, ``get_view``, ``get_replay``, ``watch``) send the token when
there is one. ``with_token`` makes a client for another seat on the same connection.
"""

from __future__ import annotations

import asyncio
import ipaddress
import random
import threading
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import grpc

from .errors import (
    NotFound,
    ResourceExhausted,
    RuleRejected,
    TrancaError,
    Unavailable,
    VersionConflict,
    error_from_rpc,
)
from .moves import parse_move
from .v1 import game_pb2 as pb
from .v1 import game_pb2_grpc as pb_grpc
from .v1 import platform_pb2 as ppb
from .v1 import platform_pb2_grpc as ppb_grpc

__all__ = [
    "DEFAULT_ADDRESS",
    "DEFAULT_TIMEOUT",
    "AsyncTrancaClient",
    "KnobOverride",
    "RetryPolicy",
    "TrancaClient",
    "knob_value",
]

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_TIMEOUT = 10.0
API_KEY_HEADER = "x-api-key"

Req = TypeVar("Req")
Resp = TypeVar("Resp")
T = TypeVar("T")

KnobOverride = bool | int | str | Sequence[int] | pb.KnobValue
"""A rules knob override: a bool, an int, a string, a list of ints or a KnobValue."""

_APP, _PLAYER, _ANY = "app", "player", "any"

RATE_LIMITED = "RATE_LIMITED"

# A broken watch stream is resumed after these; the other codes are the service's
# answer and are raised.
_WATCH_RESUMABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
    }
)


def _retry_after(error: TrancaError, backoff: float) -> float:
    """The server's ``retry_after_ms`` hint (RATE_LIMITED), or ``backoff``."""
    try:
        hint = int(error.metadata.get("retry_after_ms", "0")) / 1000
    except ValueError:
        hint = 0.0
    return max(hint, backoff) if hint else backoff


@dataclass(frozen=True)
class RetryPolicy:
    """How calls are retried after UNAVAILABLE or DEADLINE_EXCEEDED (``retry_on``).

    ``max_attempts`` counts the first attempt (1 turns retries off). The n-th retry
    waits ``min(max_backoff, initial_backoff * multiplier ** (n - 1))``, give or take
    ``jitter`` (a fraction). A watch stream uses the same policy for consecutive
    failed reconnections (any update received resets the count).
    """

    max_attempts: int = 5
    initial_backoff: float = 0.1
    max_backoff: float = 2.0
    multiplier: float = 2.0
    jitter: float = 0.2
    retry_on: frozenset[grpc.StatusCode] = frozenset(
        {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
    )

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1, 2, ...)."""
        base = min(self.max_backoff, self.initial_backoff * self.multiplier ** max(0, retry - 1))
        return max(0.0, base * (1 + self.jitter * (2 * random.random() - 1)))


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


def is_loopback(address: str) -> bool:
    """Whether ``host:port`` names this machine (localhost, 127.0.0.0/8, ::1)."""
    host = address
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.rsplit(":", 1)[0]
    if host.startswith(("dns:", "unix:", "ipv4:", "ipv6:")):
        return host.startswith("unix:")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _channel(
    address: str,
    insecure: bool | None,
    root_certificates: bytes | None,
    client_certificate: tuple[bytes, bytes] | None,
    options: Sequence[tuple[str, Any]],
    interceptors: Sequence[grpc.aio.ClientInterceptor],
) -> grpc.aio.Channel:
    opts: list[tuple[str, Any]] = [
        # The server allows pings every 10 s without data; 30 s keeps idle watch
        # streams alive through NATs and finds dead connections.
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.keepalive_permit_without_calls", 1),
        *options,
    ]
    plain = is_loopback(address) if insecure is None else insecure
    if plain and root_certificates is None and client_certificate is None:
        return grpc.aio.insecure_channel(address, options=opts, interceptors=interceptors)
    chain, key = client_certificate or (None, None)
    creds = grpc.ssl_channel_credentials(
        root_certificates=root_certificates, private_key=key, certificate_chain=chain
    )
    return grpc.aio.secure_channel(address, creds, options=opts, interceptors=interceptors)


class AsyncTrancaClient:
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
    ) -> pb.GameSummary:
        """Create a game waiting for ``players`` players; returns its summary (its id
        is ``.game_id``). ``overrides`` maps knob names to values, e.g.
        ``{"target_score": 0}`` for a single deal; ``table`` sets the table's options
        (time per turn, robots, private, competitive, stake...). A private table's
        invite code is in ``create_table``'s answer. Needs an API key. Not retried."""
        out = await self.create_table(
            preset,
            players,
            overrides=overrides,
            seed=seed,
            deck=deck,
            spectators_allowed=spectators_allowed,
            label=label,
            table=table,
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

    # ----- players (PlayerService; API key) --------------------------------------------

    async def get_player(self, player_id: str) -> ppb.GetPlayerResponse:
        """A player's rating, chips and ranking points."""
        return await self._unary(
            self._players.GetPlayer, ppb.GetPlayerRequest(player_id=player_id), _APP, retry=True
        )

    async def leaderboard(
        self,
        kind: ppb.LeaderboardKind.ValueType = ppb.LEADERBOARD_KIND_RANKING_POINTS,
        period: ppb.Period.ValueType = ppb.PERIOD_ALL_TIME,
        *,
        limit: int = 50,
    ) -> list[ppb.LeaderboardEntry]:
        """The app's players ranked by ranking points over ``period``, or by rating."""
        request = ppb.GetLeaderboardRequest(kind=kind, period=period, limit=limit)
        out = await self._unary(self._players.GetLeaderboard, request, _APP, retry=True)
        return list(out.entries)

    async def grant_chips(self, player_id: str, amount: int, grant_id: str) -> int:
        """Grant chips; idempotent by ``grant_id`` (so retried). Returns the balance."""
        request = ppb.GrantChipsRequest(player_id=player_id, amount=amount, grant_id=grant_id)
        out = await self._unary(self._players.GrantChips, request, _APP, retry=True)
        return out.chips

    async def chip_entries(
        self, player_id: str, *, page_size: int = 50, page_token: str = ""
    ) -> ppb.ListChipEntriesResponse:
        """One page of a player's chip entries, newest first."""
        request = ppb.ListChipEntriesRequest(
            player_id=player_id, page_size=page_size, page_token=page_token
        )
        return await self._unary(self._players.ListChipEntries, request, _APP, retry=True)

    # ----- tournaments (TournamentService; API key) ------------------------------------

    async def create_tournament(self, request: ppb.CreateTournamentRequest) -> ppb.Tournament:
        """Register a tournament. Not retried (a lost answer may have made it)."""
        out = await self._unary(self._tournaments.CreateTournament, request, _APP, retry=False)
        return out.tournament

    async def get_tournament(self, tournament_id: str) -> ppb.Tournament:
        """A tournament's rounds, tables, results and standings."""
        request = ppb.GetTournamentRequest(tournament_id=tournament_id)
        out = await self._unary(self._tournaments.GetTournament, request, _APP, retry=True)
        return out.tournament

    async def start_round(
        self,
        tournament_id: str,
        round_number: int,
        *,
        pairings: Sequence[tuple[str, str] | ppb.TablePairing] = (),
        byes: Sequence[str] = (),
    ) -> ppb.TournamentRound:
        """Pair and start round ``round_number``; its seats' tokens are in the answer.

        ``pairings`` (``(entrant_a, entrant_b)`` pairs or ``TablePairing`` messages)
        and ``byes``: the organiser's pairing of a Swiss round instead of the server's,
        every entrant still in exactly once (``InvalidRequest`` BAD_PAIRING
        otherwise; ``RuleRejected`` PAIRING_NOT_ALLOWED for a round robin, a knockout
        or a play-off round). Retried: a retry for the round already started answers
        it again with fresh tokens (earlier ones stay valid; a given pairing is then
        ignored), and a retry for an earlier round answers it without tokens."""
        request = ppb.StartRoundRequest(
            tournament_id=tournament_id,
            round=round_number,
            pairings=[
                p
                if isinstance(p, ppb.TablePairing)
                else ppb.TablePairing(entrant_a=p[0], entrant_b=p[1])
                for p in pairings
            ],
            byes=list(byes),
        )
        out = await self._unary(
            self._tournaments.StartRound, request, _APP, retry=True, conflicts=True
        )
        return out.round

    async def record_forfeit(
        self,
        tournament_id: str,
        round_number: int,
        table: int,
        outcome: ppb.TableOutcome.ValueType,
    ) -> ppb.Tournament:
        """Record a forfeit or a no-show at a table of the current round
        (``TABLE_OUTCOME_A_FORFEITS``, ``_B_FORFEITS`` or ``_DOUBLE_NO_SHOW``).
        Retried: a repeat of the table's recorded forfeit changes nothing."""
        request = ppb.RecordForfeitRequest(
            tournament_id=tournament_id, round=round_number, table=table, outcome=outcome
        )
        out = await self._unary(
            self._tournaments.RecordForfeit, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def withdraw_entrant(self, tournament_id: str, entrant: str) -> ppb.Tournament:
        """Take an entrant out of later rounds (its results stay); before an open
        tournament's start, the entrant leaves the field. Retried: a repeat changes
        nothing; a retry refused with ENTRANT_NOT_FOUND after an attempt that got no
        answer (which may have taken a registration out of the field) returns the
        tournament as it is, without the entrant."""
        request = ppb.WithdrawEntrantRequest(tournament_id=tournament_id, entrant=entrant)
        try:
            out = await self._unary(
                self._tournaments.WithdrawEntrant, request, _APP, retry=True, conflicts=True
            )
        except NotFound as exc:
            if exc.reason == "ENTRANT_NOT_FOUND" and exc.unanswered:
                return await self.get_tournament(tournament_id)
            raise
        return out.tournament

    async def register_entrant(
        self,
        tournament_id: str,
        entrant: str | ppb.Entrant,
        player_ids: Sequence[str] = (),
    ) -> ppb.Tournament:
        """Register an entrant in an open tournament (``registration_open``), last in
        seed order: ``entrant`` is its id, with ``player_ids`` its players (one, or a
        pair at 4-player tables; default: the entrant's id, a player of its own), or
        an ``Entrant`` message as it is (``player_ids`` then unused). Retried: a
        retry of the same registration changes nothing. Raises ``RuleRejected``
        (REGISTRATION_CLOSED, TOURNAMENT_FULL), ``AlreadyExists`` (ENTRANT_EXISTS: the
        id, or a player, is in the field already)."""
        if not isinstance(entrant, ppb.Entrant):
            entrant = ppb.Entrant(id=entrant, player_ids=list(player_ids) or [entrant])
        request = ppb.RegisterEntrantRequest(tournament_id=tournament_id, entrant=entrant)
        out = await self._unary(
            self._tournaments.RegisterEntrant, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def check_in_entrant(self, tournament_id: str, entrant: str) -> ppb.Tournament:
        """Check an entrant in (a scheduled tournament with ``check_in_seconds``,
        within its window); those not checked in are dropped when round 1 starts.
        Retried: a repeat changes nothing. Raises ``RuleRejected`` (NO_CHECK_IN,
        CHECK_IN_CLOSED)."""
        request = ppb.CheckInEntrantRequest(tournament_id=tournament_id, entrant=entrant)
        out = await self._unary(
            self._tournaments.CheckInEntrant, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def list_tournaments(
        self,
        status: ppb.TournamentStatus.ValueType = ppb.TOURNAMENT_STATUS_UNSPECIFIED,
        *,
        preset: str = "",
        starts_after_ms: int = 0,
        starts_before_ms: int = 0,
        page_size: int = 0,
        page_token: str = "",
    ) -> ppb.ListTournamentsResponse:
        """One page of the app's tournaments (``.tournaments``, summaries), by start
        time then creation; ``.next_page_token`` for the next page (empty after the
        last). Filters (unset: any): ``status``, ``preset``, and a scheduled start at
        or after ``starts_after_ms`` and before ``starts_before_ms`` (epoch ms).
        ``page_size`` 0 is the server's 50 (at most 200)."""
        request = ppb.ListTournamentsRequest(
            status=status,
            preset=preset,
            starts_after_ms=starts_after_ms,
            starts_before_ms=starts_before_ms,
            page_size=page_size,
            page_token=page_token,
        )
        return await self._unary(self._tournaments.ListTournaments, request, _APP, retry=True)

    async def cancel_tournament(self, tournament_id: str, reason: str = "") -> ppb.Tournament:
        """Cancel a tournament (status ``CANCELLED``): no round starts again and the
        games still going at its tables are ended (they count for no one, stakes go
        back); ``reason`` is kept with it. Retried: a repeat changes nothing (and
        ends any game left going). Raises ``RuleRejected`` TOURNAMENT_OVER for a
        finished tournament."""
        request = ppb.CancelTournamentRequest(tournament_id=tournament_id, reason=reason)
        out = await self._unary(
            self._tournaments.CancelTournament, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def correct_result(
        self,
        tournament_id: str,
        round_number: int,
        table: int,
        outcome: ppb.TableOutcome.ValueType,
        reason: str,
    ) -> ppb.Tournament:
        """Correct a table's recorded result (an organiser's ruling) to ``outcome``,
        with its ``reason`` (required): kept in the tournament's ``corrections``, the
        standings recomputed. Retried: a repeat of the same correction changes
        nothing. Raises ``RuleRejected`` (ROUND_NOT_PLAYED, NO_RESULT_YET,
        RESULT_FIXED), ``InvalidRequest`` (no reason, no such table)."""
        request = ppb.CorrectResultRequest(
            tournament_id=tournament_id,
            round=round_number,
            table=table,
            outcome=outcome,
            reason=reason,
        )
        out = await self._unary(
            self._tournaments.CorrectResult, request, _APP, retry=True, conflicts=True
        )
        return out.tournament

    async def export_tournament(
        self,
        tournament_id: str,
        content: ppb.ExportContent.ValueType = ppb.EXPORT_CONTENT_STANDINGS,
        format: ppb.ExportFormat.ValueType = ppb.EXPORT_FORMAT_CSV,
        *,
        round_number: int = 0,
    ) -> ppb.ExportTournamentResponse:
        """The standings (``EXPORT_CONTENT_STANDINGS``) or the pairings and results
        (``EXPORT_CONTENT_ROUNDS``, of round ``round_number``; 0: of every round), as
        CSV or JSON: ``.content`` (the document) and ``.content_type``
        (``text/csv`` or ``application/json``). A read: retried."""
        request = ppb.ExportTournamentRequest(
            tournament_id=tournament_id, content=content, format=format, round=round_number
        )
        return await self._unary(self._tournaments.ExportTournament, request, _APP, retry=True)

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


class TrancaClient:
    """A blocking client with the same methods as ``AsyncTrancaClient`` (same
    arguments, same errors, same retries), for scripts and notebooks::

        with TrancaClient("127.0.0.1:50051", api_key=KEY) as app:
            game = app.create_game("tranca-000", players=2)
            me = app.join(game.game_id, 0, player_name="ana")
            for view in me.watch(game.game_id):
                ...

    It runs an ``AsyncTrancaClient`` on an event loop of its own in a background
    thread; each method blocks until its call is done. ``watch`` and
    ``watch_updates`` are plain iterators. Clients made by ``with_token`` or ``join``
    share the connection and the thread: closing the first client closes them all.
    """

    def __init__(self, address: str = DEFAULT_ADDRESS, **kwargs: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="tranca-client", daemon=True
        )
        self._thread.start()
        self._owner = True

        async def make() -> AsyncTrancaClient:
            return AsyncTrancaClient(address, **kwargs)

        self._aio = self._run(make())

    @classmethod
    def _sharing(cls, parent: TrancaClient, aio: AsyncTrancaClient) -> TrancaClient:
        child = cls.__new__(cls)
        child._loop, child._thread, child._owner, child._aio = (
            parent._loop,
            parent._thread,
            False,
            aio,
        )
        return child

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    @property
    def aio(self) -> AsyncTrancaClient:
        """The underlying ``AsyncTrancaClient`` (it lives on this client's loop)."""
        return self._aio

    @property
    def token(self) -> str | None:
        return self._aio.token

    @property
    def seat(self) -> int:
        return self._aio.seat

    def with_token(self, token: str) -> TrancaClient:
        """A client for the seat of ``token`` on the same connection."""
        return TrancaClient._sharing(self, self._aio.with_token(token))

    def close(self) -> None:
        """Close the connection and stop the background loop (first client only)."""
        if not self._owner or self._loop.is_closed():
            return
        self._run(self._aio.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> TrancaClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        """See ``AsyncTrancaClient.wait_ready``."""
        self._run(self._aio.wait_ready(timeout))

    def list_presets(self) -> list[pb.Preset]:
        """See ``AsyncTrancaClient.list_presets``."""
        return self._run(self._aio.list_presets())

    def create_game(
        self, preset: str = "tranca-000", players: int = 4, **kwargs: Any
    ) -> pb.GameSummary:
        """See ``AsyncTrancaClient.create_game``."""
        return self._run(self._aio.create_game(preset, players, **kwargs))

    def join_game(self, game_id: str, seat: int = -1, **kwargs: Any) -> pb.JoinGameResponse:
        """See ``AsyncTrancaClient.join_game``."""
        return self._run(self._aio.join_game(game_id, seat, **kwargs))

    def create_table(
        self, preset: str = "tranca-000", players: int = 4, **kwargs: Any
    ) -> pb.CreateGameResponse:
        """See ``AsyncTrancaClient.create_table``."""
        return self._run(self._aio.create_table(preset, players, **kwargs))

    def join(
        self, game_id: str, seat: int = -1, *, player_name: str = "", **kwargs: Any
    ) -> TrancaClient:
        """See ``AsyncTrancaClient.join``."""
        aio = self._run(self._aio.join(game_id, seat, player_name=player_name, **kwargs))
        return TrancaClient._sharing(self, aio)

    def list_games(
        self, status: pb.GameStatus.ValueType = pb.GAME_STATUS_UNSPECIFIED, **kwargs: Any
    ) -> pb.ListGamesResponse:
        """See ``AsyncTrancaClient.list_games``."""
        return self._run(self._aio.list_games(status, **kwargs))

    def start_game(self, game_id: str) -> pb.GameView:
        """See ``AsyncTrancaClient.start_game``."""
        return self._run(self._aio.start_game(game_id))

    def get_view(self, game_id: str) -> pb.GameView:
        """See ``AsyncTrancaClient.get_view``."""
        return self._run(self._aio.get_view(game_id))

    def legal_moves(self, game_id: str) -> pb.ListLegalMovesResponse:
        """See ``AsyncTrancaClient.legal_moves``."""
        return self._run(self._aio.legal_moves(game_id))

    def submit_move(
        self,
        game_id: str,
        move: pb.Move | str,
        *,
        expected_version: int,
        request_id: str | None = None,
        include_legal_moves: bool = False,
    ) -> pb.SubmitMoveResponse:
        """See ``AsyncTrancaClient.submit_move``."""
        return self._run(
            self._aio.submit_move(
                game_id,
                move,
                expected_version=expected_version,
                request_id=request_id,
                include_legal_moves=include_legal_moves,
            )
        )

    def submit_turn(
        self,
        game_id: str,
        moves: Sequence[pb.Move | str],
        *,
        expected_version: int,
        request_id: str | None = None,
        include_legal_moves: bool = False,
    ) -> pb.SubmitTurnResponse:
        """See ``AsyncTrancaClient.submit_turn``."""
        return self._run(
            self._aio.submit_turn(
                game_id,
                moves,
                expected_version=expected_version,
                request_id=request_id,
                include_legal_moves=include_legal_moves,
            )
        )

    def play(
        self, view: pb.GameView, move: pb.Move | str, *, request_id: str | None = None
    ) -> pb.GameView:
        """See ``AsyncTrancaClient.play``."""
        return self._run(self._aio.play(view, move, request_id=request_id))

    def leave_game(self, game_id: str, *, request_id: str | None = None) -> int:
        """See ``AsyncTrancaClient.leave_game``."""
        return self._run(self._aio.leave_game(game_id, request_id=request_id))

    def get_replay(self, game_id: str) -> pb.GetReplayResponse:
        """See ``AsyncTrancaClient.get_replay``."""
        return self._run(self._aio.get_replay(game_id))

    def heartbeat(self, game_id: str) -> bool:
        """See ``AsyncTrancaClient.heartbeat``."""
        return self._run(self._aio.heartbeat(game_id))

    def reclaim_seat(self, game_id: str, **kwargs: Any) -> pb.GameView:
        """See ``AsyncTrancaClient.reclaim_seat``."""
        return self._run(self._aio.reclaim_seat(game_id, **kwargs))

    def vote_annul(self, game_id: str, **kwargs: Any) -> pb.VoteAnnulResponse:
        """See ``AsyncTrancaClient.vote_annul``."""
        return self._run(self._aio.vote_annul(game_id, **kwargs))

    def add_entropy(self, game_id: str, entropy: str, **kwargs: Any) -> pb.DealCommitment:
        """See ``AsyncTrancaClient.add_entropy``."""
        return self._run(self._aio.add_entropy(game_id, entropy, **kwargs))

    def get_player(self, player_id: str) -> ppb.GetPlayerResponse:
        """See ``AsyncTrancaClient.get_player``."""
        return self._run(self._aio.get_player(player_id))

    def leaderboard(self, *args: Any, **kwargs: Any) -> list[ppb.LeaderboardEntry]:
        """See ``AsyncTrancaClient.leaderboard``."""
        return self._run(self._aio.leaderboard(*args, **kwargs))

    def grant_chips(self, player_id: str, amount: int, grant_id: str) -> int:
        """See ``AsyncTrancaClient.grant_chips``."""
        return self._run(self._aio.grant_chips(player_id, amount, grant_id))

    def chip_entries(self, player_id: str, **kwargs: Any) -> ppb.ListChipEntriesResponse:
        """See ``AsyncTrancaClient.chip_entries``."""
        return self._run(self._aio.chip_entries(player_id, **kwargs))

    def create_tournament(self, request: ppb.CreateTournamentRequest) -> ppb.Tournament:
        """See ``AsyncTrancaClient.create_tournament``."""
        return self._run(self._aio.create_tournament(request))

    def get_tournament(self, tournament_id: str) -> ppb.Tournament:
        """See ``AsyncTrancaClient.get_tournament``."""
        return self._run(self._aio.get_tournament(tournament_id))

    def start_round(
        self,
        tournament_id: str,
        round_number: int,
        *,
        pairings: Sequence[tuple[str, str] | ppb.TablePairing] = (),
        byes: Sequence[str] = (),
    ) -> ppb.TournamentRound:
        """See ``AsyncTrancaClient.start_round``."""
        return self._run(
            self._aio.start_round(tournament_id, round_number, pairings=pairings, byes=byes)
        )

    def record_forfeit(
        self,
        tournament_id: str,
        round_number: int,
        table: int,
        outcome: ppb.TableOutcome.ValueType,
    ) -> ppb.Tournament:
        """See ``AsyncTrancaClient.record_forfeit``."""
        return self._run(self._aio.record_forfeit(tournament_id, round_number, table, outcome))

    def withdraw_entrant(self, tournament_id: str, entrant: str) -> ppb.Tournament:
        """See ``AsyncTrancaClient.withdraw_entrant``."""
        return self._run(self._aio.withdraw_entrant(tournament_id, entrant))

    def register_entrant(
        self,
        tournament_id: str,
        entrant: str | ppb.Entrant,
        player_ids: Sequence[str] = (),
    ) -> ppb.Tournament:
        """See ``AsyncTrancaClient.register_entrant``."""
        return self._run(self._aio.register_entrant(tournament_id, entrant, player_ids))

    def check_in_entrant(self, tournament_id: str, entrant: str) -> ppb.Tournament:
        """See ``AsyncTrancaClient.check_in_entrant``."""
        return self._run(self._aio.check_in_entrant(tournament_id, entrant))

    def list_tournaments(
        self,
        status: ppb.TournamentStatus.ValueType = ppb.TOURNAMENT_STATUS_UNSPECIFIED,
        **kwargs: Any,
    ) -> ppb.ListTournamentsResponse:
        """See ``AsyncTrancaClient.list_tournaments``."""
        return self._run(self._aio.list_tournaments(status, **kwargs))

    def cancel_tournament(self, tournament_id: str, reason: str = "") -> ppb.Tournament:
        """See ``AsyncTrancaClient.cancel_tournament``."""
        return self._run(self._aio.cancel_tournament(tournament_id, reason))

    def correct_result(
        self,
        tournament_id: str,
        round_number: int,
        table: int,
        outcome: ppb.TableOutcome.ValueType,
        reason: str,
    ) -> ppb.Tournament:
        """See ``AsyncTrancaClient.correct_result``."""
        return self._run(
            self._aio.correct_result(tournament_id, round_number, table, outcome, reason)
        )

    def export_tournament(
        self,
        tournament_id: str,
        content: ppb.ExportContent.ValueType = ppb.EXPORT_CONTENT_STANDINGS,
        format: ppb.ExportFormat.ValueType = ppb.EXPORT_FORMAT_CSV,
        *,
        round_number: int = 0,
    ) -> ppb.ExportTournamentResponse:
        """See ``AsyncTrancaClient.export_tournament``."""
        return self._run(
            self._aio.export_tournament(tournament_id, content, format, round_number=round_number)
        )

    def _iterate(self, agen: AsyncIterator[T]) -> Iterator[T]:
        done = object()

        async def step() -> T | object:
            try:
                return await agen.__anext__()
            except StopAsyncIteration:
                return done

        async def close() -> None:
            aclose = getattr(agen, "aclose", None)
            if aclose is not None:
                await aclose()

        try:
            while True:
                item = self._run(step())
                if item is done:
                    return
                yield cast(T, item)
        finally:
            if not self._loop.is_closed():
                self._run(close())

    def watch_updates(self, game_id: str, from_version: int = 0) -> Iterator[pb.WatchGameResponse]:
        """See ``AsyncTrancaClient.watch_updates``."""
        return self._iterate(self._aio.watch_updates(game_id, from_version))

    def watch(self, game_id: str, from_version: int = 0) -> Iterator[pb.GameView]:
        """See ``AsyncTrancaClient.watch``."""
        return self._iterate(self._aio.watch(game_id, from_version))
