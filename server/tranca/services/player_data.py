"""A player's copy of their data (ExportPlayerData; LGPD art. 18, II and V: access
and portability): everything the server holds about one player of an app, as one
JSON document. The app's key exports any of its players; a player's own session
exports itself where the app's policy allows (``player_data_rights``).

What it holds: the player's profile and identities (issuer and subject), their
sessions (when, from where, no token), every game they sat at with the moves made
from their seat (the other seats' hidden cards are not theirs to see), their
rating, ranking points and chip balance with every chip entry, their friends,
requests and blocks, their presence (when they were last seen, whether they said
they are away, who may see it), their invitations to tables (sent and received),
the chat messages they wrote, their events, their abandonments of rated matches
(how many, and the cooldown of the last), and their XP, counters and achievements.
Secrets never: no token, no hash, no other player's hand.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..platform.presence import Settings
from ..reasons import Reason
from .abandonment import AbandonmentReader
from .access import Access, Credentials, require_app
from .audit import AuditAction, AuditEntry, AuditRepository
from .chat import ChatMessage
from .errors import Refusal, Refused, malformed
from .friends import Relation, Relationship
from .identity_links import IdentityLinkRepository
from .invitations import Direction, InvitationRecord
from .notifications import EventRepository
from .paging import Position
from .players import PlayersRepository
from .profiles import ProfileRepository
from .progression import ProgressionReads
from .sessions import SessionRepository

# Read in pages of this many (sessions, chip entries, events) until all are read.
PAGE = 500
EXPORT_FORMAT = 1


@dataclass(frozen=True)
class PlayedMove:
    """A change made from the player's seat: its version, the action as logged (the
    move in the engine's notation, or a join, a leave...), who made it (the
    player, a robot, the timer) and when (epoch ms)."""

    version: int
    action: dict[str, Any]
    actor: str
    at: int


@dataclass(frozen=True)
class PlayedGame:
    """A game the player sat at: its id, label, preset, status, their seat and the
    changes made from it."""

    game_id: str
    label: str
    preset: str
    status: str
    seat: int
    moves: tuple[PlayedMove, ...]


class ChatMessagesRepository(Protocol):
    async def messages_by(self, app_id: str, player_id: str) -> list[ChatMessage]:
        """Every message the player wrote that is kept, oldest first."""
        ...


class PlayedGamesRepository(Protocol):
    async def games_of_player(self, app_id: str, player_id: str) -> list[PlayedGame]:
        """Every game of the app the player held a seat at, oldest first, with the
        changes logged from that seat."""
        ...


class RelationsRepository(Protocol):
    async def relations(
        self, app_id: str, player_id: str, kinds: frozenset[Relation], after: str, limit: int
    ) -> list[Relationship]:
        """The player's relations by the other player's id above ``after``."""
        ...


class InvitationsRepository(Protocol):
    async def invitations(
        self,
        app_id: str,
        player_id: str,
        direction: Direction,
        status: None,
        now: int,
        before: Position | None,
        limit: int,
    ) -> list[InvitationRecord]:
        """The player's invitations, sent and received, newest first below ``before``."""
        ...


class PresenceSettingsRepository(Protocol):
    async def presence_settings(
        self, app_id: str, player_ids: Sequence[str]
    ) -> dict[str, Settings]:
        """What is stored of those players' presence."""
        ...


@dataclass(frozen=True)
class DataSubject:
    """Whose data a data-rights call is about, and who asked: the app (its key) or
    the player's own session (``session_id``)."""

    app_id: str
    player_id: str
    session_id: str | None  # None: the app's key


