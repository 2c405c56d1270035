"""SocialService: protobuf in, a use case (``services.friends.Friends``,
``services.player_presence.PlayerPresence``), protobuf out. Nothing else happens
here."""

from __future__ import annotations

from typing import Protocol

from ..services.errors import malformed
from ..services.friends import Changed, Friends, Operation, Relation, Relationship
from ..services.player_presence import (
    PlayerPresence,
    PresenceChange,
    Shown,
    Status,
    Visibility,
)
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
STATUS_PB: dict[Status, pb.PresenceStatus.ValueType] = {
    Status.OFFLINE: pb.PRESENCE_STATUS_OFFLINE,
    Status.ONLINE: pb.PRESENCE_STATUS_ONLINE,
    Status.AWAY: pb.PRESENCE_STATUS_AWAY,
}
VISIBILITY_PB: dict[Visibility, pb.PresenceVisibility.ValueType] = {
    Visibility.FRIENDS: pb.PRESENCE_VISIBILITY_FRIENDS,
    Visibility.EVERYONE: pb.PRESENCE_VISIBILITY_EVERYONE,
    Visibility.NOBODY: pb.PRESENCE_VISIBILITY_NOBODY,
}
VISIBILITY_FROM_PB = {v: k for k, v in VISIBILITY_PB.items()}


class PairRequest(Protocol):
    """Every change's request: the other player and who acts."""

    @property
    def player_id(self) -> str: ...

    @property
    def acting_player_id(self) -> str: ...


def presence_pb(shown: Shown) -> pb.Presence:
    out = pb.Presence(player_id=shown.player_id, visible=shown.visible)
    if not shown.visible:
        return out
    if shown.status is not None:
        out.status = STATUS_PB[shown.status]
    out.last_seen_ms = shown.last_seen_ms
    out.tables.extend(
        pb.PresenceTable(
            game_id=t.game_id, spectators_allowed=t.spectators_allowed, playing=t.playing
        )
        for t in shown.tables
    )
    out.away = shown.away
    if shown.visibility is not None:
        out.visibility = VISIBILITY_PB[shown.visibility]
    return out


def friend_pb(r: Relationship) -> pb.Friend:
    out = pb.Friend(player_id=r.player_id, relation=RELATION_PB[r.relation], since_ms=r.since_ms)
    if r.profile is not None:
        out.profile.CopyFrom(public_profile_pb(r.profile))
    if r.presence is not None:
        out.presence.CopyFrom(presence_pb(r.presence))
    return out


class SocialService(pb_grpc.SocialServiceServicer):
    def __init__(self, friends: Friends, presence: PlayerPresence) -> None:
        self.friends = friends
        self.presence = presence

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

    @rpc("GetPresence")
    async def GetPresence(
        self, request: pb.GetPresenceRequest, context: Ctx
    ) -> pb.GetPresenceResponse:
        shown = await self.presence.get(
            credentials(context), request.acting_player_id, list(request.player_ids)
        )
        return pb.GetPresenceResponse(presences=[presence_pb(s) for s in shown])

    @rpc("SetPresence")
    async def SetPresence(
        self, request: pb.SetPresenceRequest, context: Ctx
    ) -> pb.SetPresenceResponse:
        visibility = VISIBILITY_FROM_PB.get(request.visibility)
        if visibility is None and request.visibility != pb.PRESENCE_VISIBILITY_UNSPECIFIED:
            raise malformed("visibility is FRIENDS, EVERYONE or NOBODY (or unspecified: unchanged)")
        change = PresenceChange(
            away=request.away if request.HasField("away") else None,
            visibility=visibility,
            seen=request.seen,
        )
        done = await self.presence.set(credentials(context), request.acting_player_id, change)
        return pb.SetPresenceResponse(presence=presence_pb(done))
