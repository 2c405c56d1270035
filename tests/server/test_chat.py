"""Chat through a real channel, on SQLite and PostgreSQL (ChatService): a table's
players talk and their spectators read them; a rated table's spectators are held
away from its players until the match is over (the held-in test: nothing a
spectator writes reaches a seated player by any call before the end); edits and
deletes reach a watching reader as amendments; hostile input is refused and keeps
nothing; and across two replicas a message reaches a reader on the other, kept once
however many times it is sent."""

from __future__ import annotations

import asyncio
import json

import grpc

from tests.harness.clients import Client
from tests.harness.servers import app_client
from tranca.server import Running
from tranca.v1 import chat_pb2 as pb
from tranca.v1 import chat_pb2_grpc as pb_grpc
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca.v1 import social_pb2 as sopb
from tranca.v1 import social_pb2_grpc as sopb_grpc

from .api_calls import error_info, reason_of, refused

Metadata = tuple[tuple[str, str], ...]
Code = grpc.StatusCode


def chat(client: Client) -> pb_grpc.ChatServiceAsyncStub:
    return pb_grpc.ChatServiceStub(client.channel)


def bearer(token: str) -> Metadata:
    return (("authorization", f"Bearer {token}"),)


async def table(
    client: Client, *, competitive: bool = False, prefix: str = "p"
) -> tuple[str, list[Metadata], Metadata]:
    """A started table of two players with ids, and a spectator's credentials."""
    created = await client.stub.CreateGame(
        gpb.CreateGameRequest(
            rules=gpb.Rules(preset="tranca-000"),
            players=2,
            seed=7,
            spectators_allowed=True,
            table=gpb.TableOptions(competitive=competitive),
        ),
        metadata=client.app(),
    )
    game_id = created.game.game_id
    seats = []
    for seat in range(2):
        joined = await client.stub.JoinGame(
            gpb.JoinGameRequest(
                game_id=game_id, seat=seat, player_name=f"P{seat}", player_id=f"{prefix}{seat}"
            ),
            metadata=client.app(),
        )
        seats.append(bearer(joined.player_token))
    await client.stub.StartGame(gpb.StartGameRequest(game_id=game_id), metadata=client.app())
    watcher = await client.stub.JoinGame(
        gpb.JoinGameRequest(game_id=game_id, seat=-1, spectator=True, player_name="Watcher"),
        metadata=client.app(),
    )
    return game_id, seats, bearer(watcher.player_token)


def room(kind: pb.RoomKind.ValueType, room_id: str) -> pb.ChatRoom:
    return pb.ChatRoom(kind=kind, id=room_id)


async def send(
    client: Client, md: Metadata, at: pb.ChatRoom, cid: str, **what: str
) -> pb.ChatMessage:
    sent = await chat(client).SendChatMessage(
        pb.SendChatMessageRequest(room=at, client_message_id=cid, **what), metadata=md
    )
    return sent.message


async def texts(client: Client, md: Metadata, at: pb.ChatRoom) -> list[str]:
    page = await chat(client).ListChatMessages(pb.ListChatMessagesRequest(room=at), metadata=md)
    return [m.text or m.phrase for m in page.messages]


async def test_players_talk_and_a_watching_reader_gets_each_message_and_amendment(
    client: Client,
) -> None:
    game_id, (ana, bia), watcher = await table(client)
    at = room(pb.ROOM_KIND_TABLE, game_id)
    stream = chat(client).WatchChat(pb.WatchChatRequest(room=at), metadata=watcher)
    first = await send(client, ana, at, "a1", text="Boa sorte!")
    assert (first.id, first.author_id, first.seat, first.client_message_id) == (1, "p0", 0, "a1")
    await send(client, bia, at, "b1", phrase="thanks")
    edited = await chat(client).EditChatMessage(
        pb.EditChatMessageRequest(room=at, message_id=first.id, text="Boa sorte a todos!"),
        metadata=ana,
    )
    assert (edited.amendment.kind, edited.amendment.target_id) == ("edit", first.id)
    await chat(client).DeleteChatMessage(
        pb.DeleteChatMessageRequest(room=at, message_id=2), metadata=bia
    )
    seen = []
    async for update in stream:
        m = update.message
        seen.append((m.id, m.kind, m.text or m.phrase, m.target_id, m.client_message_id))
        if len(seen) == 4:
            break
    stream.cancel()
    # The watcher sees the authors' client ids of no one but itself.
    assert seen == [
        (1, "text", "Boa sorte!", 0, ""),
        (2, "phrase", "thanks", 0, ""),
        (3, "edit", "Boa sorte a todos!", 1, ""),
        (4, "delete", "", 2, ""),
    ]
    assert await texts(client, watcher, at) == ["Boa sorte a todos!", ""]


