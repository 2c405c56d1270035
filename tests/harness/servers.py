"""Servers for the tests: the configuration a test server runs with, and context
managers that start one (or several, or one on a thread of its own) on a given
database with given settings, stop it afterwards, and open a client of it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import grpc

from tranca.server import Config, Running, start
from tranca.services.destinations import Resolver

from .clients import Client

# How long a stopping test server lets its calls finish.
STOP_GRACE = 0.5


def bare_config(database_url: str, **changes: Any) -> Config:
    """A server on loopback, on any free port, without a metrics endpoint, and
    otherwise as the operator's defaults have it (rate limits, timeouts, sweeps)."""
    settings: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "metrics_port": 0,
        "database_url": database_url,
    }
    return Config(**{**settings, **changes})


def server_config(database_url: str, **changes: Any) -> Config:
    """A server for the tests: on loopback, any free port, no metrics endpoint, and
    rate limits off (they have tests of their own: test_limits_security.py). A
    database call may wait 15 s rather than 5: a worker's SQLite file is shared by
    every test it runs, and under a loaded 2-core machine a test's call once waited
    over 5 s for the write lock behind a sweep of the matches earlier tests left."""
    settings: dict[str, Any] = {"rate_per_token": 0, "rate_per_app": 0, "db_timeout": 15.0}
    return bare_config(database_url, **{**settings, **changes})


@contextlib.asynccontextmanager
async def running_server(
    config: Config, *, resolver: Resolver | None = None, grace: float = STOP_GRACE
) -> AsyncIterator[Running]:
    """A server started with ``config``, stopped when the block ends."""
    running = await start(config, resolver=resolver)
    try:
        yield running
    finally:
        await running.stop(grace)


@contextlib.asynccontextmanager
async def running_servers(
    count: int, config: Config, *, grace: float = 0.2
) -> AsyncIterator[list[Running]]:
    """``count`` servers on one configuration (replicas of one database)."""
    async with contextlib.AsyncExitStack() as stack:
        yield [
            await stack.enter_async_context(running_server(config, grace=grace))
            for _ in range(count)
        ]


@contextlib.asynccontextmanager
async def app_client(
    running: Running, *, name: str = "test", features: frozenset[str] = frozenset()
) -> AsyncIterator[Client]:
    """A client of ``running`` with the API key of a new app of its own."""
    _, key = await running.store.create_app(f"{name}-{uuid.uuid4().hex[:6]}", features)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        yield Client(channel, key)


@contextlib.asynccontextmanager
async def server_and_client(
    database_url: str, *, features: frozenset[str] = frozenset(), **changes: Any
) -> AsyncIterator[tuple[Running, Client]]:
    """A test server on ``database_url`` with the settings ``changes`` and a client of
    it with a new app's key."""
    async with (
        running_server(server_config(database_url, **changes)) as running,
        app_client(running, features=features) as client,
    ):
        yield running, client


@dataclass
class ThreadedServer:
    """A server on an event loop of a thread of its own, for synchronous tests (the
    fuzzers) that call it through blocking stubs."""

    loop: asyncio.AbstractEventLoop
    running: Running

    def run(self, coroutine: Any, timeout: float | None = None) -> Any:
        """``coroutine``'s result, run on the server's loop."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def channel(self) -> grpc.Channel:
        return grpc.insecure_channel(f"127.0.0.1:{self.running.port}")


@contextlib.contextmanager
def threaded_server(
    config: Config, *, resolver: Resolver | None = None
) -> Iterator[ThreadedServer]:
    """A server started with ``config`` on a thread's event loop, stopped at the end."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    running = asyncio.run_coroutine_threadsafe(start(config, resolver=resolver), loop).result(30)
    try:
        yield ThreadedServer(loop, running)
    finally:
        asyncio.run_coroutine_threadsafe(running.stop(0), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
