"""Friends and blocks through a real channel, on SQLite and PostgreSQL
(SocialService): a request accepted, declined or withdrawn; a friend removed; a block
that ends a friendship and keeps the blocked player's requests out without telling
them; each change told to both players as a "friendship" event; the list paged; the
app's key acting for a player; and two players asking each other at once, on two
replicas, becoming friends."""

from __future__ import annotations

import asyncio
import json

import grpc

from tests.harness.clients import Client
from tests.harness.servers import app_client
from tranca.server import Running
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca.v1 import social_pb2 as pb
from tranca.v1 import social_pb2_grpc as pb_grpc

from .api_calls import refused

Metadata = tuple[tuple[str, str], ...]


def social(client: Client) -> pb_grpc.SocialServiceAsyncStub:
    return pb_grpc.SocialServiceStub(client.channel)


async def player(client: Client, player_id: str) -> Metadata:
    opened = await spb_grpc.SessionServiceStub(client.channel).CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=player_id, display_name=player_id.title()),
        metadata=client.app(),
    )
    return (("authorization", f"Bearer {opened.session.access_token}"),)


async def friendship_events(client: Client, player_id: str) -> list[dict[str, str]]:
    page = await npb_grpc.NotificationServiceStub(client.channel).ListPlayerEvents(
        npb.ListPlayerEventsRequest(player_id=player_id), metadata=client.app()
    )
    return [json.loads(e.payload_json) for e in page.events if e.kind == "friendship"]


async def relation(client: Client, who: Metadata, other: str) -> int:
    listed = await social(client).ListFriends(pb.ListFriendsRequest(), metadata=who)
    found = [f.relation for f in listed.friends if f.player_id == other]
    return found[0] if found else pb.RELATION_UNSPECIFIED


async def test_a_request_accepted_makes_two_friends_and_both_are_told(client: Client) -> None:
    stub = social(client)
    ana, bia = await player(client, "ana"), await player(client, "bia")
    sent = await stub.AddFriend(pb.AddFriendRequest(player_id="bia"), metadata=ana)
    assert (sent.friend.relation, sent.changed) == (pb.RELATION_REQUEST_SENT, True)
    # The profile shown is the name the player plays under until it sets one.
    assert sent.friend.profile.display_name == "Bia"
    again = await stub.AddFriend(pb.AddFriendRequest(player_id="bia"), metadata=ana)
    assert (again.friend.relation, again.changed) == (pb.RELATION_REQUEST_SENT, False)
    assert await relation(client, bia, "ana") == pb.RELATION_REQUEST_RECEIVED
    accepted = await stub.AcceptFriend(pb.AcceptFriendRequest(player_id="ana"), metadata=bia)
    assert (accepted.friend.relation, accepted.changed) == (pb.RELATION_FRIEND, True)
    assert await relation(client, ana, "bia") == pb.RELATION_FRIEND
    assert await friendship_events(client, "bia") == [
        {"player_id": "ana", "relation": "request_received", "change": "requested", "by": "ana"},
        {"player_id": "ana", "relation": "friend", "change": "accepted", "by": "bia"},
    ]
    assert [e["change"] for e in await friendship_events(client, "ana")] == [
        "requested",
        "accepted",
    ]
    removed = await stub.RemoveFriend(pb.RemoveFriendRequest(player_id="bia"), metadata=ana)
    assert (removed.friend.relation, removed.changed) == (pb.RELATION_UNSPECIFIED, True)
    assert await relation(client, bia, "ana") == pb.RELATION_UNSPECIFIED


