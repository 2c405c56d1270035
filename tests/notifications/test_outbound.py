"""Outgoing calls reach only where the operator lets them (services/destinations.py,
tranca/outbound.py; APP_GUIDE.md, "Webhooks"), on SQLite and PostgreSQL where a
server runs: a server with the default settings refuses loopback and plain http; a
delivery goes over real TLS to the address checked, with the host's name in the TLS
server name, the Host header and the certificate's verification; a name pointed
inside after its registration gets nothing; and the HTTP client follows no redirect,
reads a bounded answer, and gives up on a slow one at its timeout."""

from __future__ import annotations

import asyncio
import ipaddress
import ssl
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpcore
import pytest
import trustme

from tests.harness.servers import running_server, server_config
from tests.server.api_calls import reason_of
from tests.usecases.fakes import FakeResolver
from tranca.outbound import PINNED, OutboundClient, pinned_backend
from tranca.server import Config, Running, start
from tranca.services.destinations import Destination, OutboundPolicy, parse
from tranca.v1 import notifications_pb2 as npb

from .conftest import FAST, NotifyClient
from .receiver import HookReceiver
from .test_webhooks import all_events, deliveries, play

INVALID, PRECONDITION = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION
HOOKS = "hooks.example.test"  # a made-up name: only the tests' resolver knows it


