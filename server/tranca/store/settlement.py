"""Settling finished matches: ratings, ranking points, chips and tournament results,
exactly once per match (games.settled)."""

from __future__ import annotations

from .repository import Store


async def settle_pending(store: Store, limit: int = 20) -> int:
    """Settle up to ``limit`` finished, unsettled games; returns how many."""
    raise NotImplementedError
