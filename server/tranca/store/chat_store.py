"""Chat in the database, for ``services/chat.py`` (``ChatStore`` is its
``ChatRepository``): messages numbered in their room, kept exactly once by their
author's client id.

A message takes its room's next number under the lock of the room's row
(``chat_rooms``: SELECT ... FOR UPDATE on PostgreSQL; SQLite's IMMEDIATE
transaction is its lock), and keeps the lock until it commits: numbers are given in
the order messages commit, so a reader that follows a room after the last number it
saw never passes over a message that committed after a higher one. Under the same
lock the author's client id is looked up first: a message sent twice (a retry, or
two replicas given it at once) finds the first and is not kept again.

On PostgreSQL a message without events (every room's but a direct one's) is one
statement on the move path's connections (``POST_SQL``: the room's number taken by
an upsert of its row, whose lock the statement holds until it commits, and the
message inserted unless the author's client id is there already, through its unique
key), and a stream's read is one too (``READ_SQL``): chat is as hot a path as moves
(the chat bench: several statements through SQLAlchemy a message held the replicas'
CPU). A message sent twice then leaves a number unused, which no reader notices: a
reader follows the numbers in order, not one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.chat import Room, RoomKind, direct_members
from ..platform.chat_moderation import Resolution, Sanction
from ..platform.friendships import Relation
from ..services.chat import ChatMessage, NewMessage
from ..services.errors import NotFound
from ..table.events import Event
from ..table.game import GameState
from .database import insert_ignoring_duplicates
from .models import (
    ChatMessageRecord,
    ChatMute,
    ChatRoomRecord,
    ChatSanction,
    PlayerRelation,
)
from .notifications_store import write_events
from .postgres import PostgresMovePath
from .repository import Store

__all__ = ["ChatStore", "erase_author", "export_messages"]

_M = ChatMessageRecord


def _message(r: Any) -> ChatMessage:
    return ChatMessage(
        id=int(r.seq),
        room=r.room,
        author_id=r.author_id,
        author_name=r.author_name,
        seat=int(r.seat),
        kind=r.kind,
        text=r.body,
        phrase=r.phrase,
        created_ms=int(r.created_ms),
        edited_ms=int(r.edited_ms),
        deleted=bool(r.deleted),
        filtered=bool(r.filtered),
        target_id=int(r.target_seq),
        client_id=r.client_id or "",
        author_key=r.author_key,
    )


async def _next_seq(conn: AsyncConnection, app_id: str, room: str) -> int:
    """The room's next number, its row locked until the transaction ends."""
    await conn.execute(
        insert_ignoring_duplicates(conn, ChatRoomRecord).values(
            app_id=app_id, room=room, last_seq=0
        )
    )
    q = select(ChatRoomRecord.last_seq).where(
        ChatRoomRecord.app_id == app_id, ChatRoomRecord.room == room
    )
    if conn.dialect.name == "postgresql":
        q = q.with_for_update()
    last = int((await conn.execute(q)).scalar_one())
    await conn.execute(
        update(ChatRoomRecord)
        .where(ChatRoomRecord.app_id == app_id, ChatRoomRecord.room == room)
        .values(last_seq=last + 1)
    )
    return last + 1


_COLUMNS = (
    "seq, room, author_id, author_name, seat, kind, body, phrase, created_ms, edited_ms,"
    " deleted, filtered, target_seq, client_id, author_key"
)
POST_SQL = f"""
WITH room AS (
    INSERT INTO chat_rooms AS r (app_id, room, last_seq) VALUES ($1, $2, 1)
    ON CONFLICT (app_id, room) DO UPDATE SET last_seq = r.last_seq + 1
    RETURNING r.last_seq
)
INSERT INTO chat_messages (app_id, room, seq, kind, author_key, author_id, author_name,
    seat, body, phrase, filtered, deleted, target_seq, client_id, created_ms, edited_ms)
SELECT $1, $2, room.last_seq, $3, $4, $5, $6, $7, $8, $9, $10, false, 0, $11, $12, 0
FROM room
ON CONFLICT (app_id, room, author_key, client_id) DO NOTHING
RETURNING {_COLUMNS}
"""
KEPT_SQL = f"""
SELECT {_COLUMNS} FROM chat_messages
WHERE app_id = $1 AND room = $2 AND author_key = $3 AND client_id = $4
"""
READ_SQL = f"""
SELECT {_COLUMNS} FROM chat_messages
WHERE app_id = $1 AND room = $2 AND seq > $3 ORDER BY seq LIMIT $4
"""


