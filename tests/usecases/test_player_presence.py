"""Players' presence (services/player_presence.py), against the fakes: a player seen
by their session's calls, their seat's calls and their open event stream (written at
most once per interval, best effort); online, away and offline as time passes;
away by choice; who sees it by the player's choice (friends, everyone, nobody),
never a player they blocked; the tables they hold a seat at; the app's key acting
for a player; and ListFriends showing each friend's presence."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import cast

import pytest

from tranca.platform.friendships import Operation
from tranca.platform.presence import AWAY_WINDOW_MS, ONLINE_WINDOW_MS, Status, Table, Visibility
from tranca.services.access import Credentials
from tranca.services.errors import Refused
from tranca.services.friends import Friends
from tranca.services.games import Joining
from tranca.services.limits import WatchCounts
from tranca.services.notifications import Notifications, StoredEvent
from tranca.services.player_presence import PlayerPresence, PresenceChange, Sightings
from tranca.table.events import Event, EventKind

from .conftest import World
from .fakes import FriendsMemory, PresenceMemory


class Monotonic:
    """The sightings' throttle clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def friends_store(world: World) -> FriendsMemory:
    return FriendsMemory(world.repo.sessions)


@pytest.fixture
def store(world: World, friends_store: FriendsMemory) -> PresenceMemory:
    return PresenceMemory(world.repo, friends_store)


@pytest.fixture
def tick() -> Monotonic:
    return Monotonic()


@pytest.fixture
def presence(world: World, store: PresenceMemory, tick: Monotonic) -> PlayerPresence:
    world.access.sightings = Sightings(store, lambda: world.repo.now, monotonic=tick)
    return PlayerPresence(world.access, store, world.repo, lambda: world.repo.now)


@pytest.fixture
def friends(world: World, friends_store: FriendsMemory, presence: PlayerPresence) -> Friends:
    return Friends(
        world.access, friends_store, world.repo, lambda: world.repo.now, presence=presence
    )


async def session(world: World, player_id: str) -> Credentials:
    opened = await world.sessions.create(world.as_app(), player_id, player_id.title())
    return Credentials(token=opened.access_token, peer=lambda: "198.51.100.1")


async def befriend(friends: Friends, a: Credentials, b: Credentials, a_id: str, b_id: str) -> None:
    await friends.change(a, Operation.ADD, b_id)
    await friends.change(b, Operation.ACCEPT, a_id)


async def status_of(presence: PlayerPresence, viewer: Credentials, player_id: str) -> Status | None:
    (shown,) = await presence.get(viewer, "", [player_id])
    return shown.status if shown.visible else None


async def refused(reason: str, call: object) -> None:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.reason == reason, caught.value.message


