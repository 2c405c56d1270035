"""Presence through a real channel, on SQLite and PostgreSQL (SocialService's
GetPresence and SetPresence, Friend.presence in ListFriends): a friend's call makes
them online, a time seen long ago shows them away then offline, away by their own
say, who sees it by their choice, a blocked player shown nothing (as for an unknown
id), the tables a player holds a seat at with whether they take spectators, the
app's key acting for a player, a merge keeping the later time; and, on two
replicas of one PostgreSQL, a player whose event stream is open on one shown online
to a friend asking the other."""

from __future__ import annotations

import asyncio
import time
import uuid

import grpc
from sqlalchemy import text

from tests.harness.clients import Client
from tests.harness.servers import app_client
from tranca.server import Running
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import social_pb2 as pb

from .api_calls import refused
from .test_friends import Metadata, player, social


async def friends(client: Client, a: Metadata, b: Metadata, a_id: str, b_id: str) -> None:
    await social(client).AddFriend(pb.AddFriendRequest(player_id=b_id), metadata=a)
    await social(client).AcceptFriend(pb.AcceptFriendRequest(player_id=a_id), metadata=b)


async def presence_of(client: Client, viewer: Metadata, player_id: str) -> pb.Presence:
    got = await social(client).GetPresence(
        pb.GetPresenceRequest(player_ids=[player_id]), metadata=viewer
    )
    (one,) = got.presences
    return one


async def seen_long_ago(server: Running, player_id: str, ago_ms: int) -> None:
    """The player's stored time moved back, as if they had not been seen since."""
    async with server.store.engine.begin() as conn:
        await conn.execute(
            text("UPDATE player_presence SET last_seen_ms = :at WHERE player_id = :p"),
            {"at": int(time.time() * 1000) - ago_ms, "p": player_id},
        )


def unique(name: str) -> str:
    """A player id no other test uses (PostgreSQL's tests share one database, and
    ``seen_long_ago`` writes by the id)."""
    return f"{name}-{uuid.uuid4().hex[:10]}"


async def test_a_friend_online_then_away_then_offline(client: Client, server: Running) -> None:
    b = unique("bia")
    ana, bia = await player(client, "ana"), await player(client, b)
    before = int(time.time() * 1000)
    await friends(client, ana, bia, "ana", b)
    shown = await presence_of(client, ana, b)
    assert (shown.visible, shown.status) == (True, pb.PRESENCE_STATUS_ONLINE)
    assert before - 60_000 < shown.last_seen_ms <= int(time.time() * 1000)
    assert shown.visibility == pb.PRESENCE_VISIBILITY_UNSPECIFIED  # not Ana's own
    await seen_long_ago(server, b, 2 * 60_000)
    assert (await presence_of(client, ana, b)).status == pb.PRESENCE_STATUS_AWAY
    await seen_long_ago(server, b, 11 * 60_000)
    gone = await presence_of(client, ana, b)
    assert gone.status == pb.PRESENCE_STATUS_OFFLINE
    assert gone.last_seen_ms < before  # last seen still shown


async def test_who_sees_it_is_the_players_choice_and_never_a_player_they_blocked(
    client: Client,
) -> None:
    stub = social(client)
    ana, bia, caio = [await player(client, p) for p in ("ana", "bia", "caio")]
    await friends(client, ana, bia, "ana", "bia")
    await stub.ListFriends(pb.ListFriendsRequest(), metadata=ana)  # Ana is seen
    assert (await presence_of(client, bia, "ana")).visible
    assert not (await presence_of(client, caio, "ana")).visible  # friends only
    mine = await stub.SetPresence(
        pb.SetPresenceRequest(visibility=pb.PRESENCE_VISIBILITY_EVERYONE), metadata=ana
    )
    assert mine.presence.visibility == pb.PRESENCE_VISIBILITY_EVERYONE
    assert (await presence_of(client, caio, "ana")).status == pb.PRESENCE_STATUS_ONLINE
    await stub.BlockPlayer(pb.BlockPlayerRequest(player_id="caio"), metadata=ana)
    hidden = await presence_of(client, caio, "ana")
    unknown = await presence_of(client, caio, "never-heard-of")
    assert hidden == pb.Presence(player_id="ana")
    assert unknown == pb.Presence(player_id="never-heard-of")
    await stub.SetPresence(
        pb.SetPresenceRequest(visibility=pb.PRESENCE_VISIBILITY_NOBODY), metadata=ana
    )
    assert not (await presence_of(client, bia, "ana")).visible
    own = await presence_of(client, ana, "ana")
    assert (own.visible, own.visibility) == (True, pb.PRESENCE_VISIBILITY_NOBODY)


async def test_away_by_choice_and_the_friends_list_shows_it(client: Client) -> None:
    stub = social(client)
    ana, bia = await player(client, "ana"), await player(client, "bia")
    await friends(client, ana, bia, "ana", "bia")
    away = await stub.SetPresence(pb.SetPresenceRequest(away=True), metadata=bia)
    assert (away.presence.away, away.presence.status) == (True, pb.PRESENCE_STATUS_AWAY)
    listed = await stub.ListFriends(pb.ListFriendsRequest(), metadata=ana)
    (bia_listed,) = listed.friends
    assert bia_listed.presence.status == pb.PRESENCE_STATUS_AWAY
    assert bia_listed.presence.away is False  # her own say is shown as a status only
    # Unchanged fields stay: visibility is still friends, away is still on.
    kept = await stub.SetPresence(pb.SetPresenceRequest(), metadata=bia)
    assert (kept.presence.away, kept.presence.visibility) == (
        True,
        pb.PRESENCE_VISIBILITY_FRIENDS,
    )
    back = await stub.SetPresence(pb.SetPresenceRequest(away=False), metadata=bia)
    assert back.presence.status == pb.PRESENCE_STATUS_ONLINE


