"""Notifications (APP_GUIDE.md, "Notifications"): the events a change of a game makes,
written with it; players' event pages and streams; the app's webhook, its refusals,
and the deliverer's attempts, retries, failures and redeliveries, against the
in-memory repository."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
from standardwebhooks import Webhook

from tranca.services.destinations import Destination, Destinations, OutboundPolicy, parse_networks
from tranca.services.errors import Refusal, Refused
from tranca.services.games import Joining
from tranca.services.limits import WatchCounts
from tranca.services.notifications import Notifications, StoredEvent
from tranca.services.webhooks import (
    Deliverer,
    DeliveryPolicy,
    DeliveryStatus,
    Webhooks,
    backoff_ms,
    event_body,
    signature,
)
from tranca.table.events import Event, EventKind
from tranca.table.game import Action, TableOptions, play_action
from tranca_rules.engine import legal_moves

from .conftest import World
from .fakes import FakeResolver, Notes

# A public address the fake resolver gives example.com (nothing connects to it here).
PUBLIC = "93.184.216.34"


def destinations(
    resolver: FakeResolver | None = None, policy: OutboundPolicy | None = None
) -> Destinations:
    return Destinations(resolver or FakeResolver({"example.com": [PUBLIC]}), policy)


def notifications(world: World) -> Notifications:
    return Notifications(world.repo, world.access, Notes(), WatchCounts(4, 3), poll_seconds=0.05)


async def play_turns(world: World, game_id: str, moves: int) -> None:
    """``moves`` atomic moves of whoever is to act (the first legal one each time)."""
    for _ in range(moves):
        game = await world.repo.game(game_id)
        deal = game.state.deal
        assert deal is not None
        await world.moves.apply(game_id, play_action(deal.turn, legal_moves(deal)[0]))


def kinds(world: World, player_id: str) -> list[str]:
    return [e.kind for _, e in world.repo.events if e.player_id == player_id]


# ----- which events a change makes ------------------------------------------------------


async def test_seats_without_player_ids_make_no_events(world: World) -> None:
    game_id = await world.table()
    for seat in range(2):
        await world.games.join(world.as_app(), game_id, Joining(seat, f"p{seat}"))
    await world.games.start(world.as_app(), game_id)
    await play_turns(world, game_id, 12)
    assert world.repo.events == []


async def test_the_turn_passing_to_a_player_tells_them_once_per_turn(world: World) -> None:
    game_id, _ = await world.seated()  # seats 0 and 1: players "id0" and "id1"
    game = await world.repo.game(game_id)
    assert game.state.deal is not None
    first = game.state.deal.turn
    # The start told the first player; nobody else yet.
    assert [(e.player_id, e.kind) for _, e in world.repo.events] == [(f"id{first}", "your_turn")]
    turns = 1
    for _ in range(30):
        before = (await world.repo.game(game_id)).state.deal
        assert before is not None
        await play_turns(world, game_id, 1)
        after = (await world.repo.game(game_id)).state.deal
        if after is not None and after.turn != before.turn:
            turns += 1
    events = [e for _, e in world.repo.events]
    assert len(events) == turns  # one per turn, none for a move within a turn
    assert all(e.kind == EventKind.YOUR_TURN for e in events)
    # Each names the seat to act and the version the turn starts at.
    last = events[-1]
    game = await world.repo.game(game_id)
    assert game.state.deal is not None
    assert last.payload["seat"] == game.state.deal.turn
    assert last.player_id == f"id{game.state.deal.turn}"
    assert last.payload["deadline_ms"] is None  # no turn limit at this table


async def test_a_timed_turn_carries_its_deadline(world: World) -> None:
    game_id, _ = await world.seated(table=TableOptions(turn_seconds=30))
    (_, event), *_ = world.repo.events
    assert event.payload["deadline_ms"] == (world.repo.now + 30_000) & ~1
    assert (await world.repo.game(game_id)).deadline_at == event.payload["deadline_ms"]


async def test_the_end_of_a_match_tells_every_seated_player(world: World) -> None:
    game_id, _ = await world.seated()
    await world.moves.apply(game_id, Action("resign", 0))
    over = [e for _, e in world.repo.events if e.kind == EventKind.GAME_OVER]
    assert sorted(e.player_id for e in over) == ["id0", "id1"]
    by_player = {e.player_id: e.payload for e in over}
    assert by_player["id1"]["won"] and not by_player["id0"]["won"]
    assert by_player["id0"]["result_reason"] == "resignation"


# ----- reading a player's events -----------------------------------------------------------


async def test_a_players_events_are_read_in_pages_after_an_id(world: World) -> None:
    await world.seated()
    await world.seated()
    n = notifications(world)
    page = await n.page(world.as_app(), "id0", 0, 1)
    assert len(page.events) == 1 and page.next_after_id == page.events[0].id
    rest = await n.page(world.as_app(), "id0", page.next_after_id, 0)
    assert all(e.id > page.next_after_id for e in rest.events)
    everything = [e.id for _, e in world.repo.events if e.player_id == "id0"]
    assert [e.id for e in page.events + rest.events] == everything


async def test_a_seat_token_reads_no_events_and_the_api_key_names_the_player(world: World) -> None:
    _, tokens = await world.seated()
    n = notifications(world)
    with pytest.raises(Refused) as no_key:
        await n.page(world.as_player(tokens[0]), "id0", 0, 10)
    assert no_key.value.reason == "APP_KEY_REQUIRED"
    with pytest.raises(Refused) as no_player:
        await n.page(world.as_app(), "", 0, 10)
    assert no_player.value.reason == "MALFORMED_REQUEST"
    with pytest.raises(Refused) as negative:
        await n.page(world.as_app(), "id0", -1, 10)
    assert negative.value.reason == "MALFORMED_REQUEST"
    _, other_key = world.repo.add_app("other")
    assert (await n.page(world.as_app(other_key), "id0", 0, 10)).events == ()


async def test_a_stream_yields_each_event_as_it_is_written(world: World) -> None:
    n = notifications(world)
    got: list[StoredEvent] = []

    async def follow() -> None:
        async for event in n.watch(world.as_app(), "id0", 0):
            got.append(event)

    task = asyncio.create_task(follow())
    try:
        game_id, _ = await world.seated()
        await world.moves.apply(game_id, Action("resign", 1))
        expected = [e.id for _, e in world.repo.events if e.player_id == "id0"]
        for _ in range(100):
            if [e.id for e in got] == expected:
                break
            await asyncio.sleep(0.02)
        assert [e.id for e in got] == expected and got[-1].kind == "game_over"
    finally:
        task.cancel()


async def test_publish_writes_other_kinds_and_refuses_unknown_ones(world: World) -> None:
    n = notifications(world)
    ids = await n.publish(world.app.id, [Event("id9", EventKind.MATCH_FOUND, "g1", {"x": 1})])
    assert kinds(world, "id9") == ["match_found"] and len(ids) == 1
    with pytest.raises(Refused) as unknown:
        await n.publish(world.app.id, [Event("id9", "nonsense", None, {})])  # type: ignore[arg-type]
    assert unknown.value.reason == "UNKNOWN_EVENT_KIND"


# ----- the app's webhook -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("", "required"),
        ("ftp://example.com/hook", "https"),
        ("file:///etc/passwd", "https"),
        # Plain http only where the operator allows it (development).
        ("http://example.com/hook", "only https URLs"),
        # A host that reads as a number but is no address: no name either.
        ("https://08.0.0.1/", "not an IPv4 address"),
        ("https://1.2.3.4.5/", "not an IPv4 address"),
        ("https://4294967296/", "not an IPv4 address"),
        ("https://[fe80::1%25eth0]/", "zone"),
        ("https://exa mple.com/", "not a valid name"),
        ("https://", "no host"),
        ("https://user:pw@example.com/hook", "user name"),
        ("https://example.com:99999/", "not a URL"),
        ("https://example.com/" + "a" * 2048, "at most"),
    ],
)
async def test_a_webhook_url_must_be_https_with_a_host(world: World, url: str, why: str) -> None:
    hooks = Webhooks(world.repo, world.access, destinations())
    with pytest.raises(Refused) as bad:
        await hooks.set(world.as_app(), url)
    assert bad.value.reason == "BAD_WEBHOOK_URL" and why in bad.value.message


async def test_a_webhook_is_set_with_a_secret_shown_once_and_replaced(world: World) -> None:
    hooks = Webhooks(world.repo, world.access, destinations())
    with pytest.raises(Refused) as none:
        await hooks.get(world.as_app())
    assert none.value.reason == "WEBHOOK_NOT_FOUND"
    first = await hooks.set(world.as_app(), "https://example.com/a")
    second = await hooks.set(world.as_app(), "https://example.com/b")
    assert first.secret.startswith("whsec_") and first.secret != second.secret
    assert (await hooks.get(world.as_app())).url == "https://example.com/b"
    assert await hooks.delete(world.as_app()) and not await hooks.delete(world.as_app())


async def test_redelivery_refusals_name_their_reason(world: World) -> None:
    hooks = Webhooks(world.repo, world.access, destinations())
    with pytest.raises(Refused) as no_hook:
        await hooks.redeliver(world.as_app(), "1")
    assert no_hook.value.reason == "NO_WEBHOOK"
    await hooks.set(world.as_app(), "https://example.com/a")
    await world.seated()  # a delivery, pending
    assert world.repo.outbox
    pending = next(iter(world.repo.outbox))
    for delivery_id, reason in [
        ("", "MALFORMED_REQUEST"),
        ("abc", "DELIVERY_NOT_FOUND"),
        ("999", "DELIVERY_NOT_FOUND"),
        (str(pending), "DELIVERY_NOT_FAILED"),
    ]:
        with pytest.raises(Refused) as refused:
            await hooks.redeliver(world.as_app(), delivery_id)
        assert refused.value.reason == reason, delivery_id
    # Another app's delivery is as unknown as one that does not exist.
    _, other_key = world.repo.add_app("other")
    await hooks.set(world.as_app(other_key), "https://example.com/o")
    with pytest.raises(Refused) as foreign:
        await hooks.redeliver(world.as_app(other_key), str(pending))
    assert foreign.value.reason == "DELIVERY_NOT_FOUND"


# The hosts the registration tests' resolver knows.
NAMES = {
    "example.com": [PUBLIC],
    "metadata.internal": ["169.254.169.254"],
    "intranet.example": ["10.1.2.3"],
    "mapped.example": ["::ffff:192.168.0.1"],
    # One public address and one private: refused whole, whichever comes first.
    "mixed.example": [PUBLIC, "10.0.0.7"],
    "mixed6.example": ["fd00::7", PUBLIC],
}


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://127.0.0.1/hook", "127.0.0.1 is a loopback address"),
        ("https://localhost.:8443/", "resolves to a loopback address"),
        ("https://2130706433/hook", "2130706433 (127.0.0.1) is a loopback address"),
        ("https://0x7f.1/hook", "0x7f.1 (127.0.0.1) is a loopback address"),
        ("https://0177.0.0.1/hook", "(127.0.0.1) is a loopback address"),
        ("https://127.1/hook", "(127.0.0.1) is a loopback address"),
        ("https://[::1]/hook", "::1 is a loopback address"),
        ("https://[::ffff:10.0.0.1]/", "a private address, carried in an IPv4-mapped"),
        ("https://[64:ff9b::a9fe:a9fe]/", "link-local address"),
        ("https://[2002:a00:1::]/", "carried in a 6to4 address"),
        ("https://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://10.0.0.5/", "a private address"),
        ("https://192.168.1.1/", "a private address"),
        ("https://[fd00::1]/", "a private address"),
        ("https://[fe80::1]/", "link-local"),
        ("https://0.0.0.0/", "unspecified"),
        ("https://[::]/", "unspecified"),
        ("https://100.64.0.1/", "carrier-grade NAT"),
        ("https://224.0.0.1/", "multicast"),
        ("https://240.0.0.1/", "reserved"),
        ("https://metadata.internal/computeMetadata/v1/", "resolves to a link-local address"),
        ("https://intranet.example/", "resolves to a private address"),
        ("https://mapped.example/", "resolves to a private address, carried in an IPv4-mapped"),
        ("https://mixed.example/", "resolves to a private address"),
        ("https://mixed6.example/", "resolves to a private address"),
    ],
)
async def test_a_webhook_may_not_point_inside_the_operators_network(
    world: World, url: str, why: str
) -> None:
    resolver = FakeResolver({**NAMES, "localhost": ["127.0.0.1", "::1"]})
    hooks = Webhooks(world.repo, world.access, destinations(resolver))
    with pytest.raises(Refused) as refused:
        await hooks.set(world.as_app(), url)
    assert refused.value.kind == Refusal.MALFORMED
    assert refused.value.reason == "WEBHOOK_URL_FORBIDDEN" and why in refused.value.message
    assert world.repo.webhooks == {}  # nothing set
    host = urlsplit(url).hostname or ""
    if host.rstrip(".") in resolver.names:
        # A name's addresses are not shown to the app: only what kind they are.
        assert all(a not in refused.value.message for a in resolver.names[host.rstrip(".")])
    else:
        # A host written as an address, in whatever form, is never a name to resolve.
        assert resolver.asked == []


async def test_a_name_that_does_not_resolve_is_refused_as_such(world: World) -> None:
    hooks = Webhooks(world.repo, world.access, destinations())
    with pytest.raises(Refused) as refused:
        await hooks.set(world.as_app(), "https://nowhere.example/hook")
    assert (refused.value.kind, refused.value.reason) == (
        Refusal.PRECONDITION,
        "WEBHOOK_URL_UNRESOLVED",
    )
    assert "nowhere.example does not resolve" in refused.value.message
    assert world.repo.webhooks == {}


async def test_the_operator_may_allow_ranges_and_plain_http(world: World) -> None:
    """An internal receiver: its range on the allow-list (an IPv4-mapped form of an
    allowed address is that address), plain http with the development flag."""
    policy = OutboundPolicy(allow_http=True, allowed=parse_networks("127.0.0.1/32, fd00::/8"))
    resolver = FakeResolver({"hooks.internal": ["fd00::5"], "other.internal": ["10.0.0.1"]})
    hooks = Webhooks(world.repo, world.access, destinations(resolver, policy))
    for url in (
        "http://127.0.0.1:8080/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://hooks.internal/hook",
    ):
        assert (await hooks.set(world.as_app(), url)).webhook.url == url
    for url in ("https://127.0.0.2/", "https://other.internal/", "https://169.254.169.254/"):
        with pytest.raises(Refused) as refused:
            await hooks.set(world.as_app(), url)
        assert refused.value.reason == "WEBHOOK_URL_FORBIDDEN", url


def test_bad_allow_lists_are_refused() -> None:
    assert parse_networks("") == ()
    assert [str(n) for n in parse_networks(" 10.0.0.0/8,::1 ")] == ["10.0.0.0/8", "::1/128"]
    with pytest.raises(ValueError, match=r"'10\.0\.0\.0/33' is not a CIDR range"):
        parse_networks("10.0.0.0/33")


# ----- signing and delivering ----------------------------------------------------------------


def test_the_signature_is_the_standard_webhooks_one() -> None:
    """The example of the Standard Webhooks specification (its reference libraries'
    test vector)."""
    assert (
        signature(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            b'{"test": 2432232314}',
        )
        == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )


@dataclass
class Receiver:
    """A poster that plays a receiver: each call answers the next of ``script`` (a
    status code, or an exception to raise), then 200s; it verifies every signature."""

    secret: str = ""
    script: list[int | Exception] = field(default_factory=list)
    calls: list[tuple[Destination, dict[str, str], bytes]] = field(default_factory=list)

    async def post(
        self, destination: Destination, body: bytes, headers: dict[str, str], timeout: float
    ) -> int:
        Webhook(self.secret).verify(body, headers)  # raises if the signature is wrong
        self.calls.append((destination, headers, body))
        answer = self.script.pop(0) if self.script else 200
        if isinstance(answer, Exception):
            raise answer
        return answer


async def hooked(
    world: World, resolver: FakeResolver | None = None
) -> tuple[Webhooks, Receiver, Deliverer]:
    # The receiver checks the signature's timestamp against its own clock.
    world.repo.now = int(time.time() * 1000)
    where = destinations(resolver)
    hooks = Webhooks(world.repo, world.access, where, clock=lambda: world.repo.now)
    new = await hooks.set(world.as_app(), "https://example.com/hook")
    receiver = Receiver(new.secret)
    policy = DeliveryPolicy(timeout=0.2, max_attempts=3, backoff_ms=1000)
    deliverer = Deliverer(world.repo, receiver, where, policy, clock=lambda: world.repo.now)
    return hooks, receiver, deliverer


async def test_an_event_is_posted_signed_and_retried_until_a_2xx(world: World) -> None:
    _, receiver, deliverer = await hooked(world)
    receiver.script = [500, ConnectionRefusedError("refused")]
    game_id, _ = await world.seated()
    (delivery_id, delivery), *_ = world.repo.outbox.items()
    assert await deliverer.run_once() == 1
    assert delivery.status == "pending" and delivery.last_error == "HTTP 500"
    assert delivery.next_attempt_at > world.repo.now  # backing off
    assert await deliverer.run_once() == 0  # not due yet
    world.repo.now = delivery.next_attempt_at
    await deliverer.run_once()
    assert delivery.last_error == "refused" and delivery.last_status_code is None
    world.repo.now = delivery.next_attempt_at
    await deliverer.run_once()
    assert delivery.status == "delivered" and delivery.attempts == 3
    ids = {headers["webhook-id"] for _, headers, _ in receiver.calls}
    assert ids == {str(delivery_id)}  # the same id at every attempt: de-duplication
    body = json.loads(receiver.calls[-1][2])
    assert body["type"] == "your_turn" and body["data"]["game_id"] == game_id


async def test_a_slow_receiver_times_out_and_the_delivery_fails_after_its_attempts(
    world: World,
) -> None:
    hooks, receiver, deliverer = await hooked(world)

    class Slow(Receiver):
        async def post(
            self, destination: Destination, body: bytes, headers: dict[str, str], timeout: float
        ) -> int:
            await asyncio.sleep(10)
            return 200

    deliverer.poster = Slow(receiver.secret)
    await world.seated()
    (delivery_id, delivery), *_ = world.repo.outbox.items()
    for _ in range(3):
        world.repo.now = delivery.next_attempt_at
        await deliverer.run_once()
    assert delivery.status == "failed" and delivery.attempts == 3
    assert delivery.last_error == "no answer within 0.2 s"
    page = await hooks.list_deliveries(world.as_app(), DeliveryStatus.FAILED, 10, "")
    assert [d.id for d in page.deliveries] == [delivery_id]
    # Sent again when the app asks: pending, its attempts counted afresh.
    deliverer.poster = receiver
    again = await hooks.redeliver(world.as_app(), str(delivery_id))
    assert again.status == "pending" and again.attempts == 0
    await deliverer.run_once()
    assert delivery.status == "delivered"


async def test_a_name_pointed_inside_after_registration_gets_nothing(world: World) -> None:
    """DNS rebinding: a name public when the webhook was set, private when its event
    is delivered. The delivery is refused before any connection and recorded as a
    failed attempt; once the name is public again, the POST goes to the address that
    was checked then."""
    resolver = FakeResolver({"example.com": [PUBLIC]})
    _, receiver, deliverer = await hooked(world, resolver)
    await world.seated()
    (delivery,) = world.repo.outbox.values()
    resolver.names["example.com"] = ["10.0.0.1"]
    await deliverer.run_once()
    assert receiver.calls == []  # the poster was never asked
    assert delivery.status == "pending" and delivery.last_status_code is None
    assert delivery.last_error == ("not sent: the host example.com resolves to a private address")
    resolver.names["example.com"] = ["169.254.169.254", "93.184.216.35"]
    world.repo.now = delivery.next_attempt_at
    await deliverer.run_once()
    assert receiver.calls == [] and "link-local" in (delivery.last_error or "")
    assert resolver.asked.count("example.com") == 3  # registration, then each attempt
    resolver.names["example.com"] = ["93.184.216.35"]
    world.repo.now = delivery.next_attempt_at
    await deliverer.run_once()
    assert delivery.status == "delivered"
    ((destination, _, _),) = receiver.calls
    assert destination.url == "https://example.com/hook"
    assert [str(a) for a in destination.addresses] == ["93.184.216.35"]


async def test_a_webhook_no_longer_allowed_fails_its_deliveries_unsent(world: World) -> None:
    """A URL stored before the policy forbade it (plain http, an address since taken
    off the allow-list) is checked at each delivery like a new one."""
    _, receiver, deliverer = await hooked(world)
    await world.repo.set_webhook(world.app.id, "http://example.com/hook", receiver.secret)
    await world.seated()
    (delivery,) = world.repo.outbox.values()
    await deliverer.run_once()
    assert receiver.calls == []
    assert delivery.last_error == "not sent: only https URLs are accepted"


async def test_a_redirect_is_a_failed_attempt(world: World) -> None:
    _, receiver, deliverer = await hooked(world)
    receiver.script = [302, 307]
    await world.seated()
    (delivery,) = world.repo.outbox.values()
    await deliverer.run_once()
    assert delivery.status == "pending" and delivery.last_status_code == 302
    assert delivery.last_error == "HTTP 302: redirects are not followed"
    assert len(receiver.calls) == 1


async def test_a_removed_webhook_fails_its_pending_deliveries(world: World) -> None:
    hooks, receiver, deliverer = await hooked(world)
    await world.seated()
    await hooks.delete(world.as_app())
    await deliverer.run_once()
    (delivery,) = world.repo.outbox.values()
    assert delivery.status == "failed" and receiver.calls == []


def test_the_backoff_doubles_with_jitter_up_to_its_cap() -> None:
    policy = DeliveryPolicy(backoff_ms=1000, max_backoff_ms=60_000)
    rng = random.Random(1)
    for attempt, ceiling in [(1, 1000), (2, 2000), (3, 4000), (10, 60_000), (99, 60_000)]:
        waits = [backoff_ms(attempt, policy, rng) for _ in range(50)]
        assert all(ceiling // 2 <= w <= ceiling for w in waits), (attempt, waits[:3])
        assert len(set(waits)) > 1


def test_a_body_carries_the_event() -> None:
    event = StoredEvent(7, "p", "game_over", "g", {"won": True}, 1_700_000_000_123)
    body = json.loads(event_body(event))
    assert body == {
        "type": "game_over",
        "timestamp": "2023-11-14T22:13:20.123Z",
        "data": {
            "event_id": 7,
            "player_id": "p",
            "game_id": "g",
            "created_at_ms": 1_700_000_000_123,
            "won": True,
        },
    }


def test_a_claim_outlasts_its_batch_of_posts() -> None:
    """The lease covers every POST of the batch, ``concurrency`` at a time, and the
    outcomes' writes: a replica that is alive never has its claims taken."""
    assert DeliveryPolicy(timeout=5).lease_ms == 26_000  # 32 POSTs, 8 at a time
    assert DeliveryPolicy(timeout=1, batch=64, concurrency=16).lease_ms == 6_000
