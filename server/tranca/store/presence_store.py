"""Players' presence in the database, for ``services/player_presence.py``
(``PresenceStore`` is its ``PresenceRepository``): one row of ``player_presence`` a
player, the tables read from the games their seats' tokens name, and the relations
read from ``player_relations``. Every replica reads and writes the same rows, so a
player seen by one is seen by all.

A sighting is one upsert that only moves the time forward (two replicas writing
the same player in either order keep the later), the same statement on SQLite and
PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import case, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.friendships import Relation
from ..platform.presence import Settings, Visibility
from ..services.ports import GameRecord
from ..table.game import PLAYING, WAITING
from .models import Game, PlayerPresenceRow, PlayerRelation, PlayerToken
from .repository import Store, game_record

__all__ = ["PresenceStore", "delete_presence", "fold_presence"]

# The most games read for one GetPresence (the latest): a table list is capped at
# platform.presence.MAX_TABLES a player anyway.
MAX_GAMES_READ = 500


def _insert(conn: AsyncConnection) -> Any:
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(PlayerPresenceRow)


def _settings(row: Any) -> Settings:
    return Settings(int(row.last_seen_ms), bool(row.away), Visibility(row.visibility))


class PresenceStore:
    """The presence of one database's players (``services.player_presence``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def mark_seen(self, app_id: str, player_id: str, now: int) -> None:
        async with self.store.writing() as conn:
            insert = _insert(conn).values(
                app_id=app_id,
                player_id=player_id,
                last_seen_ms=now,
                away=False,
                visibility=Visibility.FRIENDS.value,
            )
            await conn.execute(
                insert.on_conflict_do_update(
                    index_elements=[PlayerPresenceRow.app_id, PlayerPresenceRow.player_id],
                    set_={"last_seen_ms": insert.excluded.last_seen_ms},
                    where=PlayerPresenceRow.last_seen_ms < insert.excluded.last_seen_ms,
                )
            )

    async def mark_seen_many(self, seen: Sequence[tuple[str, str, int]]) -> None:
        if not seen:
            return
        async with self.store.writing() as conn:
            insert = _insert(conn).values(
                [
                    {
                        "app_id": app_id,
                        "player_id": player_id,
                        "last_seen_ms": at,
                        "away": False,
                        "visibility": Visibility.FRIENDS.value,
                    }
                    for app_id, player_id, at in seen
                ]
            )
            await conn.execute(
                insert.on_conflict_do_update(
                    index_elements=[PlayerPresenceRow.app_id, PlayerPresenceRow.player_id],
                    set_={"last_seen_ms": insert.excluded.last_seen_ms},
                    where=PlayerPresenceRow.last_seen_ms < insert.excluded.last_seen_ms,
                )
            )

    async def presence_settings(
        self, app_id: str, player_ids: Sequence[str]
    ) -> dict[str, Settings]:
        if not player_ids:
            return {}
        q = select(PlayerPresenceRow).where(
            PlayerPresenceRow.app_id == app_id,
            PlayerPresenceRow.player_id.in_(sorted(set(player_ids))),
        )
        async with self.store.reading() as conn:
            return {r.player_id: _settings(r) for r in (await conn.execute(q)).all()}

    async def save_presence(
        self,
        app_id: str,
        player_id: str,
        away: bool | None,
        visibility: Visibility | None,
        seen_ms: int | None,
    ) -> Settings:
        wanted = Settings()
        values = {
            "last_seen_ms": seen_ms if seen_ms is not None else wanted.last_seen_ms,
            "away": away if away is not None else wanted.away,
            "visibility": (visibility or wanted.visibility).value,
        }
        async with self.store.writing() as conn:
            insert = _insert(conn).values(app_id=app_id, player_id=player_id, **values)
            changed: dict[str, Any] = {}
            if away is not None:
                changed["away"] = away
            if visibility is not None:
                changed["visibility"] = visibility.value
            if seen_ms is not None:
                # Only forward: a sighting written since by another replica stays.
                later = PlayerPresenceRow.last_seen_ms < insert.excluded.last_seen_ms
                changed["last_seen_ms"] = _later(insert, later)
            keys = [PlayerPresenceRow.app_id, PlayerPresenceRow.player_id]
            if changed:
                statement = insert.on_conflict_do_update(index_elements=keys, set_=changed)
            else:
                statement = insert.on_conflict_do_nothing(index_elements=keys)
            await conn.execute(statement)
            row = (
                await conn.execute(
                    select(PlayerPresenceRow).where(
                        PlayerPresenceRow.app_id == app_id,
                        PlayerPresenceRow.player_id == player_id,
                    )
                )
            ).one()
        return _settings(row)

    async def relations_toward(
        self, app_id: str, viewer: str, player_ids: Sequence[str]
    ) -> dict[str, Relation]:
        if not player_ids:
            return {}
        q = select(PlayerRelation.player_id, PlayerRelation.relation).where(
            PlayerRelation.app_id == app_id,
            PlayerRelation.other_id == viewer,
            PlayerRelation.player_id.in_(sorted(set(player_ids))),
        )
        async with self.store.reading() as conn:
            return {r.player_id: Relation(r.relation) for r in (await conn.execute(q)).all()}

    async def games_held(self, app_id: str, player_ids: Sequence[str]) -> list[GameRecord]:
        if not player_ids:
            return []
        held = (
            select(PlayerToken.game_id)
            .where(
                PlayerToken.player_id.in_(sorted(set(player_ids))),
                PlayerToken.seat >= 0,
            )
            .distinct()
        )
        q = (
            select(Game)
            .where(
                Game.app_id == app_id,
                Game.status.in_([WAITING, PLAYING]),
                Game.id.in_(held),
            )
            .order_by(Game.created_at.desc(), Game.id)
            .limit(MAX_GAMES_READ)
        )
        async with self.store.reading() as conn:
            return [game_record(r) for r in (await conn.execute(q)).all()]


