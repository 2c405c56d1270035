"""PlayerService: an app's players' ratings, ranking points, leaderboards and chips.

Every call needs the app's API key and sees only that app's players: a player is
(app, player_id), the id the app gave at JoinGame or GrantChips. A player the app
has never named has the initial rating, no chips and no points (not NOT_FOUND: an
app's players exist as soon as it names them).
"""

from __future__ import annotations

import grpc

from ..platform import chips, ranking
from ..platform.ratings import Rating
from ..store import players_store
from ..store.repository import AppRecord, Store
from ..v1 import platform_pb2 as pb
from ..v1 import platform_pb2_grpc as pb_grpc
from . import metrics
from .auth import Credentials, calling_app
from .errors import ApiError, malformed
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


def _player_id(value: str) -> str:
    player = value.strip()
    if not player:
        raise malformed(f"player_id is required (1 to {MAX_PLAYER_ID} characters)")
    return player


def _limit(value: int, what: str) -> int:
    if value == 0:
        return DEFAULT_PAGE
    if not 1 <= value <= MAX_PAGE:
        raise malformed(f"{what} is 1 to {MAX_PAGE} (0: {DEFAULT_PAGE})")
    return value


def _page_before(page_token: str) -> int | None:
    """The id the page starts below: the token is the id of the last entry of the
    page before (None: the first page)."""
    if not page_token:
        return None
    try:
        before = int(page_token)
    except ValueError:
        before = -1
    if not 0 < before < 2**63:  # a 64-bit id: larger ones overflow the driver
        raise malformed("bad page_token")
    return before


def _rating_pb(r: Rating) -> pb.Rating:
    return pb.Rating(mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, games=r.games)


def _entry_pb(row: players_store.LeaderboardRow) -> pb.LeaderboardEntry:
    out = pb.LeaderboardEntry(
        rank=row.rank, player_id=row.player_id, points=row.points, wins=row.wins, games=row.games
    )
    if row.rating is not None:
        out.rating.CopyFrom(_rating_pb(row.rating))
    return out


class PlayerService(pb_grpc.PlayerServiceServicer):
    def __init__(
        self, store: Store, app_limiter: RateLimiter, credentials: Credentials | None = None
    ) -> None:
        self.store = store
        self.app_limiter = app_limiter
        self.credentials = credentials or Credentials(store)

    async def _app(self, context: Ctx) -> AppRecord:
        return await calling_app(self.credentials, self.app_limiter, context)

    @rpc("GetPlayer")
    async def GetPlayer(self, request: pb.GetPlayerRequest, context: Ctx) -> pb.GetPlayerResponse:
        app = await self._app(context)
        player = _player_id(request.player_id)
        found = await players_store.player_summary(self.store, app.id, player)
        return pb.GetPlayerResponse(
            player_id=player,
            rating=_rating_pb(found.rating),
            chips=found.chips,
            ranking_points=found.ranking_points,
            matches=found.rating.games,
            wins=found.wins,
        )

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
            raise malformed("unknown leaderboard kind")
        period = PERIODS.get(request.period)
        if period is None:
            raise malformed("unknown period")
        if request.kind == pb.LEADERBOARD_KIND_RATING:
            rows = await players_store.rating_leaderboard(self.store, app.id, limit)
        else:
            rows = await players_store.points_leaderboard(self.store, app.id, period, limit)
        return pb.GetLeaderboardResponse(entries=[_entry_pb(r) for r in rows])

    @rpc("GrantChips")
    async def GrantChips(
        self, request: pb.GrantChipsRequest, context: Ctx
    ) -> pb.GrantChipsResponse:
        app = await self._app(context)
        player = _player_id(request.player_id)
        if not 0 < request.amount <= MAX_GRANT:
            raise malformed(f"amount is 1 to {MAX_GRANT} chips")
        if not request.grant_id:
            raise malformed(f"grant_id is required (1 to {MAX_GRANT_ID} characters)")
        try:
            balance, posted = await players_store.grant_chips(
                self.store, app.id, request.grant_id, player, request.amount
            )
        except chips.Conflict:
            raise ApiError(
                grpc.StatusCode.ALREADY_EXISTS,
                "GRANT_ID_REUSED",
                "grant_id was used for another grant",
            ) from None
        except chips.InvalidRequest as exc:
            raise malformed(exc.message) from None
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
        before = _page_before(request.page_token)
        page = await players_store.chip_entries(self.store, app.id, player, size, before)
        out = pb.ListChipEntriesResponse(
            entries=[
                pb.ChipEntry(
                    amount=e.amount,
                    purpose=e.purpose,
                    reference=e.reference,
                    at=e.at,
                    balance=e.balance,
                )
                for e in page.entries
            ]
        )
        if page.next_before is not None:
            out.next_page_token = str(page.next_before)
        return out
