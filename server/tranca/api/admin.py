"""AdminService: protobuf in, a use case of ``services.admin.Admin``, protobuf out.
Nothing else happens here."""

from __future__ import annotations

import json

from ..services.account_merge import AccountMerge
from ..services.admin import Admin
from ..services.audit import AuditLog
from ..v1 import admin_pb2 as pb
from ..v1 import admin_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .servicer import rpc, summary_to_pb


class AdminService(pb_grpc.AdminServiceServicer):
    def __init__(self, admin: Admin, audit: AuditLog, merges: AccountMerge) -> None:
        self.admin = admin
        self.audit = audit
        self.merges = merges

    @rpc("InspectGame")
    async def InspectGame(
        self, request: pb.InspectGameRequest, context: Ctx
    ) -> pb.InspectGameResponse:
        seen = await self.admin.inspect(credentials(context), request.game_id)
        game = seen.game
        out = pb.InspectGameResponse(
            game=summary_to_pb(game),
            seats=[
                pb.InspectedSeat(
                    seat=s.seat,
                    player_name=s.name,
                    player_id=s.player_id,
                    taken=s.taken,
                    robot=s.robot,
                    resigned=s.resigned,
                    last_seen_at_ms=s.last_seen_ms,
                )
                for s in seen.seats
            ],
            deadline_at_ms=game.deadline_at or 0,
            result_reason=game.state.result_reason,
        )
        last = seen.last_change
        if last is not None:
            out.last_change.CopyFrom(
                pb.LastChange(
                    version=last.version,
                    seat=last.action.seat,
                    kind=last.action.kind,
                    actor=last.actor,
                    at_ms=int(last.created_at * 1000),
                )
            )
        return out

    @rpc("EndGame")
    async def EndGame(self, request: pb.EndGameRequest, context: Ctx) -> pb.EndGameResponse:
        done = await self.admin.end(credentials(context), request.game_id, request.request_id)
        return pb.EndGameResponse(version=done.version)

    @rpc("RemoveSeat")
    async def RemoveSeat(
        self, request: pb.RemoveSeatRequest, context: Ctx
    ) -> pb.RemoveSeatResponse:
        removed = await self.admin.remove_seat(
            credentials(context), request.game_id, request.seat, request.request_id
        )
        return pb.RemoveSeatResponse(outcome=removed.outcome, version=removed.version)

    @rpc("ListAuditEntries")
    async def ListAuditEntries(
        self, request: pb.ListAuditEntriesRequest, context: Ctx
    ) -> pb.ListAuditEntriesResponse:
        entries = await self.audit.list(credentials(context), request.after_id, request.limit)
        return pb.ListAuditEntriesResponse(
            entries=[
                pb.AuditEntry(
                    id=e.id,
                    action=e.action.value,
                    actor=e.actor,
                    subject=e.subject,
                    detail_json=json.dumps(e.detail, ensure_ascii=False),
                    at_ms=e.at,
                )
                for e in entries
            ]
        )

    @rpc("MergePlayers")
    async def MergePlayers(
        self, request: pb.MergePlayersRequest, context: Ctx
    ) -> pb.MergePlayersResponse:
        done = await self.merges.merge(
            credentials(context), request.merged_player_id, request.kept_player_id
        )
        return pb.MergePlayersResponse(rows=done.rows)
