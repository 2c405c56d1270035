"""Notifications end to end, on SQLite and PostgreSQL, through a real gRPC channel
and a real HTTP receiver (APP_GUIDE.md, "Notifications"): every event delivered at
least once, with its delivery id and a signature the receiver verifies, through
500s, timeouts and slow answers; players' event streams; no event for seats without
player ids; the refusals' reasons."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import grpc
import pytest

from tests.server.api_calls import reason_of
from tests.server.conftest import move_first_legal
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import notifications_pb2 as npb

from .conftest import NotifyClient
from .receiver import HookReceiver


def difficult(delivery_id: str, attempt: int) -> str:
    """Each delivery meets a 500, no answer (a timeout) or a slow answer first, by
    its id, then a 200."""
    if attempt >= 3:
        return "ok"
    first = ("500", "hang", "slow")[int(delivery_id) % 3]
    return first if attempt == 1 else ("500" if first == "hang" else "ok")


async def all_events(c: NotifyClient, player_id: str) -> list[npb.PlayerEvent]:
    out: list[npb.PlayerEvent] = []
    after = 0
    while True:
        page = await c.notify.ListPlayerEvents(
            npb.ListPlayerEventsRequest(player_id=player_id, after_id=after, page_size=7),
            metadata=c.app(),
        )
        out += page.events
        if not page.events:
            return out
        after = page.next_after_id


async def deliveries(
    c: NotifyClient, status: npb.DeliveryStatus.ValueType = npb.DELIVERY_STATUS_UNSPECIFIED
) -> list[npb.WebhookDelivery]:
    out: list[npb.WebhookDelivery] = []
    token = ""
    while True:
        page = await c.notify.ListWebhookDeliveries(
            npb.ListWebhookDeliveriesRequest(status=status, page_size=10, page_token=token),
            metadata=c.app(),
        )
        out += page.deliveries
        token = page.next_page_token
        if not token:
            return out


async def play(c: NotifyClient, players: list[str], moves: int, seed: int = 7) -> str:
    gid, tokens = await c.game_with_ids(players, seed)
    for _ in range(moves):
        await move_first_legal(c, gid, tokens)
    # The first seat leaves: a resignation, the match over.
    await c.stub.LeaveGame(gpb.LeaveGameRequest(game_id=gid), metadata=c.player(tokens[0]))
    return gid


async def test_every_event_is_delivered_signed_at_least_once_through_failures(
    nclient: NotifyClient, receiver: HookReceiver
) -> None:
    c = nclient
    set_ = await c.notify.SetWebhook(npb.SetWebhookRequest(url=receiver.url), metadata=c.app())
    assert set_.signing_secret.startswith("whsec_") and set_.webhook.url == receiver.url
    receiver.secret = set_.signing_secret
    receiver.plan = difficult
    ana, bea = f"ana-{uuid.uuid4().hex[:6]}", f"bea-{uuid.uuid4().hex[:6]}"
    await play(c, [ana, bea], 14)
    events = await all_events(c, ana) + await all_events(c, bea)
    kinds = {e.kind for e in events}
    assert kinds == {"your_turn", "game_over"}, kinds
    started = time.monotonic()
    while time.monotonic() - started < 60:
        if len(await deliveries(c, npb.DELIVERY_STATUS_DELIVERED)) == len(events):
            break
        await asyncio.sleep(0.2)
    delivered = await deliveries(c, npb.DELIVERY_STATUS_DELIVERED)
    assert sorted(d.event_id for d in delivered) == sorted(e.id for e in events)
    # The receiver acknowledged every delivery id, each request carrying its event.
    assert receiver.acknowledged == {d.delivery_id for d in delivered}
    assert all(r.verified for r in receiver.requests)
    by_id = {d.delivery_id: d.event_id for d in delivered}
    assert all(by_id[r.delivery_id] == r.event_id for r in receiver.requests)
    answers = {r.answer for r in receiver.requests}
    assert {"500", "hang", "slow", "ok"} <= answers, answers
    # The state an app sees: attempts, the last answer, when it was delivered.
    retried = [d for d in delivered if d.attempts > 1]
    assert retried and all(d.delivered_at_ms >= d.created_at_ms for d in delivered)
    assert all(d.last_status_code == 200 and not d.last_error for d in delivered)
    # A delivery body is the event as the player's stream shows it.
    sample = next(r for r in receiver.requests if r.kind == "game_over")
    event = next(e for e in events if e.id == sample.event_id)
    assert sample.body["data"] == {
        "event_id": event.id,
        "player_id": event.player_id,
        "game_id": event.game_id,
        "created_at_ms": event.created_at_ms,
        **json.loads(event.payload_json),
    }


async def test_your_turn_events_stream_as_a_game_with_player_ids_is_played(
    nclient: NotifyClient,
) -> None:
    c = nclient
    ana, bea = f"ana-{uuid.uuid4().hex[:6]}", f"bea-{uuid.uuid4().hex[:6]}"
    got: list[npb.PlayerEvent] = []

    async def follow() -> None:
        stream = c.notify.WatchPlayerEvents(
            npb.WatchPlayerEventsRequest(player_id=ana), metadata=c.app()
        )
        async for item in stream:
            got.append(item.event)

    task = asyncio.create_task(follow())
    try:
        gid = await play(c, [ana, bea], 14)
        expected = await all_events(c, ana)
        for _ in range(100):
            if len(got) >= len(expected):
                break
            await asyncio.sleep(0.05)
        assert [e.id for e in got] == [e.id for e in expected]
        turns = [e for e in got if e.kind == "your_turn"]
        assert turns and all(e.game_id == gid for e in got)
        assert all(json.loads(e.payload_json)["seat"] == 0 for e in turns)
        assert got[-1].kind == "game_over" and not json.loads(got[-1].payload_json)["won"]
    finally:
        task.cancel()


async def test_seats_without_player_ids_make_no_events(
    nclient: NotifyClient, receiver: HookReceiver
) -> None:
    c = nclient
    await c.notify.SetWebhook(npb.SetWebhookRequest(url=receiver.url), metadata=c.app())
    gid, tokens = await c.new_game()  # seats named "p0", "p1", without player ids
    for _ in range(10):
        await move_first_legal(c, gid, tokens)
    assert await deliveries(c) == []
    assert await all_events(c, "p0") == []


async def test_refusals_carry_their_reasons(nclient: NotifyClient) -> None:
    c = nclient

    async def refused(call: object) -> tuple[grpc.StatusCode, str]:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call  # type: ignore[misc]
        return err.value.code(), reason_of(err.value)

    n = c.notify
    for url in ("ftp://example.com/", "example.com/hook", "https://u:p@example.com/"):
        assert await refused(n.SetWebhook(npb.SetWebhookRequest(url=url), metadata=c.app())) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_WEBHOOK_URL",
        )
    assert await refused(n.GetWebhook(npb.GetWebhookRequest(), metadata=c.app())) == (
        grpc.StatusCode.NOT_FOUND,
        "WEBHOOK_NOT_FOUND",
    )
    assert await refused(
        n.RedeliverWebhook(npb.RedeliverWebhookRequest(delivery_id="1"), metadata=c.app())
    ) == (grpc.StatusCode.FAILED_PRECONDITION, "NO_WEBHOOK")
    await n.SetWebhook(npb.SetWebhookRequest(url="http://127.0.0.1:9/none"), metadata=c.app())
    for delivery_id in ("123456789", "x"):
        assert await refused(
            n.RedeliverWebhook(
                npb.RedeliverWebhookRequest(delivery_id=delivery_id), metadata=c.app()
            )
        ) == (grpc.StatusCode.NOT_FOUND, "DELIVERY_NOT_FOUND")
    assert await refused(
        n.ListPlayerEvents(npb.ListPlayerEventsRequest(player_id=""), metadata=c.app())
    ) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert await refused(
        n.ListWebhookDeliveries(
            npb.ListWebhookDeliveriesRequest(status=npb.DeliveryStatus.ValueType(9)),
            metadata=c.app(),
        )
    ) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    _, tokens = await c.new_game()
    assert await refused(
        n.ListPlayerEvents(
            npb.ListPlayerEventsRequest(player_id="p0"), metadata=c.player(tokens[0])
        )
    ) == (grpc.StatusCode.PERMISSION_DENIED, "APP_KEY_REQUIRED")
    # A delivery of another app is as unknown as one that does not exist.
    ana = f"ana-{uuid.uuid4().hex[:6]}"
    await play(c, [ana, f"bea-{uuid.uuid4().hex[:6]}"], 0)
    mine = await deliveries(c)
    assert mine
    _, other_key = await c.new_app()
    await n.SetWebhook(
        npb.SetWebhookRequest(url="http://127.0.0.1:9/none"), metadata=(("x-api-key", other_key),)
    )
    assert await refused(
        n.RedeliverWebhook(
            npb.RedeliverWebhookRequest(delivery_id=mine[0].delivery_id),
            metadata=(("x-api-key", other_key),),
        )
    ) == (grpc.StatusCode.NOT_FOUND, "DELIVERY_NOT_FOUND")


async def test_a_tournament_round_tells_each_entrant_its_table(nclient: NotifyClient) -> None:
    from tranca.v1 import platform_pb2 as ppb
    from tranca.v1 import platform_pb2_grpc as ppb_grpc

    c = nclient
    tag = uuid.uuid4().hex[:6]
    stub = ppb_grpc.TournamentServiceStub(c.channel)
    created = await stub.CreateTournament(
        ppb.CreateTournamentRequest(
            name="open",
            format=ppb.TOURNAMENT_FORMAT_ROUND_ROBIN,
            entrants=[ppb.Entrant(id=f"e{i}", player_ids=[f"t{i}-{tag}"]) for i in range(2)],
            table_size=2,
            rules=gpb.Rules(preset="tranca-000"),
            seed=3,
        ),
        metadata=c.app(),
    )
    tid = created.tournament.tournament_id
    started = await stub.StartRound(
        ppb.StartRoundRequest(tournament_id=tid, round=1), metadata=c.app()
    )
    (table,) = started.round.tables
    for i in range(2):
        events = await all_events(c, f"t{i}-{tag}")
        ready = [e for e in events if e.kind == "tournament_round_ready"]
        assert len(ready) == 1 and ready[0].game_id == table.game_id
        payload = json.loads(ready[0].payload_json)
        assert payload["tournament_id"] == tid and payload["round"] == 1
