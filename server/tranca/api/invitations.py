"""InvitationService: protobuf in, a use case of
``services.invitations.Invitations``, protobuf out. Nothing else happens here."""

from __future__ import annotations

from ..services.invitations import (
    Direction,
    Invitation,
    InvitationKind,
    Invitations,
    Invited,
    Status,
)
from ..v1 import invitations_pb2 as pb
from ..v1 import invitations_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .servicer import rpc
from .sessions import public_profile_pb

KIND_PB: dict[InvitationKind, pb.InvitationKind.ValueType] = {
    InvitationKind.SEAT: pb.INVITATION_KIND_SEAT,
    InvitationKind.WATCH: pb.INVITATION_KIND_WATCH,
}
STATUS_PB: dict[Status, pb.InvitationStatus.ValueType] = {
    Status.PENDING: pb.INVITATION_STATUS_PENDING,
    Status.ACCEPTED: pb.INVITATION_STATUS_ACCEPTED,
    Status.DECLINED: pb.INVITATION_STATUS_DECLINED,
    Status.EXPIRED: pb.INVITATION_STATUS_EXPIRED,
    Status.CANCELLED: pb.INVITATION_STATUS_CANCELLED,
}
STATUS_FROM_PB = {v: k for k, v in STATUS_PB.items()}
DIRECTION_FROM_PB = {
    pb.INVITATION_DIRECTION_RECEIVED: Direction.RECEIVED,
    pb.INVITATION_DIRECTION_SENT: Direction.SENT,
}


def invitation_pb(i: Invitation) -> pb.TableInvitation:
    r = i.record
    out = pb.TableInvitation(
        invitation_id=r.id,
        game_id=r.game_id,
        from_player_id=r.inviter_id,
        to_player_id=r.invitee_id,
        kind=KIND_PB[r.kind],
        status=STATUS_PB[i.status],
        created_ms=r.created_ms,
        expires_ms=r.expires_ms,
        answered_ms=r.answered_ms or 0,
    )
    if i.table is not None:
        out.preset, out.players, out.label = i.table.preset, i.table.players, i.table.label
    if i.inviter is not None:
        out.from_profile.CopyFrom(public_profile_pb(i.inviter))
    if i.invitee is not None:
        out.to_profile.CopyFrom(public_profile_pb(i.invitee))
    return out


def _pair(done: Invited) -> tuple[pb.TableInvitation, bool]:
    return invitation_pb(done.invitation), done.changed


class InvitationService(pb_grpc.InvitationServiceServicer):
    def __init__(self, invitations: Invitations) -> None:
        self.invitations = invitations

    @rpc("InviteToTable")
    async def InviteToTable(
        self, request: pb.InviteToTableRequest, context: Ctx
    ) -> pb.InviteToTableResponse:
        kind = InvitationKind.WATCH if request.kind == pb.INVITATION_KIND_WATCH else None
        done = await self.invitations.invite(
            credentials(context),
            request.game_id,
            request.player_id,
            kind or InvitationKind.SEAT,
            request.expires_in_seconds,
            request.acting_player_id,
        )
        invitation, changed = _pair(done)
        return pb.InviteToTableResponse(invitation=invitation, changed=changed)

    @rpc("AcceptInvitation")
    async def AcceptInvitation(
        self, request: pb.AcceptInvitationRequest, context: Ctx
    ) -> pb.AcceptInvitationResponse:
        done = await self.invitations.accept(
            credentials(context),
            request.invitation_id,
            request.acting_player_id,
            request.token_lifetime_seconds,
        )
        return pb.AcceptInvitationResponse(
            invitation=invitation_pb(done.invitation),
            seat=done.seated.seat,
            player_token=done.seated.token,
            token_expires_at_ms=done.seated.expires_at,
            changed=done.changed,
        )

    @rpc("DeclineInvitation")
    async def DeclineInvitation(
        self, request: pb.DeclineInvitationRequest, context: Ctx
    ) -> pb.DeclineInvitationResponse:
        done = await self.invitations.decline(
            credentials(context), request.invitation_id, request.acting_player_id
        )
        invitation, changed = _pair(done)
        return pb.DeclineInvitationResponse(invitation=invitation, changed=changed)

    @rpc("CancelInvitation")
    async def CancelInvitation(
        self, request: pb.CancelInvitationRequest, context: Ctx
    ) -> pb.CancelInvitationResponse:
        done = await self.invitations.cancel(
            credentials(context), request.invitation_id, request.acting_player_id
        )
        invitation, changed = _pair(done)
        return pb.CancelInvitationResponse(invitation=invitation, changed=changed)

    @rpc("ListInvitations")
    async def ListInvitations(
        self, request: pb.ListInvitationsRequest, context: Ctx
    ) -> pb.ListInvitationsResponse:
        page = await self.invitations.list(
            credentials(context),
            request.acting_player_id,
            DIRECTION_FROM_PB.get(request.direction, Direction.BOTH),
            STATUS_FROM_PB.get(request.status),
            request.page_size,
            request.page_token,
        )
        return pb.ListInvitationsResponse(
            invitations=[invitation_pb(i) for i in page.invitations],
            next_page_token=page.next_page_token,
        )
