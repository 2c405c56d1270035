"""PlayerService: an app's players' ratings, ranking points, leaderboards and chips.

Every call needs the app's API key and sees only that app's players: a player is
(app, player_id), the id the app gave at JoinGame or GrantChips. A player the app
has never named has the initial rating, no chips and no points (not NOT_FOUND: an
app's players exist as soon as it names them).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import grpc
from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform import chips, ranking, ratings
from ..store import ledger
from ..store.direct import epoch_seconds
from ..store.models import ChipEntry, PlayerRating, RankingAward
from ..store.repository import AppRecord, Store
from ..v1 import platform_pb2 as pb
from ..v1 import platform_pb2_grpc as pb_grpc
from . import metrics
from .auth import identify, require_app
from .errors import ApiError
from .limits import RateLimiter
from .servicer import MAX_PLAYER_ID, Ctx, rpc

MAX_GRANT_ID = 128
MAX_GRANT = 10**12  # chips per grant: the balances stay far from 64-bit limits
DEFAULT_PAGE = 50
MAX_PAGE = 500

PERIODS = {
    pb.PERIOD_UNSPECIFIED: ranking.Period.ALL_TIME,
    pb.PERIOD_DAY: ranking.Period.DAY,
    pb.PERIOD_WEEK: ranking.Period.WEEK,
    pb.PERIOD_MONTH: ranking.Period.MONTH,
    pb.PERIOD_ALL_TIME: ranking.Period.ALL_TIME,
}


def _bad(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", message)


def _player_id(value: str) -> str:
    player = value.strip()
    if not player or len(player) > MAX_PLAYER_ID:
        raise _bad(f"player_id is 1 to {MAX_PLAYER_ID} characters")
    return player


def _limit(value: int, what: str) -> int:
    if value == 0:
        return DEFAULT_PAGE
    if not 1 <= value <= MAX_PAGE:
        raise _bad(f"{what} is 1 to {MAX_PAGE} (0: {DEFAULT_PAGE})")
    return value


def _rating_pb(mu: float, sigma: float, games: int) -> pb.Rating:
    r = ratings.Rating(mu, sigma, games)
    return pb.Rating(mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, games=r.games)


class PlayerService(pb_grpc.PlayerServiceServicer):
    def __init__(self, store: Store, app_limiter: RateLimiter) -> None:
        self.store = store
        self.app_limiter = app_limiter

    async def _app(self, context: Ctx) -> AppRecord:
        """The calling app (an API key only), within its rate limit."""
        app = require_app(await identify(self.store, context))
        wait = self.app_limiter.take(app.id)
        if wait:
            raise ApiError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "RATE_LIMITED",
                "too many calls: slow down",
                {"retry_after_ms": str(max(1, int(wait * 1000)))},
            )
        return app

    @rpc("GetPlayer")
    async def GetPlayer(self, request: pb.GetPlayerRequest, context: Ctx) -> pb.GetPlayerResponse:
        app = await self._app(context)
        player = _player_id(request.player_id)
        async with self.store._guard(), self.store.reads.connect() as conn:
            rated = (
                await conn.execute(
                    select(PlayerRating).where(
                        PlayerRating.app_id == app.id, PlayerRating.player_id == player
                    )
                )
            ).first()
            points = (
                await conn.execute(
                    select(func.coalesce(func.sum(RankingAward.points), 0)).where(
                        RankingAward.app_id == app.id, RankingAward.player_id == player
                    )
                )
            ).scalar_one()
            balance = await ledger.balance(conn, app.id, chips.player_account(player))
        out = pb.GetPlayerResponse(player_id=player, chips=balance, ranking_points=int(points))
        if rated is None:
            out.rating.CopyFrom(_rating_pb(ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA, 0))
        else:
            r = rated
            out.rating.CopyFrom(_rating_pb(float(r.mu), float(r.sigma), int(r.games)))
            out.matches = int(r.games)
            out.wins = int(r.wins)
        return out

    @rpc("GetLeaderboard")
    async def GetLeaderboard(
        self, request: pb.GetLeaderboardRequest, context: Ctx
    ) -> pb.GetLeaderboardResponse:
        app = await self._app(context)
        limit = _limit(request.limit, "limit")
        if request.kind not in (
            pb.LEADERBOARD_KIND_UNSPECIFIED,
            pb.LEADERBOARD_KIND_RANKING_POINTS,
            pb.LEADERBOARD_KIND_RATING,
        ):
            raise _bad("unknown leaderboard kind")
        period = PERIODS.get(request.period)
        if period is None:
            raise _bad("unknown period")
        async with self.store._guard(), self.store.reads.connect() as conn:
            if request.kind == pb.LEADERBOARD_KIND_RATING:
                rows = await _rating_rows(conn, app.id, limit)
            else:
                rows = await _points_rows(conn, app.id, period, limit)
        return pb.GetLeaderboardResponse(entries=rows)

    @rpc("GrantChips")
    async def GrantChips(
        self, request: pb.GrantChipsRequest, context: Ctx
    ) -> pb.GrantChipsResponse:
        app = await self._app(context)
        player = _player_id(request.player_id)
        if not 0 < request.amount <= MAX_GRANT:
            raise _bad(f"amount is 1 to {MAX_GRANT} chips")
        if not request.grant_id or len(request.grant_id) > MAX_GRANT_ID:
            raise _bad(f"grant_id is 1 to {MAX_GRANT_ID} characters")
        store = self.store
        try:
            async with store._guard(), store._one_writer(), store.engine.begin() as conn:
                balance, posted = await ledger.grant(
                    conn, app.id, request.grant_id, player, request.amount
                )
        except chips.Conflict:
            raise ApiError(
                grpc.StatusCode.ALREADY_EXISTS,
                "GRANT_ID_REUSED",
                "grant_id was used for another grant",
            ) from None
        except chips.InvalidRequest as exc:
            raise _bad(exc.message) from None
        if posted:
            metrics.CHIPS_MOVED.labels(chips.Purpose.GRANT.value).inc(request.amount)
        return pb.GrantChipsResponse(chips=balance)

    @rpc("ListChipEntries")
    async def ListChipEntries(
        self, request: pb.ListChipEntriesRequest, context: Ctx
    ) -> pb.ListChipEntriesResponse:
        app = await self._app(context)
        player = _player_id(request.player_id)
        size = _limit(request.page_size, "page_size")
        before: int | None = None
        if request.page_token:
            # The token is the id of the last entry of the page before: entries are
            # append-only, so a page never shifts as new ones arrive.
            try:
                before = int(request.page_token)
            except ValueError:
                before = -1
            if not 0 < before < 2**63:  # a 64-bit id: larger ones overflow the driver
                raise _bad("bad page_token")
        q = select(ChipEntry).where(
            ChipEntry.app_id == app.id,
            ChipEntry.account == ledger.account_name(chips.player_account(player)),
        )
        if before is not None:
            q = q.where(ChipEntry.id < before)
        q = q.order_by(ChipEntry.id.desc()).limit(size + 1)
        async with self.store._guard(), self.store.reads.connect() as conn:
            rows = (await conn.execute(q)).all()
        out = pb.ListChipEntriesResponse(
            entries=[
                pb.ChipEntry(
                    amount=int(e.amount),
                    purpose=e.purpose,
                    reference=e.reference,
                    at=int(epoch_seconds(e.created_at)),
                    balance=int(e.balance_after),
                )
                for e in rows[:size]
            ]
        )
        if len(rows) > size:
            out.next_page_token = str(rows[size - 1].id)
        return out


def _ranked(rows: list[tuple[Any, ...]]) -> list[int]:
    """Ranks from 1 for rows sorted best first by their first item; equal scores share
    a rank (1, 2, 2, 4)."""
    ranks: list[int] = []
    for i, row in enumerate(rows):
        ranks.append(ranks[-1] if i and rows[i - 1][0] == row[0] else i + 1)
    return ranks


async def _points_rows(
    conn: AsyncConnection, app_id: str, period: ranking.Period, limit: int
) -> list[pb.LeaderboardEntry]:
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
    rows: list[tuple[Any, ...]] = [tuple(r) for r in (await conn.execute(q.limit(limit))).all()]
    return [
        pb.LeaderboardEntry(
            rank=rank, player_id=player, points=int(total), wins=int(wins), games=int(games)
        )
        for rank, (total, player, wins, games) in zip(_ranked(rows), rows, strict=True)
    ]


async def _rating_rows(conn: AsyncConnection, app_id: str, limit: int) -> list[pb.LeaderboardEntry]:
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
    rows: list[tuple[Any, ...]] = [tuple(r) for r in (await conn.execute(q)).all()]
    out = []
    for rank, (_, player, mu, sigma, games, wins) in zip(_ranked(rows), rows, strict=True):
        rating = _rating_pb(float(mu), float(sigma), int(games))
        out.append(
            pb.LeaderboardEntry(
                rank=rank,
                player_id=player,
                points=math.floor(rating.ordinal),
                wins=int(wins),
                games=int(games),
                rating=rating,
            )
        )
    return out
