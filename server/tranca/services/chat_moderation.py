"""Chat's moderation: a player mutes another (their messages hidden from them in every
room), reports a message they read (the chat around it kept with the report, and
the game it was said at), and the app's administrators work through the queue of
reports: dismiss, warn, mute for a time, or ban from chat; every resolution audited.

The sanctions are the domain's (``platform/chat_moderation.py``) and are enforced
where a message is posted (``Chat.post``: CHAT_MUTED, CHAT_BANNED, with the end
and the reason), on every replica at once since they are read from the database.
The reported player is told of a warning or a sanction by an event
(``chat_warning``, ``chat_sanction``), written with the resolution and its audit
entry in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..platform.chat import RoomKind
from ..platform.chat_moderation import (
    EVIDENCE_AROUND,
    MAX_NOTE,
    MAX_REPORT_REASON,
    ModerationRefused,
    ReportStatus,
    Resolution,
    Sanction,
    sanction_for,
)
from ..reasons import Reason
from ..table.events import Event, EventKind
from .access import Access, Credentials, require_app
from .audit import AuditAction, AuditEntry
from .chat import Chat, ChatMessage, RoomRef
from .errors import Refusal, Refused, malformed
from .paging import before_token, parse_before
from .player_rewrite import refuse_pseudonym
from .sessions import Clock, require_session

DEFAULT_PAGE = 50
MAX_PAGE = 200
MAX_MUTES = 1000


@dataclass(frozen=True)
class NewReport:
    app_id: str
    reporter_id: str
    reported_id: str
    room: str
    message_id: int
    reason: str
    evidence: tuple[ChatMessage, ...]
    game_id: str
    game_version: int
    created_ms: int


@dataclass(frozen=True)
class ChatReport:
    """A report as the queue shows it: the message reported and the messages around
    it as they were when reported (``evidence``), the game it was said at (its id and
    version then: its log is read with GetReplay), and how it was resolved."""

    id: int
    reporter_id: str
    reported_id: str
    room: str
    message_id: int
    reason: str
    evidence: tuple[ChatMessage, ...]
    game_id: str
    game_version: int
    created_ms: int
    status: ReportStatus
    resolution: str = ""
    note: str = ""
    resolved_ms: int = 0
    until_ms: int = 0


def report_room(report: ChatReport) -> RoomRef:
    """The room a report's message was said in, as a caller names it: a table's by
    its game, a lobby room by its name, a direct conversation by the reporter (the
    other of its two)."""
    kind, _, key = report.room.partition(":")
    room_kind = RoomKind(kind)
    if room_kind == RoomKind.DIRECT:
        return RoomRef(room_kind, report.reporter_id)
    return RoomRef(room_kind, key)


class ModerationRepository(Protocol):
    async def mute(self, app_id: str, player_id: str, muted: str, now: int) -> bool:
        """``muted`` hidden from ``player_id``; False if they already were."""
        ...

    async def unmute(self, app_id: str, player_id: str, muted: str) -> bool: ...

    async def mutes(self, app_id: str, player_id: str) -> list[str]: ...

    async def add_report(self, report: NewReport) -> ChatReport:
        """Keep the report; the reporter's earlier report of the same message instead,
        if there is one."""
        ...

    async def reports(
        self, app_id: str, status: ReportStatus | None, before: int | None, limit: int
    ) -> list[ChatReport]:
        """The app's reports, newest first, with ids below ``before``."""
        ...

    async def resolve(
        self,
        app_id: str,
        report_id: int,
        resolution: Resolution,
        sanction: Sanction | None,
        note: str,
        now: int,
        entry: AuditEntry,
        events: Sequence[Event],
    ) -> ChatReport | None:
        """Resolve an open report, put its author under ``sanction``, and write the
        audit entry and the events, in one transaction; None if the report is not
        open (no such report, or resolved already)."""
        ...

    async def report(self, app_id: str, report_id: int) -> ChatReport | None: ...

    async def game_version(self, game_id: str) -> int:
        """The game's version now (0 if there is no such game)."""
        ...