async def test_a_friend_seen_now_is_online_then_away_then_offline(
    world: World, presence: PlayerPresence, friends: Friends, tick: Monotonic
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    await befriend(friends, ana, bia, "ana", "bia")
    seen_at = world.repo.now
    assert await status_of(presence, ana, "bia") == Status.ONLINE
    (shown,) = await presence.get(ana, "", ["bia"])
    assert shown.last_seen_ms == seen_at
    world.repo.now += ONLINE_WINDOW_MS + 1
    tick.now += 100  # Ana keeps calling: she is seen again, Bia is not
    assert await status_of(presence, ana, "bia") == Status.AWAY
    world.repo.now += AWAY_WINDOW_MS
    tick.now += 1000
    assert await status_of(presence, ana, "bia") == Status.OFFLINE
    # Bia calls again: she is back.
    await presence.get(bia, "", ["bia"])
    assert await status_of(presence, ana, "bia") == Status.ONLINE


async def test_a_player_is_written_once_per_interval_and_a_failed_write_is_retried(
    world: World, presence: PlayerPresence, store: PresenceMemory, tick: Monotonic
) -> None:
    ana = await session(world, "ana")
    for _ in range(5):
        await presence.get(ana, "", ["ana"])
    assert [p for _, p, _ in store.sightings] == ["ana"]
    tick.now += 15.0
    store.down = True
    # The database cannot take it: the call goes on, nothing is remembered as written.
    (mine,) = await presence.get(ana, "", ["ana"])
    assert mine.visible
    store.down = False
    await presence.get(ana, "", ["ana"])
    assert [p for _, p, _ in store.sightings] == ["ana", "ana"]


async def test_who_sees_it_is_the_players_choice(
    world: World, presence: PlayerPresence, friends: Friends
) -> None:
    ana, bia, caio = [await session(world, n) for n in ("ana", "bia", "caio")]
    await befriend(friends, ana, bia, "ana", "bia")
    # Friends by default: Bia sees Ana, Caio (no friend) does not.
    assert await status_of(presence, bia, "ana") == Status.ONLINE
    assert await status_of(presence, caio, "ana") is None
    mine = await presence.set(ana, "", PresenceChange(visibility=Visibility.EVERYONE))
    assert mine.visibility == Visibility.EVERYONE
    assert await status_of(presence, caio, "ana") == Status.ONLINE
    await presence.set(ana, "", PresenceChange(visibility=Visibility.NOBODY))
    assert await status_of(presence, bia, "ana") is None
    assert await status_of(presence, caio, "ana") is None
    # Her own, always, with her choices.
    (own,) = await presence.get(ana, "", ["ana"])
    assert (own.visible, own.status, own.visibility) == (True, Status.ONLINE, Visibility.NOBODY)


async def test_a_blocked_player_never_sees_the_blocker_and_cannot_tell(
    world: World, presence: PlayerPresence, friends: Friends
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    await befriend(friends, ana, bia, "ana", "bia")
    await presence.set(ana, "", PresenceChange(visibility=Visibility.EVERYONE))
    await friends.change(ana, Operation.BLOCK, "bia")
    (hidden, unknown) = await presence.get(bia, "", ["ana", "nobody-at-all"])
    assert not hidden.visible and hidden.status is None and hidden.last_seen_ms == 0
    # The same answer as for an id the app never had: nothing tells Bia of the block.
    assert (hidden.visible, hidden.tables) == (unknown.visible, unknown.tables)
    # The blocker still sees the player she blocked, where that player's choice allows.
    await presence.set(bia, "", PresenceChange(visibility=Visibility.EVERYONE))
    assert await status_of(presence, ana, "bia") == Status.ONLINE


async def test_away_by_choice_shows_away_while_seen(
    world: World, presence: PlayerPresence, friends: Friends
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    await befriend(friends, ana, bia, "ana", "bia")
    mine = await presence.set(bia, "", PresenceChange(away=True))
    assert (mine.away, mine.status) == (True, Status.AWAY)
    assert await status_of(presence, ana, "bia") == Status.AWAY
    (seen_by_ana,) = await presence.get(ana, "", ["bia"])
    assert seen_by_ana.away is False and seen_by_ana.visibility is None  # hers alone
    await presence.set(bia, "", PresenceChange(away=False))
    assert await status_of(presence, ana, "bia") == Status.ONLINE


async def test_the_tables_a_player_sits_at_and_their_seat_calls_see_them(
    world: World,
    presence: PlayerPresence,
    friends: Friends,
    store: PresenceMemory,
    tick: Monotonic,
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    await befriend(friends, ana, bia, "ana", "bia")
    watched = await world.table(spectators=True)
    seated = await world.games.join(world.as_app(), watched, Joining(0, "Bia", player_id="bia"))
    (shown,) = await presence.get(ana, "", ["bia"])
    assert shown.tables == (Table(watched, True, False),)
    # A call with her seat's token sees her (she has no session call of her own here).
    store.sightings.clear()
    tick.now += 20.0
    await world.games.view(World.as_player(seated.token), watched)
    assert [p for _, p, _ in store.sightings] == ["bia"]
    # Left: no longer hers.
    await world.games.leave(World.as_player(seated.token), watched, "leave-1")
    (after,) = await presence.get(ana, "", ["bia"])
    assert after.tables == ()


async def test_an_open_event_stream_keeps_its_player_seen(
    world: World, presence: PlayerPresence, store: PresenceMemory, tick: Monotonic
) -> None:
    ana = await session(world, "ana")
    notifications = Notifications(
        world.repo, world.access, world.notes, WatchCounts(4, 4), poll_seconds=0.01
    )
    stream = cast(AsyncGenerator[StoredEvent, None], notifications.watch(ana, "", 0))
    await notifications.publish(world.app.id, [Event("ana", EventKind.INVITED, None, {})])
    await anext(stream)
    assert len(store.sightings) == 1
    tick.now += 16.0  # the stream stays open past the interval
    world.repo.now += 16_000
    later = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.05)
    await notifications.publish(world.app.id, [Event("ana", EventKind.INVITED, None, {})])
    await asyncio.wait_for(later, 2)
    await stream.aclose()
    assert [at for _, _, at in store.sightings][-1] == world.repo.now
    assert len(store.sightings) == 2


async def test_the_apps_key_acts_for_a_player(
    world: World, presence: PlayerPresence, store: PresenceMemory
) -> None:
    await session(world, "ana")
    store.rows.clear()
    await refused("MALFORMED_REQUEST", presence.get(world.as_app(), "", ["ana"]))
    quiet = await presence.set(world.as_app(), "ana", PresenceChange(away=True))
    assert (quiet.status, quiet.away) == (Status.OFFLINE, True)  # a setting is no sighting
    here = await presence.set(world.as_app(), "ana", PresenceChange(seen=True))
    assert (here.status, here.last_seen_ms) == (Status.AWAY, world.repo.now)
    (own,) = await presence.get(world.as_app(), "ana", ["ana"])
    assert own.visible and own.away


async def test_what_a_request_may_ask(world: World, presence: PlayerPresence) -> None:
    ana = await session(world, "ana")
    await refused("MALFORMED_REQUEST", presence.get(ana, "", []))
    await refused("MALFORMED_REQUEST", presence.get(ana, "", [f"p{n}" for n in range(101)]))
    await refused("MALFORMED_REQUEST", presence.get(ana, "", ["x" * 129]))
    await refused("MALFORMED_REQUEST", presence.get(ana, "", [""]))
    await refused("NOT_YOUR_PLAYER", presence.get(ana, "bia", ["ana"]))
    twice = await presence.get(ana, "", ["bia", "ana", "bia"])
    assert [s.player_id for s in twice] == ["bia", "ana"]
    _, tokens = await world.seated()
    await refused("SESSION_TOKEN_REQUIRED", presence.get(World.as_player(tokens[0]), "", ["ana"]))


async def test_the_friends_list_shows_each_friends_presence(
    world: World, presence: PlayerPresence, friends: Friends
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    await session(world, "caio")
    await befriend(friends, ana, bia, "ana", "bia")
    await friends.change(ana, Operation.ADD, "caio")  # a request, no friend yet
    page = await friends.list(ana, "", frozenset(), 0, "")
    shown = {r.player_id: r.presence for r in page.relationships}
    assert shown["bia"] is not None and shown["bia"].status == Status.ONLINE
    assert shown["caio"] is not None and not shown["caio"].visible


async def test_served_sightings_wait_for_no_write_and_go_in_one_batch(world: World) -> None:
    store = PresenceMemory(world.repo, FriendsMemory(world.repo.sessions))
    sightings = Sightings(store, lambda: world.repo.now, batch_seconds=1.0)
    for player in ("ana", "bia", "ana"):
        await sightings.seen(world.app.id, player, batched=True)
    assert store.sightings == []  # no seat's call waited for a write
    assert await sightings.flush() == 2
    assert sorted(p for _, p, _ in store.sightings) == ["ana", "bia"]
    assert await sightings.flush() == 0
    # A session's call writes its own at once.
    await sightings.seen(world.app.id, "caio")
    assert [p for _, p, _ in store.sightings][-1] == "caio"
