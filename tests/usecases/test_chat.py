"""Chat (services/chat.py), against the fakes: a table's players and spectators in
their rooms (the spectators held away from the players of a rated table until the
match is over), the table's chat mode, lobby rooms and direct messages between
friends, a message kept once by its client id, edits and deletes by the author
within the window, the filter, and the limits."""

from __future__ import annotations

import asyncio

import pytest

from tranca.platform.chat import EDIT_WINDOW_MS, RoomKind
from tranca.platform.friendships import Operation
from tranca.services.access import Credentials
from tranca.services.chat import Chat, ChatMessage, RoomRef
from tranca.services.errors import Refused
from tranca.services.friends import Friends
from tranca.services.games import Joining
from tranca.services.limits import WatchCounts
from tranca.services.policy import AppPolicy
from tranca.table.game import TableOptions

from .conftest import World
from .fakes import ChatMemory, FriendsMemory
from .fakes.hub import hub_thrice


def masking(text: str) -> tuple[str, bool]:
    """A screen of the tests' own: "darn" is the one bad word."""
    shown = " ".join("***" if w.lower() == "darn" else w for w in text.split())
    return shown, shown != text


@pytest.fixture
def friends_store(world: World) -> FriendsMemory:
    return FriendsMemory(world.repo.sessions)


@pytest.fixture
def store(world: World, friends_store: FriendsMemory) -> ChatMemory:
    return ChatMemory(world.repo, friends_store)


@pytest.fixture
def chat(world: World, store: ChatMemory) -> Chat:
    return Chat(
        world.access,
        store,
        world.repo,
        masking,
        lambda: world.repo.now,
        WatchCounts(4, 10),
        *hub_thrice(),
        poll_seconds=0.01,
    )


async def refused(reason: str, call: object) -> Refused:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.reason == reason, caught.value.message
    return caught.value


async def table(
    world: World, *, competitive: bool = False, players: int = 2, chat: str = ""
) -> tuple[str, list[Credentials], Credentials]:
    """A started table, its seats' credentials, and a spectator's."""
    options = TableOptions(competitive=competitive, chat=chat)
    game_id = await world.table(players=players, table=options, spectators=True)
    seats = []
    for seat in range(players):
        seated = await world.games.join(
            world.as_app(), game_id, Joining(seat, f"P{seat}", player_id=f"id{seat}")
        )
        seats.append(World.as_player(seated.token))
    await world.games.start(world.as_app(), game_id)
    watcher = await world.games.join(
        world.as_app(), game_id, Joining(-1, "Watcher", spectator=True)
    )
    return game_id, seats, World.as_player(watcher.token)


async def test_players_talk_at_their_table_and_spectators_read_them(
    world: World, chat: Chat
) -> None:
    game_id, (ana, bia), watcher = await table(world)
    room = RoomRef(RoomKind.TABLE, game_id)
    sent = await chat.post(ana, room, "m1", text="Boa   sorte!")
    assert (sent.id, sent.text, sent.author_id, sent.seat) == (1, "Boa sorte!", "id0", 0)
    await chat.post(bia, room, "m1", phrase="thanks")
    for reader in (ana, bia, watcher):
        page = await chat.history(reader, room, 0, 0)
        assert [(m.kind, m.text or m.phrase) for m in page.messages] == [
            ("text", "Boa sorte!"),
            ("phrase", "thanks"),
        ]
    # A spectator writes in the spectators' room, never the players'.
    await refused("CHAT_NOT_ALLOWED", chat.post(watcher, room, "w1", text="oi"))


async def test_a_rated_tables_spectators_are_held_away_from_its_players(
    world: World, chat: Chat
) -> None:
    game_id, (ana, _), watcher = await table(world, competitive=True)
    spectators = RoomRef(RoomKind.SPECTATORS, game_id)
    await chat.post(watcher, spectators, "w1", text="the ace is in seat 1")
    await refused("SPECTATOR_CHAT_HELD", chat.history(ana, spectators, 0, 0))
    with pytest.raises(Refused) as held:
        async for _ in chat.watch(ana, spectators, 0):
            pass
    assert held.value.reason == "SPECTATOR_CHAT_HELD"
    await refused("CHAT_NOT_ALLOWED", chat.post(ana, spectators, "a1", text="hi"))


