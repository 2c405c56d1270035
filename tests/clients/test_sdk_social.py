"""The Python SDK's friends against a real server (SQLite and PostgreSQL), on the
asyncio and the blocking clients: two players become friends, the list pages, a
block keeps requests out with a typed refusal, and the app's key acts for a
player."""

from __future__ import annotations

import asyncio
import json

import pytest

from tranca_client import AsyncTrancaClient, NotFound, RuleRejected, TrancaClient, sopb


async def test_two_players_become_friends_and_a_block_keeps_requests_out(
    app: AsyncTrancaClient,
) -> None:
    ana = app.with_token((await app.create_player_session("ana-f", "Ana")).access_token)
    bia = app.with_token((await app.create_player_session("bia-f", "Bia")).access_token)
    asked = await ana.add_friend("bia-f")
    assert (asked.relation, asked.profile.display_name) == (sopb.RELATION_REQUEST_SENT, "Bia")
    received = await bia.all_friends(relations=[sopb.RELATION_REQUEST_RECEIVED])
    assert [f.player_id for f in received] == ["ana-f"]
    assert (await bia.accept_friend("ana-f")).relation == sopb.RELATION_FRIEND
    # Asked again, nothing changes: safe to retry.
    assert (await ana.add_friend("bia-f")).relation == sopb.RELATION_FRIEND
    events = await app.player_events("bia-f")
    assert [e.kind for e in events.events] == ["friendship", "friendship"]
    # Bia's own client follows her events with her session: the block is told to her.
    stream = bia.watch_player_events(after_id=events.next_after_id)
    assert (await bia.block_player("ana-f")).relation == sopb.RELATION_BLOCKED
    told = await asyncio.wait_for(anext(stream), 10)
    assert told.kind == "friendship"
    assert json.loads(told.payload_json)["change"] == "blocked"
    await stream.aclose()
    with pytest.raises(RuleRejected) as refused:
        await ana.add_friend("bia-f")
    assert refused.value.reason == "FRIEND_REQUEST_REFUSED"
    with pytest.raises(NotFound) as unknown:
        await ana.add_friend("nobody-f")
    assert unknown.value.reason == "PLAYER_NOT_FOUND"
    # The app's key acts for the player it names.
    lifted = await app.unblock_player("ana-f", acting_player_id="bia-f")
    assert lifted.relation == sopb.RELATION_UNSPECIFIED


async def test_the_list_pages_and_the_blocking_client_befriends(
    address: str, api_key: str, app: AsyncTrancaClient
) -> None:
    await app.create_player_session("cid-f", "Cid")
    for n in range(5):
        await app.create_player_session(f"f{n}", f"F{n}")
        await app.add_friend(f"f{n}", acting_player_id="cid-f")
    first = await app.friends(page_size=2, acting_player_id="cid-f")
    assert [f.player_id for f in first.friends] == ["f0", "f1"] and first.next_page_token
    await asyncio.to_thread(_blocking_friends, address, api_key)


def _blocking_friends(address: str, api_key: str) -> None:
    with TrancaClient(address, api_key=api_key) as app:
        assert len(app.all_friends(acting_player_id="cid-f")) == 5
        app.cancel_friend_request("f0", acting_player_id="cid-f")
        app.decline_friend("cid-f", acting_player_id="f1")
        left = app.all_friends(acting_player_id="cid-f")
        assert [f.player_id for f in left] == ["f2", "f3", "f4"]


async def test_presence_shows_a_friend_online_and_a_choice_hides_it(
    address: str, api_key: str, app: AsyncTrancaClient
) -> None:
    ana = app.with_token((await app.create_player_session("ana-p", "Ana")).access_token)
    bia = app.with_token((await app.create_player_session("bia-p", "Bia")).access_token)
    await ana.add_friend("bia-p")
    await bia.accept_friend("ana-p")
    (seen,) = await ana.presence(["bia-p"])
    assert (seen.visible, seen.status) == (True, sopb.PRESENCE_STATUS_ONLINE)
    listed = await ana.all_friends()
    assert [f.presence.status for f in listed] == [sopb.PRESENCE_STATUS_ONLINE]
    away = await bia.set_presence(away=True)
    assert (away.away, away.status) == (True, sopb.PRESENCE_STATUS_AWAY)
    await bia.set_presence(visibility=sopb.PRESENCE_VISIBILITY_NOBODY)
    (hidden,) = await ana.presence(["bia-p"])
    assert hidden == sopb.Presence(player_id="bia-p")
    await asyncio.to_thread(_blocking_presence, address, api_key)


def _blocking_presence(address: str, api_key: str) -> None:
    with TrancaClient(address, api_key=api_key) as app:
        mine = app.set_presence(away=False, seen=True, acting_player_id="bia-p")
        assert (mine.status, mine.visibility) == (
            sopb.PRESENCE_STATUS_ONLINE,
            sopb.PRESENCE_VISIBILITY_NOBODY,
        )
        (own,) = app.presence(["bia-p"], acting_player_id="bia-p")
        assert own.visible and not own.away