async def refusal(call: Awaitable[object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    return err.value.code(), reason_of(err.value)


@asynccontextmanager
async def client_of(running: Running) -> AsyncIterator[NotifyClient]:
    _, key = await running.store.create_app(f"test-{uuid.uuid4().hex[:6]}")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        yield NotifyClient(channel, key, running)


async def test_a_default_server_calls_no_loopback_address_and_no_plain_http(
    db_url: str,
) -> None:
    running = await start(server_config(db_url, **FAST))  # the outbound settings' defaults
    try:
        async with client_of(running) as c:
            forbidden = (INVALID, "WEBHOOK_URL_FORBIDDEN")
            for url, expected in [
                ("http://127.0.0.1:9/hook", (INVALID, "BAD_WEBHOOK_URL")),
                ("http://example.com/hook", (INVALID, "BAD_WEBHOOK_URL")),
                ("https://127.0.0.1:9/hook", forbidden),
                ("https://localhost:9/hook", forbidden),  # the system's resolver
                ("https://2130706433/hook", forbidden),
                ("https://0x7f.1/hook", forbidden),
                ("https://[::1]/hook", forbidden),
                ("https://[::ffff:127.0.0.1]/hook", forbidden),
                ("https://169.254.169.254/latest/meta-data/", forbidden),
                ("https://10.0.0.1/hook", forbidden),
                ("https://192.168.0.1/hook", forbidden),
                ("https://[fd00::1]/hook", forbidden),
                ("https://0.0.0.0/hook", forbidden),
            ]:
                request = npb.SetWebhookRequest(url=url)
                assert await refusal(c.notify.SetWebhook(request, metadata=c.app())) == expected, (
                    url
                )
            # Nothing was set.
            assert await refusal(
                c.notify.GetWebhook(npb.GetWebhookRequest(), metadata=c.app())
            ) == (grpc.StatusCode.NOT_FOUND, "WEBHOOK_NOT_FOUND")
    finally:
        await running.stop(0.5)


async def test_a_name_that_does_not_resolve_is_refused(nclient: NotifyClient) -> None:
    request = npb.SetWebhookRequest(url="https://nowhere.example.test/hook")
    assert await refusal(nclient.notify.SetWebhook(request, metadata=nclient.app())) == (
        PRECONDITION,
        "WEBHOOK_URL_UNRESOLVED",
    )


def test_the_outbound_flags_and_their_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ALLOW_HTTP", "ALLOW", "CA_FILE"):
        monkeypatch.delenv(f"TRANCA_OUTBOUND_{name}", raising=False)
    default = Config.from_args([])
    assert (default.outbound_allow_http, default.outbound_allow, default.outbound_ca_file) == (
        False,
        "",
        "",
    )
    given = Config.from_args(
        ["--outbound-allow-http", "--outbound-allow", "10.0.0.0/8, ::1", "--outbound-ca-file", "x"]
    )
    assert (given.outbound_allow_http, given.outbound_allow, given.outbound_ca_file) == (
        True,
        "10.0.0.0/8, ::1",
        "x",
    )
    monkeypatch.setenv("TRANCA_OUTBOUND_ALLOW_HTTP", "true")
    monkeypatch.setenv("TRANCA_OUTBOUND_ALLOW", "127.0.0.1/32")
    from_env = Config.from_args([])
    assert from_env.outbound_allow_http and from_env.outbound_allow == "127.0.0.1/32"
    with pytest.raises(SystemExit):
        Config.from_args(["--outbound-allow", "10.0.0.0/33"])
    # A CA file that cannot be read stops the client's making, not each call.
    with pytest.raises(FileNotFoundError):
        OutboundClient(ca_file="/nonexistent/ca.pem")


# ----- over TLS, to the checked address ---------------------------------------------------


@dataclass
class TlsWorld:
    client: NotifyClient
    names: FakeResolver
    ca: trustme.CA


@pytest.fixture
async def tls_world(db_url: str, tmp_path: Path) -> AsyncIterator[TlsWorld]:
    """A server that trusts the test's authority (``--outbound-ca-file``) and may reach
    127.0.0.1 (``--outbound-allow``), over https only (no development flag), whose
    resolver maps the made-up HOOKS to 127.0.0.1."""
    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    names = FakeResolver({HOOKS: ["127.0.0.1"]})
    # A POST may take 2 s: a TLS handshake on a loaded machine took over FAST's 0.5.
    settings = {**FAST, "webhook_timeout": 2.0}
    config = server_config(
        db_url, **settings, outbound_allow="127.0.0.1/32", outbound_ca_file=str(ca_file)
    )
    async with running_server(config, resolver=names) as running, client_of(running) as c:
        yield TlsWorld(c, names, ca)


@asynccontextmanager
async def tls_receiver(
    ca: trustme.CA, name: str, certified: str, server_names: list[str]
) -> AsyncIterator[HookReceiver]:
    """A receiver on 127.0.0.1 whose certificate is for ``certified``, reached as
    ``name``; each TLS server name a client sends goes to ``server_names``."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(certified).configure_cert(context)

    def sni(_sock: ssl.SSLObject, server_name: str | None, _context: ssl.SSLContext) -> None:
        server_names.append(server_name or "")

    context.sni_callback = sni
    receiver = HookReceiver(tls=context, name=name)
    await receiver.start()
    try:
        yield receiver
    finally:
        await receiver.stop()


async def settled(c: NotifyClient, count: int, done: Callable[[npb.WebhookDelivery], bool]) -> None:
    """Wait until ``count`` deliveries are ``done``."""
    started = time.monotonic()
    while time.monotonic() - started < 30:
        if sum(done(d) for d in await deliveries(c)) >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError([(d.status, d.last_error) for d in await deliveries(c)])


async def test_a_delivery_goes_over_tls_to_the_checked_address_for_the_hosts_name(
    tls_world: TlsWorld,
) -> None:
    c, names = tls_world.client, tls_world.names
    server_names: list[str] = []
    async with tls_receiver(tls_world.ca, HOOKS, HOOKS, server_names) as receiver:
        assert receiver.url.startswith(f"https://{HOOKS}:")
        hook = await c.notify.SetWebhook(npb.SetWebhookRequest(url=receiver.url), metadata=c.app())
        receiver.secret = hook.signing_secret
        ana, bea = f"ana-{uuid.uuid4().hex[:6]}", f"bea-{uuid.uuid4().hex[:6]}"
        await play(c, [ana, bea], 2)
        events = await all_events(c, ana) + await all_events(c, bea)
        await settled(c, len(events), lambda d: d.status == npb.DELIVERY_STATUS_DELIVERED)
        assert {r.event_id for r in receiver.requests} == {e.id for e in events}
        assert all(r.verified for r in receiver.requests)
        # The name the system cannot resolve went to 127.0.0.1, as the check said,
        # with the name in the Host header and as the TLS server name, and the
        # certificate verified for it.
        assert {r.host_header for r in receiver.requests} == {f"{HOOKS}:{receiver.port}"}
        assert server_names and set(server_names) == {HOOKS}
        # Resolved at registration and again at each delivery.
        assert names.asked.count(HOOKS) >= 1 + len(events)


async def test_a_certificate_for_another_name_fails_the_delivery(tls_world: TlsWorld) -> None:
    c = tls_world.client
    tls_world.names.names["wrong.example.test"] = ["127.0.0.1"]
    server_names: list[str] = []
    async with tls_receiver(
        tls_world.ca, "wrong.example.test", "other.example.test", server_names
    ) as receiver:
        await c.notify.SetWebhook(npb.SetWebhookRequest(url=receiver.url), metadata=c.app())
        await play(c, [f"ana-{uuid.uuid4().hex[:6]}", f"bea-{uuid.uuid4().hex[:6]}"], 0)
        await settled(c, 1, lambda d: "CERTIFICATE_VERIFY_FAILED" in d.last_error)
        assert not await deliveries(c, npb.DELIVERY_STATUS_DELIVERED)
        assert receiver.requests == [] and "wrong.example.test" in server_names


async def test_a_name_pointed_inside_after_registration_gets_nothing(tls_world: TlsWorld) -> None:
    """DNS rebinding: HOOKS is 127.0.0.1 (allowed) when the webhook is set, 10.0.0.1
    (not allowed) when its events are delivered: every attempt fails unsent, with its
    reason; pointed back, the deliveries go out."""
    c, names = tls_world.client, tls_world.names
    server_names: list[str] = []
    async with tls_receiver(tls_world.ca, HOOKS, HOOKS, server_names) as receiver:
        hook = await c.notify.SetWebhook(npb.SetWebhookRequest(url=receiver.url), metadata=c.app())
        receiver.secret = hook.signing_secret
        names.names[HOOKS] = ["10.0.0.1"]
        ana, bea = f"ana-{uuid.uuid4().hex[:6]}", f"bea-{uuid.uuid4().hex[:6]}"
        await play(c, [ana, bea], 2)
        events = await all_events(c, ana) + await all_events(c, bea)
        await settled(c, len(events), lambda d: d.attempts >= 2)
        for d in await deliveries(c):
            assert d.status != npb.DELIVERY_STATUS_DELIVERED and not d.last_status_code
            assert d.last_error == f"not sent: the host {HOOKS} resolves to a private address"
        assert receiver.requests == [] and server_names == []  # not even a connection
        names.names[HOOKS] = ["127.0.0.1"]
        for d in await deliveries(c, npb.DELIVERY_STATUS_FAILED):
            await c.notify.RedeliverWebhook(
                npb.RedeliverWebhookRequest(delivery_id=d.delivery_id), metadata=c.app()
            )
        await settled(c, len(events), lambda d: d.status == npb.DELIVERY_STATUS_DELIVERED)
        assert {r.event_id for r in receiver.requests} == {e.id for e in events}


# ----- the HTTP client: no redirect, a bounded answer, a bounded time ---------------------


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@dataclass
class RawServer:
    port: int
    connections: int = 0  # accepted
    requests: int = 0  # whose head was read


@asynccontextmanager
async def raw_server(handler: Handler) -> AsyncIterator[RawServer]:
    """A TCP server on 127.0.0.1 answering every request's head with ``handler``."""
    raw = RawServer(0)
    tasks: set[asyncio.Task[object]] = set()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raw.connections += 1
        task = asyncio.current_task()
        if task is not None:
            tasks.add(task)
        try:
            await reader.readuntil(b"\r\n\r\n")
            raw.requests += 1
            await handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    raw.port = server.sockets[0].getsockname()[1]
    try:
        yield raw
    finally:
        server.close()
        for task in tasks:  # the endless answers
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def checked(url: str, *addresses: str) -> Destination:
    """A destination as a check hands it over: ``url`` pinned to ``addresses``."""
    target = parse(url, OutboundPolicy(allow_http=True))
    return Destination(target, tuple(ipaddress.ip_address(a) for a in addresses))


async def test_a_redirect_is_answered_not_followed() -> None:
    async def other(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")

    async with raw_server(other) as elsewhere:

        async def redirect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            location = f"http://127.0.0.1:{elsewhere.port}/"
            writer.write(
                f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\n"
                "Content-Length: 0\r\n\r\n".encode()
            )

        async with raw_server(redirect) as first:
            poster = OutboundClient()
            try:
                status = await poster.post(
                    checked(f"http://127.0.0.1:{first.port}/", "127.0.0.1"), b"{}", {}, 2.0
                )
            finally:
                await poster.close()
    assert status == 307 and first.requests == 1 and elsewhere.connections == 0


async def test_an_endless_answer_is_read_up_to_its_cap() -> None:
    """A 200 whose body never ends: the status counts, the body is dropped after
    ``max_answer`` bytes (and the connection with it), well within the timeout."""
    sent = 0

    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal sent
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * 4096
        while True:
            writer.write(b"%x\r\n%b\r\n" % (len(chunk), chunk))
            await writer.drain()
            sent += len(chunk)

    async with raw_server(endless) as server:
        client = OutboundClient(max_answer=16 * 1024)
        destination = checked(f"http://127.0.0.1:{server.port}/", "127.0.0.1")
        started = time.monotonic()
        try:
            assert await client.post(destination, b"{}", {}, 5.0) == 200
            answer = await client.request("GET", destination, {}, b"", 5.0)
        finally:
            await client.close()
    assert time.monotonic() - started < 4  # not read on for the whole timeout
    assert answer.status == 200 and answer.truncated and answer.body == b"x" * 16 * 1024
    assert sent < 50 * 1024 * 1024


async def test_a_trickling_answer_is_cut_at_the_timeout() -> None:
    """An answer that sends a byte of its headers every 0.1 s never trips a read's
    timeout: the call's whole time is bounded too."""

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\n")
        while True:
            writer.write(b"X")
            await writer.drain()
            await asyncio.sleep(0.1)

    async with raw_server(trickle) as server:
        poster = OutboundClient()
        started = time.monotonic()
        destination = checked(f"http://127.0.0.1:{server.port}/", "127.0.0.1")
        try:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(poster.post(destination, b"{}", {}, 0.5), 10)
        finally:
            await poster.close()
    assert time.monotonic() - started < 2


async def test_a_connection_goes_only_to_the_checked_addresses() -> None:
    """A name nobody can resolve, pinned to 127.0.0.2 (nothing listens there) then
    127.0.0.1: the call connects to the first that answers, never resolving the
    name; without a pinned destination, or for another host, nothing connects."""

    async def ok(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")

    async with raw_server(ok) as server:
        port = server.port
        poster = OutboundClient()
        try:
            destination = checked(f"http://{HOOKS}:{port}/hook", "127.0.0.2", "127.0.0.1")
            assert await poster.post(destination, b"{}", {}, 2.0) == 204
        finally:
            await poster.close()
        assert (server.connections, server.requests) == (1, 1)
        backend = pinned_backend()
        with pytest.raises(httpcore.ConnectError, match="not the checked destination"):
            await backend.connect_tcp("127.0.0.1", port)
        pinned = PINNED.set(checked(f"http://{HOOKS}:{port}/", "127.0.0.1"))
        try:
            with pytest.raises(httpcore.ConnectError, match="not the checked destination"):
                await backend.connect_tcp("127.0.0.1", port)
            with pytest.raises(httpcore.ConnectError, match="not the checked destination"):
                await backend.connect_tcp(HOOKS, port + 1)
            stream = await backend.connect_tcp(HOOKS, port)
            await stream.aclose()
        finally:
            PINNED.reset(pinned)
        await asyncio.sleep(0.05)
        assert server.connections == 2  # the call's, and the pinned one just made