async def test_a_practice_tables_players_read_their_spectators(world: World, chat: Chat) -> None:
    game_id, (ana, _), watcher = await table(world)
    spectators = RoomRef(RoomKind.SPECTATORS, game_id)
    await chat.post(watcher, spectators, "w1", text="go!")
    assert [m.text for m in (await chat.history(ana, spectators, 0, 0)).messages] == ["go!"]


async def test_a_rated_partnership_table_chats_in_quick_phrases_by_default(
    world: World, chat: Chat
) -> None:
    game_id, seats, _ = await table(world, competitive=True, players=4)
    room = RoomRef(RoomKind.TABLE, game_id)
    await refused("CHAT_PHRASES_ONLY", chat.post(seats[0], room, "a", text="I hold two aces"))
    assert (await chat.post(seats[0], room, "b", phrase="going_out")).phrase == "going_out"
    off, (one, _), _ = await table(world, chat="off")
    await refused(
        "CHAT_NOT_ALLOWED", chat.post(one, RoomRef(RoomKind.TABLE, off), "c", phrase="nice")
    )
    free, quads, _ = await table(world, competitive=True, players=4, chat="free")
    assert (await chat.post(quads[0], RoomRef(RoomKind.TABLE, free), "d", text="ok")).text == "ok"


async def test_a_message_sent_twice_is_kept_once(
    world: World, chat: Chat, store: ChatMemory
) -> None:
    game_id, (ana, _), _ = await table(world)
    room = RoomRef(RoomKind.TABLE, game_id)
    first = await chat.post(ana, room, "same-id", text="hello")
    again = await chat.post(ana, room, "same-id", text="hello")
    assert again == first
    assert len(store.rows[(world.app.id, f"table:{game_id}")]) == 1


async def test_text_is_cleaned_and_screened_before_it_is_kept(world: World, chat: Chat) -> None:
    game_id, (ana, _), _ = await table(world)
    room = RoomRef(RoomKind.TABLE, game_id)
    hidden = await chat.post(ana, room, "z", text="d\u200barn it")
    assert (hidden.text, hidden.filtered) == ("*** it", True)
    for bad in ("", "   ", "a\x07b", "x" * 501):
        await refused("MALFORMED_REQUEST", chat.post(ana, room, f"bad{len(bad)}", text=bad))
    await refused("MALFORMED_REQUEST", chat.post(ana, room, "p", phrase="nonsense"))
    await refused("MALFORMED_REQUEST", chat.post(ana, room, "both", text="a", phrase="nice"))
    await refused("MALFORMED_REQUEST", chat.post(ana, room, "", text="no id"))


async def test_the_author_edits_and_deletes_within_the_window(world: World, chat: Chat) -> None:
    game_id, (ana, bia), _ = await table(world)
    room = RoomRef(RoomKind.TABLE, game_id)
    sent = await chat.post(ana, room, "m", text="helo")
    edit = await chat.amend(ana, room, sent.id, "hello")
    assert (edit.kind, edit.target_id, edit.text) == ("edit", sent.id, "hello")
    await refused("NOT_YOUR_MESSAGE", chat.amend(bia, room, sent.id, None))
    await refused("MESSAGE_NOT_FOUND", chat.amend(ana, room, 99, None))
    later = await chat.post(ana, room, "n", text="late")
    world.repo.now += EDIT_WINDOW_MS + 1
    await refused("EDIT_WINDOW_PASSED", chat.amend(ana, room, later.id, None))
    history = (await chat.history(bia, room, 0, 0)).messages
    assert [(m.text, m.edited_ms > 0) for m in history] == [("hello", True), ("late", False)]
    # A reader sees its own client ids only.
    assert [m.client_id for m in history] == ["", ""]


async def test_direct_messages_go_between_friends_and_tell_the_receiver(
    world: World, chat: Chat, store: ChatMemory, friends_store: FriendsMemory
) -> None:
    opened = [await world.sessions.create(world.as_app(), p, p.title()) for p in ("ana", "bia")]
    ana, bia = (Credentials(token=o.access_token) for o in opened)
    friends = Friends(world.access, friends_store, world.repo, lambda: world.repo.now)
    to_bia = RoomRef(RoomKind.DIRECT, "bia")
    await refused("NOT_FRIENDS", chat.post(ana, to_bia, "1", text="hi"))
    await friends.change(ana, Operation.ADD, "bia")
    await friends.change(bia, Operation.ACCEPT, "ana")
    sent = await chat.post(ana, to_bia, "1", text="hi")
    back = await chat.history(bia, RoomRef(RoomKind.DIRECT, "ana"), 0, 0)
    assert [m.id for m in back.messages] == [sent.id]
    (told,) = store.events
    assert (told[1].player_id, told[1].kind, told[1].payload["text"]) == (
        "bia",
        "direct_message",
        "hi",
    )
    await friends.change(bia, Operation.BLOCK, "ana")
    await refused("CHAT_NOT_ALLOWED", chat.post(ana, to_bia, "2", text="hello?"))


