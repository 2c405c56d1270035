"""Invitations to a table through a real channel, on SQLite and PostgreSQL
(InvitationService): a friend invited to a seat at a private table accepts and plays
with a token of her own; the private table admits the owner's friends and invited
players without its code, and no one else; a watch invitation gives a spectator's
place; declines and cancels told to the other player; bad invitations refused,
changing nothing; a quick-play party never crosses a block; and an invitation made on
one replica reaches the invitee's event stream on another, and is accepted there."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc

from tests.harness.clients import Client
from tests.harness.servers import app_client
from tranca.server import Running
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import invitations_pb2 as pb
from tranca.v1 import invitations_pb2_grpc as pb_grpc
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca.v1 import social_pb2 as social_pb
from tranca.v1 import social_pb2_grpc as social_grpc

from .api_calls import refused

Metadata = tuple[tuple[str, str], ...]
Code = grpc.StatusCode


def invitations(client: Client) -> pb_grpc.InvitationServiceAsyncStub:
    return pb_grpc.InvitationServiceStub(client.channel)


async def player(client: Client, player_id: str) -> Metadata:
    opened = await spb_grpc.SessionServiceStub(client.channel).CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=player_id, display_name=player_id.title()),
        metadata=client.app(),
    )
    return (("authorization", f"Bearer {opened.session.access_token}"),)


async def befriend(client: Client, one: Metadata, other_id: str, other: Metadata, me: str) -> None:
    stub = social_grpc.SocialServiceStub(client.channel)
    await stub.AddFriend(social_pb.AddFriendRequest(player_id=other_id), metadata=one)
    await stub.AcceptFriend(social_pb.AcceptFriendRequest(player_id=me), metadata=other)


async def invitation_events(client: Client, player_id: str) -> list[dict[str, Any]]:
    page = await npb_grpc.NotificationServiceStub(client.channel).ListPlayerEvents(
        npb.ListPlayerEventsRequest(player_id=player_id), metadata=client.app()
    )
    return [json.loads(e.payload_json) for e in page.events if e.kind == "table_invitation"]


async def my_table(
    client: Client, owner: Metadata, *, private: bool = True, spectators: bool = False
) -> str:
    """A 2-player table the session's player creates and sits at."""
    made = await client.stub.CreateGame(
        gpb.CreateGameRequest(
            rules=gpb.Rules(preset="tranca-000"),
            players=2,
            spectators_allowed=spectators,
            label="Mesa da Ana",
            table=gpb.TableOptions(private=private),
        ),
        metadata=owner,
    )
    gid = made.game.game_id
    # The owner sits without the code.
    await client.stub.JoinGame(gpb.JoinGameRequest(game_id=gid), metadata=owner)
    return gid


async def test_a_friend_invited_to_a_private_table_accepts_and_plays(client: Client) -> None:
    stub = invitations(client)
    ana, bia = await player(client, "ana"), await player(client, "bia")
    await befriend(client, ana, "bia", bia, "ana")
    gid = await my_table(client, ana)
    made = await stub.InviteToTable(
        pb.InviteToTableRequest(game_id=gid, player_id="bia"), metadata=ana
    )
    invitation = made.invitation
    assert made.changed and invitation.status == pb.INVITATION_STATUS_PENDING
    assert (invitation.kind, invitation.label, invitation.players) == (
        pb.INVITATION_KIND_SEAT,
        "Mesa da Ana",
        2,
    )
    assert invitation.from_profile.display_name == "Ana"
    again = await stub.InviteToTable(
        pb.InviteToTableRequest(game_id=gid, player_id="bia"), metadata=ana
    )
    assert (again.invitation.invitation_id, again.changed) == (invitation.invitation_id, False)
    told = await invitation_events(client, "bia")
    assert [(e["change"], e["from_player_id"], e["game_id"]) for e in told] == [
        ("invited", "ana", gid)
    ]
    received = await stub.ListInvitations(
        pb.ListInvitationsRequest(direction=pb.INVITATION_DIRECTION_RECEIVED), metadata=bia
    )
    assert [i.invitation_id for i in received.invitations] == [invitation.invitation_id]
    accepted = await stub.AcceptInvitation(
        pb.AcceptInvitationRequest(invitation_id=invitation.invitation_id), metadata=bia
    )
    assert (accepted.seat, accepted.changed) == (1, True)
    assert accepted.invitation.status == pb.INVITATION_STATUS_ACCEPTED
    # Her own token plays the seat.
    view = await client.stub.GetView(
        gpb.GetViewRequest(game_id=gid), metadata=client.player(accepted.player_token)
    )
    assert view.view.seat == 1
    # Accepted again by her session: a new token for the same seat.
    again_accepted = await stub.AcceptInvitation(
        pb.AcceptInvitationRequest(invitation_id=invitation.invitation_id), metadata=bia
    )
    assert (again_accepted.seat, again_accepted.changed) == (1, False)
    assert [e["change"] for e in await invitation_events(client, "ana")] == ["accepted"]


