"""The Python SDK's invitations against a real server (SQLite and PostgreSQL), on the
asyncio and the blocking clients: a friend invited to a private table accepts and
plays with the client she is given, the inviter hears of it on her event stream, a
stranger is refused with a typed error, and the app's key invites, lists and cancels
for its players."""

from __future__ import annotations

import asyncio
import json

import pytest

from tranca_client import AsyncTrancaClient, NotFound, RuleRejected, TrancaClient, ipb, pb


async def test_a_friend_invited_accepts_and_plays_with_her_own_client(
    app: AsyncTrancaClient,
) -> None:
    ana = app.with_token((await app.create_player_session("ana-i", "Ana")).access_token)
    bia = app.with_token((await app.create_player_session("bia-i", "Bia")).access_token)
    await app.create_player_session("cid-i", "Cid")
    await ana.add_friend("bia-i")
    await bia.accept_friend("ana-i")
    game = await app.create_game(
        "tranca-000", 2, table=pb.TableOptions(private=True), owner_player_id="ana-i"
    )
    # The app seats the owner it named without the code.
    await app.join_game(game.game_id, -1, player_id="ana-i", player_name="Ana")
    events = await app.player_events("ana-i")
    stream = ana.watch_player_events(after_id=events.next_after_id)
    invited = await ana.invite_to_table(game.game_id, "bia-i")
    assert invited.changed and invited.invitation.status == ipb.INVITATION_STATUS_PENDING
    received = await bia.all_invitations(direction=ipb.INVITATION_DIRECTION_RECEIVED)
    assert [i.invitation_id for i in received] == [invited.invitation.invitation_id]
    accepted = await bia.accept_invitation(invited.invitation.invitation_id)
    assert accepted.response.seat == 1
    view = await accepted.client.get_view(game.game_id)
    assert view.seat == 1
    told = await asyncio.wait_for(anext(stream), 10)
    await stream.aclose()
    assert told.kind == "table_invitation"
    assert json.loads(told.payload_json)["change"] == "accepted"
    with pytest.raises(RuleRejected) as refused:
        await ana.invite_to_table(game.game_id, "cid-i")
    assert refused.value.reason == "NOT_FRIENDS"
    with pytest.raises(NotFound) as unknown:
        await bia.decline_invitation("0" * 32)
    assert unknown.value.reason == "INVITATION_NOT_FOUND"


async def test_the_blocking_client_invites_lists_and_cancels_for_a_player(
    address: str, api_key: str, app: AsyncTrancaClient
) -> None:
    await app.create_player_session("dan-i", "Dan")
    await app.create_player_session("eva-i", "Eva")
    await app.add_friend("eva-i", acting_player_id="dan-i")
    await app.accept_friend("dan-i", acting_player_id="eva-i")
    game = await app.create_game("tranca-000", 2, owner_player_id="dan-i", spectators_allowed=True)
    await asyncio.to_thread(_blocking_invitations, address, api_key, game.game_id)


def _blocking_invitations(address: str, api_key: str, game_id: str) -> None:
    with TrancaClient(address, api_key=api_key) as app:
        made = app.invite_to_table(game_id, "eva-i", watch=True, acting_player_id="dan-i")
        assert made.invitation.kind == ipb.INVITATION_KIND_WATCH
        sent = app.all_invitations(
            direction=ipb.INVITATION_DIRECTION_SENT, acting_player_id="dan-i"
        )
        assert [i.to_player_id for i in sent] == ["eva-i"]
        done = app.cancel_invitation(made.invitation.invitation_id, acting_player_id="dan-i")
        assert done.invitation.status == ipb.INVITATION_STATUS_CANCELLED
        left = app.invitations(status=ipb.INVITATION_STATUS_PENDING, acting_player_id="eva-i")
        assert list(left.invitations) == []
