"""Players' presence (SocialService's GetPresence and SetPresence, and the presence
ListFriends shows): online, away or offline, last seen, the tables a player holds a
seat at, to whom their choice lets see it (the rules: ``platform/presence.py``).

Nothing of it lives in one process: a player is seen when a call carries their
session or their seat's token, or while a stream of their events is open with
their session (``Sightings``: each process writes a player's time at most once
every ``SEEN_EVERY_MS``, best effort, as seat presence does), and the time is
stored (``player_presence``), so every replica reads the same status. The tables
are read from the games themselves. A player's own choices (away, who sees them)
are stored beside the time.

Who asks is a player (their session, or the app's key acting for one, as the
friend calls); what they are shown of each other player is what that player's
choice allows them: their friends, everyone, or nobody; never a player who blocked
them. Whatever a viewer may not see (and any id the app never had) is answered as
hidden, alike, so an answer neither names the app's players nor tells anyone that
they were blocked.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import structlog

from ..platform.friendships import Relation
from ..platform.presence import (
    SEEN_EVERY_MS,
    Audience,
    Settings,
    Shown,
    Status,
    Table,
    Visibility,
    may_see,
    seated_at,
    shown,
)
from .access import Access, Credentials
from .errors import Unavailable, malformed
from .friends import acting_player, check_player_id
from .policy import AppPolicies
from .ports import GameRecord
from .sessions import Clock

log = structlog.get_logger("tranca.presence")

MAX_ASKED = 100  # players a GetPresence asks about
MAX_TRACKED = 50_000  # players a process remembers writing (then it forgets them all)


class SightingRepository(Protocol):
    async def mark_seen(self, app_id: str, player_id: str, now: int) -> None:
        """The player was seen at ``now`` (epoch ms): kept if later than the time
        stored."""
        ...

    async def mark_seen_many(self, seen: Sequence[tuple[str, str, int]]) -> None:
        """``mark_seen`` of each (app, player, time), in one transaction."""
        ...


class PresenceRepository(SightingRepository, Protocol):
    async def presence_settings(
        self, app_id: str, player_ids: Sequence[str]
    ) -> dict[str, Settings]:
        """What is stored of those players' presence (absent: never seen, nothing
        chosen)."""
        ...

    async def save_presence(
        self,
        app_id: str,
        player_id: str,
        away: bool | None,
        visibility: Visibility | None,
        seen_ms: int | None,
    ) -> Settings:
        """The player's choices changed (None: kept), and, with ``seen_ms``, their
        time; what is stored now."""
        ...

    async def relations_toward(
        self, app_id: str, viewer: str, player_ids: Sequence[str]
    ) -> dict[str, Relation]:
        """Each of ``player_ids``'s relation to ``viewer`` (their own side: a friend,
        a block they made, ...), where they have one."""
        ...

    async def games_held(self, app_id: str, player_ids: Sequence[str]) -> list[GameRecord]:
        """The app's unfinished games (waiting or playing) where a seat's token was
        issued to one of ``player_ids``, the latest first."""
        ...


class Sightings:
    """This process's record of when it last wrote each player's sighting, so that a
    stream of calls turns into one write every ``every_ms`` per player.

    A call with a seat's token (the move path: ``batched``) never waits for the
    database when the process batches (``batch_seconds`` > 0): its sighting is kept
    here and ``run`` writes every one kept in one transaction each
    ``batch_seconds``, so a move costs no write of its own and a thousand players'
    sightings are one statement a second, which no burst of other writes (chat's, a
    tournament round's) makes a move wait behind. A call with a session writes its
    sighting itself (one write in ``every_ms`` per player), so a player who has just
    signed in or looked at their friends shows online at once, on every replica."""

    def __init__(
        self,
        repo: SightingRepository,
        clock: Clock,
        every_ms: int = SEEN_EVERY_MS,
        monotonic: Callable[[], float] = time.monotonic,
        batch_seconds: float = 0.0,
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.every = every_ms / 1000
        self.monotonic = monotonic
        self.batch_seconds = batch_seconds
        self._written: dict[tuple[str, str], float] = {}
        self._pending: dict[tuple[str, str], int] = {}

    async def seen(self, app_id: str, player_id: str, *, batched: bool = False) -> None:
        """The player is here now. Best effort: a database that cannot take the write
        costs the call nothing, and the next call tries again."""
        if not player_id:
            return
        key = (app_id, player_id)
        now = self.monotonic()
        if now - self._written.get(key, -1e18) < self.every:
            return
        if len(self._written) >= MAX_TRACKED:
            self._written.clear()  # at worst one extra write per player
        self._written[key] = now
        if batched and self.batch_seconds > 0:
            if len(self._pending) < MAX_TRACKED:
                self._pending[key] = self.clock()
            return
        try:
            await self.repo.mark_seen(app_id, player_id, self.clock())
        except Unavailable:
            self._written.pop(key, None)

    async def flush(self) -> int:
        """Write the sightings kept since the last flush, in one transaction; how
        many. Those the database could not take are tried again at their players'
        next calls."""
        batch, self._pending = self._pending, {}
        if not batch:
            return 0
        try:
            await self.repo.mark_seen_many([(a, p, at) for (a, p), at in batch.items()])
        except Unavailable:
            for key in batch:
                self._written.pop(key, None)
            return 0
        return len(batch)

    async def run(self) -> None:
        """``flush`` every ``batch_seconds`` until cancelled."""
        while True:
            await asyncio.sleep(self.batch_seconds)
            try:
                await self.flush()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sightings_flush_failed")


@dataclass(frozen=True)
class PresenceChange:
    """SetPresence's request: each choice None where it stays as it is."""

    away: bool | None = None
    visibility: Visibility | None = None
    # The player is here now (for the app's backend acting for them: a session's
    # call is seen anyway).
    seen: bool = False


class PlayerPresence:
    def __init__(
        self,
        access: Access,
        repo: PresenceRepository,
        policies: AppPolicies,
        clock: Clock,
    ) -> None:
        self.access = access
        self.repo = repo
        self.policies = policies
        self.clock = clock

    async def get(
        self, credentials: Credentials, acting: str, player_ids: Sequence[str]
    ) -> tuple[Shown, ...]:
        """Each player's presence as the acting player may see it, in the order asked
        (an id asked twice is answered once)."""
        actor = await acting_player(self.access, self.policies, credentials, acting, "presence is")
        if not player_ids:
            raise malformed("player_ids names 1 to 100 players")
        if len(player_ids) > MAX_ASKED:
            raise malformed(f"player_ids names at most {MAX_ASKED} players")
        for player_id in player_ids:
            check_player_id(player_id, "player_ids")
        ids = list(dict.fromkeys(player_ids))
        views = await self.views(actor.app_id, actor.player_id, ids)
        return tuple(views[p] for p in ids)

    async def set(self, credentials: Credentials, acting: str, change: PresenceChange) -> Shown:
        """The acting player's choices changed; their presence as they see it now."""
        actor = await acting_player(self.access, self.policies, credentials, acting, "presence is")
        seen = self.clock() if change.seen else None
        settings = await self.repo.save_presence(
            actor.app_id, actor.player_id, change.away, change.visibility, seen
        )
        tables = await self._tables(actor.app_id, [actor.player_id])
        return shown(
            actor.player_id,
            settings,
            Audience.SELF,
            tables.get(actor.player_id, ()),
            self.clock(),
        )

    async def views(self, app_id: str, viewer: str, player_ids: Sequence[str]) -> dict[str, Shown]:
        """Each player's presence as ``viewer`` may see it (``Friends.list`` shows it
        too)."""
        ids = list(dict.fromkeys(player_ids))
        settings = await self.repo.presence_settings(app_id, ids)
        toward = await self.repo.relations_toward(app_id, viewer, [p for p in ids if p != viewer])
        audiences = {p: _audience(p, viewer, toward.get(p)) for p in ids}
        visible = [p for p in ids if may_see(settings.get(p, Settings()).visibility, audiences[p])]
        tables = await self._tables(app_id, visible)
        now = self.clock()
        return {
            p: shown(p, settings.get(p, Settings()), audiences[p], tables.get(p, ()), now)
            for p in ids
        }

    async def _tables(self, app_id: str, player_ids: Sequence[str]) -> dict[str, list[Table]]:
        if not player_ids:
            return {}
        games = await self.repo.games_held(app_id, player_ids)
        out: dict[str, list[Table]] = {}
        for game in games:
            for player_id in player_ids:
                table = seated_at(game.id, game.state, player_id)
                if table is not None:
                    out.setdefault(player_id, []).append(table)
        return out


def _audience(player_id: str, viewer: str, relation: Relation | None) -> Audience:
    if player_id == viewer:
        return Audience.SELF
    if relation == Relation.BLOCKED:
        return Audience.BLOCKED
    if relation == Relation.FRIEND:
        return Audience.FRIEND
    return Audience.OTHER


__all__ = [
    "MAX_ASKED",
    "PlayerPresence",
    "PresenceChange",
    "PresenceRepository",
    "Shown",
    "SightingRepository",
    "Sightings",
    "Status",
    "Visibility",
]
