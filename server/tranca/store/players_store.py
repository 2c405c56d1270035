"""An app's players as PlayerService reads and changes them: ratings, ranking points,
leaderboards and chips.

A player is (app, player_id). A player the app has never named reads as a newcomer
(the initial rating, no chips, no points); nothing here creates a player row.
Plain values in and small frozen records out: the API layer (``api/players.py``)
does the protobuf.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import case, func, select

from ..platform import chips, ranking, ratings
from . import ledger
from .direct import epoch_seconds
from .models import ChipEntry, PlayerRating, RankingAward
from .repository import Store


@dataclass(frozen=True)
class PlayerSummary:
    """A player's rating (the initial one if never rated), competitive matches won,
    ranking points of all time and chip balance."""

    rating: ratings.Rating
    wins: int
    ranking_points: int
    chips: int


@dataclass(frozen=True)
class LeaderboardRow:
    """A leaderboard's entry. ``rating`` is set on the rating leaderboard only, where
    ``points`` is the rating's ordinal rounded down."""

    rank: int
    player_id: str
    points: int
    wins: int
    games: int
    rating: ratings.Rating | None = None


@dataclass(frozen=True)
class ChipEntryRow:
    """One entry of a player's chip account; ``at`` in seconds since the epoch."""

    id: int
    amount: int
    purpose: str
    reference: str
    at: int
    balance: int


@dataclass(frozen=True)
class ChipEntryPage:
    """A page of entries, newest first; ``next_before`` is the id to read the next
    page before (None on the last page)."""

    entries: tuple[ChipEntryRow, ...]
    next_before: int | None


async def player_summary(store: Store, app_id: str, player_id: str) -> PlayerSummary:
    async with store.reading() as conn:
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
        rating = ratings.Rating()
        wins = 0
    else:
        rating = ratings.Rating(float(rated.mu), float(rated.sigma), int(rated.games))
        wins = int(rated.wins)
    return PlayerSummary(rating, wins, int(points), balance)


async def points_leaderboard(
    store: Store, app_id: str, period: ranking.Period, limit: int
) -> list[LeaderboardRow]:
    """Ranking points over the UTC day, week (from Monday) or month that holds now,
    or of all time; ties by player id, as ``ranking.leaderboard``."""
    points = func.sum(RankingAward.points)
    q = select(
        points.label("points"),
        RankingAward.player_id,
        func.sum(case((RankingAward.won, 1), else_=0)).label("wins"),
        func.count().label("games"),
    ).where(RankingAward.app_id == app_id)
    if period != ranking.Period.ALL_TIME:
        start, end = ranking.period_bounds(period, datetime.now(UTC))
        q = q.where(RankingAward.awarded_at >= start, RankingAward.awarded_at < end)
    q = q.group_by(RankingAward.player_id).order_by(points.desc(), RankingAward.player_id)
    async with store.reading() as conn:
        rows: list[tuple[Any, ...]] = [tuple(r) for r in (await conn.execute(q.limit(limit))).all()]
    ranks = ranking.shared_ranks([total for total, *_ in rows])
    return [
        LeaderboardRow(rank, player, int(total), int(wins), int(games))
        for rank, (total, player, wins, games) in zip(ranks, rows, strict=True)
    ]


async def rating_leaderboard(store: Store, app_id: str, limit: int) -> list[LeaderboardRow]:
    """Rated players by the rating's ordinal (mu - 3 sigma), as ``ratings.leaderboard``."""
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
    async with store.reading() as conn:
        rows: list[tuple[Any, ...]] = [tuple(r) for r in (await conn.execute(q)).all()]
    ranks = ranking.shared_ranks([ordinal for ordinal, *_ in rows])
    out = []
    for rank, (_, player, mu, sigma, games, wins) in zip(ranks, rows, strict=True):
        rating = ratings.Rating(float(mu), float(sigma), int(games))
        out.append(
            LeaderboardRow(rank, player, math.floor(rating.ordinal), int(wins), int(games), rating)
        )
    return out


async def grant_chips(
    store: Store, app_id: str, grant_id: str, player_id: str, amount: int
) -> tuple[int, bool]:
    """Grant ``amount`` chips once per ``grant_id`` (``ledger.grant``): the player's
    balance, and whether this call posted the grant (False for a retry). Raises
    ``chips.Conflict`` for a grant id used for another grant and
    ``chips.InvalidRequest`` for a grant the ledger refuses."""
    async with store.writing() as conn:
        balance, posted = await ledger.grant(conn, app_id, grant_id, player_id, amount)
    return balance, bool(posted)


async def chip_entries(
    store: Store, app_id: str, player_id: str, size: int, before: int | None
) -> ChipEntryPage:
    """Up to ``size`` entries of the player's account, newest first, with ids below
    ``before`` if given (entries are append-only, so a page never shifts as new ones
    arrive)."""
    q = select(ChipEntry).where(
        ChipEntry.app_id == app_id,
        ChipEntry.account == ledger.account_name(chips.player_account(player_id)),
    )
    if before is not None:
        q = q.where(ChipEntry.id < before)
    q = q.order_by(ChipEntry.id.desc()).limit(size + 1)  # one more: is there a next page?
    async with store.reading() as conn:
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
