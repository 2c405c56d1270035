"""The browser port's HTTP server: Hypercorn, on the server's own event loop, serving
``api.web.BrowserApp`` over HTTP/1.1 and HTTP/2 (h2c by prior knowledge or upgrade;
h2 by ALPN under TLS, with the gRPC port's certificate)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypercorn.asyncio import serve
from hypercorn.config import Config as HypercornConfig

from .services.policy import AppPolicy

if TYPE_CHECKING:
    from .store.sessions_store import SessionsStore

# The web table's built files in a checkout: clients/web/table/dist.
CHECKOUT_WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web" / "table" / "dist"


def web_root(configured: str) -> Path | None:
    """Where the web table's files are: the configured directory, else the
    checkout's build, else none (the port then serves calls only)."""
    if configured:
        return Path(configured)
    return CHECKOUT_WEB_ROOT if CHECKOUT_WEB_ROOT.is_dir() else None


async def allow_guests(policies: SessionsStore, app_id: str) -> None:
    """Let guests and devices sign in to the development app (the web table's), its
    other settings kept."""
    policy = await policies.app_policy(app_id) or AppPolicy()
    if not (policy.guest_sign_in and policy.device_sign_in):
        await policies.set_app_policy(
            app_id, replace(policy, guest_sign_in=True, device_sign_in=True)
        )


class WebPort:
    """A running browser port: its bound port, stopped with ``stop``."""

    def __init__(self, port: int, task: asyncio.Task[None], stopping: asyncio.Event) -> None:
        self.port = port
        self._task = task
        self._stopping = stopping

    @classmethod
    async def start(
        cls,
        app: Any,
        host: str,
        port: int,
        *,
        grace: float,
        tls: tuple[str, str] | None = None,
        reuse_port: bool = False,
    ) -> WebPort:
        """Listen on ``host``:``port`` (0: any free port) and serve ``app``; ``tls``:
        the certificate chain and key files."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            # Workers share the port as they share the gRPC one.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        # Accepted connections inherit it (Linux): an answer's head and body leave
        # at once instead of the body waiting for the client's delayed ACK (40 ms).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise SystemExit(f"cannot listen on {host}:{port}: {exc}") from exc
        sock.set_inheritable(True)
        bound = int(sock.getsockname()[1])
        config = HypercornConfig()
        config.bind = [f"fd://{sock.fileno()}"]
        config.accesslog = None
        config.errorlog = None  # errors are the services' to log, in their own format
        config.keep_alive_timeout = 75
        config.graceful_timeout = grace
        if tls is not None:
            config.certfile, config.keyfile = tls
        stopping = asyncio.Event()
        task = asyncio.create_task(serve(app, config, shutdown_trigger=stopping.wait, mode="asgi"))
        # Hypercorn dups the descriptor; this copy is not needed once it listens.
        await asyncio.sleep(0)
        task.add_done_callback(lambda _t: sock.close())
        return cls(bound, task, stopping)

    async def stop(self) -> None:
        self._stopping.set()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