def _later(insert: Any, later: Any) -> Any:
    """The excluded row's time where it is later than the stored one, else the stored
    one (a CASE both databases take)."""
    return case((later, insert.excluded.last_seen_ms), else_=PlayerPresenceRow.last_seen_ms)


async def delete_presence(conn: AsyncConnection, app_id: str, player_id: str) -> int:
    """The player's presence row (an erasure), in the caller's transaction."""
    result = await conn.execute(
        delete(PlayerPresenceRow).where(
            PlayerPresenceRow.app_id == app_id, PlayerPresenceRow.player_id == player_id
        )
    )
    return int(result.rowcount or 0)


async def fold_presence(conn: AsyncConnection, app_id: str, merged: str, kept: str) -> int:
    """The merged player's presence folded into the kept player's (a merge of
    accounts), in the caller's transaction: the kept player's choices stay where they
    made any (else the merged player's become theirs), and the later of the two
    times is kept. The rows changed."""
    rows = {
        r.player_id: r
        for r in (
            await conn.execute(
                select(PlayerPresenceRow).where(
                    PlayerPresenceRow.app_id == app_id,
                    PlayerPresenceRow.player_id.in_([merged, kept]),
                )
            )
        ).all()
    }
    gone = rows.get(merged)
    if gone is None:
        return 0
    await delete_presence(conn, app_id, merged)
    stays = rows.get(kept)
    if stays is None:
        await conn.execute(
            _insert(conn).values(
                app_id=app_id,
                player_id=kept,
                last_seen_ms=int(gone.last_seen_ms),
                away=bool(gone.away),
                visibility=gone.visibility,
            )
        )
        return 1
    if int(gone.last_seen_ms) > int(stays.last_seen_ms):
        await conn.execute(
            update(PlayerPresenceRow)
            .where(PlayerPresenceRow.app_id == app_id, PlayerPresenceRow.player_id == kept)
            .values(last_seen_ms=int(gone.last_seen_ms))
        )
    return 1
