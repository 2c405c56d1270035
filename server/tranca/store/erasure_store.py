"""A player's erasure in the database, for ``services/player_erasure.py``
(``ErasureStore`` is its ``ErasureRepository``): what is deleted, what is
pseudonymised and how is decided there (``PlayerRewrite``); this module finds the
player's rows and rewrites them, all in one transaction with the audit entry, so
that an erasure is whole or not done.

The player's own rows (sessions, identities, profile, friends and blocks, chat
messages, rating, ranking points, chip account) are found by their keys here; their
games, tournaments, tickets, chip operations and events as ``player_rows.py`` finds
them.
"""

from __future__ import annotations

import dataclasses

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.chips import player_account
from ..services.audit import AuditAction, AuditEntry
from ..services.player_rewrite import PlayerRewrite, PlayerStillPlaying, Rewritten
from ..table.game import BY_APP, BY_PLAYER
from .audit_store import write_audit_entry
from .chat_store import erase_author
from .codec import dumps, loads
from .friends_store import delete_relations
from .invitations_store import delete_invitations, rewrite_owner
from .ledger import account_name
from .models import (
    AuditRecord,
    AvatarImage,
    ChipAccount,
    ChipEntry,
    PlayerAbandonment,
    PlayerIdentity,
    PlayerProfile,
    PlayerRating,
    PlayerSession,
    PlayerTicket,
    RankingAward,
    TicketPlayer,
)
from .moderation_store import erase_moderation
from .player_rows import (
    games_with_tokens,
    rename_keys,
    rewrite_chip_operations,
    rewrite_events,
    rewrite_games,
    rewrite_tickets,
    rewrite_tournaments,
    still_playing,
)
from .presence_store import delete_presence
from .progression_store import rename_progression
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
    ) -> Rewritten:
        rows: dict[str, int] = {}
        touched: list[str] = []
        by = BY_APP if entry.actor == "app" else BY_PLAYER
        async with self.store.writing(ERASURE_SECONDS) as conn:
            # The player, and each account merged into theirs (MergePlayers: the same
            # person's other ids, still named by their chip history and the merge's
            # records), each under a pseudonym of its own: "<pseudonym>.1", ...
            aliases = await _merged_into(conn, app_id, rewrite.player_id)
            for n, who in enumerate([rewrite.player_id, *aliases]):
                one = rewrite if n == 0 else PlayerRewrite(who, f"{rewrite.replacement}.{n}")
                games = await games_with_tokens(conn, app_id, who)
                still = await still_playing(conn, app_id, who, games)
                if still:
                    raise PlayerStillPlaying(still)
                part: dict[str, int] = {}
                await _erase_rows(conn, self.store, app_id, one, games, by, part)
                for table, count in part.items():
                    rows[table] = rows.get(table, 0) + count
                touched += games
            changed = {table: n for table, n in sorted(rows.items()) if n}
            await write_audit_entry(
                conn, app_id, dataclasses.replace(entry, detail={"rows": changed})
            )
        self.store.forget_states(touched)
        return Rewritten(changed, tuple(sorted(set(touched))))


async def _erase_rows(
    conn: AsyncConnection,
    store: Store,
    app_id: str,
    rewrite: PlayerRewrite,
    games: list[str],
    by: str,
    rows: dict[str, int],
) -> None:
    """One id's rows: deleted or pseudonymised (the module docstring)."""
    await _delete_own_rows(conn, app_id, rewrite.player_id, rows)
    await rewrite_games(conn, store, rewrite, games, by, rows)
    await _rename_keyed_rows(conn, app_id, rewrite, rows)
    rows["table_owners"] = await rewrite_owner(conn, app_id, rewrite.player_id, rewrite.replacement)
    await _rewrite_chips(conn, app_id, rewrite, rows)
    await rewrite_tournaments(conn, app_id, rewrite, rows)
    await rewrite_tickets(conn, app_id, rewrite, rows)
    await rewrite_events(conn, app_id, rewrite, rows)
    await _rewrite_audit(conn, app_id, rewrite, rows)


async def _merged_into(conn: AsyncConnection, app_id: str, player_id: str) -> list[str]:
    """The ids merged into the player's account, and into those, by the app's audit
    log of merges (each names the account kept and the one merged)."""
    found: list[str] = []
    waiting = [player_id]
    while waiting:
        kept = waiting.pop()
        q = select(AuditRecord.detail).where(
            AuditRecord.app_id == app_id,
            AuditRecord.action == AuditAction.MERGE_PLAYERS.value,
            AuditRecord.subject == kept,
        )
        for r in await conn.execute(q):
            merged = loads(r.detail).get("merged")
            if isinstance(merged, str) and merged != player_id and merged not in found:
                found.append(merged)
                waiting.append(merged)
    return found


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
        before = loads(r.detail)
        subject, detail = rewrite.value(r.subject), rewrite.value(before)
        if subject == r.subject and detail == before:
            continue
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
    # Friends and blocks, both sides: the other players lose the erased player from
    # their lists (their events that named them are pseudonymised with the rest).
    rows["player_relations"] = await delete_relations(conn, app_id, player_id)
    # Their presence: when they were last seen and their choices.
    rows["player_presence"] = await delete_presence(conn, app_id, player_id)
    # Their chat messages, and the direct conversations they were in.
    rows["chat_messages"] = await erase_author(conn, app_id, player_id)
    rows["chat_moderation"] = await erase_moderation(conn, app_id, player_id)
    # Invitations to tables, sent and received: the other player loses them too.
    rows["table_invitations"] = await delete_invitations(conn, app_id, player_id)


async def _rename_keyed_rows(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """The rows keyed by the player's id alone: the id becomes the pseudonym."""
    for model in (PlayerRating, RankingAward, TicketPlayer, PlayerTicket, PlayerAbandonment):
        result = await conn.execute(
            update(model)
            .where(model.app_id == app_id, model.player_id == rewrite.player_id)
            .values(player_id=rewrite.replacement)
        )
        rows[model.__tablename__] = result.rowcount
    # XP, levels and achievements: kept under the pseudonym, as the rating is.
    await rename_progression(conn, app_id, rewrite.player_id, rewrite.replacement, rows)


async def _rewrite_chips(
    conn: AsyncConnection, app_id: str, rewrite: PlayerRewrite, rows: dict[str, int]
) -> None:
    """The player's chip account and its entries under the pseudonym's account: the
    same balance and the same amounts, so every sum of the ledger is unchanged."""
    old = account_name(player_account(rewrite.player_id))
    new = account_name(player_account(rewrite.replacement))
    for model in (ChipAccount, ChipEntry):
        result = await conn.execute(
            update(model).where(model.app_id == app_id, model.account == old).values(account=new)
        )
        rows[model.__tablename__] = result.rowcount
    rows["chip_keys"] = await rename_keys(conn, app_id, rewrite)
    rows["chip_operations"] = await rewrite_chip_operations(conn, app_id, rewrite)
