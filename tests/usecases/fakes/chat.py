"""The fake of the chat's port (services/chat.py): each room's messages numbered in
order, an author's client id kept once, the events each message writes kept in
order; games and friendships read from the fakes that hold them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tranca.platform.friendships import Relation
from tranca.services.chat import ChatMessage, NewMessage
from tranca.table.events import Event
from tranca.table.game import GameState

from .friends import FriendsMemory
from .memory import InMemoryRepository


class ChatMemory:
    """``ChatRepository`` in memory."""

    def __init__(self, games: InMemoryRepository, friends: FriendsMemory) -> None:
        self.games = games
        self.friends = friends
        self.rows: dict[tuple[str, str], list[ChatMessage]] = {}
        self.events: list[tuple[str, Event]] = []

    async def post(self, message: NewMessage, events: Sequence[Event]) -> ChatMessage:
        room = self.rows.setdefault((message.app_id, message.room), [])
        for kept in room:
            if (kept.author_key, kept.client_id) == (message.author_key, message.client_id):
                return kept
        row = ChatMessage(
            len(room) + 1,
            message.room,
            message.author_id,
            message.author_name,
            message.seat,
            message.kind,
            message.text,
            message.phrase,
            message.created_ms,
            filtered=message.filtered,
            client_id=message.client_id,
            author_key=message.author_key,
        )
        room.append(row)
        self.events += [(message.app_id, e) for e in events]
        return row

    async def message(self, app_id: str, room: str, message_id: int) -> ChatMessage | None:
        rows = self.rows.get((app_id, room), [])
        return rows[message_id - 1] if 0 < message_id <= len(rows) else None

    async def amend(
        self, app_id: str, original: ChatMessage, text: str | None, filtered: bool, now: int
    ) -> ChatMessage:
        room = self.rows[(app_id, original.room)]
        changed = (
            replace(original, deleted=True, text="", phrase="")
            if text is None
            else replace(original, text=text, filtered=filtered, edited_ms=now)
        )
        room[original.id - 1] = changed
        amendment = replace(
            original,
            id=len(room) + 1,
            kind="delete" if text is None else "edit",
            text=text or "",
            phrase="",
            created_ms=now,
            edited_ms=0,
            target_id=original.id,
            client_id="",
            filtered=filtered,
        )
        room.append(amendment)
        return amendment

    async def messages(
        self, app_id: str, room: str, after: int, before: int | None, limit: int, history: bool
    ) -> list[ChatMessage]:
        rows = [
            r
            for r in self.rows.get((app_id, room), [])
            if r.id > after and (before is None or r.id < before)
        ]
        if history:
            return [r for r in rows if r.kind in ("text", "phrase")][-limit:]
        return rows[:limit]

    async def game_state(self, game_id: str) -> tuple[str, GameState] | None:
        stored = self.games.games.get(game_id)
        if stored is None:
            return None
        return stored.app_id, stored.state

    async def pair(self, app_id: str, player_id: str, other: str) -> tuple[Relation, Relation]:
        sides = self.friends.sides
        return (
            sides.get((app_id, player_id, other), (Relation.NONE, 0))[0],
            sides.get((app_id, other, player_id), (Relation.NONE, 0))[0],
        )
