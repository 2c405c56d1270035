"""The Python SDK's quick play against a real server (SQLite and PostgreSQL), on the
asyncio and the blocking clients: a session asks, learns from ALREADY_WAITING which
ticket it waits in, finds its open ticket again by listing its tickets, waits for
the table and gets its seat; a lost answer's retry gets the same ticket."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca_client import (
    AsyncTrancaClient,
    RuleRejected,
    TrancaClient,
    pb,
    qpb,
    waiting_ticket_id,
)

from .conftest import DropResponses


async def session_token(app: AsyncTrancaClient, player_id: str) -> str:
    """A player's session, opened with the app's key."""
    sessions = spb_grpc.SessionServiceStub(app.channel)
    opened = await sessions.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=player_id, display_name=player_id.title()),
        metadata=(("x-api-key", app.api_key or ""),),
    )
    return opened.session.access_token


async def test_a_session_finds_its_ticket_again_and_is_seated(app: AsyncTrancaClient) -> None:
    me = app.with_token(await session_token(app, "ana"))
    asked = await me.ask_quick_play("tranca-000", 2)
    assert asked.status == qpb.TICKET_STATUS_WAITING and list(asked.player_ids) == ["ana"]
    # Asking anew is refused, naming the ticket to follow.
    with pytest.raises(RuleRejected) as refused:
        await me.ask_quick_play("tranca-000", 2)
    assert refused.value.reason == "ALREADY_WAITING"
    assert waiting_ticket_id(refused.value) == asked.ticket_id
    # A client that lost the id finds the ticket among the player's own.
    found = await me.open_ticket()
    assert found is not None and found.ticket_id == asked.ticket_id
    # Another player fills the table: the server's matchmaker seats both.
    other = await app.ask_quick_play("tranca-000", 2, player_ids=["bia"])
    seated = await asyncio.wait_for(me.wait_for_ticket(asked.ticket_id), 15)
    assert seated.status == qpb.TICKET_STATUS_MATCHED
    (seat,) = seated.seats
    view = await app.with_token(seat.player_token).get_view(seated.game_id)
    assert view.seat == seat.seat and view.status == pb.GAME_STATUS_PLAYING
    assert await me.open_ticket() is None
    page = await me.list_quick_play_tickets()
    assert [(t.ticket_id, t.game_id) for t in page.tickets] == [(asked.ticket_id, seated.game_id)]
    by_app = await app.list_quick_play_tickets(player_id="bia", page_size=1)
    assert [t.ticket_id for t in by_app.tickets] == [other.ticket_id]


async def test_a_lost_answer_is_retried_with_its_request_id_and_gets_the_same_ticket(
    make_client: Callable[..., AsyncTrancaClient], app: AsyncTrancaClient
) -> None:
    lost = DropResponses("AskQuickPlay")
    token = await session_token(app, "cai")
    me = make_client(api_key=None, token=token, interceptors=[lost])
    ticket = await me.ask_quick_play("tranca-000", 4, competitive=True)
    first, retry = lost.requests
    assert first.request_id == retry.request_id
    assert (await me.open_ticket()) is not None
    page = await me.list_quick_play_tickets()
    assert [t.ticket_id for t in page.tickets] == [ticket.ticket_id]
    cancelled = await me.cancel_ticket(ticket.ticket_id)
    assert cancelled.status == qpb.TICKET_STATUS_CANCELLED


def _blocking_session(address: str, token: str) -> tuple[str, str | None, str, int]:
    """On the blocking client: ask, be refused naming the ticket, find it, cancel it."""
    with TrancaClient(address, token=token) as me:
        asked = me.ask_quick_play("tranca-000", 4, competitive=True)
        try:
            me.ask_quick_play("tranca-000", 2)
            named = None
        except RuleRejected as refused:
            named = waiting_ticket_id(refused)
        found = me.open_ticket()
        assert found is not None
        cancelled = me.cancel_ticket(found.ticket_id)
        listed = me.list_quick_play_tickets(page_size=5)
        assert [t.ticket_id for t in listed.tickets] == [asked.ticket_id]
        return asked.ticket_id, named, found.ticket_id, cancelled.status


async def test_the_blocking_client_asks_finds_and_cancels(
    app: AsyncTrancaClient, address: str
) -> None:
    token = await session_token(app, "dan")
    asked, named, found, status = await asyncio.to_thread(_blocking_session, address, token)
    assert named == asked and found == asked
    assert status == qpb.TICKET_STATUS_CANCELLED
