"""The games a player sat at, with the changes logged from their seat, for
``services/player_data.py`` (``PlayedGamesStore`` is its ``PlayedGamesRepository``):
found through the seats' tokens, which name the player, then read from the games
and the move log. The same statements on SQLite and PostgreSQL."""

from __future__ import annotations

from sqlalchemy import select

from ..services.player_data import PlayedGame, PlayedMove
from .codec import loads
from .models import Game, MoveLog, PlayerToken
from .repository import Store

__all__ = ["PlayedGamesStore"]


class PlayedGamesStore:
    """The games of one database's players (``services.player_data.PlayedGamesRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def games_of_player(self, app_id: str, player_id: str) -> list[PlayedGame]:
        seats = (
            select(Game.id, Game.label, Game.preset, Game.status, Game.created_at, PlayerToken.seat)
            .join(PlayerToken, PlayerToken.game_id == Game.id)
            .where(Game.app_id == app_id, PlayerToken.player_id == player_id, PlayerToken.seat >= 0)
            .distinct()
            .order_by(Game.created_at, Game.id, PlayerToken.seat)
        )
        async with self.store.reading() as conn:
            games = (await conn.execute(seats)).all()
            out: list[PlayedGame] = []
            for g in games:
                logged = (
                    select(MoveLog.version, MoveLog.action, MoveLog.actor, MoveLog.created_at)
                    .where(MoveLog.game_id == g.id, MoveLog.seat == g.seat)
                    .order_by(MoveLog.version)
                )
                moves = tuple(
                    PlayedMove(
                        int(m.version),
                        loads(m.action),
                        m.actor,
                        int(m.created_at.timestamp() * 1000),
                    )
                    for m in (await conn.execute(logged)).all()
                )
                out.append(PlayedGame(g.id, g.label, g.preset, g.status, int(g.seat), moves))
        return out