async def data_subject(access: Access, credentials: Credentials, player_id: str) -> DataSubject:
    """The player a data-rights call (export, erasure) is about: any of the app's
    players with its key; with a session, its own player only, and only where the
    app's policy lets players use their rights themselves (``player_data_rights``)."""
    caller = await access.identify(credentials)
    if caller.session is not None:
        session = caller.session
        if player_id and player_id != session.player_id:
            raise Refused(
                Refusal.FORBIDDEN,
                Reason.NOT_YOUR_DATA,
                "a session exercises its own player's data rights only",
            )
        if not session.policy.player_data_rights:
            raise Refused(
                Refusal.FORBIDDEN,
                Reason.DATA_RIGHTS_DISABLED,
                "this app serves players' data rights through its own support"
                " (its policy: player_data_rights)",
            )
        return DataSubject(session.app_id, session.player_id, session.session_id)
    app_id = require_app(caller).id
    player = player_id.strip()
    if not player or len(player) > 128:
        raise malformed("player_id is 1 to 128 characters")
    return DataSubject(app_id, player, None)


def holds_anything(document: dict[str, Any]) -> bool:
    """Whether a player's document holds any of their data."""
    held = (
        "profile",
        "identities",
        "sessions",
        "rating",
        "games",
        "relations",
        "presence",
        "events",
    )
    if document.get("invitations") or document.get("progression") or document.get("chat_messages"):
        return True
    return any(document[k] for k in held) or bool(document["chips"]["entries"])