class ChatModeration:
    def __init__(
        self, access: Access, chat: Chat, repo: ModerationRepository, clock: Clock
    ) -> None:
        self.access = access
        self.chat = chat
        self.repo = repo
        self.clock = clock

    # ----- a player's own ---------------------------------------------------------------

    async def mute(self, credentials: Credentials, player_id: str, muted: bool) -> bool:
        """The session's player mutes (or unmutes) ``player_id``: their messages are
        hidden from them in every room. Whether anything changed."""
        session = require_session(await self.access.identify(credentials))
        if not player_id or len(player_id) > 128 or player_id == session.player_id:
            raise malformed("player_id is another player's id, 1 to 128 characters")
        refuse_pseudonym(player_id)
        if not muted:
            return await self.repo.unmute(session.app_id, session.player_id, player_id)
        if len(await self.repo.mutes(session.app_id, session.player_id)) >= MAX_MUTES:
            raise Refused(
                Refusal.EXHAUSTED,
                Reason.MUTE_LIMIT_REACHED,
                f"a player mutes at most {MAX_MUTES} players",
            )
        return await self.repo.mute(session.app_id, session.player_id, player_id, self.clock())

    async def muted(self, credentials: Credentials) -> list[str]:
        session = require_session(await self.access.identify(credentials))
        return await self.repo.mutes(session.app_id, session.player_id)

    async def report(
        self, credentials: Credentials, ref: RoomRef, message_id: int, reason: str
    ) -> ChatReport:
        """The caller reports a message of a room they read; the report (the same one
        if they reported the message before)."""
        speaker = await self.chat.speaker(credentials, ref)
        self.chat.readable(speaker)
        if not speaker.author_id:
            raise Refused(
                Refusal.FORBIDDEN,
                Reason.SESSION_TOKEN_REQUIRED,
                "a report is a player's: a seat with a player id, or a session",
            )
        reason = " ".join(reason.split())
        if len(reason) > MAX_REPORT_REASON:
            raise malformed(f"reason is at most {MAX_REPORT_REASON} characters")
        found = await self.chat.repo.message(speaker.app_id, speaker.room.stored, message_id)
        if found is None or found.kind not in ("text", "phrase"):
            raise Refused(Refusal.NOT_FOUND, Reason.MESSAGE_NOT_FOUND, "no such message here")
        if found.author_id == speaker.author_id or not found.author_id:
            raise malformed("a report is of another player's message")
        around = await self.chat.repo.messages(
            speaker.app_id,
            speaker.room.stored,
            max(0, message_id - EVIDENCE_AROUND - 1),
            message_id + EVIDENCE_AROUND + 1,
            2 * EVIDENCE_AROUND + 1,
            True,
        )
        game_id = (
            speaker.room.key if speaker.room.kind in (RoomKind.TABLE, RoomKind.SPECTATORS) else ""
        )
        version = await self.repo.game_version(game_id) if game_id else 0
        return await self.repo.add_report(
            NewReport(
                speaker.app_id,
                speaker.author_id,
                found.author_id,
                speaker.room.stored,
                message_id,
                reason,
                tuple(around),
                game_id,
                version,
                self.clock(),
            )
        )

    # ----- the app's queue --------------------------------------------------------------

    async def queue(
        self,
        credentials: Credentials,
        status: ReportStatus | None,
        page_size: int,
        page_token: str,
    ) -> tuple[list[ChatReport], str]:
        """A page of the app's reports, newest first (its key only)."""
        app = require_app(await self.access.identify(credentials))
        if page_size < 0:
            raise malformed("page_size is 0 (the default) or more")
        size = min(page_size or DEFAULT_PAGE, MAX_PAGE)
        rows = await self.repo.reports(app.id, status, parse_before(page_token), size + 1)
        more = len(rows) > size
        rows = rows[:size]
        return rows, before_token(rows[-1].id if more and rows else None)

    async def resolve(
        self,
        credentials: Credentials,
        report_id: int,
        resolution: Resolution,
        seconds: int,
        note: str,
    ) -> ChatReport:
        """The app's administrator resolves an open report (its key only)."""
        app = require_app(await self.access.identify(credentials))
        note = " ".join(note.split())
        if len(note) > MAX_NOTE:
            raise malformed(f"note is at most {MAX_NOTE} characters")
        now = self.clock()
        try:
            sanction = sanction_for(resolution, seconds, note, now)
        except ModerationRefused as exc:
            raise malformed(exc.message) from None
        report = await self.repo.report(app.id, report_id) if report_id > 0 else None
        if report is None:
            raise Refused(Refusal.NOT_FOUND, Reason.REPORT_NOT_FOUND, "no such report")
        detail: dict[str, Any] = {
            "report_id": report_id,
            "resolution": resolution.value,
            "room": report.room,
            "message_id": report.message_id,
        }
        events: list[Event] = []
        if resolution == Resolution.WARN:
            events.append(Event(report.reported_id, EventKind.CHAT_WARNING, None, {"note": note}))
        if sanction is not None:
            detail["until_ms"] = sanction.until_ms
            payload = {"kind": sanction.kind.value, "until_ms": sanction.until_ms, "note": note}
            events.append(Event(report.reported_id, EventKind.CHAT_SANCTION, None, payload))
        entry = AuditEntry(AuditAction.RESOLVE_CHAT_REPORT, "app", report.reported_id, detail, now)
        done = await self.repo.resolve(
            app.id, report_id, resolution, sanction, note, now, entry, events
        )
        if done is None:
            raise Refused(
                Refusal.PRECONDITION, Reason.REPORT_RESOLVED, "the report was resolved already"
            )
        return done


__all__ = [
    "ChatModeration",
    "ChatReport",
    "ModerationRepository",
    "NewReport",
    "ReportStatus",
    "Resolution",
    "report_room",
]