async def test_a_private_table_admits_invited_players_and_the_owners_friends_only(
    client: Client,
) -> None:
    ana, bia, cid = [await player(client, p) for p in ("ana", "bia", "cid")]
    await befriend(client, ana, "bia", bia, "ana")
    gid = await my_table(client, ana, spectators=True)
    # A stranger needs the code, for a seat and to watch.
    for spectator in (False, True):
        await refused(
            client.stub.JoinGame(
                gpb.JoinGameRequest(game_id=gid, spectator=spectator), metadata=cid
            ),
            Code.PERMISSION_DENIED,
            "INVITE_REQUIRED",
        )
    # The owner's friend sits without it.
    seated = await client.stub.JoinGame(gpb.JoinGameRequest(game_id=gid, seat=-1), metadata=bia)
    assert seated.seat == 1
    # Invited to watch (anyone may be, under the app's "anyone" policy), cid watches
    # with JoinGame too, but is not seated by a watch invitation.
    sessions = spb_grpc.SessionServiceStub(client.channel)
    policy = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.invitations = spb.INVITATION_POLICY_ANYONE
    await sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    made = await invitations(client).InviteToTable(
        pb.InviteToTableRequest(game_id=gid, player_id="cid", kind=pb.INVITATION_KIND_WATCH),
        metadata=bia,
    )
    assert made.invitation.kind == pb.INVITATION_KIND_WATCH
    watching = await client.stub.JoinGame(
        gpb.JoinGameRequest(game_id=gid, spectator=True), metadata=cid
    )
    assert watching.seat == -1
    accepted = await invitations(client).AcceptInvitation(
        pb.AcceptInvitationRequest(invitation_id=made.invitation.invitation_id), metadata=cid
    )
    assert accepted.seat == -1 and accepted.player_token


async def test_declines_and_cancels_are_told_to_the_other_player(client: Client) -> None:
    stub = invitations(client)
    ana, bia = await player(client, "ana"), await player(client, "bia")
    await befriend(client, ana, "bia", bia, "ana")
    gid = await my_table(client, ana)
    first = (
        await stub.InviteToTable(
            pb.InviteToTableRequest(game_id=gid, player_id="bia"), metadata=ana
        )
    ).invitation
    declined = await stub.DeclineInvitation(
        pb.DeclineInvitationRequest(invitation_id=first.invitation_id), metadata=bia
    )
    assert (declined.invitation.status, declined.changed) == (pb.INVITATION_STATUS_DECLINED, True)
    again = await stub.DeclineInvitation(
        pb.DeclineInvitationRequest(invitation_id=first.invitation_id), metadata=bia
    )
    assert again.changed is False
    await refused(
        stub.AcceptInvitation(
            pb.AcceptInvitationRequest(invitation_id=first.invitation_id), metadata=bia
        ),
        Code.FAILED_PRECONDITION,
        "INVITATION_ANSWERED",
    )
    second = (
        await stub.InviteToTable(
            pb.InviteToTableRequest(game_id=gid, player_id="bia"), metadata=ana
        )
    ).invitation
    assert second.invitation_id != first.invitation_id
    cancelled = await stub.CancelInvitation(
        pb.CancelInvitationRequest(invitation_id=second.invitation_id), metadata=ana
    )
    assert cancelled.invitation.status == pb.INVITATION_STATUS_CANCELLED
    assert [e["change"] for e in await invitation_events(client, "ana")] == ["declined"]
    assert [e["change"] for e in await invitation_events(client, "bia")] == [
        "invited",
        "invited",
        "cancelled",
    ]
    sent = await stub.ListInvitations(
        pb.ListInvitationsRequest(direction=pb.INVITATION_DIRECTION_SENT, page_size=1),
        metadata=ana,
    )
    assert [i.invitation_id for i in sent.invitations] == [second.invitation_id]
    rest = await stub.ListInvitations(
        pb.ListInvitationsRequest(
            direction=pb.INVITATION_DIRECTION_SENT, page_size=1, page_token=sent.next_page_token
        ),
        metadata=ana,
    )
    assert [i.invitation_id for i in rest.invitations] == [first.invitation_id]
    assert rest.next_page_token == ""


