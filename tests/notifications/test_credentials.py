"""Which credentials each NotificationService call takes, through a real channel on
SQLite and PostgreSQL, as the guide (§12), notifications.proto and the use cases say
it: the app's API key takes every call; a player's session token reads (lists and
watches) its own player's events only, and no webhook call; a seat's token takes
none; a call without credentials is refused NO_CREDENTIALS."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from tests.server.api_calls import reason_of
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .conftest import NotifyClient

Code = grpc.StatusCode
Metadata = tuple[tuple[str, str], ...]


async def outcome(call: Awaitable[object]) -> tuple[Code, str]:
    """OK and "", or the refusal's code and reason."""
    try:
        await asyncio.wait_for(call, 5)
    except grpc.aio.AioRpcError as e:
        return e.code(), reason_of(e)
    return Code.OK, ""


async def first_event(stream: Any) -> npb.WatchPlayerEventsResponse:
    async for item in stream:
        return item  # type: ignore[no-any-return]
    raise AssertionError("the stream ended without an event")


async def test_each_call_takes_the_credentials_the_guide_gives_it(nclient: NotifyClient) -> None:
    c, n = nclient, nclient.notify
    ana, bob = f"ana-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    _, seat_tokens = await c.game_with_ids([ana, bob])
    # The player whose turn opens the match has an event to read.
    reader = (
        ana
        if (
            await n.ListPlayerEvents(npb.ListPlayerEventsRequest(player_id=ana), metadata=c.app())
        ).events
        else bob
    )
    opened = await spb_grpc.SessionServiceStub(c.channel).CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=reader), metadata=c.app()
    )
    session: Metadata = (("authorization", f"Bearer {opened.session.access_token}"),)
    seat: Metadata = c.player(seat_tokens[0])
    await n.SetWebhook(npb.SetWebhookRequest(url="http://127.0.0.1:9/none"), metadata=c.app())

    calls: dict[str, Callable[[Metadata], Awaitable[object]]] = {
        "ListPlayerEvents": lambda md: n.ListPlayerEvents(
            npb.ListPlayerEventsRequest(player_id=reader), metadata=md
        ),
        "WatchPlayerEvents": lambda md: first_event(
            n.WatchPlayerEvents(npb.WatchPlayerEventsRequest(player_id=reader), metadata=md)
        ),
        "GetWebhook": lambda md: n.GetWebhook(npb.GetWebhookRequest(), metadata=md),
        "ListWebhookDeliveries": lambda md: n.ListWebhookDeliveries(
            npb.ListWebhookDeliveriesRequest(), metadata=md
        ),
        "RedeliverWebhook": lambda md: n.RedeliverWebhook(
            npb.RedeliverWebhookRequest(delivery_id="123456789"), metadata=md
        ),
        "SetWebhook": lambda md: n.SetWebhook(
            npb.SetWebhookRequest(url="http://127.0.0.1:9/none"), metadata=md
        ),
        "DeleteWebhook": lambda md: n.DeleteWebhook(npb.DeleteWebhookRequest(), metadata=md),
    }
    reads = {"ListPlayerEvents", "WatchPlayerEvents"}
    for name, call in calls.items():
        by_key = await outcome(call(c.app()))
        expected_by_key = (
            (Code.NOT_FOUND, "DELIVERY_NOT_FOUND") if name == "RedeliverWebhook" else (Code.OK, "")
        )
        assert by_key == expected_by_key, name
        by_session = await outcome(call(session))
        expected = (Code.OK, "") if name in reads else (Code.PERMISSION_DENIED, "APP_KEY_REQUIRED")
        assert by_session == expected, name
        assert await outcome(call(seat)) == (Code.PERMISSION_DENIED, "APP_KEY_REQUIRED"), name
        assert await outcome(call(())) == (Code.UNAUTHENTICATED, "NO_CREDENTIALS"), name
    # A session reads its own player's events, named or not, and no other's.
    other = bob if reader == ana else ana
    for player_id, expected in (
        ("", (Code.OK, "")),
        (other, (Code.PERMISSION_DENIED, "NOT_YOUR_PLAYER")),
    ):
        assert (
            await outcome(
                n.ListPlayerEvents(
                    npb.ListPlayerEventsRequest(player_id=player_id), metadata=session
                )
            )
            == expected
        )
        assert (
            await outcome(
                first_event(
                    n.WatchPlayerEvents(
                        npb.WatchPlayerEventsRequest(player_id=player_id), metadata=session
                    )
                )
            )
            == expected
        )
