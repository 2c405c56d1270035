"""The tables that outlive their match, for ``services/rematch.py``
(``RematchStore`` is its ``RematchRepository``): a table's next match written with
its row of ``table_matches`` and its first join in one transaction (the row's key,
table and match number, lets exactly one confirmation create it: PostgreSQL's
insert waits for a concurrent one's transaction and then finds its row; SQLite's
writers take turns), and a table's matches read in order. The same statements on
SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Row, func, select

from ..services.ports import GameRecord, LogRecord
from ..services.rematch import NextMatch, PlayedMatch, TableInfo
from ..table.action_kinds import AFTER_THE_END
from .database import insert_ignoring_duplicates
from .models import Game, MoveLog, PlayerToken, TableMatch, TournamentGame
from .move_path import epoch_seconds
from .repository import Store, game_record

__all__ = ["RematchStore"]


class _Taken(Exception):
    """Another confirmation created the table's next match first: this transaction
    is rolled back."""


class RematchStore:
    """One database's tables of matches (``services.rematch.RematchRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def game(self, game_id: str) -> GameRecord:
        return await self.store.game(game_id)

    async def log(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        return await self.store.log(game_id, after, upto)

    async def table_info(self, game_id: str) -> TableInfo:
        q = select(
            Game.label,
            Game.invite_hash,
            Game.owner_id,
            select(TournamentGame.game_id)
            .where(TournamentGame.game_id == Game.id)
            .exists()
            .label("tournament"),
        ).where(Game.id == game_id)
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        if row is None:
            return TableInfo("", None, None, False)
        return TableInfo(row.label, row.invite_hash, row.owner_id, bool(row.tournament))

    async def next_match(self, table_id: str, match_number: int) -> str | None:
        q = select(TableMatch.game_id).where(
            TableMatch.table_id == table_id, TableMatch.match_number == match_number
        )
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else str(row.game_id)

    async def create_next_match(self, match: NextMatch) -> bool:
        store = self.store
        game_id = match.new.game_id
        try:
            async with store.writing() as conn:
                await store.sql.insert_game_in(conn, store.game_insert(match.new))
                written = await conn.execute(
                    insert_ignoring_duplicates(conn, TableMatch).values(
                        table_id=match.table_id,
                        match_number=match.match_number,
                        game_id=game_id,
                    )
                )
                if written.rowcount == 0:
                    raise _Taken
                for join in match.joins:
                    if await store.sql.run_change(conn, store.move_write(join)) is None:
                        raise RuntimeError(f"game {game_id} changed while it was written")
        except _Taken:
            return False
        return True

    async def table_matches(self, table_id: str, limit: int, offset: int) -> list[PlayedMatch]:
        later = select(TableMatch.game_id).where(TableMatch.table_id == table_id)
        number = (
            select(TableMatch.match_number).where(TableMatch.game_id == Game.id).scalar_subquery()
        )
        # When each match last changed by a change of its own: a rematch's
        # confirmations, an erasure and a merge are logged after its end.
        own = (
            select(func.max(MoveLog.created_at))
            .where(
                MoveLog.game_id == Game.id,
                *(~MoveLog.action.startswith(f'{{"kind":"{k}"') for k in sorted(AFTER_THE_END)),
            )
            .scalar_subquery()
        )
        q = (
            select(Game, own.label("changed_at"))
            .where((Game.id == table_id) | Game.id.in_(later))
            .order_by(func.coalesce(number, 1), Game.id)
            .limit(limit)
            .offset(offset)
        )
        async with self.store.reading() as conn:
            # The games' columns and the time: a core row, as game_record reads one.
            rows = cast("Sequence[Row[Any]]", (await conn.execute(q)).all())
        return [
            PlayedMatch(game_record(r), epoch_seconds(r.changed_at or r.updated_at)) for r in rows
        ]

    async def token_origin(self, token_hash: str) -> tuple[str | None, int]:
        q = select(PlayerToken.session_id, PlayerToken.expires_at).where(
            PlayerToken.token_hash == token_hash
        )
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        if row is None:
            return None, 0
        return row.session_id, int(row.expires_at or 0)
