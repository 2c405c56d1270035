"""Invitations to a table (services/invitations.py), against the fakes: the owner
recorded; who invites (a seated player or the owner, by a session or the app's key)
and whom (friends, or anyone by the policy; never across a block); an invitation that
expires with time or with its table; an acceptance that fails as a join fails and
leaves the invitation pending; the caps; and answers only the right player gives."""

from __future__ import annotations

import pytest

from tranca.platform.friendships import Operation
from tranca.platform.invitations import MAX_PENDING_SENT, InvitationKind, Status
from tranca.services.access import Credentials
from tranca.services.errors import Refused
from tranca.services.friends import Friends
from tranca.services.games import Joining, NewTable
from tranca.services.invitations import Direction, Invitations
from tranca.services.policy import AppPolicy
from tranca.table.game import TableOptions

from .conftest import World
from .fakes import FriendsMemory, InvitationsMemory

MINUTE = 60_000


@pytest.fixture
def friends_store(world: World) -> FriendsMemory:
    return FriendsMemory(world.repo.sessions)


@pytest.fixture
def store(world: World, friends_store: FriendsMemory) -> InvitationsMemory:
    made = InvitationsMemory(world.repo.games, friends_store, lambda: world.repo.now)
    world.games.guests = made  # the private tables' admission
    return made


@pytest.fixture
def invitations(world: World, store: InvitationsMemory) -> Invitations:
    return Invitations(world.access, store, world.games, world.repo, lambda: world.repo.now)


@pytest.fixture
def friends(world: World, friends_store: FriendsMemory) -> Friends:
    return Friends(world.access, friends_store, world.repo, lambda: world.repo.now)


async def session(world: World, player_id: str) -> Credentials:
    opened = await world.sessions.create(world.as_app(), player_id, player_id.title())
    return Credentials(token=opened.access_token, peer=lambda: "198.51.100.1")


async def befriend(friends: Friends, one: Credentials, other: Credentials, ids: str) -> None:
    first, second = ids.split()
    await friends.change(one, Operation.ADD, second)
    await friends.change(other, Operation.ACCEPT, first)


async def own_table(world: World, owner: Credentials, *, private: bool = True) -> str:
    game, _ = await world.games.create(
        owner, NewTable("tranca-000", {}, 2, TableOptions(private=private), spectators_allowed=True)
    )
    await world.games.join(owner, game.id, Joining(seat=-1))
    return game.id


async def refused(reason: str, call: object) -> Refused:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.reason == reason, caught.value.message
    return caught.value


async def test_a_sessions_table_is_its_players_and_an_app_names_an_owner(
    world: World, store: InvitationsMemory
) -> None:
    ana = await session(world, "ana")
    gid = await own_table(world, ana)
    assert await store.owner_of(gid) == "ana"
    made, _ = await world.games.create(
        world.as_app(), NewTable("tranca-000", {}, 2, TableOptions(), owner_id="bia")
    )
    assert await store.owner_of(made.id) == "bia"
    plain = await world.table()
    assert await store.owner_of(plain) is None
    await refused(
        "NOT_YOUR_PLAYER",
        world.games.create(ana, NewTable("tranca-000", {}, 2, TableOptions(), owner_id="bia")),
    )


async def test_an_invitation_expires_with_time_and_then_changes_nothing(
    world: World, invitations: Invitations, store: InvitationsMemory
) -> None:
    await world.sessions.set_policy(world.as_app(), AppPolicy(invitations="anyone"))
    ana, bia = await session(world, "ana"), await session(world, "bia")
    gid = await own_table(world, ana)
    made = await invitations.invite(ana, gid, "bia", InvitationKind.SEAT, 60)
    assert made.invitation.record.expires_ms == world.repo.now + MINUTE
    # Pending, it admits her to the private table (to watch too).
    assert await store.admitted(world.app.id, gid, "bia", spectator=True)
    world.repo.now += MINUTE
    invitation_id = made.invitation.record.id
    await refused("INVITATION_EXPIRED", invitations.accept(bia, invitation_id))
    await refused("INVITATION_EXPIRED", invitations.decline(bia, invitation_id))
    assert store.rows[invitation_id].status == Status.PENDING  # nothing written
    assert [e.payload["change"] for e in store.events] == ["invited"]
    page = await invitations.list(bia, "", Direction.RECEIVED, Status.EXPIRED, 0, "")
    assert [i.status for i in page.invitations] == [Status.EXPIRED]
    assert (
        await invitations.list(bia, "", Direction.BOTH, Status.PENDING, 0, "")
    ).invitations == ()
    # No longer admitted; a new invitation may be made.
    assert not await store.admitted(world.app.id, gid, "bia", spectator=False)
    again = await invitations.invite(ana, gid, "bia", InvitationKind.SEAT, 0)
    assert again.changed and again.invitation.record.id != invitation_id


