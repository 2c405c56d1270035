"""TableService: protobuf in, a use case of ``services.rematch.Rematch``, protobuf
out. Nothing else happens here."""

from __future__ import annotations

from ..services.rematch import PlayedMatch, Rematch
from ..v1 import game_pb2
from ..v1 import tables_pb2 as pb
from ..v1 import tables_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .servicer import rpc, summary_to_pb
from .shared_views import SharedViews


def played_pb(m: PlayedMatch) -> pb.TableMatch:
    out = pb.TableMatch(game=summary_to_pb(m.game), ended_at=int(m.ended_at))
    out.match_totals.extend(m.totals)
    result = m.result
    if result is not None:
        out.result.CopyFrom(game_pb2.MatchResult(winner_side=result[0], reason=result[1]))
    return out


class TableService(pb_grpc.TableServiceServicer):
    def __init__(self, rematch: Rematch) -> None:
        self.rematch = rematch
        self.views = SharedViews()

    @rpc("Rematch")
    async def Rematch(self, request: pb.RematchRequest, context: Ctx) -> pb.RematchResponse:
        done = await self.rematch.confirm(credentials(context), request.game_id)
        out = pb.RematchResponse(
            game_id=done.game_id,
            seat=done.seat,
            player_token=done.player_token,
            token_expires_at=done.expires_at,
            created=done.created,
        )
        self.views.fill(out.view, done.shown)
        return out

    @rpc("ListTableMatches")
    async def ListTableMatches(
        self, request: pb.ListTableMatchesRequest, context: Ctx
    ) -> pb.ListTableMatchesResponse:
        page = await self.rematch.history(
            credentials(context), request.game_id, request.page_size, request.page_token
        )
        return pb.ListTableMatchesResponse(
            table_id=page.table_id,
            matches=[played_pb(m) for m in page.matches],
            next_page_token=page.next_page_token,
        )
