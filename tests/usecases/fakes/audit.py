"""The fake of the audit log's port (services/audit.py): each app's entries in the
order written, ids counted from 1."""

from __future__ import annotations

import dataclasses

from tranca.services.audit import AuditEntry


class AuditMemory:
    """``AuditRepository`` in memory: each app's entries in the order written."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, AuditEntry]] = []

    def write(self, app_id: str, entry: AuditEntry) -> None:
        self.entries.append((app_id, dataclasses.replace(entry, id=len(self.entries) + 1)))

    async def record(self, app_id: str, entry: AuditEntry) -> None:
        self.write(app_id, entry)

    async def audit_entries(self, app_id: str, after: int, limit: int) -> list[AuditEntry]:
        return [e for app, e in self.entries if app == app_id and e.id > after][:limit]