async def test_the_tables_a_player_sits_at(client: Client) -> None:
    ana, bia = await player(client, "ana"), await player(client, "bia")
    await friends(client, ana, bia, "ana", "bia")
    created = await client.stub.CreateGame(
        gpb.CreateGameRequest(
            rules=gpb.Rules(preset="tranca-000"), players=2, spectators_allowed=True
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    await client.stub.JoinGame(gpb.JoinGameRequest(game_id=gid, seat=0), metadata=bia)
    shown = await presence_of(client, ana, "bia")
    assert [(t.game_id, t.spectators_allowed, t.playing) for t in shown.tables] == [
        (gid, True, False)
    ]
    await client.stub.JoinGame(
        gpb.JoinGameRequest(game_id=gid, seat=1, player_id="duda"), metadata=client.app()
    )
    await client.stub.StartGame(gpb.StartGameRequest(game_id=gid), metadata=client.app())
    playing = await presence_of(client, ana, "bia")
    assert [(t.game_id, t.playing) for t in playing.tables] == [(gid, True)]


async def test_the_apps_key_acts_for_a_player_and_bad_requests_are_refused(
    client: Client,
) -> None:
    stub = social(client)
    ana = await player(client, "ana")
    as_app = client.app()
    here = await stub.SetPresence(
        pb.SetPresenceRequest(acting_player_id="zeca", seen=True), metadata=as_app
    )
    assert here.presence.status == pb.PRESENCE_STATUS_ONLINE
    await refused(
        stub.GetPresence(pb.GetPresenceRequest(player_ids=["ana"]), metadata=as_app),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    await refused(
        stub.GetPresence(
            pb.GetPresenceRequest(player_ids=[f"p{n}" for n in range(101)]), metadata=ana
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    await refused(
        stub.GetPresence(pb.GetPresenceRequest(player_ids=["x" * 129]), metadata=ana),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    await refused(
        stub.SetPresence(pb.SetPresenceRequest(visibility=7), metadata=ana),  # type: ignore[arg-type]
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    await refused(
        stub.GetPresence(
            pb.GetPresenceRequest(player_ids=["ana"], acting_player_id="bia"), metadata=ana
        ),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_YOUR_PLAYER",
    )


async def test_a_merge_keeps_the_later_time_and_the_kept_players_choices(
    client: Client, server: Running
) -> None:
    stub = social(client)
    o, n = unique("ana-old"), unique("ana-new")
    old, new = await player(client, o), await player(client, n)
    await stub.SetPresence(
        pb.SetPresenceRequest(visibility=pb.PRESENCE_VISIBILITY_NOBODY), metadata=new
    )
    await stub.SetPresence(pb.SetPresenceRequest(away=True), metadata=old)
    await seen_long_ago(server, n, 11 * 60_000)
    done = await apb_grpc.AdminServiceStub(client.channel).MergePlayers(
        apb.MergePlayersRequest(merged_player_id=o, kept_player_id=n),
        metadata=client.app(),
    )
    assert done.rows["player_presence"] == 1
    kept = await stub.GetPresence(
        pb.GetPresenceRequest(acting_player_id=n, player_ids=[n, o]),
        metadata=client.app(),
    )
    mine, gone = kept.presences
    # The later time (the merged account's), the kept account's choices (its away
    # flag never set: off).
    assert (mine.status, mine.visibility, mine.away) == (
        pb.PRESENCE_STATUS_ONLINE,
        pb.PRESENCE_VISIBILITY_NOBODY,
        False,
    )
    assert not gone.visible


async def test_a_stream_open_on_one_replica_shows_online_on_the_other(
    replicas: list[Running],
) -> None:
    async with (
        app_client(replicas[0]) as first,
        grpc.aio.insecure_channel(f"127.0.0.1:{replicas[1].port}") as channel,
    ):
        second = Client(channel, first.api_key)
        b = unique("bia")
        ana, bia = await player(first, "ana"), await player(first, b)
        # Their calls go to the second replica; Bia's stream to the first.
        await friends(second, ana, bia, "ana", b)
        await seen_long_ago(replicas[0], b, 11 * 60_000)
        assert (await presence_of(second, ana, b)).status == pb.PRESENCE_STATUS_OFFLINE
        stream = npb_grpc.NotificationServiceStub(first.channel).WatchPlayerEvents(
            npb.WatchPlayerEventsRequest(), metadata=bia
        )
        try:
            status = pb.PRESENCE_STATUS_OFFLINE
            for _ in range(100):
                status = (await presence_of(second, ana, b)).status
                if status == pb.PRESENCE_STATUS_ONLINE:
                    break
                await asyncio.sleep(0.05)
            assert status == pb.PRESENCE_STATUS_ONLINE
        finally:
            stream.cancel()
