"""The app's audit log: the data-rights and account actions on a player (a copy of
their data handed out, an erasure, a merge of two accounts). An action that changes
data writes its entry in its own transaction, so it is never done without its entry
nor an entry kept for an action undone; an export, which changes nothing, writes its
entry before the document is handed out. The app
reads its own entries with its key (AdminService.ListAuditEntries), oldest first,
paged by entry id.

An entry names its subject as the action left it: an erased player by their
pseudonym, never by the id erased.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from .access import Access, Credentials, require_app
from .errors import malformed

# At most this many entries a page.
MAX_PAGE = 200


class AuditAction(StrEnum):
    EXPORT_PLAYER_DATA = "export_player_data"
    ERASE_PLAYER = "erase_player"
    MERGE_PLAYERS = "merge_players"
    RESOLVE_CHAT_REPORT = "resolve_chat_report"


@dataclass(frozen=True)
class AuditEntry:
    """One audited action: what (``action``), who asked (``actor``: "app" for the
    app's key, "player" for the player's own session), about whom (``subject``),
    what it changed (``detail``, JSON) and when (``at``, epoch ms). ``id``: its place
    in the app's log, 0 until written."""

    action: AuditAction
    actor: str
    subject: str
    detail: dict[str, Any]
    at: int
    id: int = 0


class AuditRepository(Protocol):
    async def record(self, app_id: str, entry: AuditEntry) -> None:
        """``entry`` in the app's log, on its own."""
        ...

    async def audit_entries(self, app_id: str, after: int, limit: int) -> list[AuditEntry]:
        """The app's entries with an id above ``after``, oldest first, at most
        ``limit``."""
        ...


class AuditLog:
    """Reading the app's audit log (its key only)."""

    def __init__(self, access: Access, entries: AuditRepository) -> None:
        self.access = access
        self.entries = entries

    async def list(self, credentials: Credentials, after: int, limit: int) -> list[AuditEntry]:
        app = require_app(await self.access.identify(credentials))
        if after < 0:
            raise malformed("after_id is an entry id, 0 or more")
        if limit < 0:
            raise malformed("limit is 0 (the most a page holds) or more")
        size = MAX_PAGE if limit == 0 else min(limit, MAX_PAGE)
        return await self.entries.audit_entries(app.id, after, size)


__all__ = ["MAX_PAGE", "AuditAction", "AuditEntry", "AuditLog", "AuditRepository"]
