"""Webhooks: an app's players' events POSTed to the app's URL, signed, from the outbox.

An app sets one webhook (``Webhooks.set``: the URL, and a signing secret shown once).
From then on every event of its players is written with a delivery row (the outbox,
in the transaction of the event itself), and any replica's ``Deliverer`` claims the
due rows, POSTs each event and records the outcome:

- a 2xx answer: delivered;
- anything else (another status, a 3xx included: redirects are not followed; a
  refused connection; no answer within the timeout; a URL whose host is, or now
  resolves to, an address outgoing calls may not reach, ``services/destinations.py``:
  then nothing is sent): tried again after a backoff that doubles at every attempt,
  with jitter (``backoff_ms``), up to ``max_attempts``; then failed, until the app
  asks for it again (``Webhooks.redeliver``).

A claim moves the row's next attempt to a lease: a replica that dies while POSTing
leaves the row to come due again when the lease ends, and another replica sends it.
Delivery is at least once: a receiver de-duplicates by the ``webhook-id`` header, the
delivery's id, the same at every attempt.

The signature follows the Standard Webhooks specification: the headers
``webhook-id``, ``webhook-timestamp`` (seconds) and ``webhook-signature``
(``v1,`` and the base64 HMAC-SHA256, keyed with the secret's bytes, of
``id.timestamp.body``); the secret is ``whsec_`` and the key's base64.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Protocol

import structlog

from .. import metrics
from ..reasons import Reason
from .access import Access, Credentials
from .destinations import (
    BadDestination,
    Destination,
    DestinationError,
    Destinations,
    ForbiddenDestination,
    UnresolvedDestination,
)
from .errors import Refusal, Refused, malformed
from .notifications import StoredEvent
from .paging import before_token, parse_before, parse_row_id

log = structlog.get_logger("tranca.webhooks")

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
MAX_URL = 2048
MAX_ERROR = 200  # characters of an attempt's error kept (last_error)
DEFAULT_PAGE = 50
MAX_PAGE = 500


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # waiting for its next attempt, or being attempted
    DELIVERED = "delivered"  # the receiver answered 2xx
    FAILED = "failed"  # every attempt failed: sent again only if the app asks


# ----- signing (the Standard Webhooks scheme) ---------------------------------------


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header's value for a message."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(secret: str, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "content-type": "application/json",
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, msg_id, timestamp, body),
    }


def event_body(event: StoredEvent) -> bytes:
    """What a delivery POSTs: the Standard Webhooks payload shape, ``type``,
    ``timestamp`` (when the event was written) and ``data`` (the event)."""
    created = datetime.fromtimestamp(event.created_at / 1000, UTC)
    data = {
        "event_id": event.id,
        "player_id": event.player_id,
        "game_id": event.game_id,
        "created_at_ms": event.created_at,
        **event.payload,
    }
    body = {
        "type": event.kind,
        "timestamp": created.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "data": data,
    }
    return json.dumps(body, separators=(",", ":")).encode()


async def check_url(destinations: Destinations, url: str) -> None:
    """An https URL (http where the operator allows it) with a host and no
    credentials, else BAD_WEBHOOK_URL; its host an address outgoing calls may reach
    now, else WEBHOOK_URL_FORBIDDEN, or WEBHOOK_URL_UNRESOLVED if its name has no
    address (``services/destinations.py``)."""
    if not url:
        raise Refused(Refusal.MALFORMED, Reason.BAD_WEBHOOK_URL, "url is required")
    if len(url) > MAX_URL:
        raise Refused(
            Refusal.MALFORMED, Reason.BAD_WEBHOOK_URL, f"the URL is at most {MAX_URL} characters"
        )
    try:
        await destinations.check(url)
    except BadDestination as exc:
        raise Refused(Refusal.MALFORMED, Reason.BAD_WEBHOOK_URL, str(exc)) from None
    except ForbiddenDestination as exc:
        raise Refused(
            Refusal.MALFORMED,
            Reason.WEBHOOK_URL_FORBIDDEN,
            f"{exc}: the server calls only public addresses",
        ) from None
    except UnresolvedDestination as exc:
        raise Refused(Refusal.PRECONDITION, Reason.WEBHOOK_URL_UNRESOLVED, str(exc)) from None


# ----- what crosses the repository port ---------------------------------------------


@dataclass(frozen=True)
class WebhookConfig:
    url: str
    enabled: bool
    created_at: float  # seconds since the epoch


@dataclass(frozen=True)
class DeliveryRecord:
    """A delivery as the app sees it (ListWebhookDeliveries). Times in epoch ms."""

    id: int
    event_id: int
    kind: str
    player_id: str
    status: str
    attempts: int
    next_attempt_at: int | None  # None once delivered or failed
    last_status_code: int | None
    last_error: str | None
    delivered_at: int | None
    created_at: int  # the event's


@dataclass(frozen=True)
class ClaimedDelivery:
    """A delivery a replica claimed until ``lease_until``: its event and where to send
    it (``url`` None: the app's webhook was removed since)."""

    id: int
    attempts: int  # this one included
    lease_until: int
    event: StoredEvent
    url: str | None
    secret: str | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What came of one attempt of a claimed delivery (times in epoch ms)."""

    delivery_id: int
    lease_until: int  # the claim it was made under
    at: int
    status_code: int | None  # the answer's, if one came
    error: str | None = None  # None: delivered (a 2xx)
    # A failed attempt's next one; None: the delivery failed for good.
    next_attempt_at: int | None = None


class WebhookRepository(Protocol):
    async def set_webhook(self, app_id: str, url: str, secret: str) -> None:
        """The app's webhook, created or replaced (enabled)."""
        ...

    async def webhook(self, app_id: str) -> WebhookConfig | None: ...

    async def delete_webhook(self, app_id: str) -> bool:
        """Removed (False: there was none)."""
        ...

    async def deliveries(
        self, app_id: str, status: str | None, before_id: int | None, limit: int
    ) -> list[DeliveryRecord]:
        """The app's deliveries, newest first, with ids below ``before_id`` if given."""
        ...

    async def delivery(self, app_id: str, delivery_id: int) -> DeliveryRecord | None:
        """One of the app's deliveries (None: none of the app's has this id)."""
        ...

    async def redeliver(self, app_id: str, delivery_id: int, now: int) -> bool:
        """The app's delivery, if failed, made pending again, due at ``now``, its
        attempts counted afresh (False: it is not failed now)."""
        ...

    async def claim_deliveries(
        self, now: int, lease_until: int, limit: int
    ) -> list[ClaimedDelivery]:
        """Up to ``limit`` pending deliveries due at ``now``, each claimed by one
        caller: next attempt moved to ``lease_until``, attempts counted."""
        ...

    async def record(self, outcomes: Sequence[Outcome]) -> None:
        """The outcomes of a batch's attempts, in one transaction. A delivered one is
        recorded whoever's claim it was; a failed one only if its claim still holds
        (else another replica claimed the row since, and its own outcome counts)."""
        ...

    async def prune(self, events_before: int, delivered_before: int, limit: int) -> int:
        """Delete up to ``limit`` delivered deliveries older than ``delivered_before``
        and events older than ``events_before`` (with their deliveries, none pending);
        how many rows went."""
        ...


class Poster(Protocol):
    """An HTTP client (``tranca/outbound.py``): the status code of a POST to a checked
    destination, connected to one of its addresses and no other, or an exception (a
    refused connection, a timeout) if there was none. Redirects are not followed."""

    async def post(
        self, destination: Destination, body: bytes, headers: dict[str, str], timeout: float
    ) -> int: ...


def now_ms() -> int:
    return int(time.time() * 1000)


# ----- the app's calls ----------------------------------------------------------------


@dataclass(frozen=True)
class NewWebhook:
    webhook: WebhookConfig
    secret: str  # shown once


@dataclass(frozen=True)
class DeliveryPage:
    deliveries: tuple[DeliveryRecord, ...]
    next_before: int | None  # the id to read the next page before; None at the end

    @property
    def next_page_token(self) -> str:
        return before_token(self.next_before)


def delivery_not_found() -> Refused:
    return Refused(Refusal.NOT_FOUND, Reason.DELIVERY_NOT_FOUND, "no such delivery")


def parse_delivery_id(text: str) -> int:
    if not text:
        raise malformed("delivery_id is required")
    wanted = parse_row_id(text)
    if wanted is None:
        # An id of another form, or past the ids' 64 bits, was never issued: as
        # unknown as any other.
        raise delivery_not_found()
    return wanted


class Webhooks:
    """An app's webhook and its deliveries, under the app's API key."""

    def __init__(
        self,
        repo: WebhookRepository,
        access: Access,
        destinations: Destinations,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.repo = repo
        self.access = access
        self.destinations = destinations
        self.clock = clock

    async def set(self, credentials: Credentials, url: str) -> NewWebhook:
        """Set (or replace) the app's webhook with a new signing secret, returned once.
        Deliveries still pending go to the new URL, signed with the new secret. The
        URL's host is resolved and checked now, and again at every delivery."""
        app = await self.access.calling_app(credentials)
        await check_url(self.destinations, url)
        secret = new_secret()
        await self.repo.set_webhook(app.id, url, secret)
        found = await self.repo.webhook(app.id)
        assert found is not None  # only DeleteWebhook removes it, and a race with it is lost
        return NewWebhook(found, secret)

    async def get(self, credentials: Credentials) -> WebhookConfig:
        app = await self.access.calling_app(credentials)
        found = await self.repo.webhook(app.id)
        if found is None:
            raise Refused(Refusal.NOT_FOUND, Reason.WEBHOOK_NOT_FOUND, "the app has no webhook")
        return found

    async def delete(self, credentials: Credentials) -> bool:
        """Remove the app's webhook: no new delivery is made, and pending ones fail at
        their next attempt. False if there was none (not an error: the state asked for
        holds)."""
        app = await self.access.calling_app(credentials)
        return await self.repo.delete_webhook(app.id)

    async def list_deliveries(
        self, credentials: Credentials, status: DeliveryStatus | None, page_size: int, token: str
    ) -> DeliveryPage:
        """The app's deliveries, newest first, ``status`` only if given."""
        app = await self.access.calling_app(credentials)
        if page_size < 0:
            raise malformed("page_size must be 0 or more")
        size = min(page_size or DEFAULT_PAGE, MAX_PAGE)
        before = parse_before(token)
        rows = await self.repo.deliveries(app.id, status, before, size)
        return DeliveryPage(tuple(rows), rows[-1].id if len(rows) == size else None)

    async def redeliver(self, credentials: Credentials, delivery_id: str) -> DeliveryRecord:
        """A failed delivery sent again (pending, due now, its attempts counted from
        zero). A delivery of another app is as unknown as one that does not exist."""
        app = await self.access.calling_app(credentials)
        wanted = parse_delivery_id(delivery_id)
        if await self.repo.webhook(app.id) is None:
            raise Refused(
                Refusal.PRECONDITION, Reason.NO_WEBHOOK, "the app has no webhook to deliver to"
            )
        found = await self.repo.delivery(app.id, wanted)
        if found is None:
            raise delivery_not_found()
        if found.status != DeliveryStatus.FAILED or not await self.repo.redeliver(
            app.id, wanted, self.clock()
        ):
            raise Refused(
                Refusal.PRECONDITION,
                Reason.DELIVERY_NOT_FAILED,
                f"the delivery is {found.status}: only a failed one is sent again",
            )
        again = await self.repo.delivery(app.id, wanted)
        assert again is not None  # deliveries of a live event are not deleted
        return again


# ----- the sweeper's side ---------------------------------------------------------------


@dataclass(frozen=True)
class DeliveryPolicy:
    """How deliveries are attempted (the server's --webhook-* flags)."""

    timeout: float = 5.0  # seconds for one POST, from connecting to the answer's end
    max_attempts: int = 10
    backoff_ms: int = 5_000  # before the second attempt; doubles at each one after
    max_backoff_ms: int = 3_600_000
    batch: int = 32  # deliveries claimed at once
    # POSTs in flight per replica: httpx's connection pool spends CPU on every
    # connection for every request it places, and past about 8 connections that
    # cost more than the concurrency gained (bench/webhook_bench.py: 225 deliveries
    # a second at 8, 137 at 16, 83 at 32, on a 2-core machine).
    concurrency: int = 8
    retention_ms: int = 7 * 24 * 3_600_000  # events kept this long
    delivered_retention_ms: int = 24 * 3_600_000  # delivered rows kept this long

    @property
    def lease_ms(self) -> int:
        """A claim's hold: the batch's POSTs, ``concurrency`` at a time, each within
        the timeout, and the outcomes written well within one timeout more (with the
        defaults, five times the timeout and a second: 26 s)."""
        rounds = -(-self.batch // self.concurrency)
        return int((rounds + 1) * self.timeout * 1000) + 1000


def backoff_ms(attempt: int, policy: DeliveryPolicy, rng: random.Random) -> int:
    """The wait after failed attempt number ``attempt`` (from 1): the base doubled at
    each attempt, capped, then "full jitter" over its upper half, so that deliveries
    failed together do not come back together."""
    doubled: int = policy.backoff_ms << min(attempt - 1, 30)
    ceiling = min(policy.max_backoff_ms, doubled)
    return ceiling // 2 + int(rng.random() * (ceiling - ceiling // 2))


PRUNE_EVERY_MS = 60_000
PRUNE_BATCH = 1000


class Deliverer:
    """Claims due deliveries, POSTs them and records the outcomes (every replica runs
    one; the claims keep them from sending the same delivery at once)."""

    def __init__(
        self,
        repo: WebhookRepository,
        poster: Poster,
        destinations: Destinations,
        policy: DeliveryPolicy | None = None,
        clock: Callable[[], int] = now_ms,
        rng: random.Random | None = None,
    ) -> None:
        self.repo = repo
        self.poster = poster
        self.destinations = destinations
        self.policy = policy or DeliveryPolicy()
        self.clock = clock
        self.rng = rng or random.Random()
        # The first prune a while after start, not at once: a replica's first sweeps
        # then take no write lock (SQLite's is the whole database's) for old rows.
        self._pruned_at = clock()

    async def run_once(self) -> int:
        """One sweep: claim a batch, attempt each, record the outcomes together;
        returns how many were attempted."""
        policy = self.policy
        now = self.clock()
        claims = await self.repo.claim_deliveries(now, now + policy.lease_ms, policy.batch)
        if claims:
            gate = asyncio.Semaphore(policy.concurrency)

            async def one(claim: ClaimedDelivery) -> Outcome:
                async with gate:
                    return await self.attempt(claim)

            # One write for the batch's outcomes, not one per delivery: on SQLite,
            # every write takes the database's one lock.
            await self.repo.record(await asyncio.gather(*(one(c) for c in claims)))
        if now - self._pruned_at >= PRUNE_EVERY_MS:
            self._pruned_at = now
            await self.repo.prune(
                now - policy.retention_ms, now - policy.delivered_retention_ms, PRUNE_BATCH
            )
        return len(claims)

    async def attempt(self, claim: ClaimedDelivery) -> Outcome:
        """POST one claimed delivery; what came of it. Its failures are the
        receiver's, and part of the outcome."""
        policy = self.policy
        status: int | None = None
        if claim.url is None or claim.secret is None:
            metrics.WEBHOOK_ATTEMPTS.labels("no_webhook").inc()
            error = "the app's webhook was removed"
            return Outcome(claim.id, claim.lease_until, self.clock(), None, error, None)
        body = event_body(claim.event)
        headers = signed_headers(claim.secret, str(claim.id), self.clock() // 1000, body)
        try:
            # The URL checked again, its name resolved now: the POST connects to the
            # addresses that passed, so a name pointed inside since it was set (DNS
            # rebinding) gets nothing. Resolving and POSTing share the timeout.
            async with asyncio.timeout(policy.timeout):
                destination = await self.destinations.check(claim.url, policy.timeout)
                status = await self.poster.post(destination, body, headers, policy.timeout)
        except DestinationError as exc:
            error = f"not sent: {exc}"[:MAX_ERROR]
        except TimeoutError:
            error = f"no answer within {policy.timeout:g} s"
        except Exception as exc:  # the receiver's failure, whatever the client says
            error = (str(exc) or type(exc).__name__)[:MAX_ERROR]
        else:
            if 200 <= status < 300:
                now = self.clock()
                metrics.WEBHOOK_ATTEMPTS.labels("delivered").inc()
                metrics.WEBHOOK_DELAY.observe(max(0, now - claim.event.created_at) / 1000)
                return Outcome(claim.id, claim.lease_until, now, status)
            error = f"HTTP {status}"
            if 300 <= status < 400:
                error += ": redirects are not followed"
        now = self.clock()
        retry: int | None = None
        if claim.attempts < policy.max_attempts:
            retry = now + backoff_ms(claim.attempts, policy, self.rng)
        metrics.WEBHOOK_ATTEMPTS.labels("retry" if retry is not None else "failed").inc()
        return Outcome(claim.id, claim.lease_until, now, status, error, retry)

    async def run(self, interval: float) -> None:
        """Sweep every ``interval`` seconds until cancelled; at once again after a full
        batch; a failed sweep (the database away) is logged and the next waits longer."""
        delay = interval
        while True:
            try:
                busy = await self.run_once() >= self.policy.batch
                delay = interval
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("webhook_sweep_failed", error=str(exc) or type(exc).__name__)
                busy = False
                delay = min(30.0, max(delay * 2, interval))
            await asyncio.sleep(0 if busy else delay)


__all__: Sequence[str] = [
    "ClaimedDelivery",
    "Deliverer",
    "DeliveryPage",
    "DeliveryPolicy",
    "DeliveryRecord",
    "DeliveryStatus",
    "NewWebhook",
    "Outcome",
    "Poster",
    "WebhookConfig",
    "WebhookRepository",
    "Webhooks",
    "backoff_ms",
    "check_url",
    "event_body",
    "new_secret",
    "signature",
    "signed_headers",
]