async def test_a_block_ends_the_friendship_and_keeps_requests_out_untold(
    client: Client,
) -> None:
    stub = social(client)
    ana, bia = await player(client, "ana"), await player(client, "bia")
    await stub.AddFriend(pb.AddFriendRequest(player_id="bia"), metadata=ana)
    await stub.AddFriend(pb.AddFriendRequest(player_id="ana"), metadata=bia)  # accepts
    assert await relation(client, ana, "bia") == pb.RELATION_FRIEND
    blocked = await stub.BlockPlayer(pb.BlockPlayerRequest(player_id="bia"), metadata=ana)
    assert blocked.friend.relation == pb.RELATION_BLOCKED
    assert await relation(client, bia, "ana") == pb.RELATION_UNSPECIFIED
    # Bia is told she lost a friend, as after a removal; never of the block.
    told = (await friendship_events(client, "bia"))[-1]
    assert told == {"player_id": "ana", "relation": "none", "change": "removed", "by": "ana"}
    await refused(
        stub.AddFriend(pb.AddFriendRequest(player_id="ana"), metadata=bia),
        grpc.StatusCode.FAILED_PRECONDITION,
        "FRIEND_REQUEST_REFUSED",
    )
    await refused(
        stub.AddFriend(pb.AddFriendRequest(player_id="bia"), metadata=ana),
        grpc.StatusCode.FAILED_PRECONDITION,
        "PLAYER_BLOCKED",
    )
    await stub.UnblockPlayer(pb.UnblockPlayerRequest(player_id="bia"), metadata=ana)
    again = await stub.AddFriend(pb.AddFriendRequest(player_id="ana"), metadata=bia)
    assert again.friend.relation == pb.RELATION_REQUEST_SENT


