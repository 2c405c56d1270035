"""Tournaments in the database: their configuration and events, from which
``tranca.platform.tournaments`` rebuilds them, and the games of their tables."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncConnection


async def record_game_result(conn: AsyncConnection, game_id: str, winner: int, reason: str) -> None:
    """Record a finished game's result in its tournament, if it belongs to one, inside
    the caller's transaction (the settlement's)."""
    raise NotImplementedError
