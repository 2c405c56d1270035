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

from tests.server.conftest import Client, move_first_legal
from tranca.server import Running
from tranca.services import watch as games_service
from tranca.store import watch_leases
from tranca.store.hints import Hub
from tranca.store.postgres import NOTIFY_CHANNEL
from tranca.store.watch_leases import LEASE_SECONDS, WatchLeases
from tranca.v1 import game_pb2 as pb


class Hints:
    """A LISTEN of its own on the hint channel: what the database sends."""

    def __init__(self) -> None:
        self.raw: list[str] = []
        self.arrived = asyncio.Event()

    def __call__(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        self.raw.append(payload)
        self.arrived.set()

    @property
    def payloads(self) -> list[str]:
        """ "game:version" of each hint: the move path's also name the replica that
        wrote them ("game:version:origin"), whose own listener skips them."""
        return [":".join(p.split(":")[:2]) for p in self.raw]

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
        # Named by the replica that wrote it, whose own listener skips it.
        assert hints.raw == [f"{gid}:{version}:{mover.store.move_path.origin}"]

        # A lease that ran out (moved into the past here rather than waited for).
        await conn.execute(
            "UPDATE games SET watched_until = now() - interval '1 second' WHERE id = $1", gid
        )
        hints.raw.clear()
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


async def test_watchers_opened_while_another_replica_moves_get_its_moves_by_hint(
    replicas: list[Running],
    listening: tuple[Hints, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """End to end: watches open, each taking a lease of its own, while moves are
    being written through the other replica; with the watchers' timer out of reach,
    every move reaches them, in order, by hint. (The two orders of a lease and a
    move are pinned down one at a time by the tests below.)"""
    monkeypatch.setattr(games_service, "WATCH_POLL_SECONDS", 300.0)
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


async def _blocked_on_a_row_lock(conn: Any, timeout: float = 10.0) -> None:
    """Until some statement of the database waits for a row's lock."""
    async with asyncio.timeout(timeout):
        while not await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        ):
            await asyncio.sleep(0.02)


async def test_a_move_whose_statement_began_before_a_lease_committed_still_hints(
    replicas: list[Running],
    listening: tuple[Hints, Any],
    pg_url: str,
) -> None:
    """The lease first: the lease's transaction holds the game's row while the move's
    statement starts (its snapshot does not see the lease) and waits for the row;
    the lease commits; the move, written on the latest row, must hint."""
    hints, conn = listening
    mover = replicas[0]
    client, channel, gid, tokens = await _game(mover)
    leasing = await asyncpg.connect(pg_url.replace("postgresql+asyncpg", "postgresql"))
    async with channel:
        try:
            lease = leasing.transaction()
            await lease.start()
            await leasing.execute(
                "UPDATE games SET watched_until = now() + interval '60 seconds' WHERE id = $1",
                gid,
            )
            moving = asyncio.create_task(move_first_legal(client, gid, tokens))
            await _blocked_on_a_row_lock(conn)
            await lease.commit()
            version = await asyncio.wait_for(moving, 10)
        finally:
            await leasing.close()
        await hints.wait_for(f"{gid}:{version}")


async def test_a_lease_that_waits_for_a_move_is_followed_by_a_read_that_has_it(
    replicas: list[Running],
    listening: tuple[Hints, Any],
    pg_url: str,
) -> None:
    """The move first: a change holds the game's row uncommitted; the lease waits for
    it; once the lease is taken, the log read after it has the change."""
    _, conn = listening
    mover = replicas[0]
    client, channel, gid, tokens = await _game(mover)
    async with channel:
        version = await move_first_legal(client, gid, tokens)
    writer = await asyncpg.connect(pg_url.replace("postgresql+asyncpg", "postgresql"))
    try:
        change = writer.transaction()
        await change.start()
        # A change of the game as a move makes it: the next version and its log row.
        await writer.execute("UPDATE games SET version = $2 WHERE id = $1", gid, version + 1)
        await writer.execute(
            "INSERT INTO move_log (game_id, version, seat, action, actor, created_at)"
            " SELECT game_id, $2, seat, action, actor, now() FROM move_log"
            " WHERE game_id = $1 AND version = $3",
            gid,
            version + 1,
            version,
        )
        leasing = asyncio.create_task(mover.store.lease_watches([gid], LEASE_SECONDS))
        await _blocked_on_a_row_lock(conn)
        assert not leasing.done()
        await change.commit()
        await asyncio.wait_for(leasing, 10)
    finally:
        await writer.close()
    assert [r.version for r in await mover.store.log(gid, version)] == [version + 1]


async def test_a_join_and_a_start_under_a_lease_hint_and_without_one_do_not(
    replicas: list[Running],
    listening: tuple[Hints, Any],
) -> None:
    """The changes written in transactions of several statements (a seat's token with
    the join; the start) hint as a move does: only under a lease."""
    hints, _ = listening
    mover = replicas[0]
    _, key = await mover.store.create_app(f"t-{uuid.uuid4().hex[:6]}")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{mover.port}") as channel:
        client = Client(channel, key)
        created = await client.stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
            metadata=client.app(),
        )
        gid = created.game.game_id
        await client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=0, player_name="p0"), metadata=client.app()
        )
        assert await hints.quiet_for(0.5) == []
        await mover.store.lease_watches([gid], LEASE_SECONDS)
        await client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=1, player_name="p1"), metadata=client.app()
        )
        await hints.wait_for(f"{gid}:2")
        started = await client.stub.StartGame(
            pb.StartGameRequest(game_id=gid), metadata=client.app()
        )
        await hints.wait_for(f"{gid}:{started.view.version}")


