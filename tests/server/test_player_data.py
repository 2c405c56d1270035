"""ExportPlayerData through a real channel, on SQLite and PostgreSQL: a player who
signed in, set a profile, was granted chips and played a move at a table gets all
of it back as one JSON document, with no token in it; the app's key exports any of
its players, a player's own session only itself and only where the app allows."""

from __future__ import annotations

import json

import grpc

from tests.harness.clients import Client
from tranca.v1 import chat_pb2 as chpb
from tranca.v1 import chat_pb2_grpc as chpb_grpc
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca.v1 import social_pb2 as sopb
from tranca.v1 import social_pb2_grpc as sopb_grpc

from .api_calls import refused
from .conftest import move_first_legal


def sessions(client: Client) -> spb_grpc.SessionServiceAsyncStub:
    return spb_grpc.SessionServiceStub(client.channel)


async def test_a_players_data_comes_back_whole_and_without_secrets(client: Client) -> None:
    stub = sessions(client)
    opened = await stub.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id="ana", display_name="Ana"), metadata=client.app()
    )
    ana = (("authorization", f"Bearer {opened.session.access_token}"),)
    await stub.UpdateProfile(spb.UpdateProfileRequest(country="BR"), metadata=ana)
    await stub.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id="bia", display_name="Bia"), metadata=client.app()
    )
    await sopb_grpc.SocialServiceStub(client.channel).AddFriend(
        sopb.AddFriendRequest(player_id="bia"), metadata=ana
    )
    await chpb_grpc.ChatServiceStub(client.channel).SendChatMessage(
        chpb.SendChatMessageRequest(
            room=chpb.ChatRoom(kind=chpb.ROOM_KIND_LOBBY, id="main"),
            text="alguém?",
            client_message_id="m1",
        ),
        metadata=ana,
    )
    players: ppb_grpc.PlayerServiceAsyncStub = ppb_grpc.PlayerServiceStub(client.channel)
    await players.GrantChips(
        ppb.GrantChipsRequest(player_id="ana", amount=500, grant_id="welcome"),
        metadata=client.app(),
    )
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, seed=7),
        metadata=client.app(),
    )
    game_id = created.game.game_id
    tokens = [
        (
            await client.stub.JoinGame(
                pb.JoinGameRequest(game_id=game_id, seat=seat, player_id="" if seat == 0 else "p1"),
                metadata=ana if seat == 0 else client.app(),
            )
        ).player_token
        for seat in (0, 1)
    ]
    await client.stub.StartGame(pb.StartGameRequest(game_id=game_id), metadata=client.app())
    await move_first_legal(client, game_id, tokens)

    exported = await stub.ExportPlayerData(
        spb.ExportPlayerDataRequest(player_id="ana"), metadata=client.app()
    )
    data = json.loads(exported.json)
    assert (data["format"], data["player_id"]) == (1, "ana")
    assert data["profile"]["country"] == "BR"
    assert [s["kind"] for s in data["sessions"]] == ["server"]
    assert data["chips"]["balance"] == 500
    assert [e["amount"] for e in data["chips"]["entries"]] == [500]
    (game,) = data["games"]
    assert (game["game_id"], game["seat"], game["preset"]) == (game_id, 0, "tranca-000")
    assert [m["action"]["kind"] for m in game["moves"]][:1] == ["join"]
    assert [(r["player_id"], r["relation"]) for r in data["relations"]] == [("bia", "request_sent")]
    assert [m["text"] for m in data["chat_messages"]] == ["alguém?"]
    # Her presence: her session's calls saw her; her choices are the defaults.
    assert data["presence"]["last_seen_ms"] > 0
    assert (data["presence"]["away"], data["presence"]["visibility"]) == (False, "friends")
    # No secret: no token of any kind, no hash.
    for prefix in ("ts_", "tr_", "tp_"):
        assert prefix not in exported.json
    for token in tokens:
        assert token not in exported.json


async def test_a_session_exports_itself_only_and_where_the_app_allows(client: Client) -> None:
    stub = sessions(client)
    opened = await stub.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id="bia", display_name="Bia"), metadata=client.app()
    )
    bia = (("authorization", f"Bearer {opened.session.access_token}"),)
    await refused(
        stub.ExportPlayerData(spb.ExportPlayerDataRequest(), metadata=bia),
        grpc.StatusCode.PERMISSION_DENIED,
        "DATA_RIGHTS_DISABLED",
    )
    policy = (await stub.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.player_data_rights = True
    await stub.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    own = json.loads(
        (await stub.ExportPlayerData(spb.ExportPlayerDataRequest(), metadata=bia)).json
    )
    assert own["player_id"] == "bia"
    await refused(
        stub.ExportPlayerData(spb.ExportPlayerDataRequest(player_id="ana"), metadata=bia),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_YOUR_DATA",
    )
    await refused(
        stub.ExportPlayerData(spb.ExportPlayerDataRequest(player_id=""), metadata=client.app()),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
