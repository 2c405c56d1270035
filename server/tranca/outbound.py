"""Outgoing HTTP calls (webhook deliveries today): the ``Poster`` port of
``services/webhooks.py`` and the ``Resolver`` port of ``services/destinations.py``,
built by ``server.py``. One connection pool per process, its connections kept alive
between calls to the same receiver.

Every call goes to a ``Destination`` that ``services/destinations.py`` checked just
before: a URL and the addresses its host had then, each allowed. The call connects
to one of those addresses and to nothing else; the name is never resolved again
here, so a resolver that answers otherwise a moment later (DNS rebinding) cannot
send the call elsewhere.

How the connection is pinned. The pool is httpcore's (httpx's own transport layer),
given a network backend of ours (``PinnedBackend``): httpcore asks it to connect to
the URL's host and port, and it connects instead to the addresses of the call's
``Destination``, which the call puts in a context variable for its task (httpcore
opens a connection in the task of the request it is for, so a call never sees
another's addresses). A host or port other than the destination's, or no
destination at all, is refused: nothing reaches the network unchecked. The URL keeps
the host's name, so httpcore sends it in the Host header and as the TLS server name
(SNI), and the certificate is verified for that name; pooled connections are kept
per host name, so one name's connection is never reused for another's request. (The
other way, a URL with the address and the name in a Host header and an
``sni_hostname`` extension, would key the pool by address and reuse a connection
verified for one name for a request to another name on the same address.) A
connection kept alive is reused only for calls whose own check passed at that
moment; it stays joined to the address checked when it was opened.

httpcore rather than httpx's client on top of it: that client would add what no
outgoing call wants (redirects, proxies and certificates from the environment,
cookies) and offers no way to give its pool a network backend. Redirects are not
followed: a 3xx answer is returned as it is, and the caller counts it a failure.
An answer's body is read up to ``max_answer`` bytes and dropped (the rest goes with
the connection); the whole call, from connecting to the answer's end, is bounded
by the caller's timeout, the connection by ``connect_timeout``.
"""

from __future__ import annotations

import asyncio
import contextvars
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .services.destinations import Destination, IPAddress

if TYPE_CHECKING:
    import httpcore

USER_AGENT = "tranca-webhooks/1"  # every outgoing call's
CONNECT_TIMEOUT = 3.0  # seconds to open a connection (TLS included), within the call's
MAX_ANSWER = 64 * 1024  # bytes of an answer's body read before it is dropped

# The destination of the call running in this task (PinnedBackend reads it).
PINNED: contextvars.ContextVar[Destination | None] = contextvars.ContextVar(
    "tranca_outbound_destination", default=None
)


class SystemResolver:
    """The system's resolver (getaddrinfo, in asyncio's thread pool): the ``Resolver``
    of ``services/destinations.py`` in production."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
        return [
            ipaddress.ip_address(sockaddr[0])
            for family, _, _, _, sockaddr in infos
            if family in (socket.AF_INET, socket.AF_INET6)
        ]


def pinned_backend() -> httpcore.AsyncNetworkBackend:
    """Made at the pool's making, so that httpcore is imported only then."""
    import httpcore

    class PinnedBackend(httpcore.AsyncNetworkBackend):
        """Connects to the running call's checked addresses, never to a name."""

        def __init__(self) -> None:
            self.inner = httpcore.AnyIOBackend()

        async def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
        ) -> httpcore.AsyncNetworkStream:
            pinned = PINNED.get()
            if pinned is None or (host, port) != (pinned.target.host, pinned.target.port):
                raise httpcore.ConnectError(f"{host}:{port} is not the checked destination")
            failure: Exception | None = None
            for address in pinned.addresses:  # each one checked: the first that answers
                try:
                    return await self.inner.connect_tcp(
                        str(address),
                        port,
                        timeout=timeout,
                        local_address=local_address,
                        socket_options=socket_options,
                    )
                except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                    failure = exc
            assert failure is not None  # a Destination has at least one address
            raise failure

        async def connect_unix_socket(
            self,
            path: str,
            timeout: float | None = None,
            socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
        ) -> httpcore.AsyncNetworkStream:
            raise httpcore.ConnectError("outgoing calls use no unix socket")

        async def sleep(self, seconds: float) -> None:
            await asyncio.sleep(seconds)

    return PinnedBackend()


@dataclass(frozen=True)
class Answer:
    """An answer's status and the first ``max_answer`` bytes of its body."""

    status: int
    body: bytes
    truncated: bool  # the body went on past what was read


class OutboundClient:
    """HTTP calls to checked destinations: the ``Poster`` of webhook deliveries, and
    ``request`` for any other outgoing call. The pool is made at the first call:
    httpcore and what it imports cost a replica memory that one whose apps set no
    webhook never needs. ``ca_file``: PEM certificates trusted beside the usual
    authorities (an operator's internal receivers)."""

    def __init__(
        self,
        max_connections: int = 16,
        ca_file: str = "",
        connect_timeout: float = CONNECT_TIMEOUT,
        max_answer: int = MAX_ANSWER,
    ) -> None:
        self.max_connections = max_connections
        self.ca_file = ca_file
        self.connect_timeout = connect_timeout
        self.max_answer = max_answer
        self._pool: httpcore.AsyncConnectionPool | None = None
        if ca_file:
            # Read now, so that a bad file stops the server at start rather than
            # failing every call (and showing its path in the apps' delivery errors).
            import ssl

            ssl.create_default_context(cafile=ca_file)

    def _made(self) -> httpcore.AsyncConnectionPool:
        if self._pool is None:
            import ssl

            import certifi
            import httpcore

            context = ssl.create_default_context(cafile=certifi.where())
            if self.ca_file:
                context.load_verify_locations(cafile=self.ca_file)
            self._pool = httpcore.AsyncConnectionPool(
                ssl_context=context,
                max_connections=self.max_connections,
                keepalive_expiry=30,
                network_backend=pinned_backend(),
            )
        return self._pool

    async def request(
        self,
        method: str,
        destination: Destination,
        headers: dict[str, str],
        body: bytes,
        timeout: float,
    ) -> Answer:
        """The answer; an exception if none came (refused, reset, a certificate not
        valid for the host, or past ``timeout`` seconds in all: TimeoutError)."""
        import httpcore

        pool = self._made()
        target = destination.target
        url = httpcore.URL(
            scheme=target.scheme.encode(),
            host=target.host.encode(),
            port=target.port,
            target=target.path.encode(),
        )
        sent = [
            (b"Host", target.host_header.encode()),
            (b"User-Agent", USER_AGENT.encode()),
            *((name.encode(), value.encode()) for name, value in headers.items()),
        ]
        timeouts = {
            "connect": min(timeout, self.connect_timeout),
            "read": timeout,
            "write": timeout,
            "pool": timeout,
        }
        pinned = PINNED.set(destination)
        try:
            async with (
                asyncio.timeout(timeout),
                pool.stream(
                    method, url, headers=sent, content=body, extensions={"timeout": timeouts}
                ) as answer,
            ):
                read = bytearray()
                truncated = False
                async for chunk in answer.aiter_stream():
                    read += chunk
                    if len(read) > self.max_answer:
                        # The rest is not read: the connection is closed with it.
                        truncated = True
                        break
                return Answer(answer.status, bytes(read[: self.max_answer]), truncated)
        finally:
            PINNED.reset(pinned)

    async def post(
        self, destination: Destination, body: bytes, headers: dict[str, str], timeout: float
    ) -> int:
        """A POST's status code (its body read up to the cap and dropped)."""
        return (await self.request("POST", destination, headers, body, timeout)).status

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
