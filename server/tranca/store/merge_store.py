"""A merge of two accounts in the database, for ``services/account_merge.py``
(``MergeStore`` is its ``MergeRepository``): what moves where is decided there; this
module finds the merged player's rows and folds them into the kept player's, all in
one transaction with the audit entry and the ledger's transfer, so that a merge is
whole or not done. The games, tournaments, tickets and events are rewritten as
``player_rows.py`` does for an erasure, with the id alone (the names stay)."""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.tournament_events import ever_entered
from ..services.account_merge import AccountsSharedATable, RatingRecord, merged_rating
from ..services.audit import AuditEntry
from ..services.player_rewrite import PlayerRewrite, PlayerStillPlaying, Rewritten
from ..table.game import BY_APP
from . import ledger
from .audit_store import write_audit_entry
from .codec import loads
from .friends_store import move_relations
from .invitations_store import move_invitations, rewrite_owner
from .models import (
    AvatarImage,
    Game,
    PlayerAbandonment,
    PlayerIdentity,
    PlayerProfile,
    PlayerRating,
    PlayerSession,
    PlayerTicket,
    PlayerToken,
    RankingAward,
    TicketPlayer,
    TournamentRecord,
)
from .player_rows import (
    games_with_tokens,
    rewrite_events,
    rewrite_games,
    rewrite_tickets,
    rewrite_tournaments,
    still_playing,
)
from .presence_store import fold_presence
from .progression_store import fold_progression
from .repository import Store

__all__ = ["MergeStore"]

# As an erasure's: many rows in one transaction.
MERGE_SECONDS = 120.0


