"""A real HTTP receiver for webhook deliveries, on a loopback socket: a plain asyncio
server speaking enough HTTP/1.1 (keep-alive, Content-Length bodies) for the server's
client, over TLS when given a context (its URL then names ``name``, which the
server's resolver must map to 127.0.0.1). Each request is answered as ``plan`` says
for its delivery's attempt: a 500, no answer at all (the client times out), a slow
200, or a 200. Every request's signature is verified with the Standard Webhooks
reference library and the secret SetWebhook returned."""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from standardwebhooks import Webhook, WebhookVerificationError

# What to do with a request: "500", "hang" (never answer), "slow" (200 after a
# while, within the client's timeout), "ok" (200), or "hold" (wait for ``release``).
Plan = Callable[[str, int], str]


def always_ok(delivery_id: str, attempt: int) -> str:
    return "ok"


@dataclass
class Request:
    delivery_id: str
    event_id: int
    kind: str
    body: dict[str, object]
    verified: bool
    answer: str
    peer_port: int
    host_header: str


@dataclass
class HookReceiver:
    plan: Plan = always_ok
    secret: str = ""
    slow_seconds: float = 0.3
    requests: list[Request] = field(default_factory=list)
    # Delivery ids answered 2xx (the answer written to the socket).
    acknowledged: set[str] = field(default_factory=set)
    attempts: Counter[str] = field(default_factory=Counter)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    port: int = 0
    tls: ssl.SSLContext | None = None
    name: str = "127.0.0.1"  # the host its URL names
    _server: asyncio.base_events.Server | None = None
    _conns: set[asyncio.StreamWriter] = field(default_factory=set)

    @property
    def url(self) -> str:
        scheme = "http" if self.tls is None else "https"
        return f"{scheme}://{self.name}:{self.port}/hooks/tranca"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for w in list(self._conns):
                w.transport.abort()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._conns.add(writer)
        peer_port = int(writer.get_extra_info("peername")[1])
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                if not await self._answer(headers, body, reader, writer, peer_port):
                    return
        except (
            asyncio.IncompleteReadError,
            ConnectionError,
            asyncio.LimitOverrunError,
            ssl.SSLError,
        ):
            pass
        finally:
            self._conns.discard(writer)
            writer.close()

    async def _answer(
        self,
        headers: dict[str, str],
        raw: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        peer_port: int,
    ) -> bool:
        try:
            Webhook(self.secret).verify(raw, headers)
            verified = True
        except WebhookVerificationError:
            verified = False
        delivery_id = headers.get("webhook-id", "")
        self.attempts[delivery_id] += 1
        body = json.loads(raw)
        what = self.plan(delivery_id, self.attempts[delivery_id]) if verified else "401"
        data = body["data"]
        self.requests.append(
            Request(
                delivery_id,
                int(data["event_id"]),
                body["type"],
                body,
                verified,
                what,
                peer_port,
                headers.get("host", ""),
            )
        )
        if what == "hang":
            await asyncio.sleep(3600)
        if what == "hold":
            await self.released.wait()
            await asyncio.sleep(0)
            if reader.at_eof():
                return False  # the sender went away (killed, or gave up): nothing received
            what = "ok"
        if what == "slow":
            await asyncio.sleep(self.slow_seconds)
        status = {"500": "500 Internal Server Error", "401": "401 Unauthorized"}.get(what, "200 OK")
        writer.write(f"HTTP/1.1 {status}\r\nContent-Length: 0\r\n\r\n".encode())
        await writer.drain()
        if status.startswith("200"):
            self.acknowledged.add(delivery_id)
        return True
