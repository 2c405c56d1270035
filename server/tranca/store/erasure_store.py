"""A player's erasure in the database, for ``services/player_erasure.py``
(``ErasureStore`` is its ``ErasureRepository``): what is deleted, what is
pseudonymised and how is decided there (``PlayerRewrite``); this module finds the
player's rows and rewrites them, all in one transaction with the audit entry, so
that an erasure is whole or not done.

The player's own rows (sessions, identities, profile, rating, ranking points, chip
account) are found by their keys here; their games, tournaments, tickets, chip
operations and events as ``player_rows.py`` finds them.
"""

from __future__ import annotations

import dataclasses

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.chips import player_account
from ..services.audit import AuditEntry
from ..services.player_erasure import PlayerStillPlaying
from ..services.player_rewrite import PlayerRewrite
from ..table.game import BY_APP, BY_PLAYER
from .audit_store import write_audit_entry
from .codec import dumps, loads
from .ledger import account_name
from .models import (
    AuditRecord,
    AvatarImage,
    ChipAccount,
    ChipEntry,
    PlayerIdentity,
    PlayerProfile,
    PlayerRating,
    PlayerSession,
    PlayerTicket,
    RankingAward,
    TicketPlayer,
)
from .player_rows import (
    rename_grants,
    rewrite_chip_operations,
    rewrite_events,
    rewrite_games,
    rewrite_tickets,
    rewrite_tournaments,
    seated_games,
    still_playing,
)
from .repository import Store

__all__ = ["ErasureStore"]

# A large player's erasure rewrites many rows: a longer bound than a move's.
ERASURE_SECONDS = 120.0


class ErasureStore:
    """The erasures of one database (``services.player_erasure.ErasureRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def erase_player(
        self, app_id: str, rewrite: PlayerRewrite, entry: AuditEntry
    ) -> dict[str, int]:
        rows: dict[str, int] = {}
        async with self.store.writing(ERASURE_SECONDS) as conn:
            games = await seated_games(conn, app_id, rewrite.player_id)
            still = await still_playing(conn, app_id, rewrite.player_id, games)
            if still:
                raise PlayerStillPlaying(still)
            await _delete_own_rows(conn, app_id, rewrite.player_id, rows)
            by = BY_APP if entry.actor == "app" else BY_PLAYER
            await rewrite_games(conn, self.store, rewrite, games, by, rows)
            await _rename_keyed_rows(conn, app_id, rewrite, rows)
            await _rewrite_chips(conn, app_id, rewrite, rows)
            await rewrite_tournaments(conn, app_id, rewrite, rows)
            await rewrite_tickets(conn, app_id, rewrite, rows)
            await rewrite_events(conn, app_id, rewrite, rows)
            await _rewrite_audit(conn, app_id, rewrite, rows)
            changed = {table: n for table, n in sorted(rows.items()) if n}
            await write_audit_entry(
                conn, app_id, dataclasses.replace(entry, detail={"rows": changed})
            )
        self.store.forget_states(games)
        return changed


async def _rewrite_audit(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """The app's earlier audit entries about the player (a copy of their data handed
    out, a merge that named them) name the pseudonym: the log stays whole, the id
    gone."""
    q = select(AuditRecord.id, AuditRecord.subject, AuditRecord.detail).where(
        AuditRecord.app_id == app_id,
        (AuditRecord.subject == rewrite.player_id)
        | AuditRecord.detail.contains(rewrite.player_id, autoescape=True),
    )
    changed = 0
    for r in (await conn.execute(q)).all():
        subject, detail = rewrite.value(r.subject), rewrite.value(loads(r.detail))
        await conn.execute(
            update(AuditRecord)
            .where(AuditRecord.id == r.id)
            .values(subject=subject, detail=dumps(detail))
        )
        changed += 1
    rows["audit_entries"] = changed


async def _delete_own_rows(
    conn: AsyncConnection, app_id: str, player_id: str, rows: dict[str, int]
) -> None:
    for model in (PlayerIdentity, PlayerProfile, AvatarImage, PlayerSession):
        result = await conn.execute(
            delete(model).where(model.app_id == app_id, model.player_id == player_id)
        )
        rows[model.__tablename__] = result.rowcount


async def _rename_keyed_rows(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """The rows keyed by the player's id alone: the id becomes the pseudonym."""
    for model in (PlayerRating, RankingAward, TicketPlayer, PlayerTicket):
        result = await conn.execute(
            update(model)
            .where(model.app_id == app_id, model.player_id == rewrite.player_id)
            .values(player_id=rewrite.replacement)
        )
        rows[model.__tablename__] = result.rowcount


async def _rewrite_chips(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """The player's chip account and its entries under the pseudonym's account: the
    same balance and the same amounts, so every sum of the ledger is unchanged."""
    old = account_name(player_account(rewrite.player_id))
    new = account_name(player_account(rewrite.replacement))
    grants = await rename_grants(conn, app_id, rewrite, old)
    for model in (ChipAccount, ChipEntry):
        result = await conn.execute(
            update(model).where(model.app_id == app_id, model.account == old).values(account=new)
        )
        rows[model.__tablename__] = result.rowcount
    rows["chip_operations"] = grants + await rewrite_chip_operations(conn, app_id, rewrite)
