"""What the table head's use case reads beyond the game (services/table_options.py's
``TournamentTables``): whether a game is a tournament's table."""

from __future__ import annotations

from sqlalchemy import select

from .models import TournamentGame
from .repository import Store


class TournamentTablesStore:
    """``TournamentTables`` on one database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def in_tournament(self, game_id: str) -> bool:
        query = select(TournamentGame.game_id).where(TournamentGame.game_id == game_id)
        async with self.store.reading() as conn:
            return (await conn.execute(query)).first() is not None


__all__ = ["TournamentTablesStore"]
