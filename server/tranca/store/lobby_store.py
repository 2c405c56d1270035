"""The lobby's read (``services.lobby.LobbyRepository``): an app's public tables
waiting for players, oldest first, by position (creation time, id). What a page
keeps of them is decided in ``services/lobby.py``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, or_, select

from ..services.paging import Position
from ..services.ports import GameRecord
from ..table.game import WAITING
from .models import Game
from .move_path import utc_datetime
from .repository import Store, game_record

__all__ = ["LobbyStore"]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def microseconds(value: datetime | str) -> int:
    """A stored timestamp, exactly, in microseconds since the epoch."""
    return (utc_datetime(value) - EPOCH) // timedelta(microseconds=1)


class LobbyStore:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def waiting_tables(
        self, app_id: str, preset: str, players: int, after: Position | None, limit: int
    ) -> list[tuple[GameRecord, Position]]:
        q = select(Game).where(
            Game.app_id == app_id, Game.status == WAITING, Game.invite_hash.is_(None)
        )
        if preset:
            q = q.where(Game.preset == preset)
        if players:
            q = q.where(Game.players == players)
        if after is not None:
            at = EPOCH + timedelta(microseconds=after.created)
            if not self.store.is_postgres:
                # SQLite keeps the UTC time as text without its zone (sqlite.py).
                at = at.replace(tzinfo=None)
            q = q.where(
                or_(Game.created_at > at, and_(Game.created_at == at, Game.id > after.row_id))
            )
        q = q.order_by(Game.created_at, Game.id).limit(limit)
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return [(game_record(r), Position(microseconds(r.created_at), r.id)) for r in rows]
