"""PlayerService: protobuf in, a use case of ``services.players.Players``, protobuf
out. Nothing else happens here: the requests' enums become the use cases' (the
leaderboard's kind, its ``Period``), and ratings, leaderboards and chip entries
are written back as protobuf.
"""

from __future__ import annotations

from ..services.player_figures import Period, Rating, rating_figures
from ..services.players import LeaderboardKind, LeaderboardRow, Players
from ..v1 import platform_pb2 as pb
from ..v1 import platform_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .servicer import rpc

KINDS = {
    pb.LEADERBOARD_KIND_UNSPECIFIED: LeaderboardKind.RANKING_POINTS,
    pb.LEADERBOARD_KIND_RANKING_POINTS: LeaderboardKind.RANKING_POINTS,
    pb.LEADERBOARD_KIND_RATING: LeaderboardKind.RATING,
}
PERIODS = {
    pb.PERIOD_UNSPECIFIED: Period.ALL_TIME,
    pb.PERIOD_DAY: Period.DAY,
    pb.PERIOD_WEEK: Period.WEEK,
    pb.PERIOD_MONTH: Period.MONTH,
    pb.PERIOD_ALL_TIME: Period.ALL_TIME,
}


def _rating_pb(rating: Rating) -> pb.Rating:
    r = rating_figures(rating)
    return pb.Rating(mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, games=r.games)


def _entry_pb(row: LeaderboardRow) -> pb.LeaderboardEntry:
    out = pb.LeaderboardEntry(
        rank=row.rank, player_id=row.player_id, points=row.points, wins=row.wins, games=row.games
    )
    if row.rating is not None:
        out.rating.CopyFrom(_rating_pb(row.rating))
    return out


class PlayerService(pb_grpc.PlayerServiceServicer):
    def __init__(self, players: Players) -> None:
        self.players = players

    @rpc("GetPlayer")
    async def GetPlayer(self, request: pb.GetPlayerRequest, context: Ctx) -> pb.GetPlayerResponse:
        found = await self.players.player(credentials(context), request.player_id)
        return pb.GetPlayerResponse(
            player_id=found.player_id,
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
        rows = await self.players.leaderboard(
            credentials(context),
            KINDS.get(request.kind),  # None: a kind this server does not know (refused)
            PERIODS.get(request.period),  # likewise
            request.limit,
        )
        return pb.GetLeaderboardResponse(entries=[_entry_pb(r) for r in rows])

    @rpc("GrantChips")
    async def GrantChips(
        self, request: pb.GrantChipsRequest, context: Ctx
    ) -> pb.GrantChipsResponse:
        balance = await self.players.grant(
            credentials(context), request.player_id, request.amount, request.grant_id
        )
        return pb.GrantChipsResponse(chips=balance)

    @rpc("ListChipEntries")
    async def ListChipEntries(
        self, request: pb.ListChipEntriesRequest, context: Ctx
    ) -> pb.ListChipEntriesResponse:
        page = await self.players.chip_entries(
            credentials(context), request.player_id, request.page_size, request.page_token
        )
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
        out.next_page_token = page.next_page_token
        return out