class PlayerData:
    def __init__(
        self,
        access: Access,
        sessions: SessionRepository,
        identities: IdentityLinkRepository,
        profiles: ProfileRepository,
        players: PlayersRepository,
        events: EventRepository,
        games: PlayedGamesRepository,
        audit: AuditRepository,
        relations: RelationsRepository,
        now_ms: Callable[[], int],
        *,
        invitations: InvitationsRepository | None = None,
        chat: ChatMessagesRepository | None = None,
        presence: PresenceSettingsRepository | None = None,
        abandonments: AbandonmentReader | None = None,
        progression: ProgressionReads | None = None,
    ) -> None:
        self.access = access
        # Their abandonments of rated matches: how many, and their cooldown.
        self.abandonments = abandonments
        self.progression = progression
        self.chat = chat
        self.invitations = invitations
        self.presence = presence
        self.sessions = sessions
        self.identities = identities
        self.profiles = profiles
        self.players = players
        self.events = events
        self.games = games
        self.audit = audit
        self.relations = relations
        self.now_ms = now_ms

    async def export(self, credentials: Credentials, player_id: str) -> dict[str, Any]:
        """The player's data (module docstring): ``player_id`` with the app's key,
        the session's own player (``player_id`` empty or the same) with a session."""
        subject = await data_subject(self.access, credentials, player_id)
        document = await self._document(subject.app_id, subject.player_id)
        if not holds_anything(document):
            # Nothing handed out, nothing to audit: and an entry would write an id
            # back into the log after its erasure (an app checking it is gone).
            return document
        # Audited before it is handed out: what was given, to whom, when.
        handed = {"games": len(document["games"]), "events": len(document["events"])}
        await self.audit.record(
            subject.app_id,
            AuditEntry(
                AuditAction.EXPORT_PLAYER_DATA,
                "app" if subject.session_id is None else "player",
                subject.player_id,
                handed,
                self.now_ms(),
            ),
        )
        return document

    async def _document(self, app_id: str, player_id: str) -> dict[str, Any]:
        profile = await self.profiles.profile(app_id, player_id)
        totals = await self.players.player_totals(app_id, player_id)
        identities = await self.identities.identities_of(app_id, player_id)
        games = await self.games.games_of_player(app_id, player_id)
        return {
            "format": EXPORT_FORMAT,
            "exported_at_ms": int(time.time() * 1000),
            "app_id": app_id,
            "player_id": player_id,
            "profile": None if profile is None else dataclasses.asdict(profile),
            "identities": [dataclasses.asdict(i) for i in identities],
            "sessions": await self._sessions(app_id, player_id),
            "rating": None if totals.rating is None else dataclasses.asdict(totals.rating),
            "wins": totals.wins,
            "ranking_points": totals.ranking_points,
            "chips": {"balance": totals.chips, "entries": await self._chips(app_id, player_id)},
            "games": [dataclasses.asdict(g) for g in games],
            "relations": await self._relations(app_id, player_id),
            "invitations": await self._invitations(app_id, player_id),
            "chat_messages": await self._chat(app_id, player_id),
            "presence": await self._presence(app_id, player_id),
            "events": await self._events(app_id, player_id),
            "abandonments": await self._abandonments(app_id, player_id),
            "progression": await self._progression(app_id, player_id),
        }

    async def _progression(self, app_id: str, player_id: str) -> dict[str, Any] | None:
        """XP, counters and achievements unlocked (id: when), if any."""
        if self.progression is None:
            return None
        progress, unlocked = await self.progression.progress_of(app_id, player_id)
        if not progress.xp and not progress.counters and not unlocked:
            return None
        return {
            "xp": progress.xp,
            "counters": dict(progress.counters),
            "achievements": dict(sorted(unlocked.items())),
        }

    async def _abandonments(self, app_id: str, player_id: str) -> dict[str, int]:
        if self.abandonments is None:
            return {"count": 0, "cooldown_until_ms": 0}
        found = await self.abandonments.abandonments(app_id, player_id)
        return {"count": found.count, "cooldown_until_ms": found.cooldown_ms()}

    async def _sessions(self, app_id: str, player_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        after = None
        while True:
            page = await self.sessions.list_sessions(app_id, player_id, False, 0, PAGE, after)
            out += [{**dataclasses.asdict(s), "kind": s.kind.value} for s in page]
            if len(page) < PAGE:
                return out
            after = Position(page[-1].created_at, page[-1].session_id)

    async def _chips(self, app_id: str, player_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        before: int | None = None
        while True:
            page = await self.players.chip_entries(app_id, player_id, PAGE, before)
            out += [dataclasses.asdict(e) for e in page.entries]
            if page.next_before is None:
                return out
            before = page.next_before

    async def _chat(self, app_id: str, player_id: str) -> list[dict[str, Any]]:
        if self.chat is None:
            return []
        return [
            {
                "room": m.room,
                "id": m.id,
                "kind": m.kind,
                "text": m.text,
                "phrase": m.phrase,
                "created_ms": m.created_ms,
                "edited_ms": m.edited_ms,
                "deleted": m.deleted,
            }
            for m in await self.chat.messages_by(app_id, player_id)
        ]

    async def _relations(self, app_id: str, player_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        after = ""
        while True:
            page = await self.relations.relations(app_id, player_id, frozenset(), after, PAGE)
            out += [
                {"player_id": r.player_id, "relation": r.relation.value, "since_ms": r.since_ms}
                for r in page
            ]
            if len(page) < PAGE:
                return out
            after = page[-1].player_id

    async def _invitations(self, app_id: str, player_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.invitations is None:
            return out
        before: Position | None = None
        while True:
            page = await self.invitations.invitations(
                app_id, player_id, Direction.BOTH, None, self.now_ms(), before, PAGE
            )
            for r in page:
                shown = dataclasses.asdict(r)
                shown["kind"], shown["status"] = r.kind.value, r.status.value
                out.append(shown)
            if len(page) < PAGE:
                return out
            before = Position(page[-1].created_ms, page[-1].id)

    async def _presence(self, app_id: str, player_id: str) -> dict[str, Any] | None:
        if self.presence is None:
            return None
        found = (await self.presence.presence_settings(app_id, [player_id])).get(player_id)
        if found is None:
            return None
        return {
            "last_seen_ms": found.last_seen_ms,
            "away": found.away,
            "visibility": found.visibility.value,
        }

    async def _events(self, app_id: str, player_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        after = 0
        while True:
            page = await self.events.player_events(app_id, player_id, after, PAGE)
            out += [dataclasses.asdict(e) for e in page]
            if len(page) < PAGE:
                return out
            after = page[-1].id


__all__ = [
    "DataSubject",
    "PlayedGame",
    "PlayedGamesRepository",
    "PlayedMove",
    "PlayerData",
    "data_subject",
]