def _record(r: Any) -> ChatMessage:
    """A row of ``_COLUMNS`` read by asyncpg."""
    return ChatMessage(
        id=int(r[0]),
        room=r[1],
        author_id=r[2],
        author_name=r[3],
        seat=int(r[4]),
        kind=r[5],
        text=r[6],
        phrase=r[7],
        created_ms=int(r[8]),
        edited_ms=int(r[9]),
        deleted=bool(r[10]),
        filtered=bool(r[11]),
        target_id=int(r[12]),
        client_id=r[13] or "",
        author_key=r[14],
    )


class ChatStore:
    """The chat of one database (``services.chat.ChatRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._fast: PostgresMovePath | None = (
            store.move_path if isinstance(store.move_path, PostgresMovePath) else None
        )

    async def post(self, message: NewMessage, events: Sequence[Event]) -> ChatMessage:
        if self._fast is not None and not events:
            return await self._post_fast(self._fast, message)
        try:
            return await self._post(message, events)
        except _AlreadyKept as kept:
            # Nothing new: the number taken went back with the rollback.
            return kept.message

    async def _post_fast(self, fast: PostgresMovePath, m: NewMessage) -> ChatMessage:
        async with self.store.bounded():
            row = await fast.fetchrow(
                POST_SQL,
                m.app_id,
                m.room,
                m.kind,
                m.author_key,
                m.author_id,
                m.author_name,
                m.seat,
                m.text,
                m.phrase,
                m.filtered,
                m.client_id,
                m.created_ms,
            )
            if row is None:  # kept before under this client id
                row = await fast.fetchrow(KEPT_SQL, m.app_id, m.room, m.author_key, m.client_id)
        return _record(row)

    async def _post(self, message: NewMessage, events: Sequence[Event]) -> ChatMessage:
        async with self.store.writing() as conn:
            # The room's lock first: a second copy of the message waits here, then
            # finds the first.
            seq = await _next_seq(conn, message.app_id, message.room)
            kept = (
                await conn.execute(
                    select(_M).where(
                        _M.app_id == message.app_id,
                        _M.room == message.room,
                        _M.author_key == message.author_key,
                        _M.client_id == message.client_id,
                    )
                )
            ).first()
            if kept is not None:
                raise _AlreadyKept(_message(kept))
            values = {
                "app_id": message.app_id,
                "room": message.room,
                "seq": seq,
                "kind": message.kind,
                "author_key": message.author_key,
                "author_id": message.author_id,
                "author_name": message.author_name,
                "seat": message.seat,
                "body": message.text,
                "phrase": message.phrase,
                "filtered": message.filtered,
                "deleted": False,
                "target_seq": 0,
                "client_id": message.client_id,
                "created_ms": message.created_ms,
                "edited_ms": 0,
            }
            await conn.execute(insert(_M).values(**values))
            if events:
                await write_events(conn, message.app_id, events, message.created_ms)
        return _message(_Row(values))

    async def message(self, app_id: str, room: str, message_id: int) -> ChatMessage | None:
        async with self.store.reading() as conn:
            row = (
                await conn.execute(
                    select(_M).where(_M.app_id == app_id, _M.room == room, _M.seq == message_id)
                )
            ).first()
        return None if row is None else _message(row)

    async def amend(
        self, app_id: str, original: ChatMessage, text: str | None, filtered: bool, now: int
    ) -> ChatMessage:
        async with self.store.writing() as conn:
            seq = await _next_seq(conn, app_id, original.room)
            where = (_M.app_id == app_id, _M.room == original.room, _M.seq == original.id)
            if text is None:
                change: dict[str, Any] = {"deleted": True, "body": "", "phrase": ""}
            else:
                change = {"body": text, "filtered": filtered, "edited_ms": now}
            await conn.execute(update(_M).where(*where).values(**change))
            values = {
                "app_id": app_id,
                "room": original.room,
                "seq": seq,
                "kind": "delete" if text is None else "edit",
                "author_key": original.author_key,
                "author_id": original.author_id,
                "author_name": original.author_name,
                "seat": original.seat,
                "body": text or "",
                "phrase": "",
                "filtered": filtered,
                "deleted": False,
                "target_seq": original.id,
                "client_id": None,
                "created_ms": now,
                "edited_ms": 0,
            }
            await conn.execute(insert(_M).values(**values))
        return _message(_Row(values))

    async def messages(
        self, app_id: str, room: str, after: int, before: int | None, limit: int, history: bool
    ) -> list[ChatMessage]:
        if self._fast is not None and before is None and not history:
            async with self.store.bounded():
                rows = await self._fast.fetch(READ_SQL, app_id, room, after, limit)
            return [_record(r) for r in rows]
        q = select(_M).where(_M.app_id == app_id, _M.room == room, _M.seq > after)
        if before is not None:
            q = q.where(_M.seq < before)
        if history:
            q = q.where(_M.kind.in_(("text", "phrase"))).order_by(_M.seq.desc()).limit(limit)
        else:
            q = q.order_by(_M.seq).limit(limit)
        async with self.store.reading() as conn:
            rows = [_message(r) for r in (await conn.execute(q)).all()]
        return rows[::-1] if history else rows

    async def game_state(self, game_id: str) -> tuple[str, GameState] | None:
        try:
            game = await self.store.game(game_id)
        except NotFound:
            return None
        return game.app_id, game.state

    async def pair(self, app_id: str, player_id: str, other: str) -> tuple[Relation, Relation]:
        q = select(PlayerRelation.player_id, PlayerRelation.relation).where(
            PlayerRelation.app_id == app_id,
            ((PlayerRelation.player_id == player_id) & (PlayerRelation.other_id == other))
            | ((PlayerRelation.player_id == other) & (PlayerRelation.other_id == player_id)),
        )
        async with self.store.reading() as conn:
            sides = {r.player_id: Relation(r.relation) for r in (await conn.execute(q)).all()}
        return sides.get(player_id, Relation.NONE), sides.get(other, Relation.NONE)

    async def sanction(self, app_id: str, player_id: str) -> Sanction | None:
        q = select(ChatSanction.kind, ChatSanction.until_ms, ChatSanction.reason).where(
            ChatSanction.app_id == app_id, ChatSanction.player_id == player_id
        )
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        if row is None:
            return None
        return Sanction(Resolution(row.kind), int(row.until_ms), row.reason)

    async def hidden_authors(self, app_id: str, player_id: str) -> frozenset[str]:
        muted = select(ChatMute.muted_id).where(
            ChatMute.app_id == app_id, ChatMute.player_id == player_id
        )
        blocked = select(PlayerRelation.other_id).where(
            PlayerRelation.app_id == app_id,
            PlayerRelation.player_id == player_id,
            PlayerRelation.relation == Relation.BLOCKED.value,
        )
        async with self.store.reading() as conn:
            found = set((await conn.execute(muted)).scalars())
            found.update((await conn.execute(blocked)).scalars())
        return frozenset(found)

    async def messages_by(self, app_id: str, player_id: str) -> list[ChatMessage]:
        async with self.store.reading() as conn:
            return await export_messages(conn, app_id, player_id)

    async def chat_apps(self) -> list[str]:
        q = select(ChatRoomRecord.app_id).distinct()
        async with self.store.reading() as conn:
            return list((await conn.execute(q)).scalars())

    async def prune(self, app_id: str, before_ms: int) -> int:
        """The app's messages (and amendments) posted before ``before_ms``, deleted;
        how many went."""
        async with self.store.writing() as conn:
            gone = await conn.execute(
                delete(_M).where(_M.app_id == app_id, _M.created_ms < before_ms)
            )
        return int(gone.rowcount or 0)


class _AlreadyKept(Exception):
    """The message was kept before: the transaction rolls back, the first answers."""

    def __init__(self, message: ChatMessage) -> None:
        super().__init__("already kept")
        self.message = message


class _Row:
    """A row's values as the insert wrote them, read as ``_message`` reads a row."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


