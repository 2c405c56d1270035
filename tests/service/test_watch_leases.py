"""Watch leases (store/watch_leases.py): on PostgreSQL a move hints other replicas
(NOTIFY) only while some replica holds a lease on its game, and a watch stream takes
its lease before it first reads the log, so a watcher misses no move's hint."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import grpc
import pytest

from tests.service.conftest import Client, move_first_legal
from tranca.api import servicer
from tranca.server import Running
from tranca.store import watch_leases
from tranca.store.notify import Hub
from tranca.store.repository import NOTIFY_CHANNEL
from tranca.store.watch_leases import LEASE_SECONDS, WatchLeases
from tranca.v1 import game_pb2 as pb


class Hints:
    """A LISTEN of its own on the hint channel: what the database sends."""

    def __init__(self) -> None:
        self.payloads: list[str] = []
        self.arrived = asyncio.Event()

    def __call__(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        self.payloads.append(payload)
        self.arrived.set()

    async def quiet_for(self, seconds: float) -> list[str]:
        await asyncio.sleep(seconds)
        return self.payloads

    async def wait_for(self, payload: str, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while payload not in self.payloads:
                self.arrived.clear()
                await self.arrived.wait()


@pytest.fixture
async def listening(pg_url: str) -> AsyncIterator[tuple[Hints, Any]]:
    conn = await asyncpg.connect(pg_url.replace("postgresql+asyncpg", "postgresql"))
    hints = Hints()
    await conn.add_listener(NOTIFY_CHANNEL, hints)
    try:
        yield hints, conn
    finally:
        await conn.close()


async def _game(running: Running) -> tuple[Client, grpc.aio.Channel, str, list[str]]:
    _, key = await running.store.create_app(f"t-{uuid.uuid4().hex[:6]}")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    client = Client(channel, key)
    gid, tokens = await client.new_game()
    return client, channel, gid, tokens


async def test_a_move_hints_only_while_its_game_is_leased(
    replicas: list[Running],
    listening: tuple[Hints, Any],
) -> None:
    hints, conn = listening
    mover = replicas[0]
    client, channel, gid, tokens = await _game(mover)
    async with channel:
        version = await move_first_legal(client, gid, tokens)
        assert await hints.quiet_for(0.5) == [], "no lease, no watcher: no hint"

        await mover.store.lease_watches([gid], LEASE_SECONDS)
        version = await move_first_legal(client, gid, tokens)
        await hints.wait_for(f"{gid}:{version}")

        # A lease that ran out (moved into the past here rather than waited for).
        await conn.execute(
            "UPDATE games SET watched_until = now() - interval '1 second' WHERE id = $1", gid
        )
        hints.payloads.clear()
        version = await move_first_legal(client, gid, tokens)
        assert await hints.quiet_for(0.5) == []
        assert version == await conn.fetchval("SELECT version FROM games WHERE id = $1", gid)


async def test_a_lease_never_shortens_another_and_changes_nothing_of_the_game(
    replicas: list[Running],
    listening: tuple[Hints, Any],
) -> None:
    _, conn = listening
    mover = replicas[0]
    client, channel, gid, tokens = await _game(mover)
    async with channel:
        await move_first_legal(client, gid, tokens)
    before = await conn.fetchrow(
        "SELECT version, updated_at, snapshot FROM games WHERE id = $1", gid
    )
    await mover.store.lease_watches([gid], 600)
    long = await conn.fetchval("SELECT watched_until FROM games WHERE id = $1", gid)
    await mover.store.lease_watches([gid], 5)  # another replica's shorter lease
    after = await conn.fetchrow(
        "SELECT version, updated_at, snapshot, watched_until FROM games WHERE id = $1", gid
    )
    assert after["watched_until"] == long
    assert tuple(after)[:3] == tuple(before)


async def test_watchers_opening_while_another_replica_moves_get_every_move_by_hint(
    replicas: list[Running],
    listening: tuple[Hints, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lease's race with moves: each watch opens, and takes its lease, while moves
    are being written on the other replica; with the watchers' timer out of reach, a
    move whose hint was not sent would never arrive."""
    monkeypatch.setattr(servicer, "WATCH_POLL_SECONDS", 300.0)
    _, conn = listening
    mover, watching = replicas
    assert watching.watch_leases is not None and watching.watch_leases.enabled
    client, channel, gid, tokens = await _game(mover)
    async with channel, grpc.aio.insecure_channel(f"127.0.0.1:{watching.port}") as ch1:
        watcher = Client(ch1, client.api_key)
        moved: list[int] = []
        stop = asyncio.Event()

        async def keep_moving() -> None:
            for _ in range(80):
                if stop.is_set():
                    return
                moved.append(await move_first_legal(client, gid, tokens))
                await asyncio.sleep(0.02)

        mover_task = asyncio.create_task(keep_moving())
        try:
            for _ in range(4):
                # Each watch takes a lease of its own: none is left from the last one.
                watching.watch_leases._held.clear()
                await conn.execute("UPDATE games SET watched_until = NULL WHERE id = $1", gid)
                stream = watcher.stub.WatchGame(
                    pb.WatchGameRequest(game_id=gid), metadata=watcher.player(tokens[0])
                )
                updates = aiter(stream)
                seen = (await asyncio.wait_for(anext(updates), 10)).view.version
                # Every move made from here reaches the watcher, in order, without gaps.
                for _ in range(3):
                    update = await asyncio.wait_for(anext(updates), 10)
                    assert update.move.version == seen + 1
                    seen = update.move.version
                stream.cancel()
        finally:
            stop.set()
            await mover_task
        assert len(moved) >= 12


# ----- the lease keeper on its own, with a stand-in store -----------------------------


class FakeStore:
    def __init__(self, is_postgres: bool = True) -> None:
        self.is_postgres = is_postgres
        self.leased: list[list[str]] = []

    async def lease_watches(self, game_ids: list[str], seconds: float) -> None:
        assert seconds == LEASE_SECONDS
        self.leased.append(list(game_ids))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_held_lease_is_written_once_until_half_of_it_is_gone() -> None:
    store, clock = FakeStore(), Clock()
    leases = WatchLeases(store, Hub(), clock)  # type: ignore[arg-type]
    await leases.hold("g1")
    await leases.hold("g1")
    clock.now += LEASE_SECONDS / 2 - 1
    await leases.hold("g1")
    assert store.leased == [["g1"]]
    clock.now += 2
    await leases.hold("g1")
    assert store.leased == [["g1"], ["g1"]]
    assert leases.held_until("g1") == clock.now + LEASE_SECONDS


async def test_renewal_leases_the_watched_games_and_forgets_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(watch_leases, "RENEW_BATCH", 2)
    store, clock, hub = FakeStore(), Clock(), Hub()
    leases = WatchLeases(store, hub, clock)  # type: ignore[arg-type]
    with hub.subscribe("b"), hub.subscribe("a"), hub.subscribe("c"), hub.subscribe("a"):
        await leases.hold("a")
        await leases.hold("gone")  # a watcher that has left since
        await leases.renew()
    assert store.leased[2:] == [["a", "b"], ["c"]], "sorted, in batches"
    assert leases.held_until("gone") is None
    assert leases.held_until("c") == clock.now + LEASE_SECONDS
    await leases.renew()  # nobody watching: nothing written
    assert len(store.leased) == 4


async def test_on_sqlite_there_is_no_lease_to_take() -> None:
    store = FakeStore(is_postgres=False)
    leases = WatchLeases(store, Hub())  # type: ignore[arg-type]
    await leases.hold("g1")
    assert not leases.enabled and store.leased == []
