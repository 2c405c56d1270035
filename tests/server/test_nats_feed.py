"""The change feed on NATS (``--change-feed nats://...``, store/nats_feed.py): two
replicas on one PostgreSQL database, hints carried by a NATS server of the test's
own (Debian's nats-server, installed by `make system-deps`, on a free port).

- A watcher on one replica sees the other's moves by hint (its timer out of reach),
  and no move sends a ``NOTIFY``: no watch lease is taken, no LISTEN runs.
- With the bus stopped, moves go on and the watcher catches up on its timer; once
  the bus is back the replicas reconnect and hints flow again.
- A game's subject is a valid NATS subject whatever its id.
- A replica subscribes to a game while it has a watcher of it, and only then.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.harness.servers import running_servers, server_config
from tests.server.conftest import Client, move_first_legal
from tests.server.test_hint_rows import (
    assert_as_logged,
    counted_reads,
    played_then_delivered,
    settled,
    watched,
)
from tranca.server import Running
from tranca.services import watch as games_service
from tranca.store.hints import Hub, Signal
from tranca.store.nats_feed import NatsFeed, subject
from tranca.v1 import game_pb2 as pb


def nats_binary() -> str:
    found = shutil.which("nats-server") or (
        "/usr/sbin/nats-server" if Path("/usr/sbin/nats-server").exists() else None
    )
    if found is None:
        message = "nats-server is not installed (`make system-deps`)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


class Bus:
    """A nats-server of the test's own, on loopback, that can be stopped and started
    again on the same port."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.url = f"nats://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "-a", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            assert self.proc.poll() is None, "nats-server exited"
            subprocess.run(["sleep", "0.05"], check=True)
        raise AssertionError("nats-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture
def bus() -> Iterator[Bus]:
    b = Bus(nats_binary())
    b.start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
async def fed_replicas(pg_url: str, bus: Bus) -> AsyncIterator[list[Running]]:
    async with running_servers(
        2, server_config(pg_url, sweep_interval=0, change_feed=bus.url)
    ) as servers:
        for s in servers:
            assert s.feed is not None and s.listener is None
            async with asyncio.timeout(10):
                while not s.feed.connected:
                    await asyncio.sleep(0.02)
        yield servers


@contextlib.asynccontextmanager
async def clients_of(mover: Running, watching: Running) -> AsyncIterator[tuple[Client, Client]]:
    """A client of each replica, with one new app's key."""
    _, key = await mover.store.create_app(f"t-{uuid.uuid4().hex[:6]}")
    async with (
        grpc.aio.insecure_channel(f"127.0.0.1:{mover.port}") as ch0,
        grpc.aio.insecure_channel(f"127.0.0.1:{watching.port}") as ch1,
    ):
        yield Client(ch0, key), Client(ch1, key)


def feed(running: Running) -> NatsFeed:
    assert running.feed is not None
    return running.feed


async def watched_until(pg_url: str, gid: str) -> object:
    conn = await asyncpg.connect(pg_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        return await conn.fetchval("SELECT watched_until FROM games WHERE id = $1", gid)
    finally:
        await conn.close()


async def test_hints_cross_replicas_on_nats_and_no_move_notifies(
    fed_replicas: list[Running], pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The watchers' timer out of reach: only a hint brings a move in time.
    monkeypatch.setattr(games_service, "WATCH_POLL_SECONDS", 300.0)
    mover, watching = fed_replicas
    _, key = await mover.store.create_app(f"t-{uuid.uuid4().hex[:6]}")
    async with (
        grpc.aio.insecure_channel(f"127.0.0.1:{mover.port}") as ch0,
        grpc.aio.insecure_channel(f"127.0.0.1:{watching.port}") as ch1,
    ):
        players, watcher = Client(ch0, key), Client(ch1, key)
        gid, tokens = await players.new_game()
        watch = watcher.stub.WatchGame(
            pb.WatchGameRequest(game_id=gid), metadata=watcher.player(tokens[0])
        )
        updates = aiter(watch)
        first = await asyncio.wait_for(anext(updates), 10)
        for step in range(1, 4):
            version = await move_first_legal(players, gid, tokens)
            update = await asyncio.wait_for(anext(updates), 30)
            assert update.view.version == version == first.view.version + step
        assert feed(watching).received >= 3
        # The mover published each move once; the watching replica published none.
        assert feed(mover).published >= 3
        watch.cancel()
    # No lease, hence no NOTIFY from the moves' statement.
    assert await watched_until(pg_url, gid) is None
    assert not watching.watch_leases or not watching.watch_leases.enabled


async def test_the_bus_down_then_back(
    fed_replicas: list[Running], bus: Bus, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A short timer: while the bus is down the watcher lives on its re-reads.
    monkeypatch.setattr(games_service, "WATCH_POLL_SECONDS", 0.5)
    mover, watching = fed_replicas
    _, key = await mover.store.create_app(f"t-{uuid.uuid4().hex[:6]}")
    async with (
        grpc.aio.insecure_channel(f"127.0.0.1:{mover.port}") as ch0,
        grpc.aio.insecure_channel(f"127.0.0.1:{watching.port}") as ch1,
    ):
        players, watcher = Client(ch0, key), Client(ch1, key)
        gid, tokens = await players.new_game()
        watch = watcher.stub.WatchGame(
            pb.WatchGameRequest(game_id=gid), metadata=watcher.player(tokens[0])
        )
        updates = aiter(watch)
        await asyncio.wait_for(anext(updates), 10)

        bus.stop()
        async with asyncio.timeout(20):
            while feed(mover).connected or feed(watching).connected:
                await asyncio.sleep(0.05)
        received = feed(watching).received
        for _ in range(3):  # moves go on without the bus; the watcher re-reads the log
            version = await move_first_legal(players, gid, tokens)
            update = await asyncio.wait_for(anext(updates), 30)
            assert update.view.version == version
        assert feed(watching).received == received  # nothing came by the bus

        bus.start()
        async with asyncio.timeout(30):
            while not (feed(mover).connected and feed(watching).connected):
                await asyncio.sleep(0.05)
        # Hints flow again: the watching replica's subscription was sent again.
        async with asyncio.timeout(30):
            while feed(watching).received == received:
                version = await move_first_legal(players, gid, tokens)
                update = await asyncio.wait_for(anext(updates), 30)
                assert update.view.version == version
        watch.cancel()


@given(st.text(min_size=1, max_size=80))
def test_every_game_id_has_a_plain_subject(game_id: str) -> None:
    name = subject(game_id)
    tokens = name.split(".")
    assert tokens[:2] == ["tranca", "games"] and len(tokens) == 3
    assert tokens[2] and not set(tokens[2]) & set(" \t\r\n*>")
    assert subject(game_id) == name  # the same on every replica


async def test_idle_watchers_re_read_seldom_while_the_feed_is_up(
    fed_replicas: list[Running], bus: Bus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the feed connected a stream's safety-net re-read waits the steady period;
    once the feed drops every watcher re-reads at once and then on the short timer."""
    monkeypatch.setattr(games_service, "WATCH_POLL_SECONDS", 0.2)
    monkeypatch.setattr(games_service, "WATCH_POLL_STEADY_SECONDS", 300.0)
    mover, watching = fed_replicas
    reads = counted_reads(watching, monkeypatch)
    async with clients_of(mover, watching) as (players, watcher):
        gid, tokens = await players.new_game()
        watch, updates, _ = await watched(watcher, gid, tokens[0])
        # A move still arrives at once, by hint.
        version = await move_first_legal(players, gid, tokens)
        assert (await asyncio.wait_for(anext(updates), 30)).view.version == version
        settled = len(reads)
        await asyncio.sleep(1.5)  # seven short periods: no re-read while steady
        assert len(reads) == settled

        bus.stop()
        async with asyncio.timeout(20):
            while feed(watching).connected:
                await asyncio.sleep(0.05)
        async with asyncio.timeout(20):  # the short timer again: re-read after re-read
            while len(reads) < settled + 3:
                await asyncio.sleep(0.05)
        watch.cancel()


async def test_a_game_is_subscribed_while_watched_here_and_only_then(bus: Bus) -> None:
    """The feed's subscriptions alone, on a hub of its own: a game's hints from the
    bus wake its watchers while one is open here; once the last one leaves the
    server stops sending them; after the bus restarts, hints flow again."""
    import nats

    hub = Hub()
    listener = NatsFeed(bus.url, hub)
    await listener.start()
    publisher = await nats.connect(bus.url, allow_reconnect=True, reconnect_time_wait=0.2)
    try:
        async with asyncio.timeout(10):
            while not listener.connected:
                await asyncio.sleep(0.02)

        async def hinted(signal: Signal, version: int) -> bool:
            signal.clear()
            # The test's own publisher may be reconnecting too: a failed send is a miss.
            with contextlib.suppress(Exception):
                await publisher.publish(subject("g1"), str(version).encode())
                await publisher.flush(timeout=2)
            await signal.wait(2.0)
            return signal.is_set()

        with hub.subscribe("g1") as signal:
            await listener.hold("g1")  # the server has the subscription
            assert await hinted(signal, 1)
            with hub.subscribe("g1") as second:  # one subscription for both
                assert await hinted(second, 2) and signal.is_set()
            bus.stop()
            bus.start()
            async with asyncio.timeout(20):
                while not (listener.connected and publisher.is_connected):
                    await asyncio.sleep(0.05)
            async with asyncio.timeout(20):
                version = 3
                while not await hinted(signal, version):  # SUB sent again by then
                    version += 1
        received = listener.received
        await publisher.publish(subject("g1"), b"99")
        await publisher.flush()
        await asyncio.sleep(0.3)
        assert listener.received == received  # no longer sent to this replica
        assert hub.open_games == 0
    finally:
        await publisher.close()
        await listener.stop()


async def test_a_watcher_on_another_replica_takes_the_moves_from_the_messages(
    fed_replicas: list[Running], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each message carries the rows its commit logged: the watching replica delivers
    the other's moves without reading the log; a message lost, the next one's rows
    do not follow on, and the stream reads the log once for both moves."""
    monkeypatch.setattr(games_service, "WATCH_POLL_SECONDS", 300.0)
    mover, watching = fed_replicas
    log = watching.store.log
    reads = counted_reads(watching, monkeypatch)
    async with clients_of(mover, watching) as (players, watcher):
        gid, tokens = await players.new_game()
        watch, updates, first = await watched(watcher, gid, tokens[1])
        opened = await settled(reads)
        assert reads[0] == (gid, first.view.version)
        delivered: list[pb.LoggedMove] = []
        for _ in range(5):
            version = await move_first_legal(players, gid, tokens)
            update = await asyncio.wait_for(anext(updates), 30)
            assert update.view.version == version
            delivered.append(update.move)
        assert reads[opened:] == []  # every move came with its message's rows

        hint = feed(watching)._hint
        lost: list[bytes] = []

        def lose_one(game_id: str, data: bytes) -> None:
            if not lost:
                lost.append(data)
                return
            hint(game_id, data)

        monkeypatch.setattr(feed(watching), "_hint", lose_one)
        version, late = await played_then_delivered(players, gid, tokens, updates, 2)
        delivered += late
        assert lost and reads[opened:] == [(gid, version - 2)]
        watch.cancel()
    assert_as_logged(delivered, await log(gid))