async def test_lobby_rooms_are_the_apps_and_take_sessions(world: World, chat: Chat) -> None:
    await world.sessions.set_policy(world.as_app(), AppPolicy(lobby_rooms=("geral", "torneios")))
    opened = await world.sessions.create(world.as_app(), "ana", "Ana")
    ana = Credentials(token=opened.access_token)
    sent = await chat.post(ana, RoomRef(RoomKind.LOBBY, "geral"), "1", text="alguém?")
    assert sent.author_name == "Ana"
    await refused(
        "CHAT_ROOM_NOT_FOUND", chat.post(ana, RoomRef(RoomKind.LOBBY, "main"), "2", text="x")
    )
    # The app's key reads the room; a seat's token is not a session.
    page = await chat.history(world.as_app(), RoomRef(RoomKind.LOBBY, "geral"), 0, 0)
    assert [m.text for m in page.messages] == ["alguém?"]
    _, (seat, _), _ = await table(world)
    await refused(
        "SESSION_TOKEN_REQUIRED", chat.post(seat, RoomRef(RoomKind.LOBBY, "geral"), "3", text="x")
    )


async def test_a_flood_is_refused_with_a_time_to_wait(world: World, chat: Chat) -> None:
    game_id, (ana, _), _ = await table(world)
    room = RoomRef(RoomKind.TABLE, game_id)
    for n in range(5):
        await chat.post(ana, room, f"f{n}", text="spam")
    error = await refused("RATE_LIMITED", chat.post(ana, room, "f5", text="spam"))
    assert int(error.metadata["retry_after_ms"]) > 0


async def test_a_watch_follows_the_room_from_an_id(world: World, chat: Chat) -> None:
    game_id, (ana, bia), _ = await table(world)
    room = RoomRef(RoomKind.TABLE, game_id)
    await chat.post(ana, room, "1", text="one")
    seen: list[str] = []

    async def follow() -> None:
        async for m in chat.watch(bia, room, 0):
            seen.append(m.text)
            if len(seen) == 2:
                return

    task = asyncio.create_task(follow())
    await asyncio.sleep(0.02)
    await chat.post(ana, room, "2", text="two")
    await asyncio.wait_for(task, 2)
    assert seen == ["one", "two"]


async def test_watchers_of_a_room_woken_together_share_one_read(
    world: World, store: ChatMemory
) -> None:
    # Woken by the hint alone: no timer read comes between.
    chat = Chat(
        world.access,
        store,
        world.repo,
        masking,
        lambda: world.repo.now,
        WatchCounts(4, 10),
        *hub_thrice(),
        poll_seconds=60,
    )
    game_id, (ana, bia), watcher = await table(world)
    room = RoomRef(RoomKind.TABLE, game_id)
    reads: list[int] = []
    read = store.messages

    async def counted(*args: object) -> list[ChatMessage]:
        reads.append(1)
        await asyncio.sleep(0.01)  # long enough for every woken watcher to ask
        return await read(*args)  # type: ignore[arg-type]

    store.messages = counted  # type: ignore[method-assign,assignment]
    got: dict[str, list[str]] = {"bia": [], "watcher": []}

    async def follow(who: str, creds: Credentials) -> None:
        async for m in chat.watch(creds, room, 0):
            got[who].append(m.text)
            return

    tasks = [
        asyncio.create_task(follow("bia", bia)),
        asyncio.create_task(follow("watcher", watcher)),
    ]
    await asyncio.sleep(0.05)
    reads.clear()
    await chat.post(ana, room, "1", text="olá")
    await asyncio.wait_for(asyncio.gather(*tasks), 2)
    assert got == {"bia": ["olá"], "watcher": ["olá"]}
    assert len(reads) == 1
