"""An app's players in the database, for the use cases of ``services/players.py``
(``PlayersStore`` is its ``PlayersRepository``): ratings, ranking points, chip
balances and entries read, and chips granted (``ledger.grant``). Plain values in
and the services' small frozen records out; which player reads as a newcomer, how
leaderboards rank and which period they cover are decided in the services.

A player is (app, player_id); nothing here creates a player row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select

from ..platform import chips, ratings
from ..services.players import (
    ChipEntryPage,
    ChipEntryRow,
    PlayerTotals,
    PointsTotal,
    RatedRow,
)
from . import ledger
from .models import ChipEntry, PlayerRating, RankingAward
from .move_path import epoch_seconds
from .repository import Store

__all__ = ["PlayersStore"]


class PlayersStore:
    """The players of one database (``services.players.PlayersRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def player_totals(self, app_id: str, player_id: str) -> PlayerTotals:
        async with self.store.reading() as conn:
            rated = (
                await conn.execute(
                    select(PlayerRating).where(
                        PlayerRating.app_id == app_id, PlayerRating.player_id == player_id
                    )
                )
            ).first()
            points = (
                await conn.execute(
                    select(func.coalesce(func.sum(RankingAward.points), 0)).where(
                        RankingAward.app_id == app_id, RankingAward.player_id == player_id
                    )
                )
            ).scalar_one()
            balance = await ledger.balance(conn, app_id, chips.player_account(player_id))
        if rated is None:
            return PlayerTotals(None, 0, int(points), balance)
        rating = ratings.Rating(float(rated.mu), float(rated.sigma), int(rated.games))
        return PlayerTotals(rating, int(rated.wins), int(points), balance)

    async def points_totals(
        self, app_id: str, between: tuple[datetime, datetime] | None, limit: int
    ) -> list[PointsTotal]:
        """Ranking points awarded within ``between`` (None: of all time), most first,
        ties by player id."""
        points = func.sum(RankingAward.points)
        q = select(
            points.label("points"),
            RankingAward.player_id,
            func.sum(case((RankingAward.won, 1), else_=0)).label("wins"),
            func.count().label("games"),
        ).where(RankingAward.app_id == app_id)
        if between is not None:
            start, end = between
            q = q.where(RankingAward.awarded_at >= start, RankingAward.awarded_at < end)
        q = q.group_by(RankingAward.player_id).order_by(points.desc(), RankingAward.player_id)
        async with self.store.reading() as conn:
            rows: list[tuple[Any, ...]] = [
                tuple(r) for r in (await conn.execute(q.limit(limit))).all()
            ]
        return [
            PointsTotal(int(total), str(player), int(wins), int(games))
            for total, player, wins, games in rows
        ]

    async def rated_players(self, app_id: str, limit: int) -> list[RatedRow]:
        """Rated players by the rating's ordinal (mu - 3 sigma), highest first."""
        ordinal = PlayerRating.mu - ratings.ORDINAL_Z * PlayerRating.sigma
        q = (
            select(
                ordinal.label("ordinal"),
                PlayerRating.player_id,
                PlayerRating.mu,
                PlayerRating.sigma,
                PlayerRating.games,
                PlayerRating.wins,
            )
            .where(PlayerRating.app_id == app_id, PlayerRating.games > 0)
            .order_by(ordinal.desc(), PlayerRating.player_id)
            .limit(limit)
        )
        async with self.store.reading() as conn:
            rows: list[tuple[Any, ...]] = [tuple(r) for r in (await conn.execute(q)).all()]
        return [
            RatedRow(
                float(value),
                str(player),
                ratings.Rating(float(mu), float(sigma), int(games)),
                int(wins),
            )
            for value, player, mu, sigma, games, wins in rows
        ]

    async def grant_chips(
        self, app_id: str, grant_id: str, player_id: str, amount: int
    ) -> tuple[int, bool]:
        """Grant ``amount`` chips once per ``grant_id`` (``ledger.grant``): the player's
        balance, and whether this call posted the grant (False for a retry). Raises
        ``chips.Conflict`` for a grant id used for another grant and
        ``chips.InvalidRequest`` for a grant the ledger refuses."""
        async with self.store.writing() as conn:
            balance, posted = await ledger.grant(conn, app_id, grant_id, player_id, amount)
        return balance, bool(posted)

    async def chip_entries(
        self, app_id: str, player_id: str, size: int, before: int | None
    ) -> ChipEntryPage:
        """Up to ``size`` entries of the player's account, newest first, with ids below
        ``before`` if given (entries are append-only, so a page never shifts as new
        ones arrive)."""
        q = select(ChipEntry).where(
            ChipEntry.app_id == app_id,
            ChipEntry.account == ledger.account_name(chips.player_account(player_id)),
        )
        if before is not None:
            q = q.where(ChipEntry.id < before)
        q = q.order_by(ChipEntry.id.desc()).limit(size + 1)  # one more: is there a next page?
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        entries = tuple(
            ChipEntryRow(
                int(e.id),
                int(e.amount),
                e.purpose,
                e.reference,
                int(epoch_seconds(e.created_at)),
                int(e.balance_after),
            )
            for e in rows[:size]
        )
        return ChipEntryPage(entries, int(rows[size - 1].id) if len(rows) > size else None)