class MergeStore:
    """The merges of one database (``services.account_merge.MergeRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def merge_players(
        self, app_id: str, rewrite: PlayerRewrite, entry: AuditEntry
    ) -> Rewritten:
        merged, kept = rewrite.player_id, rewrite.replacement
        rows: dict[str, int] = {}
        async with self.store.writing(MERGE_SECONDS) as conn:
            games = await games_with_tokens(conn, app_id, merged)
            for player, theirs in (
                (merged, games),
                (kept, await games_with_tokens(conn, app_id, kept)),
            ):
                still = await still_playing(conn, app_id, player, theirs)
                if still:
                    raise PlayerStillPlaying(still)
            await _refuse_shared(conn, app_id, merged, kept)
            rows["player_identities"] = (
                await conn.execute(
                    update(PlayerIdentity)
                    .where(PlayerIdentity.app_id == app_id, PlayerIdentity.player_id == merged)
                    .values(player_id=kept)
                )
            ).rowcount
            rows["player_sessions"] = (
                await conn.execute(
                    delete(PlayerSession).where(
                        PlayerSession.app_id == app_id, PlayerSession.player_id == merged
                    )
                )
            ).rowcount
            rows["player_profiles"] = await _fold_profile(conn, app_id, merged, kept)
            rows["player_ratings"] = await _fold_rating(conn, app_id, merged, kept)
            rows["player_relations"] = await move_relations(conn, app_id, merged, kept)
            rows["table_invitations"] = await move_invitations(conn, app_id, merged, kept)
            rows["table_owners"] = await rewrite_owner(conn, app_id, merged, kept)
            rows["player_presence"] = await fold_presence(conn, app_id, merged, kept)
            await fold_progression(conn, app_id, merged, kept, rows)
            await _rename_keyed_rows(conn, app_id, merged, kept, rows)
            await rewrite_games(conn, self.store, rewrite, games, BY_APP, rows)
            moved = await ledger.merge(conn, app_id, merged, kept, f"merge:{merged}:{entry.at}")
            rows["chip_entries"] = len(moved)
            await rewrite_tournaments(conn, app_id, rewrite, rows)
            await rewrite_tickets(conn, app_id, rewrite, rows)
            await rewrite_events(conn, app_id, rewrite, rows)
            changed = {table: n for table, n in sorted(rows.items()) if n}
            detail = {**entry.detail, "rows": changed}
            await write_audit_entry(conn, app_id, dataclasses.replace(entry, detail=detail))
        self.store.forget_states(games)
        return Rewritten(changed, tuple(games))


async def _refuse_shared(conn: AsyncConnection, app_id: str, merged: str, kept: str) -> None:
    """``AccountsSharedATable`` where both held seats of one game or were entered in
    one tournament."""
    seats = (
        select(PlayerToken.game_id, PlayerToken.player_id)
        .join(Game, Game.id == PlayerToken.game_id)
        .where(
            Game.app_id == app_id,
            PlayerToken.player_id.in_([merged, kept]),
            PlayerToken.seat >= 0,
        )
        .distinct()
    )
    holders: dict[str, set[str]] = {}
    for r in await conn.execute(seats):
        holders.setdefault(r.game_id, set()).add(r.player_id)
    games = tuple(sorted(g for g, players in holders.items() if len(players) == 2))
    q = select(TournamentRecord.id, TournamentRecord.config, TournamentRecord.events).where(
        TournamentRecord.app_id == app_id,
        TournamentRecord.config.contains(merged, autoescape=True)
        | TournamentRecord.events.contains(merged, autoescape=True),
    )
    tournaments = tuple(
        sorted(
            r.id
            for r in await conn.execute(q)
            if ever_entered(loads(r.config), loads(r.events), merged)
            and ever_entered(loads(r.config), loads(r.events), kept)
        )
    )
    if games or tournaments:
        raise AccountsSharedATable(games, tournaments)


async def _fold_profile(conn: AsyncConnection, app_id: str, merged: str, kept: str) -> int:
    """The kept player's profile stays (the merged player's uploaded avatar goes
    with theirs); where they have none, the merged player's becomes theirs, avatar
    and all. The rows changed."""
    has_kept = (
        await conn.execute(
            select(PlayerProfile.player_id).where(
                PlayerProfile.app_id == app_id, PlayerProfile.player_id == kept
            )
        )
    ).first() is not None
    mine = PlayerProfile.app_id == app_id, PlayerProfile.player_id == merged
    picture = AvatarImage.app_id == app_id, AvatarImage.player_id == merged
    if has_kept:
        await conn.execute(delete(AvatarImage).where(*picture))
        return (await conn.execute(delete(PlayerProfile).where(*mine))).rowcount
    # The kept player had no profile (so no uploaded avatar): the merged one's, whole.
    await conn.execute(update(AvatarImage).where(*picture).values(player_id=kept))
    return (await conn.execute(update(PlayerProfile).where(*mine).values(player_id=kept))).rowcount


async def _fold_rating(conn: AsyncConnection, app_id: str, merged: str, kept: str) -> int:
    """One rating of one player, as ``account_merge.merged_rating`` decides. The rows
    changed."""
    q = select(PlayerRating).where(
        PlayerRating.app_id == app_id, PlayerRating.player_id.in_([merged, kept])
    )
    ratings = {r.player_id: r for r in (await conn.execute(q)).all()}
    if merged not in ratings:
        return 0
    theirs = PlayerRating.app_id == app_id, PlayerRating.player_id == merged
    if kept not in ratings:
        return (
            await conn.execute(update(PlayerRating).where(*theirs).values(player_id=kept))
        ).rowcount
    one = merged_rating(_record(ratings[merged]), _record(ratings[kept]))
    await conn.execute(
        update(PlayerRating)
        .where(PlayerRating.app_id == app_id, PlayerRating.player_id == kept)
        .values(mu=one.mu, sigma=one.sigma, games=one.games, wins=one.wins)
    )
    await conn.execute(delete(PlayerRating).where(*theirs))
    return 2


def _record(row: Any) -> RatingRecord:
    return RatingRecord(float(row.mu), float(row.sigma), int(row.games), int(row.wins))


async def _rename_keyed_rows(
    conn: AsyncConnection, app_id: str, merged: str, kept: str, rows: dict[str, int]
) -> None:
    """Ranking points and the ticket rows under the kept player's id (a ticket both
    were in keeps the kept player's row)."""
    both = select(PlayerTicket.ticket_id).where(
        PlayerTicket.app_id == app_id, PlayerTicket.player_id == kept
    )
    await conn.execute(
        delete(PlayerTicket).where(
            PlayerTicket.app_id == app_id,
            PlayerTicket.player_id == merged,
            PlayerTicket.ticket_id.in_(both),
        )
    )
    # Abandonments too: the two never shared a table (refused above), so no row of
    # one match is the other's.
    for model in (RankingAward, TicketPlayer, PlayerTicket, PlayerAbandonment):
        result = await conn.execute(
            update(model)
            .where(model.app_id == app_id, model.player_id == merged)
            .values(player_id=kept)
        )
        rows[model.__tablename__] = result.rowcount