async def erase_author(conn: AsyncConnection, app_id: str, player_id: str) -> int:
    """Every message the player wrote, deleted, and the direct conversations they
    were in (the other's messages there too: a conversation with no one), in the
    caller's transaction; how many rows went."""
    gone = int(
        (
            await conn.execute(delete(_M).where(_M.app_id == app_id, _M.author_id == player_id))
        ).rowcount
        or 0
    )
    candidates = (
        await conn.execute(
            select(ChatRoomRecord.room).where(
                ChatRoomRecord.app_id == app_id,
                ChatRoomRecord.room.startswith("direct:"),
                ChatRoomRecord.room.contains(player_id, autoescape=True),
            )
        )
    ).scalars()
    for stored in list(candidates):
        if player_id not in direct_members(Room(RoomKind.DIRECT, stored.partition(":")[2])):
            continue
        for model in (_M, ChatRoomRecord):
            result = await conn.execute(
                delete(model).where(model.app_id == app_id, model.room == stored)
            )
            gone += int(result.rowcount or 0)
    return gone


async def export_messages(conn: AsyncConnection, app_id: str, player_id: str) -> list[ChatMessage]:
    q = (
        select(_M)
        .where(_M.app_id == app_id, _M.author_id == player_id, _M.kind.in_(("text", "phrase")))
        .order_by(_M.created_ms)
    )
    return [_message(r) for r in (await conn.execute(q)).all()]