async def test_the_app_key_invites_for_a_seated_player_by_its_policy(
    world: World, invitations: Invitations, store: InvitationsMemory
) -> None:
    await session(world, "ana")
    await session(world, "bia")
    gid = await world.table()
    await world.games.join(world.as_app(), gid, Joining(0, "Ana", player_id="ana"))
    await refused(
        "NOT_FRIENDS",
        invitations.invite(world.as_app(), gid, "bia", InvitationKind.SEAT, 0, acting="ana"),
    )
    await world.sessions.set_policy(world.as_app(), AppPolicy(invitations="anyone"))
    made = await invitations.invite(world.as_app(), gid, "bia", InvitationKind.SEAT, 0, "ana")
    await refused(
        "NOT_AT_TABLE",
        invitations.invite(world.as_app(), gid, "ana", InvitationKind.SEAT, 0, acting="bia"),
    )
    # The app's key accepts for her: her profile's name on the seat.
    accepted = await invitations.accept(world.as_app(), made.invitation.record.id, "bia")
    assert accepted.seated.seat == 1 and accepted.changed
    assert world.repo.games[gid].state.seats[1].player_id == "bia"
    await refused(
        "INVITATION_ANSWERED",
        invitations.accept(world.as_app(), made.invitation.record.id, "bia"),
    )
    assert [(e.player_id, e.payload["change"]) for e in store.events] == [
        ("bia", "invited"),
        ("ana", "accepted"),
    ]


async def test_an_acceptance_refused_as_a_join_leaves_the_invitation_pending(
    world: World, invitations: Invitations, friends: Friends, store: InvitationsMemory
) -> None:
    ana, bia, cid = [await session(world, p) for p in ("ana", "bia", "cid")]
    await befriend(friends, ana, bia, "ana bia")
    await befriend(friends, ana, cid, "ana cid")
    gid = await own_table(world, ana)
    to_bia = await invitations.invite(ana, gid, "bia", InvitationKind.SEAT, 0)
    to_cid = await invitations.invite(ana, gid, "cid", InvitationKind.SEAT, 0)
    await invitations.accept(cid, to_cid.invitation.record.id)
    await refused("GAME_FULL", invitations.accept(bia, to_bia.invitation.record.id))
    assert store.rows[to_bia.invitation.record.id].status == Status.PENDING
    # The seat frees: she takes it with the same invitation.
    await world.games.leave(world.as_player(await _token_of(world, gid, cid)), gid, "")
    done = await invitations.accept(bia, to_bia.invitation.record.id)
    assert done.seated.seat == 1


async def _token_of(world: World, gid: str, who: Credentials) -> str:
    return (await world.games.join(who, gid, Joining(seat=-1))).token


async def test_only_the_invitee_answers_and_only_the_inviter_cancels(
    world: World, invitations: Invitations, friends: Friends
) -> None:
    ana, bia, cid = [await session(world, p) for p in ("ana", "bia", "cid")]
    await befriend(friends, ana, bia, "ana bia")
    gid = await own_table(world, ana)
    made = await invitations.invite(ana, gid, "bia", InvitationKind.WATCH, 0)
    invitation_id = made.invitation.record.id
    await refused("INVITATION_NOT_FOUND", invitations.decline(ana, invitation_id))
    await refused("INVITATION_NOT_FOUND", invitations.decline(cid, invitation_id))
    await refused("INVITATION_NOT_FOUND", invitations.cancel(bia, invitation_id))
    await refused("MALFORMED_REQUEST", invitations.cancel(ana, "not-an-id"))
    seat_token = (await world.games.join(bia, gid, Joining(seat=-1))).token
    await refused(
        "SESSION_TOKEN_REQUIRED", invitations.cancel(world.as_player(seat_token), invitation_id)
    )
    cancelled = await invitations.cancel(ana, invitation_id)
    assert cancelled.changed and cancelled.invitation.status == Status.CANCELLED
    await refused("INVITATION_ANSWERED", invitations.accept(bia, invitation_id))


async def test_an_inviter_has_at_most_so_many_invitations_pending(
    world: World, invitations: Invitations
) -> None:
    await world.sessions.set_policy(world.as_app(), AppPolicy(invitations="anyone"))
    ana = await session(world, "ana")
    gid = await own_table(world, ana, private=False)
    for n in range(MAX_PENDING_SENT):
        await session(world, f"p{n}")
        await invitations.invite(ana, gid, f"p{n}", InvitationKind.SEAT, 0)
    await session(world, "late")
    error = await refused(
        "INVITATION_LIMIT_REACHED", invitations.invite(ana, gid, "late", InvitationKind.SEAT, 0)
    )
    assert error.kind == "exhausted"
    # Expired ones count no more.
    world.repo.now += 11 * MINUTE
    assert (await invitations.invite(ana, gid, "late", InvitationKind.SEAT, 0)).changed
