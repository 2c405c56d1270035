"""Friends and blocks (services/friends.py), against the fakes: who acts (a session
for itself, the app's key for the player it names, never a seat's token), the other
player checked, each change told to both sides (a block never told), the answers
idempotent, the caps, and the list paged by the other player's id."""

from __future__ import annotations

import pytest

from tranca.platform.friendships import MAX_PENDING_SENT, Operation, Relation
from tranca.services.access import Credentials
from tranca.services.errors import Refusal, Refused
from tranca.services.friends import Friends
from tranca.services.policy import AppPolicy

from .conftest import World
from .fakes import FriendsMemory


@pytest.fixture
def store(world: World) -> FriendsMemory:
    return FriendsMemory(world.repo.sessions)


@pytest.fixture
def friends(world: World, store: FriendsMemory) -> Friends:
    return Friends(world.access, store, world.repo, lambda: world.repo.now)


async def session(world: World, player_id: str) -> Credentials:
    opened = await world.sessions.create(world.as_app(), player_id, player_id.title())
    return Credentials(token=opened.access_token, peer=lambda: "198.51.100.1")


async def refused(reason: str, call: object) -> Refused:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.reason == reason, caught.value.message
    return caught.value


def told(store: FriendsMemory) -> list[tuple[str, str, str, str]]:
    return [
        (e.player_id, e.payload["player_id"], e.payload["change"], e.payload["relation"])
        for _, e in store.events
    ]


async def test_a_request_accepted_tells_both_players_each_step(
    world: World, friends: Friends, store: FriendsMemory
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    sent = await friends.change(ana, Operation.ADD, "bia")
    assert (sent.relationship.relation, sent.changed) == (Relation.REQUEST_SENT, True)
    assert sent.relationship.profile is not None and sent.relationship.profile.display_name == "Bia"
    accepted = await friends.change(bia, Operation.ACCEPT, "ana")
    assert accepted.relationship.relation == Relation.FRIEND
    assert told(store) == [
        ("ana", "bia", "requested", "request_sent"),
        ("bia", "ana", "requested", "request_received"),
        ("bia", "ana", "accepted", "friend"),
        ("ana", "bia", "accepted", "friend"),
    ]


async def test_asking_again_changes_nothing_and_tells_no_one(
    world: World, friends: Friends, store: FriendsMemory
) -> None:
    ana = await session(world, "ana")
    await session(world, "bia")
    await friends.change(ana, Operation.ADD, "bia")
    again = await friends.change(ana, Operation.ADD, "bia")
    assert (again.relationship.relation, again.changed) == (Relation.REQUEST_SENT, False)
    nothing = await friends.change(ana, Operation.UNBLOCK, "bia")
    assert nothing.changed is False
    assert len(store.events) == 2


async def test_a_blocked_player_is_told_of_a_removal_only_and_cannot_ask(
    world: World, friends: Friends, store: FriendsMemory
) -> None:
    ana, bia = await session(world, "ana"), await session(world, "bia")
    await friends.change(bia, Operation.ADD, "ana")
    store.events.clear()
    await friends.change(ana, Operation.BLOCK, "bia")
    assert told(store) == [("ana", "bia", "blocked", "blocked"), ("bia", "ana", "removed", "none")]
    await refused("FRIEND_REQUEST_REFUSED", friends.change(bia, Operation.ADD, "ana"))
    await refused("PLAYER_BLOCKED", friends.change(ana, Operation.ADD, "bia"))
    # A block of a player with no relation tells them nothing at all.
    await session(world, "cid")
    store.events.clear()
    await friends.change(ana, Operation.BLOCK, "cid")
    assert told(store) == [("ana", "cid", "blocked", "blocked")]


async def test_who_acts_is_the_sessions_player_or_the_one_the_app_names(
    world: World, friends: Friends
) -> None:
    ana = await session(world, "ana")
    await session(world, "bia")
    await refused("NOT_YOUR_PLAYER", friends.change(ana, Operation.ADD, "bia", acting="bia"))
    await refused("MALFORMED_REQUEST", friends.change(world.as_app(), Operation.ADD, "bia"))
    by_app = await friends.change(world.as_app(), Operation.ADD, "bia", acting="ana")
    assert by_app.relationship.relation == Relation.REQUEST_SENT
    _, tokens = await world.seated()
    seat = World.as_player(tokens[0])
    await refused("SESSION_TOKEN_REQUIRED", friends.change(seat, Operation.ADD, "bia"))


async def test_the_other_player_is_checked_before_anything_is_written(
    world: World, friends: Friends, store: FriendsMemory
) -> None:
    ana = await session(world, "ana")
    for other, reason in (
        ("", "MALFORMED_REQUEST"),
        ("ana", "MALFORMED_REQUEST"),
        ("x" * 129, "MALFORMED_REQUEST"),
        ("erased-0123456789abcdef", "MALFORMED_REQUEST"),
        ("nobody", "PLAYER_NOT_FOUND"),
    ):
        await refused(reason, friends.change(ana, Operation.ADD, other))
    assert store.sides == {} and store.events == []


async def test_requests_waiting_are_capped(world: World, friends: Friends) -> None:
    ana = await session(world, "ana")
    for n in range(MAX_PENDING_SENT):
        await world.sessions.create(world.as_app(), f"p{n:03d}", "P")
        await friends.change(ana, Operation.ADD, f"p{n:03d}")
    await world.sessions.create(world.as_app(), "last", "Last")
    error = await refused("FRIEND_LIMIT_REACHED", friends.change(ana, Operation.ADD, "last"))
    assert error.kind == Refusal.EXHAUSTED


async def test_the_app_chooses_mutual_follow(world: World, friends: Friends) -> None:
    await world.sessions.set_policy(world.as_app(), AppPolicy(friend_model="mutual_follow"))
    ana, bia = await session(world, "ana"), await session(world, "bia")
    await friends.change(ana, Operation.ADD, "bia")
    await friends.change(bia, Operation.ADD, "ana")
    removed = await friends.change(ana, Operation.REMOVE, "bia")
    assert removed.relationship.relation == Relation.REQUEST_RECEIVED  # Bia still follows


async def test_the_list_pages_by_the_other_players_id(world: World, friends: Friends) -> None:
    ana = await session(world, "ana")
    for name in ("zeca", "bia", "caio", "duda"):
        await session(world, name)
        await friends.change(ana, Operation.ADD, name)
    await friends.change(ana, Operation.BLOCK, "caio")
    first = await friends.list(ana, "", frozenset(), 2, "")
    assert [r.player_id for r in first.relationships] == ["bia", "caio"]
    second = await friends.list(ana, "", frozenset(), 2, first.next_page_token)
    assert [r.player_id for r in second.relationships] == ["duda", "zeca"]
    assert second.next_page_token == ""
    blocked = await friends.list(ana, "", frozenset({Relation.BLOCKED}), 0, "")
    assert [(r.player_id, r.relation) for r in blocked.relationships] == [
        ("caio", Relation.BLOCKED)
    ]
    for token in ("50", "YmlhCh", "=", "!!", "YmlhYQ=="):
        await refused("MALFORMED_REQUEST", friends.list(ana, "", frozenset(), 2, token))