async def test_a_watch_takes_its_lease_before_it_reads_the_log(
    replicas: list[Running], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order the argument rests on: lease, then the first read of the log (here
    the replay of a watch from an earlier version)."""
    _, watching = replicas
    client, channel, gid, tokens = await _game(watching)
    calls: list[str] = []
    lease_watches, log = watching.store.lease_watches, watching.store.log

    async def leasing(game_ids: list[str], seconds: float) -> None:
        calls.append("lease")
        await lease_watches(game_ids, seconds)

    async def reading(*args: Any, **kwargs: Any) -> Any:
        calls.append("log")
        return await log(*args, **kwargs)

    monkeypatch.setattr(watching.store, "lease_watches", leasing)
    monkeypatch.setattr(watching.store, "log", reading)
    async with channel:
        version = await move_first_legal(client, gid, tokens)
        stream = client.stub.WatchGame(
            pb.WatchGameRequest(game_id=gid, from_version=1), metadata=client.player(tokens[0])
        )
        updates = aiter(stream)
        seen = [(await asyncio.wait_for(anext(updates), 10)).move.version]
        while seen[-1] < version:
            seen.append((await asyncio.wait_for(anext(updates), 10)).move.version)
        stream.cancel()
    assert seen == list(range(2, version + 1))
    assert calls[:2] == ["lease", "log"]


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
    leases = WatchLeases(store, Hub(), clock)
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
    leases = WatchLeases(store, hub, clock)
    with hub.subscribe("b"), hub.subscribe("a"), hub.subscribe("c"), hub.subscribe("a"):
        await leases.hold("a")
        await leases.hold("gone")  # a watcher that has left since
        await leases.renew()
    assert store.leased[2:] == [["a", "b"], ["c"]], "sorted, in batches"
    assert leases.held_until("gone") is None
    assert leases.held_until("c") == clock.now + LEASE_SECONDS
    await leases.renew()  # nobody watching: nothing written
    assert len(store.leased) == 4


async def test_watchers_opening_at_once_wait_for_one_lease_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, gate = FakeStore(), asyncio.Event()
    write = store.lease_watches

    async def slow(game_ids: list[str], seconds: float) -> None:
        await gate.wait()
        await write(game_ids, seconds)

    monkeypatch.setattr(store, "lease_watches", slow)
    leases = WatchLeases(store, Hub())
    holds = [asyncio.create_task(leases.hold("g1")) for _ in range(5)]
    await asyncio.sleep(0)
    holds[0].cancel()  # a watcher that leaves does not cut the write short
    gate.set()
    await asyncio.gather(*holds[1:])
    assert store.leased == [["g1"]]
    assert leases.held_until("g1") is not None


async def test_a_lease_that_cannot_be_written_does_not_fail_the_watch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = FakeStore()
    failures = [ConnectionError("the database is out of reach")]
    write = store.lease_watches

    async def flaky(game_ids: list[str], seconds: float) -> None:
        if failures:
            raise failures.pop()
        await write(game_ids, seconds)

    monkeypatch.setattr(store, "lease_watches", flaky)
    leases = WatchLeases(store, Hub())
    await leases.hold("g1")  # logged, not raised
    assert leases.held_until("g1") is None and store.leased == []
    await leases.hold("g1")  # the next watcher tries again
    assert store.leased == [["g1"]]


async def test_on_sqlite_there_is_no_lease_to_take() -> None:
    store = FakeStore(is_postgres=False)
    leases = WatchLeases(store, Hub())
    await leases.hold("g1")
    assert not leases.enabled and store.leased == []