async def test_no_spectators_word_reaches_a_rated_tables_player_before_the_end(
    client: Client,
) -> None:
    game_id, (ana, bia), watcher = await table(client, competitive=True)
    spectators = room(pb.ROOM_KIND_SPECTATORS, game_id)
    secret = "Ana holds the joker and two aces"
    await send(client, watcher, spectators, "w1", text=secret)
    # A player asks every way there is: refused, and the words are nowhere.
    for md in (ana, bia):
        await refused(
            chat(client).ListChatMessages(pb.ListChatMessagesRequest(room=spectators), metadata=md),
            Code.PERMISSION_DENIED,
            "SPECTATOR_CHAT_HELD",
        )
        stream = chat(client).WatchChat(pb.WatchChatRequest(room=spectators), metadata=md)
        try:
            async for _ in stream:
                raise AssertionError("a player read the spectators' room")
        except grpc.aio.AioRpcError as exc:
            assert reason_of(exc) == "SPECTATOR_CHAT_HELD"
        await refused(
            send(client, watcher, room(pb.ROOM_KIND_TABLE, game_id), "w2", text="psst"),
            Code.PERMISSION_DENIED,
            "CHAT_NOT_ALLOWED",
        )
        table_room = await texts(client, md, room(pb.ROOM_KIND_TABLE, game_id))
        assert secret not in table_room and "psst" not in table_room
        view = await client.stub.GetView(gpb.GetViewRequest(game_id=game_id), metadata=md)
        assert secret not in str(view)
    events = npb_grpc.NotificationServiceStub(client.channel)
    for player in ("p0", "p1"):
        page = await events.ListPlayerEvents(
            npb.ListPlayerEventsRequest(player_id=player), metadata=client.app()
        )
        assert all(secret not in e.payload_json for e in page.events)
    # The match over (a player leaves: resigned), the players read what was said.
    await client.stub.LeaveGame(gpb.LeaveGameRequest(game_id=game_id), metadata=bia)
    assert await texts(client, ana, spectators) == [secret]


