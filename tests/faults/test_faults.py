"""Faults injected under a running load, each followed by the same check: every
acknowledged move is in the log exactly once and every game rebuilds to its snapshot.

- SIGKILL of a server process (the load goes on through the other one);
- PostgreSQL restarted, and stopped for a while: the service answers UNAVAILABLE
  quickly, health goes NOT_SERVING, and both recover by themselves;
- the connection cut after a move was committed and before its answer arrived: the
  retry with the same request id returns the first result;
- slow database responses: client deadlines are honoured, and retries with the same
  request id apply a move at most once.

The database is a private PostgreSQL cluster made for the test, so restarting it
disturbs nothing else. Sizes here fit CI; ``TRANCA_FAULT_GAMES`` makes them larger.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from functools import partial
from pathlib import Path

import grpc
import pytest

from tranca.store import migrate
from tranca.store.database import make_engine
from tranca.store.repository import Store
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

from .rig import (
    NOT_SERVING,
    SERVING,
    Ledger,
    Load,
    PrivatePostgres,
    Proxy,
    ServerProcess,
    health,
    verify,
    wait_until,
)

GAMES = int(os.environ.get("TRANCA_FAULT_GAMES", "4"))
REPORT = (
    Path(os.environ.get("TRANCA_FAULT_REPORT", ""))
    if os.environ.get("TRANCA_FAULT_REPORT")
    else None
)


@pytest.fixture(scope="module")
def pg() -> Iterator[PrivatePostgres]:
    # Not pytest's tmp_path: the postgres user must be able to reach the directory.
    root = Path(tempfile.mkdtemp(prefix="tranca-faultpg-"))
    root.chmod(0o755)
    try:
        cluster = PrivatePostgres(root)
        cluster.init()
    except Exception as exc:
        if os.environ.get("CI"):
            pytest.fail(f"cannot run a private PostgreSQL cluster: {exc}")
        pytest.skip(f"cannot run a private PostgreSQL cluster: {exc}")
    migrate.upgrade(cluster.url)
    yield cluster
    cluster.destroy()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
async def servers(pg: PrivatePostgres) -> AsyncIterator[list[ServerProcess]]:
    procs = [ServerProcess(pg.url), ServerProcess(pg.url)]
    for p in procs:
        p.start()
    try:
        for p in procs:
            await wait_until(partial(_serving, p.port), 30, f"server {p.port}")
        yield procs
    finally:
        for p in procs:
            p.stop()


async def _serving(port: int) -> bool:
    return await health(port) == SERVING


async def _api_key(url: str) -> str:
    engine = make_engine(url)
    try:
        return (await Store(engine).create_app("faults"))[1]
    finally:
        await engine.dispose()


def _record(name: str, figures: dict[str, object]) -> None:
    if REPORT is not None:
        with REPORT.open("a") as f:
            f.write(json.dumps({"fault": name, **figures}) + "\n")


async def _run_load(load: Load, games: int, during: asyncio.Future[None] | None) -> None:
    created = [await load.new_game() for _ in range(games)]
    tasks = [asyncio.create_task(load.play(g, t, seed=i)) for i, (g, t) in enumerate(created)]
    if during is not None:
        await during
    await asyncio.wait_for(asyncio.gather(*tasks), 240)


async def test_sigkill_of_a_server_process(
    pg: PrivatePostgres, servers: list[ServerProcess]
) -> None:
    ledger = Ledger()
    load = Load([f"127.0.0.1:{p.port}" for p in servers], await _api_key(pg.url), ledger)

    async def fault() -> None:
        await wait_until(lambda: sum(len(a) for a in ledger.acked.values()) >= 20, 60, "load")
        servers[0].kill()
        await asyncio.sleep(1.0)
        servers[0].start()
        await wait_until(lambda: _serving(servers[0].port), 30, "restarted server")

    try:
        await _run_load(load, GAMES, asyncio.ensure_future(fault()))
    finally:
        await load.close()
    figures = await verify(pg.url, ledger)
    _record("sigkill", {**figures, "requests": ledger.sent, "errors": dict(ledger.errors)})
    assert figures["lost"] == 0 and figures["doubled"] == 0
    assert figures["moves_acknowledged"] > 20


async def test_postgres_restarted_and_stopped_for_a_while(
    pg: PrivatePostgres, servers: list[ServerProcess]
) -> None:
    ledger = Ledger()
    load = Load([f"127.0.0.1:{p.port}" for p in servers], await _api_key(pg.url), ledger)
    observed: dict[str, float] = {}

    async def fault() -> None:
        await wait_until(lambda: sum(len(a) for a in ledger.acked.values()) >= 15, 60, "load")
        await asyncio.to_thread(pg.restart)
        await asyncio.sleep(1.0)
        await asyncio.to_thread(pg.stop)
        # While it is down: UNAVAILABLE quickly, and health NOT_SERVING.
        async with grpc.aio.insecure_channel(f"127.0.0.1:{servers[1].port}") as channel:
            stub = pb_grpc.GameServiceStub(channel)
            started = time.perf_counter()
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.ListGames(pb.ListGamesRequest(), metadata=load.app, timeout=10)
            observed["unavailable_after_s"] = time.perf_counter() - started
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        for p in servers:
            observed[f"not_serving_{p.port}"] = await wait_until(
                partial(_health_is, p.port, NOT_SERVING), 15, "NOT_SERVING"
            )
        await asyncio.sleep(2.0)
        await asyncio.to_thread(pg.start)
        for p in servers:
            observed[f"serving_again_{p.port}"] = await wait_until(
                partial(_serving, p.port), 30, "SERVING again"
            )

    try:
        await _run_load(load, GAMES, asyncio.ensure_future(fault()))
    finally:
        await load.close()
    assert observed["unavailable_after_s"] < 3.0
    figures = await verify(pg.url, ledger)
    _record(
        "postgres_restart_and_stop",
        {**figures, "requests": ledger.sent, "errors": dict(ledger.errors), **observed},
    )
    assert figures["lost"] == 0 and figures["doubled"] == 0
    assert ledger.errors["UNAVAILABLE"] > 0  # the outage was felt, and ridden out
    # ...and answered as an outage, never as a bug.
    assert ledger.errors["INTERNAL"] == 0, [f for p in servers for f in p.failures()][:3]


async def _health_is(port: int, status: int) -> bool:
    return await health(port) == status


async def test_connection_cut_after_commit_before_the_answer(
    pg: PrivatePostgres, servers: list[ServerProcess]
) -> None:
    proxy = Proxy(servers[0].port)
    await proxy.start()
    key = await _api_key(pg.url)
    ledger = Ledger()
    direct = Load([f"127.0.0.1:{servers[1].port}"], key, ledger)
    through_proxy = grpc.aio.insecure_channel(f"127.0.0.1:{proxy.port}")
    stub = pb_grpc.GameServiceStub(through_proxy)
    replayed = 0
    try:
        for round_ in range(5):
            gid, tokens = await direct.new_game()
            view = (await direct.call("GetView", pb.GetViewRequest(game_id=gid), direct.app)).view
            md = (("authorization", f"Bearer {tokens[view.turn]}"),)
            legal = await direct.call("ListLegalMoves", pb.ListLegalMovesRequest(game_id=gid), md)
            request = pb.SubmitMoveRequest(
                game_id=gid,
                expected_version=legal.version,
                request_id=f"cut-{round_}",
                move=legal.moves[0],
            )
            # Warm the proxied connection, then cut the next answer.
            await stub.ListPresets(pb.ListPresetsRequest(), metadata=direct.app)
            proxy.cut_next_reply = True
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.SubmitMove(request, metadata=md, timeout=5)
            assert err.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL)
            # The move was committed; the retry with the same id gets the first result.
            again = await direct.call("SubmitMove", request, md)
            assert again.replayed
            assert again.version == legal.version + 1
            ledger.acked[gid][request.request_id] = again.version
            replayed += 1
    finally:
        await through_proxy.close()
        await proxy.stop()
        await direct.close()
    figures = await verify(pg.url, ledger)
    _record("connection_cut", {**figures, "cuts": proxy.cuts, "replayed": replayed})
    assert proxy.cuts == 5 and replayed == 5
    assert figures["lost"] == 0 and figures["doubled"] == 0


async def test_slow_database_with_deadlines_honoured(pg: PrivatePostgres) -> None:
    """A server behind a delaying proxy to PostgreSQL: short client deadlines expire,
    retries with the same request id land each move once."""
    # Each round trip to the database takes at least 0.12 s: a move (two round
    # trips) cannot meet a 0.2 s deadline.
    slow_db = Proxy(pg.port, delay=0.06)
    await slow_db.start()
    slow_url = f"postgresql://postgres@127.0.0.1:{slow_db.port}/postgres"
    server = ServerProcess(slow_url, db_timeout=10)
    server.start()
    ledger = Ledger()
    deadlines = 0
    try:
        await wait_until(lambda: _serving(server.port), 40, "slow server")
        load = Load([f"127.0.0.1:{server.port}"], await _api_key(pg.url), ledger, timeout=10)
        try:
            gid, tokens = await load.new_game()
            for i in range(5):
                view = (await load.call("GetView", pb.GetViewRequest(game_id=gid), load.app)).view
                md = (("authorization", f"Bearer {tokens[view.turn]}"),)
                legal = await load.call("ListLegalMoves", pb.ListLegalMovesRequest(game_id=gid), md)
                request = pb.SubmitMoveRequest(
                    game_id=gid,
                    expected_version=legal.version,
                    request_id=f"slow-{i}",
                    move=legal.moves[0],
                )
                started = time.perf_counter()
                with contextlib.suppress(grpc.aio.AioRpcError):
                    try:
                        await load.stubs[0].SubmitMove(request, metadata=md, timeout=0.2)
                    except grpc.aio.AioRpcError as e:
                        assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                        assert time.perf_counter() - started < 1.0  # the deadline held
                        deadlines += 1
                        raise
                done = await load.call("SubmitMove", request, md)
                ledger.acked[gid][request.request_id] = done.version
        finally:
            await load.close()
    finally:
        server.stop()
        await slow_db.stop()
    figures = await verify(pg.url, ledger)
    _record("slow_database", {**figures, "deadlines_expired": deadlines})
    assert deadlines >= 3
    assert figures["lost"] == 0 and figures["doubled"] == 0
