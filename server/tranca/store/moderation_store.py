"""Chat's moderation in the database, for ``services/chat_moderation.py``
(``ModerationStore`` is its ``ModerationRepository``): players' mutes, the reports
queue with its evidence, and the sanctions, a resolution written with its audit
entry and its events in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.chat_moderation import ReportStatus, Resolution, Sanction
from ..services.audit import AuditEntry
from ..services.chat import ChatMessage
from ..services.chat_moderation import ChatReport, NewReport
from ..services.errors import NotFound
from ..table.events import Event
from .audit_store import write_audit_entry
from .codec import dumps, loads
from .database import insert_ignoring_duplicates
from .models import ChatMute, ChatReportRecord, ChatSanction
from .notifications_store import write_events
from .repository import Store

__all__ = ["ModerationStore", "erase_moderation"]

_R = ChatReportRecord
_EVIDENCE_FIELDS = ("id", "author_id", "author_name", "seat", "kind", "text", "phrase")


def _evidence(messages: Sequence[ChatMessage]) -> str:
    return dumps(
        [
            {**{f: getattr(m, f) for f in _EVIDENCE_FIELDS}, "created_ms": m.created_ms}
            for m in messages
        ]
    )


def _message(d: dict[str, Any], room: str) -> ChatMessage:
    return ChatMessage(
        int(d["id"]),
        room,
        d["author_id"],
        d["author_name"],
        int(d["seat"]),
        d["kind"],
        d["text"],
        d["phrase"],
        int(d["created_ms"]),
    )


def _report(r: Any) -> ChatReport:
    return ChatReport(
        id=int(r.id),
        reporter_id=r.reporter_id,
        reported_id=r.reported_id,
        room=r.room,
        message_id=int(r.message_seq),
        reason=r.reason,
        evidence=tuple(_message(d, r.room) for d in loads(r.evidence)),
        game_id=r.game_id,
        game_version=int(r.game_version),
        created_ms=int(r.created_ms),
        status=ReportStatus(r.status),
        resolution=r.resolution,
        note=r.note,
        resolved_ms=int(r.resolved_ms),
        until_ms=int(r.until_ms),
    )


class ModerationStore:
    """Chat's moderation in one database (``ModerationRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def mute(self, app_id: str, player_id: str, muted: str, now: int) -> bool:
        async with self.store.writing() as conn:
            done = await conn.execute(
                insert_ignoring_duplicates(conn, ChatMute).values(
                    app_id=app_id, player_id=player_id, muted_id=muted, created_ms=now
                )
            )
        return bool(done.rowcount)

    async def unmute(self, app_id: str, player_id: str, muted: str) -> bool:
        async with self.store.writing() as conn:
            done = await conn.execute(
                delete(ChatMute).where(
                    ChatMute.app_id == app_id,
                    ChatMute.player_id == player_id,
                    ChatMute.muted_id == muted,
                )
            )
        return bool(done.rowcount)

    async def mutes(self, app_id: str, player_id: str) -> list[str]:
        q = (
            select(ChatMute.muted_id)
            .where(ChatMute.app_id == app_id, ChatMute.player_id == player_id)
            .order_by(ChatMute.muted_id)
        )
        async with self.store.reading() as conn:
            return list((await conn.execute(q)).scalars())

    async def add_report(self, report: NewReport) -> ChatReport:
        async with self.store.writing() as conn:
            await conn.execute(
                insert_ignoring_duplicates(conn, _R).values(
                    app_id=report.app_id,
                    reporter_id=report.reporter_id,
                    reported_id=report.reported_id,
                    room=report.room,
                    message_seq=report.message_id,
                    reason=report.reason,
                    evidence=_evidence(report.evidence),
                    game_id=report.game_id,
                    game_version=report.game_version,
                    status=ReportStatus.OPEN.value,
                    resolution="",
                    note="",
                    until_ms=0,
                    created_ms=report.created_ms,
                    resolved_ms=0,
                )
            )
            row = (
                await conn.execute(
                    select(_R).where(
                        _R.app_id == report.app_id,
                        _R.reporter_id == report.reporter_id,
                        _R.room == report.room,
                        _R.message_seq == report.message_id,
                    )
                )
            ).one()
        return _report(row)

    async def reports(
        self, app_id: str, status: ReportStatus | None, before: int | None, limit: int
    ) -> list[ChatReport]:
        q = select(_R).where(_R.app_id == app_id)
        if status is not None:
            q = q.where(_R.status == status.value)
        if before is not None:
            q = q.where(_R.id < before)
        q = q.order_by(_R.id.desc()).limit(limit)
        async with self.store.reading() as conn:
            return [_report(r) for r in (await conn.execute(q)).all()]

    async def report(self, app_id: str, report_id: int) -> ChatReport | None:
        q = select(_R).where(_R.app_id == app_id, _R.id == report_id)
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else _report(row)

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
        async with self.store.writing() as conn:
            # The one open report turns resolved: of two resolutions at once, on any
            # replicas, the second finds it resolved and changes nothing.
            done = await conn.execute(
                update(_R)
                .where(
                    _R.app_id == app_id,
                    _R.id == report_id,
                    _R.status == ReportStatus.OPEN.value,
                )
                .values(
                    status=ReportStatus.RESOLVED.value,
                    resolution=resolution.value,
                    note=note,
                    until_ms=sanction.until_ms if sanction else 0,
                    resolved_ms=now,
                )
            )
            if not done.rowcount:
                return None
            row = (await conn.execute(select(_R).where(_R.id == report_id))).one()
            if sanction is not None:
                await conn.execute(
                    delete(ChatSanction).where(
                        ChatSanction.app_id == app_id, ChatSanction.player_id == row.reported_id
                    )
                )
                await conn.execute(
                    insert(ChatSanction).values(
                        app_id=app_id,
                        player_id=row.reported_id,
                        kind=sanction.kind.value,
                        until_ms=sanction.until_ms,
                        reason=sanction.reason,
                        created_ms=now,
                    )
                )
            await write_audit_entry(conn, app_id, entry)
            if events:
                await write_events(conn, app_id, events, now)
        return _report(row)

    async def game_version(self, game_id: str) -> int:
        try:
            return (await self.store.game(game_id)).version
        except NotFound:
            return 0


async def erase_moderation(conn: AsyncConnection, app_id: str, player_id: str) -> int:
    """The player's mutes (both ways), sanction and reports (made or about them)
    deleted, and their messages taken out of the evidence of the others, in the
    caller's transaction; how many rows changed."""
    changed = 0
    for q in (
        delete(ChatMute).where(
            ChatMute.app_id == app_id,
            (ChatMute.player_id == player_id) | (ChatMute.muted_id == player_id),
        ),
        delete(ChatSanction).where(
            ChatSanction.app_id == app_id, ChatSanction.player_id == player_id
        ),
        delete(_R).where(
            _R.app_id == app_id, (_R.reporter_id == player_id) | (_R.reported_id == player_id)
        ),
    ):
        changed += int((await conn.execute(q)).rowcount or 0)
    mentioned = (
        await conn.execute(
            select(_R.id, _R.evidence).where(
                _R.app_id == app_id, _R.evidence.contains(player_id, autoescape=True)
            )
        )
    ).all()
    for report_id, evidence in mentioned:
        kept = [m for m in loads(evidence) if m.get("author_id") != player_id]
        await conn.execute(update(_R).where(_R.id == report_id).values(evidence=dumps(kept)))
        changed += 1
    return changed