async def test_bad_invitations_are_refused_and_change_nothing(client: Client) -> None:
    stub = invitations(client)
    ana, bia, cid, dan = [await player(client, p) for p in ("ana", "bia", "cid", "dan")]
    await befriend(client, ana, "bia", bia, "ana")
    await befriend(client, ana, "cid", cid, "ana")
    await befriend(client, ana, "dan", dan, "ana")
    gid = await my_table(client, ana)
    social = social_grpc.SocialServiceStub(client.channel)
    await social.BlockPlayer(social_pb.BlockPlayerRequest(player_id="ana"), metadata=cid)
    await social.BlockPlayer(social_pb.BlockPlayerRequest(player_id="dan"), metadata=ana)
    await player(client, "eva")  # no friend of anyone
    for request, code, reason in (
        (pb.InviteToTableRequest(game_id=gid, player_id="ana"), Code.INVALID_ARGUMENT, None),
        (pb.InviteToTableRequest(game_id=gid, player_id=""), Code.INVALID_ARGUMENT, None),
        (
            pb.InviteToTableRequest(game_id=gid, player_id="bia", expires_in_seconds=5),
            Code.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        ),
        (pb.InviteToTableRequest(game_id=gid, player_id="nobody"), Code.NOT_FOUND, None),
        (pb.InviteToTableRequest(game_id="f" * 32, player_id="bia"), Code.NOT_FOUND, None),
        (
            pb.InviteToTableRequest(game_id=gid, player_id="cid"),
            Code.FAILED_PRECONDITION,
            "INVITATION_REFUSED",
        ),
        (
            pb.InviteToTableRequest(game_id=gid, player_id="dan"),
            Code.FAILED_PRECONDITION,
            "PLAYER_BLOCKED",
        ),
        (
            pb.InviteToTableRequest(game_id=gid, player_id="eva"),
            Code.FAILED_PRECONDITION,
            "NOT_FRIENDS",
        ),
    ):
        await refused(stub.InviteToTable(request, metadata=ana), code, reason)
    # Bia may not invite to a table she does not sit at.
    await refused(
        stub.InviteToTable(pb.InviteToTableRequest(game_id=gid, player_id="eva"), metadata=bia),
        Code.PERMISSION_DENIED,
        "NOT_AT_TABLE",
    )
    # Another player's invitation is no one else's to answer.
    made = (
        await stub.InviteToTable(
            pb.InviteToTableRequest(game_id=gid, player_id="bia"), metadata=ana
        )
    ).invitation
    for who in (dan, ana):
        await refused(
            stub.AcceptInvitation(
                pb.AcceptInvitationRequest(invitation_id=made.invitation_id), metadata=who
            ),
            Code.NOT_FOUND,
            "INVITATION_NOT_FOUND",
        )
    # Once the table is full and started, the invitation reads expired and is refused.
    await befriend(client, bia, "eva", await player(client, "eva"), "bia")
    await client.stub.JoinGame(gpb.JoinGameRequest(game_id=gid, seat=-1), metadata=bia)
    await refused(
        stub.InviteToTable(pb.InviteToTableRequest(game_id=gid, player_id="eva"), metadata=bia),
        Code.FAILED_PRECONDITION,
        "GAME_FULL",
    )
    await client.stub.StartGame(gpb.StartGameRequest(game_id=gid), metadata=client.app())
    await refused(
        stub.AcceptInvitation(
            pb.AcceptInvitationRequest(invitation_id=made.invitation_id), metadata=bia
        ),
        Code.FAILED_PRECONDITION,
        "INVITATION_EXPIRED",
    )
    listed = await stub.ListInvitations(pb.ListInvitationsRequest(), metadata=ana)
    assert [(i.invitation_id, i.status) for i in listed.invitations] == [
        (made.invitation_id, pb.INVITATION_STATUS_EXPIRED)
    ]
    assert [e["to_player_id"] for e in await invitation_events(client, "bia")] == ["bia"]
    for other in ("cid", "dan", "eva"):
        assert await invitation_events(client, other) == []


