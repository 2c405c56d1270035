"""SocialService: protobuf in, a use case of ``services.friends.Friends``, protobuf
out. Nothing else happens here."""

from __future__ import annotations

from typing import Protocol

from ..services.friends import Changed, Friends, Operation, Relation, Relationship
from ..v1 import social_pb2 as pb
from ..v1 import social_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .servicer import rpc
from .sessions import public_profile_pb

RELATION_PB: dict[Relation, pb.Relation.ValueType] = {
    Relation.NONE: pb.RELATION_UNSPECIFIED,
    Relation.FRIEND: pb.RELATION_FRIEND,
    Relation.REQUEST_SENT: pb.RELATION_REQUEST_SENT,
    Relation.REQUEST_RECEIVED: pb.RELATION_REQUEST_RECEIVED,
    Relation.BLOCKED: pb.RELATION_BLOCKED,
}
RELATION_FROM_PB = {v: k for k, v in RELATION_PB.items()}


class PairRequest(Protocol):
    """Every change's request: the other player and who acts."""

    @property
    def player_id(self) -> str: ...

    @property
    def acting_player_id(self) -> str: ...


def friend_pb(r: Relationship) -> pb.Friend:
    out = pb.Friend(player_id=r.player_id, relation=RELATION_PB[r.relation], since_ms=r.since_ms)
    if r.profile is not None:
        out.profile.CopyFrom(public_profile_pb(r.profile))
    return out


class SocialService(pb_grpc.SocialServiceServicer):
    def __init__(self, friends: Friends) -> None:
        self.friends = friends

    async def _change(self, operation: Operation, request: PairRequest, context: Ctx) -> Changed:
        return await self.friends.change(
            credentials(context), operation, request.player_id, request.acting_player_id
        )

    @rpc("AddFriend")
    async def AddFriend(self, request: pb.AddFriendRequest, context: Ctx) -> pb.AddFriendResponse:
        done = await self._change(Operation.ADD, request, context)
        return pb.AddFriendResponse(friend=friend_pb(done.relationship), changed=done.changed)

    @rpc("AcceptFriend")
    async def AcceptFriend(
        self, request: pb.AcceptFriendRequest, context: Ctx
    ) -> pb.AcceptFriendResponse:
        done = await self._change(Operation.ACCEPT, request, context)
        return pb.AcceptFriendResponse(friend=friend_pb(done.relationship), changed=done.changed)

    @rpc("DeclineFriend")
    async def DeclineFriend(
        self, request: pb.DeclineFriendRequest, context: Ctx
    ) -> pb.DeclineFriendResponse:
        done = await self._change(Operation.DECLINE, request, context)
        return pb.DeclineFriendResponse(friend=friend_pb(done.relationship), changed=done.changed)

    @rpc("CancelFriendRequest")
    async def CancelFriendRequest(
        self, request: pb.CancelFriendRequestRequest, context: Ctx
    ) -> pb.CancelFriendRequestResponse:
        done = await self._change(Operation.CANCEL, request, context)
        return pb.CancelFriendRequestResponse(
            friend=friend_pb(done.relationship), changed=done.changed
        )

    @rpc("RemoveFriend")
    async def RemoveFriend(
        self, request: pb.RemoveFriendRequest, context: Ctx
    ) -> pb.RemoveFriendResponse:
        done = await self._change(Operation.REMOVE, request, context)
        return pb.RemoveFriendResponse(friend=friend_pb(done.relationship), changed=done.changed)

    @rpc("BlockPlayer")
    async def BlockPlayer(
        self, request: pb.BlockPlayerRequest, context: Ctx
    ) -> pb.BlockPlayerResponse:
        done = await self._change(Operation.BLOCK, request, context)
        return pb.BlockPlayerResponse(friend=friend_pb(done.relationship), changed=done.changed)

    @rpc("UnblockPlayer")
    async def UnblockPlayer(
        self, request: pb.UnblockPlayerRequest, context: Ctx
    ) -> pb.UnblockPlayerResponse:
        done = await self._change(Operation.UNBLOCK, request, context)
        return pb.UnblockPlayerResponse(friend=friend_pb(done.relationship), changed=done.changed)

    @rpc("ListFriends")
    async def ListFriends(
        self, request: pb.ListFriendsRequest, context: Ctx
    ) -> pb.ListFriendsResponse:
        kinds = frozenset(RELATION_FROM_PB.get(r, Relation.NONE) for r in request.relations)
        page = await self.friends.list(
            credentials(context),
            request.acting_player_id,
            kinds,
            request.page_size,
            request.page_token,
        )
        return pb.ListFriendsResponse(
            friends=[friend_pb(r) for r in page.relationships],
            next_page_token=page.next_page_token,
        )
