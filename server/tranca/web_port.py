"""The browser port's HTTP server: Hypercorn, on the server's own event loop, serving
``api.web.BrowserApp`` over HTTP/1.1 and HTTP/2 (h2c by prior knowledge or upgrade;
h2 by ALPN under TLS, with the gRPC port's certificate).

A client that goes without closing its connection (a phone out of coverage, a
laptop shut) is found by TCP keepalive, as the gRPC port finds it with HTTP/2
pings: neither the Connect protocol nor gRPC-Web has a ping of its own, and a
watch stream may send nothing for long. Its connection is then closed, which ends
its streams (``api/browser.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypercorn.asyncio import serve
from hypercorn.config import Config as HypercornConfig

from .services.dev_identity import DEV_PROVIDER, DevIdentity
from .services.policy import AppPolicy

if TYPE_CHECKING:
    from .store.sessions_store import SessionsStore

# TCP keepalive of the port's connections, as the gRPC port's pings: the first probe
# after 30 s without traffic, then every 10 s; three unanswered close the
# connection. A connection whose written data goes unacknowledged for as long is
# closed too (TCP_USER_TIMEOUT, ms).
KEEPALIVE_IDLE = 30
KEEPALIVE_INTERVAL = 10
KEEPALIVE_PROBES = 3
UNACKNOWLEDGED_MS = (KEEPALIVE_IDLE + KEEPALIVE_INTERVAL * KEEPALIVE_PROBES) * 1000
LISTEN_BACKLOG = 1024

# The web table's built files in a checkout: clients/web/table/dist.
CHECKOUT_WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web" / "table" / "dist"


def web_root(configured: str) -> Path | None:
    """Where the web table's files are: the configured directory, else the
    checkout's build, else none (the port then serves calls only)."""
    if configured:
        return Path(configured)
    return CHECKOUT_WEB_ROOT if CHECKOUT_WEB_ROOT.is_dir() else None


async def open_development_app(
    policies: SessionsStore, app_id: str, dev_identity: DevIdentity | None
) -> None:
    """Let guests and devices sign in to the development app (the web table's),
    players with the test identity provider where there is one, and players download
    their data, its other settings kept."""
    policy = await policies.app_policy(app_id) or AppPolicy()
    providers = policy.identity_providers
    if dev_identity is not None and not any(p.name == DEV_PROVIDER for p in providers):
        providers = (*providers, dev_identity.provider())
    wanted = replace(
        policy,
        guest_sign_in=True,
        device_sign_in=True,
        identity_providers=providers,
        player_data_rights=True,
    )
    if wanted != policy:
        await policies.set_app_policy(app_id, wanted)


def _keep_alive(sock: socket.socket) -> None:
    """TCP keepalive on ``sock``: Linux gives each connection it accepts the
    listening socket's settings. (Elsewhere, what the system offers of them.)"""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (
        ("TCP_KEEPIDLE", KEEPALIVE_IDLE),
        ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL),
        ("TCP_KEEPCNT", KEEPALIVE_PROBES),
        ("TCP_USER_TIMEOUT", UNACKNOWLEDGED_MS),
    ):
        option = getattr(socket, name, None)
        if option is not None:
            sock.setsockopt(socket.IPPROTO_TCP, option, value)


class WebPort:
    """A running browser port: its bound port, stopped with ``stop``."""

    def __init__(
        self,
        port: int,
        task: asyncio.Task[None],
        stopping: asyncio.Event,
        end_streams: Callable[[], None],
    ) -> None:
        self.port = port
        self._task = task
        self._stopping = stopping
        self._end_streams = end_streams

    @classmethod
    async def start(
        cls,
        app: Any,
        host: str,
        port: int,
        *,
        grace: float,
        end_streams: Callable[[], None],
        tls: tuple[str, str] | None = None,
        reuse_port: bool = False,
    ) -> WebPort:
        """Listen on ``host``:``port`` (0: any free port) and serve ``app``; ``tls``:
        the certificate chain and key files; ``end_streams``: ends the app's open
        streams (and any opened later), called when the port stops."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            # Workers share the port as they share the gRPC one.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        # Accepted connections inherit it (Linux): an answer's head and body leave
        # at once instead of the body waiting for the client's delayed ACK (40 ms).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        _keep_alive(sock)
        try:
            sock.bind((host, port))
            # Listening from here: a client connecting before Hypercorn has started
            # waits in the backlog rather than being refused.
            sock.listen(LISTEN_BACKLOG)
        except OSError as exc:
            sock.close()
            raise SystemExit(f"cannot listen on {host}:{port}: {exc}") from exc
        bound = int(sock.getsockname()[1])
        config = HypercornConfig()
        # Hypercorn takes the descriptor itself (it wraps it, not a copy) and closes
        # it when it stops: it gets a copy of its own, and this one is closed now.
        config.bind = [f"fd://{os.dup(sock.fileno())}"]
        sock.close()
        config.backlog = LISTEN_BACKLOG
        config.accesslog = None
        config.errorlog = None  # errors are the services' to log, in their own format
        config.keep_alive_timeout = 75
        config.graceful_timeout = grace
        if tls is not None:
            config.certfile, config.keyfile = tls
        stopping = asyncio.Event()
        task = asyncio.create_task(serve(app, config, shutdown_trigger=stopping.wait, mode="asgi"))
        return cls(bound, task, stopping, end_streams)

    async def stop(self) -> None:
        """Stop taking connections and close the idle ones; end the open streams at
        once (UNAVAILABLE: their clients watch again, elsewhere or after the
        restart) rather than after the grace period, since a watch stream would
        only end with it; give unary calls in progress the grace period."""
        self._stopping.set()
        self._end_streams()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
