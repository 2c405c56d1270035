"""The fake of the presence port (services/player_presence.py): each player's stored
presence in a dict, the relations read from the friends' fake, and the games held
read from the games' fake through their seats' tokens."""

from __future__ import annotations

from collections.abc import Sequence

from tranca.platform.friendships import Relation
from tranca.platform.presence import Settings, Visibility
from tranca.services.errors import Unavailable
from tranca.services.ports import GameRecord
from tranca.table.game import PLAYING, WAITING

from .friends import FriendsMemory
from .records import MemoryState


class PresenceMemory:
    """``PresenceRepository`` in memory; ``down`` makes every sighting fail as a
    database that cannot take it would."""

    def __init__(self, state: MemoryState, friends: FriendsMemory) -> None:
        self.state = state
        self.friends = friends
        self.rows: dict[tuple[str, str], Settings] = {}
        self.sightings: list[tuple[str, str, int]] = []
        self.down = False

    async def mark_seen_many(self, seen: Sequence[tuple[str, str, int]]) -> None:
        for app_id, player_id, now in seen:
            await self.mark_seen(app_id, player_id, now)

    async def mark_seen(self, app_id: str, player_id: str, now: int) -> None:
        if self.down:
            raise Unavailable("the database is not answering")
        self.sightings.append((app_id, player_id, now))
        was = self.rows.get((app_id, player_id), Settings())
        if now > was.last_seen_ms:
            self.rows[(app_id, player_id)] = Settings(now, was.away, was.visibility)

    async def presence_settings(
        self, app_id: str, player_ids: Sequence[str]
    ) -> dict[str, Settings]:
        return {p: self.rows[(app_id, p)] for p in player_ids if (app_id, p) in self.rows}

    async def save_presence(
        self,
        app_id: str,
        player_id: str,
        away: bool | None,
        visibility: Visibility | None,
        seen_ms: int | None,
    ) -> Settings:
        was = self.rows.get((app_id, player_id), Settings())
        now = Settings(
            max(was.last_seen_ms, seen_ms or 0),
            was.away if away is None else away,
            visibility or was.visibility,
        )
        self.rows[(app_id, player_id)] = now
        return now

    async def relations_toward(
        self, app_id: str, viewer: str, player_ids: Sequence[str]
    ) -> dict[str, Relation]:
        return {
            p: self.friends.sides[(app_id, p, viewer)][0]
            for p in player_ids
            if (app_id, p, viewer) in self.friends.sides
        }

    async def games_held(self, app_id: str, player_ids: Sequence[str]) -> list[GameRecord]:
        held = {
            t.game_id
            for t in self.state.tokens.values()
            if t.token.seat >= 0 and t.token.player_id in player_ids
        }
        games = [
            g
            for g in self.state.games.values()
            if g.app_id == app_id and g.id in held and g.state.status in (WAITING, PLAYING)
        ]
        games.sort(key=lambda g: (-g.created_at, g.id))
        return [
            GameRecord(g.id, g.app_id, g.state.status, g.version, g.label, g.created_at, g.state)
            for g in games
        ]