async def test_bad_requests_are_refused_and_change_nothing(client: Client) -> None:
    stub = social(client)
    ana = await player(client, "ana")
    await player(client, "bia")
    for request, code, reason in (
        (pb.AddFriendRequest(player_id=""), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        (
            pb.AddFriendRequest(player_id="ana"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        ),
        (
            pb.AddFriendRequest(player_id="erased-00"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        ),
        (pb.AddFriendRequest(player_id="nobody"), grpc.StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND"),
        (
            pb.AddFriendRequest(player_id="bia", acting_player_id="bia"),
            grpc.StatusCode.PERMISSION_DENIED,
            "NOT_YOUR_PLAYER",
        ),
    ):
        await refused(stub.AddFriend(request, metadata=ana), code, reason)
    await refused(
        stub.AcceptFriend(pb.AcceptFriendRequest(player_id="bia"), metadata=ana),
        grpc.StatusCode.FAILED_PRECONDITION,
        "NO_FRIEND_REQUEST",
    )
    await refused(
        stub.ListFriends(pb.ListFriendsRequest(page_token="50"), metadata=ana),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    # The app's key names who acts; without one it is refused.
    await refused(
        stub.AddFriend(pb.AddFriendRequest(player_id="bia"), metadata=client.app()),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    listed = await stub.ListFriends(pb.ListFriendsRequest(), metadata=ana)
    assert list(listed.friends) == []
    assert await friendship_events(client, "ana") == []


async def test_the_list_pages_by_player_and_filters_by_relation(client: Client) -> None:
    stub = social(client)
    ana = await player(client, "ana")
    others = [f"p{n:02d}" for n in range(7)]
    for other in others:
        await player(client, other)
        await stub.AddFriend(
            pb.AddFriendRequest(player_id=other, acting_player_id="ana"), metadata=client.app()
        )
    await stub.BlockPlayer(pb.BlockPlayerRequest(player_id="p03"), metadata=ana)
    seen: list[str] = []
    token = ""
    while True:
        page = await stub.ListFriends(
            pb.ListFriendsRequest(page_size=3, page_token=token), metadata=ana
        )
        seen += [f.player_id for f in page.friends]
        token = page.next_page_token
        if not token:
            break
    assert seen == others
    sent = await stub.ListFriends(
        pb.ListFriendsRequest(relations=[pb.RELATION_REQUEST_SENT]), metadata=ana
    )
    assert [f.player_id for f in sent.friends] == [p for p in others if p != "p03"]


async def test_mutual_follow_befriends_two_followers_and_an_unfollow_leaves_one(
    client: Client,
) -> None:
    sessions = spb_grpc.SessionServiceStub(client.channel)
    policy = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.friend_model = spb.FRIEND_MODEL_MUTUAL_FOLLOW
    await sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    stub = social(client)
    ana, bia = await player(client, "ana"), await player(client, "bia")
    await stub.AddFriend(pb.AddFriendRequest(player_id="bia"), metadata=ana)
    await stub.AddFriend(pb.AddFriendRequest(player_id="ana"), metadata=bia)
    assert await relation(client, ana, "bia") == pb.RELATION_FRIEND
    await stub.RemoveFriend(pb.RemoveFriendRequest(player_id="bia"), metadata=ana)
    # Ana unfollowed; Bia still follows her.
    assert await relation(client, ana, "bia") == pb.RELATION_REQUEST_RECEIVED
    assert await relation(client, bia, "ana") == pb.RELATION_REQUEST_SENT


async def test_two_players_asking_each_other_at_once_on_two_replicas_become_friends(
    replicas: list[Running],
) -> None:
    async with (
        app_client(replicas[0]) as first,
        grpc.aio.insecure_channel(f"127.0.0.1:{replicas[1].port}") as channel,
    ):
        second = Client(channel, first.api_key)
        for round_ in range(8):
            a, b = f"a{round_}", f"b{round_}"
            ma, mb = await player(first, a), await player(second, b)
            await asyncio.gather(
                social(first).AddFriend(pb.AddFriendRequest(player_id=b), metadata=ma),
                social(second).AddFriend(pb.AddFriendRequest(player_id=a), metadata=mb),
            )
            # Never two crossed requests: the second found the first and accepted.
            assert await relation(first, ma, b) == pb.RELATION_FRIEND
            assert await relation(second, mb, a) == pb.RELATION_FRIEND
            told = [e["change"] for e in await friendship_events(first, a)]
            assert told == ["requested", "accepted"], told


async def test_a_merge_of_accounts_gives_the_kept_account_the_others_friends(
    client: Client,
) -> None:
    stub = social(client)
    old, new = await player(client, "ana-old"), await player(client, "ana-new")
    bia, cid, duda = [await player(client, p) for p in ("bia", "cid", "duda")]
    await stub.AddFriend(pb.AddFriendRequest(player_id="ana-old"), metadata=bia)
    await stub.AcceptFriend(pb.AcceptFriendRequest(player_id="bia"), metadata=old)
    await stub.AddFriend(pb.AddFriendRequest(player_id="ana-old"), metadata=cid)  # waiting
    await stub.BlockPlayer(pb.BlockPlayerRequest(player_id="ana-old"), metadata=duda)
    await stub.AddFriend(pb.AddFriendRequest(player_id="ana-old"), metadata=new)  # each other
    await stub.AddFriend(pb.AddFriendRequest(player_id="cid"), metadata=new)  # cid asked old too
    done = await apb_grpc.AdminServiceStub(client.channel).MergePlayers(
        apb.MergePlayersRequest(merged_player_id="ana-old", kept_player_id="ana-new"),
        metadata=client.app(),
    )
    assert done.rows["player_relations"] == 2  # bia's friendship and duda's block
    assert await relation(client, new, "bia") == pb.RELATION_FRIEND
    assert await relation(client, bia, "ana-new") == pb.RELATION_FRIEND
    # The kept account's own relation to cid stays; the merged one's goes.
    assert await relation(client, new, "cid") == pb.RELATION_REQUEST_SENT
    assert await relation(client, cid, "ana-new") == pb.RELATION_REQUEST_RECEIVED
    assert await relation(client, duda, "ana-new") == pb.RELATION_BLOCKED
    # Duda's block follows the person: the kept account cannot ask her.
    await refused(
        stub.AddFriend(pb.AddFriendRequest(player_id="duda"), metadata=new),
        grpc.StatusCode.FAILED_PRECONDITION,
        "FRIEND_REQUEST_REFUSED",
    )
    listed = await stub.ListFriends(pb.ListFriendsRequest(), metadata=new)
    assert [f.player_id for f in listed.friends] == ["bia", "cid"]
