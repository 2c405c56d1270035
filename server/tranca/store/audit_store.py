"""The apps' audit logs in the database, for ``services/audit.py``
(``AuditStore`` is its ``AuditRepository``): an entry is written by the action it
records, inside that action's transaction (``write_audit_entry``), and read here by
app in id order."""

from __future__ import annotations

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..services.audit import AuditAction, AuditEntry
from .codec import dumps, loads
from .models import AuditRecord
from .repository import Store

__all__ = ["AuditStore", "write_audit_entry"]


async def write_audit_entry(conn: AsyncConnection, app_id: str, entry: AuditEntry) -> None:
    """``entry`` in the app's audit log, inside the caller's transaction."""
    await conn.execute(
        insert(AuditRecord).values(
            app_id=app_id,
            action=entry.action.value,
            actor=entry.actor,
            subject=entry.subject,
            detail=dumps(entry.detail),
            created_ms=entry.at,
        )
    )


class AuditStore:
    """The audit logs of one database (``services.audit.AuditRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def record(self, app_id: str, entry: AuditEntry) -> None:
        async with self.store.writing() as conn:
            await write_audit_entry(conn, app_id, entry)

    async def audit_entries(self, app_id: str, after: int, limit: int) -> list[AuditEntry]:
        q = (
            select(AuditRecord)
            .where(AuditRecord.app_id == app_id, AuditRecord.id > after)
            .order_by(AuditRecord.id)
            .limit(limit)
        )
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return [
            AuditEntry(
                AuditAction(r.action), r.actor, r.subject, loads(r.detail), int(r.created_ms), r.id
            )
            for r in rows
        ]