async def test_a_quick_play_party_is_never_sent_across_a_block(client: Client) -> None:
    ana, bia = await player(client, "ana"), await player(client, "bia")
    social = social_grpc.SocialServiceStub(client.channel)
    await social.BlockPlayer(social_pb.BlockPlayerRequest(player_id="ana"), metadata=bia)
    quick = qpb_grpc.QuickPlayServiceStub(client.channel)
    await refused(
        quick.AskQuickPlay(
            qpb.AskQuickPlayRequest(preset="tranca-000", players=4, partner_player_id="bia"),
            metadata=ana,
        ),
        Code.FAILED_PRECONDITION,
        "INVITATION_REFUSED",
    )
    page = await npb_grpc.NotificationServiceStub(client.channel).ListPlayerEvents(
        npb.ListPlayerEventsRequest(player_id="bia"), metadata=client.app()
    )
    assert [e.kind for e in page.events if e.kind == "invited"] == []
    await refused(
        quick.AskQuickPlay(
            qpb.AskQuickPlayRequest(preset="tranca-000", players=4, partner_player_id="ana"),
            metadata=bia,
        ),
        Code.FAILED_PRECONDITION,
        "PLAYER_BLOCKED",
    )


async def test_an_invitation_made_on_one_replica_is_received_and_accepted_on_another(
    replicas: list[Running],
) -> None:
    async with (
        app_client(replicas[0]) as first,
        grpc.aio.insecure_channel(f"127.0.0.1:{replicas[1].port}") as channel,
    ):
        second = Client(channel, first.api_key)
        ana, bia = await player(first, "ana"), await player(second, "bia")
        await befriend(first, ana, "bia", bia, "ana")
        gid = await my_table(first, ana)
        stream = npb_grpc.NotificationServiceStub(channel).WatchPlayerEvents(
            npb.WatchPlayerEventsRequest(), metadata=bia
        )
        made = await invitations(first).InviteToTable(
            pb.InviteToTableRequest(game_id=gid, player_id="bia"), metadata=ana
        )

        async def first_invitation() -> dict[str, Any]:
            async for update in stream:
                if update.event.kind == "table_invitation":
                    return dict(json.loads(update.event.payload_json))
            raise AssertionError("the stream ended")

        told = await asyncio.wait_for(first_invitation(), 10)
        stream.cancel()
        assert told["invitation_id"] == made.invitation.invitation_id
        accepted = await invitations(second).AcceptInvitation(
            pb.AcceptInvitationRequest(invitation_id=told["invitation_id"]), metadata=bia
        )
        assert accepted.seat == 1
        view = await first.stub.GetView(
            gpb.GetViewRequest(game_id=gid), metadata=first.player(accepted.player_token)
        )
        assert [s.player_name for s in view.view.seats] == ["Ana", "Bia"]


async def test_a_merge_of_accounts_gives_the_kept_account_the_tables_and_invitations(
    client: Client,
) -> None:
    old, new, bia = [await player(client, p) for p in ("ana-old", "ana-new", "bia")]
    await befriend(client, old, "bia", bia, "ana-old")
    # A table she owns without sitting at it (a merge waits for a seated player).
    made_table = await client.stub.CreateGame(
        gpb.CreateGameRequest(
            rules=gpb.Rules(preset="tranca-000"), players=2, table=gpb.TableOptions(private=True)
        ),
        metadata=old,
    )
    gid = made_table.game.game_id
    made = await invitations(client).InviteToTable(
        pb.InviteToTableRequest(game_id=gid, player_id="bia"), metadata=old
    )
    done = await apb_grpc.AdminServiceStub(client.channel).MergePlayers(
        apb.MergePlayersRequest(merged_player_id="ana-old", kept_player_id="ana-new"),
        metadata=client.app(),
    )
    assert (done.rows["table_invitations"], done.rows["table_owners"]) == (1, 1)
    listed = await invitations(client).ListInvitations(pb.ListInvitationsRequest(), metadata=bia)
    assert [(i.invitation_id, i.from_player_id) for i in listed.invitations] == [
        (made.invitation.invitation_id, "ana-new")
    ]
    # The kept account owns the table: it sits without the code, and its invitation
    # to bia is the one already pending.
    await client.stub.JoinGame(gpb.JoinGameRequest(game_id=gid, seat=-1), metadata=new)
    again = await invitations(client).InviteToTable(
        pb.InviteToTableRequest(game_id=gid, player_id="bia"), metadata=new
    )
    assert (again.invitation.invitation_id, again.changed) == (made.invitation.invitation_id, False)
