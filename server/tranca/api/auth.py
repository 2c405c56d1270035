"""Who is calling: an app (API key) or a seat of a game (player token), read from
call metadata. Secrets are looked up by their hash and never logged.

A credential works while it is neither revoked nor expired and its app is not
revoked (the store's lookups check all three). Calls with unknown credentials are
throttled per peer address (``FailedAuthThrottle``): past a burst of failures a peer's
calls are refused before any database lookup, so guessing costs the server nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from ..store.repository import AppRecord, SeatGame, Store, TokenRecord, hash_secret
from .errors import ApiError, rate_limited
from .limits import RateLimiter

API_KEY_HEADER = "x-api-key"

Ctx = grpc.aio.ServicerContext[Any, Any]


@dataclass(frozen=True)
class Caller:
    app: AppRecord | None = None
    player: TokenRecord | None = None


def _metadata(context: Ctx) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in context.invocation_metadata() or ():
        if isinstance(value, str):
            out[key.lower()] = value
    return out


def bearer_token(context: Ctx) -> str | None:
    """The player token of an ``authorization: Bearer`` header, if the call has one."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() != "authorization" or not isinstance(value, str):
            continue
        if value.lower().startswith("bearer "):
            return value[7:].strip()
    return None


def peer_address(peer: str) -> str:
    """The host of a gRPC peer string ("ipv4:1.2.3.4:5678", "ipv6:[::1]:5678")."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0].strip("[]")
    return peer[:64]


def bad_token() -> ApiError:
    return ApiError(
        grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN", "unknown, expired or revoked token"
    )


def bad_api_key() -> ApiError:
    return ApiError(grpc.StatusCode.UNAUTHENTICATED, "BAD_API_KEY", "unknown or revoked API key")


class FailedAuthThrottle:
    """Failed authentications per peer address: ``burst`` of them, refilling at
    ``rate`` a second; past that, the peer's calls are refused with RATE_LIMITED (and
    a ``retry_after_ms``) before any lookup, until the bucket refills.

    A call carrying a credential this process accepted within ``remember_seconds``
    still goes through: players behind the same address as a guesser (a carrier's
    NAT, or every client behind a balancer, whose address the server sees) keep
    playing. Like the rate limits, per process."""

    def __init__(
        self,
        rate: float = 5.0,
        burst: float = 20.0,
        remember_seconds: float = 3600.0,
        max_entries: int = 100_000,
    ) -> None:
        self._failures = RateLimiter(rate, burst, max_keys=max_entries)
        self._blocked: dict[str, float] = {}  # peer -> until (monotonic seconds)
        self._accepted: dict[str, float] = {}  # credential hash -> when (monotonic)
        self._remember = remember_seconds
        self._max_entries = max_entries
        self.enabled = rate > 0

    def check(self, peer: Callable[[], str], secret: str) -> None:
        """Refuse the call if its peer is blocked and ``secret`` was not accepted
        lately. Costs one test while no peer is blocked."""
        if not self._blocked:
            return
        address = peer()
        until = self._blocked.get(address)
        if until is None:
            return
        now = time.monotonic()
        if now >= until:
            del self._blocked[address]
            return
        seen = self._accepted.get(hash_secret(secret))
        if seen is not None and now - seen < self._remember:
            return
        raise rate_limited(until - now)

    def failed(self, address: str) -> None:
        """One failed authentication from ``address``."""
        if not self.enabled:
            return
        wait = self._failures.take(address)
        if wait:
            if len(self._blocked) >= self._max_entries:
                now = time.monotonic()
                self._blocked = {a: u for a, u in self._blocked.items() if u > now}
            self._blocked[address] = time.monotonic() + wait

    def accepted(self, credential_hash: str) -> None:
        """A credential that worked (kept for ``remember_seconds``)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if len(self._accepted) >= self._max_entries and credential_hash not in self._accepted:
            fresh = now - self._remember
            self._accepted = {h: t for h, t in self._accepted.items() if t > fresh}
            if len(self._accepted) >= self._max_entries:
                self._accepted.clear()
        self._accepted[credential_hash] = now


class Credentials:
    """The lookups of a call's credentials, throttled when they fail."""

    def __init__(self, store: Store, throttle: FailedAuthThrottle | None = None) -> None:
        self.store = store
        self.throttle = throttle or FailedAuthThrottle()

    def _refused(self, context: Ctx, error: ApiError) -> ApiError:
        self.throttle.failed(peer_address(context.peer()))
        return error

    async def identify(self, context: Ctx) -> Caller:
        md = _metadata(context)
        key = md.get(API_KEY_HEADER)
        auth = md.get("authorization", "")
        if auth.lower().startswith("bearer "):
            token = auth[7:].strip()
            self.throttle.check(lambda: peer_address(context.peer()), token)
            record = await self.store.token(token)
            if record is None:
                raise self._refused(context, bad_token())
            self.throttle.accepted(record.token_hash)
            return Caller(player=record)
        if key:
            self.throttle.check(lambda: peer_address(context.peer()), key)
            app = await self.store.app_by_key(key)
            if app is None:
                raise self._refused(context, bad_api_key())
            self.throttle.accepted(hash_secret(key))
            return Caller(app=app)
        raise ApiError(
            grpc.StatusCode.UNAUTHENTICATED,
            "NO_CREDENTIALS",
            "send an x-api-key or an authorization: Bearer <player token> header",
        )

    async def seat_game(self, context: Ctx) -> SeatGame | None:
        """For a call with a player token: its seat and game in one read (the move
        path's only read). None for a call without one."""
        token = bearer_token(context)
        if token is None:
            return None
        self.throttle.check(lambda: peer_address(context.peer()), token)
        loaded = await self.store.seat_game(token)
        if loaded is None:
            raise self._refused(context, bad_token())
        self.throttle.accepted(loaded.player.token_hash)
        return loaded


def require_app(caller: Caller) -> AppRecord:
    if caller.app is None:
        raise ApiError(
            grpc.StatusCode.PERMISSION_DENIED, "APP_KEY_REQUIRED", "this call needs an API key"
        )
    return caller.app


async def calling_app(credentials: Credentials, limiter: RateLimiter, context: Ctx) -> AppRecord:
    """The calling app (an API key only: PlayerService and TournamentService are the
    organiser's), within its rate limit."""
    app = require_app(await credentials.identify(context))
    wait = limiter.take(app.id)
    if wait:
        raise rate_limited(wait)
    return app


def require_player(caller: Caller, game_id: str) -> TokenRecord:
    p = caller.player
    if p is None:
        raise ApiError(
            grpc.StatusCode.PERMISSION_DENIED,
            "PLAYER_TOKEN_REQUIRED",
            "this call needs a player token",
        )
    if p.game_id != game_id:
        raise ApiError(
            grpc.StatusCode.PERMISSION_DENIED, "WRONG_GAME", "the token is for another game"
        )
    if p.seat < 0:
        raise ApiError(grpc.StatusCode.PERMISSION_DENIED, "SPECTATOR", "spectators cannot act")
    return p
