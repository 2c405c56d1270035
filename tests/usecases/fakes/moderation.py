"""The fake of chat moderation's port (services/chat_moderation.py): mutes and
sanctions kept in the chat fake (which enforces them), reports in a list, the
audit entries and events of each resolution kept in order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tranca.platform.chat_moderation import ReportStatus, Resolution, Sanction
from tranca.services.audit import AuditEntry
from tranca.services.chat_moderation import ChatReport, NewReport
from tranca.table.events import Event

from .chat import ChatMemory


class ModerationMemory:
    """``ModerationRepository`` in memory."""

    def __init__(self, chat: ChatMemory) -> None:
        self.chat = chat
        self.kept: list[ChatReport] = []
        self.audit: list[AuditEntry] = []
        self.events: list[Event] = []

    async def mute(self, app_id: str, player_id: str, muted: str, now: int) -> bool:
        key = (app_id, player_id, muted)
        fresh = key not in self.chat.mutes
        self.chat.mutes.add(key)
        return fresh

    async def unmute(self, app_id: str, player_id: str, muted: str) -> bool:
        key = (app_id, player_id, muted)
        had = key in self.chat.mutes
        self.chat.mutes.discard(key)
        return had

    async def mutes(self, app_id: str, player_id: str) -> list[str]:
        return sorted(m for a, p, m in self.chat.mutes if (a, p) == (app_id, player_id))

    async def add_report(self, report: NewReport) -> ChatReport:
        for kept in self.kept:
            if (kept.reporter_id, kept.room, kept.message_id) == (
                report.reporter_id,
                report.room,
                report.message_id,
            ):
                return kept
        made = ChatReport(
            len(self.kept) + 1,
            report.reporter_id,
            report.reported_id,
            report.room,
            report.message_id,
            report.reason,
            report.evidence,
            report.game_id,
            report.game_version,
            report.created_ms,
            ReportStatus.OPEN,
        )
        self.kept.append(made)
        return made

    async def reports(
        self, app_id: str, status: ReportStatus | None, before: int | None, limit: int
    ) -> list[ChatReport]:
        rows = [
            r
            for r in reversed(self.kept)
            if (status is None or r.status == status) and (before is None or r.id < before)
        ]
        return rows[:limit]

    async def report(self, app_id: str, report_id: int) -> ChatReport | None:
        return self.kept[report_id - 1] if 0 < report_id <= len(self.kept) else None

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
        found = await self.report(app_id, report_id)
        if found is None or found.status != ReportStatus.OPEN:
            return None
        done = replace(
            found,
            status=ReportStatus.RESOLVED,
            resolution=resolution.value,
            note=note,
            resolved_ms=now,
            until_ms=sanction.until_ms if sanction else 0,
        )
        self.kept[report_id - 1] = done
        if sanction is not None:
            self.chat.sanctions[(app_id, found.reported_id)] = sanction
        self.audit.append(entry)
        self.events += events
        return done

    async def game_version(self, game_id: str) -> int:
        stored = self.chat.games.games.get(game_id)
        return 0 if stored is None else stored.version
