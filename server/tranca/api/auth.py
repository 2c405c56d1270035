"""Who is calling: an app (API key) or a seat of a game (player token), read from
call metadata. Secrets are looked up by their hash and never logged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc

from ..store.repository import AppRecord, Store, TokenRecord
from .errors import ApiError, rate_limited
from .limits import RateLimiter

API_KEY_HEADER = "x-api-key"


@dataclass(frozen=True)
class Caller:
    app: AppRecord | None = None
    player: TokenRecord | None = None


def _metadata(context: grpc.aio.ServicerContext[Any, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in context.invocation_metadata() or ():
        if isinstance(value, str):
            out[key.lower()] = value
    return out


def bearer_token(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The player token of an ``authorization: Bearer`` header, if the call has one."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() != "authorization" or not isinstance(value, str):
            continue
        if value.lower().startswith("bearer "):
            return value[7:].strip()
    return None


def bad_token() -> ApiError:
    return ApiError(grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN", "unknown or revoked token")


async def identify(store: Store, context: grpc.aio.ServicerContext[Any, Any]) -> Caller:
    md = _metadata(context)
    key = md.get(API_KEY_HEADER)
    auth = md.get("authorization", "")
    if auth.lower().startswith("bearer "):
        token = auth[7:].strip()
        record = await store.token(token)
        if record is None:
            raise bad_token()
        return Caller(player=record)
    if key:
        app = await store.app_by_key(key)
        if app is None:
            raise ApiError(
                grpc.StatusCode.UNAUTHENTICATED, "BAD_API_KEY", "unknown or revoked API key"
            )
        return Caller(app=app)
    raise ApiError(
        grpc.StatusCode.UNAUTHENTICATED,
        "NO_CREDENTIALS",
        "send an x-api-key or an authorization: Bearer <player token> header",
    )


def require_app(caller: Caller) -> AppRecord:
    if caller.app is None:
        raise ApiError(
            grpc.StatusCode.PERMISSION_DENIED, "APP_KEY_REQUIRED", "this call needs an API key"
        )
    return caller.app


async def calling_app(
    store: Store, limiter: RateLimiter, context: grpc.aio.ServicerContext[Any, Any]
) -> AppRecord:
    """The calling app (an API key only: PlayerService and TournamentService are the
    organiser's), within its rate limit."""
    app = require_app(await identify(store, context))
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
