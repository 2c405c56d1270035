"""Credentials' secrets: API keys and player tokens are 256 random bits, shown once and
kept only as their SHA-256 hash (looked up by hash, so the secret itself is never
compared)."""

from __future__ import annotations

import hashlib
import secrets

from .ports import SeatToken


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def new_api_key() -> str:
    return "tk_" + new_secret()


def new_player_token() -> str:
    return "tp_" + new_secret()


def new_seat_token(
    seat: int,
    name: str,
    player_id: str | None = None,
    address: str = "",
    *,
    expires_at: int,
    session_id: str | None = None,
) -> tuple[str, SeatToken]:
    """A new player token for ``seat``, valid until ``expires_at`` (epoch ms): the
    token the player is given, and the row (its hash) written with the join."""
    token = new_player_token()
    return token, SeatToken(
        hash_secret(token), seat, name, player_id, address, expires_at, session_id
    )