async def test_hostile_input_is_refused_and_nothing_is_kept(client: Client) -> None:
    game_id, (ana, _), watcher = await table(client)
    at = room(pb.ROOM_KIND_TABLE, game_id)
    other_game, _, _ = await table(client, prefix="q")
    for what, code, reason in (
        (dict(text="x" * 501), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        (dict(text="x" * 2001), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        (dict(text="bell\x07"), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        (dict(text="\u200b\u200d"), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        (dict(phrase="no-such-phrase"), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        (dict(), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
    ):
        await refused(send(client, ana, at, "h", **what), code, reason)
    await refused(
        send(client, ana, room(pb.ROOM_KIND_TABLE, other_game), "o", text="hi"),
        Code.PERMISSION_DENIED,
        "WRONG_GAME",
    )
    await refused(
        send(client, watcher, at, "w", text="from the stands"),
        Code.PERMISSION_DENIED,
        "CHAT_NOT_ALLOWED",
    )
    await refused(
        send(client, ana, pb.ChatRoom(id=game_id), "k", text="hi"),
        Code.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    assert await texts(client, ana, at) == []
    # A word hidden by an invisible character is whole again, and masked.
    masked = await send(client, ana, at, "m", text="que mer\u200bda de jogo")
    assert (masked.text, masked.filtered) == ("que *** de jogo", True)
    # A flood: five at once, then one a second; the refusal says how long to wait.
    for n in range(4):
        await send(client, ana, at, f"f{n}", text="spam")
    flood = await refused(
        send(client, ana, at, "f9", text="spam"), Code.RESOURCE_EXHAUSTED, "RATE_LIMITED"
    )
    assert int(error_info(flood).metadata["retry_after_ms"]) > 0
    assert len(await texts(client, ana, at)) == 5


async def test_friends_write_directly_and_a_block_stops_them(client: Client) -> None:
    sessions = spb_grpc.SessionServiceStub(client.channel)
    md: dict[str, Metadata] = {}
    for name in ("ana", "bia"):
        opened = await sessions.CreatePlayerSession(
            spb.CreatePlayerSessionRequest(player_id=name, display_name=name.title()),
            metadata=client.app(),
        )
        md[name] = bearer(opened.session.access_token)
    to_bia = room(pb.ROOM_KIND_DIRECT, "bia")
    await refused(
        send(client, md["ana"], to_bia, "1", text="oi"), Code.FAILED_PRECONDITION, "NOT_FRIENDS"
    )
    social = sopb_grpc.SocialServiceStub(client.channel)
    await social.AddFriend(sopb.AddFriendRequest(player_id="bia"), metadata=md["ana"])
    await social.AcceptFriend(sopb.AcceptFriendRequest(player_id="ana"), metadata=md["bia"])
    await send(client, md["ana"], to_bia, "1", text="oi, Bia")
    assert await texts(client, md["bia"], room(pb.ROOM_KIND_DIRECT, "ana")) == ["oi, Bia"]
    events = await npb_grpc.NotificationServiceStub(client.channel).ListPlayerEvents(
        npb.ListPlayerEventsRequest(), metadata=md["bia"]
    )
    told = [json.loads(e.payload_json) for e in events.events if e.kind == "direct_message"]
    assert [(t["from_player_id"], t["text"]) for t in told] == [("ana", "oi, Bia")]
    await social.BlockPlayer(sopb.BlockPlayerRequest(player_id="ana"), metadata=md["bia"])
    await refused(
        send(client, md["ana"], to_bia, "2", text="?"), Code.PERMISSION_DENIED, "CHAT_NOT_ALLOWED"
    )
    # The lobby: the app's room, a session's.
    await send(client, md["ana"], room(pb.ROOM_KIND_LOBBY, "main"), "l1", text="alguém para jogar?")
    await refused(
        send(client, md["ana"], room(pb.ROOM_KIND_LOBBY, "nowhere"), "l2", text="?"),
        Code.NOT_FOUND,
        "CHAT_ROOM_NOT_FOUND",
    )
    phrases = await chat(client).ListQuickPhrases(
        pb.ListQuickPhrasesRequest(locale="pt-BR"), metadata=md["ana"]
    )
    assert ("going_out", "Vou bater") in [(p.id, p.text) for p in phrases.phrases]


async def test_across_two_replicas_a_message_is_read_on_the_other_and_kept_once(
    replicas: list[Running],
) -> None:
    async with (
        app_client(replicas[0]) as first,
        grpc.aio.insecure_channel(f"127.0.0.1:{replicas[1].port}") as channel,
    ):
        second = Client(channel, first.api_key)
        game_id, (ana, _), watcher = await table(first)
        at = room(pb.ROOM_KIND_TABLE, game_id)
        stream = chat(second).WatchChat(pb.WatchChatRequest(room=at), metadata=watcher)
        # One message sent to both replicas at once, three times over: kept once.
        sent = await asyncio.gather(
            *(send(c, ana, at, "same", text="uma vez") for c in (first, second) for _ in range(3))
        )
        assert len({m.id for m in sent}) == 1
        await send(first, ana, at, "next", text="duas")
        got = []
        async for update in stream:
            got.append(update.message.text)
            if len(got) == 2:
                break
        stream.cancel()
        assert got == ["uma vez", "duas"]
