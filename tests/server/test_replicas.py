"""Two server processes on one PostgreSQL database behave as one service.

- Many concurrent conflicting submits to one game, spread over both processes,
  leave exactly one move applied per version; every other one gets ABORTED.
- A watcher on one process sees every move made through the other, in order and
  without a gap (LISTEN/NOTIFY hints, the move log as the truth).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.harness.processes import free_port, serve_command, stop
from tranca.store.database import make_engine
from tranca.store.repository import Store
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc


@pytest.fixture
def two_servers(pg_url: str) -> Iterator[list[int]]:
    ports = [free_port(), free_port()]
    procs = [
        subprocess.Popen(
            serve_command(port, pg_url),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ},
        )
        for port in ports
    ]
    try:
        yield ports
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            stop(p)


async def _wait_serving(port: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for _ in range(100):
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError(f"server on port {port} never became SERVING")


@pytest.fixture
async def channels(two_servers: list[int]) -> AsyncIterator[list[grpc.aio.Channel]]:
    for port in two_servers:
        await _wait_serving(port)
    chans = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for port in two_servers]
    yield chans
    for c in chans:
        await c.close()


async def _api_key(pg_url: str) -> str:
    engine = make_engine(pg_url)
    try:
        _, key = await Store(engine).create_app(f"replicas-{uuid.uuid4().hex[:6]}")
        return key
    finally:
        await engine.dispose()


def _player(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def test_conflicting_submits_apply_exactly_one_move_per_version(
    pg_url: str, channels: list[grpc.aio.Channel]
) -> None:
    key = await _api_key(pg_url)
    a, b = (pb_grpc.GameServiceStub(c) for c in channels)
    app = (("x-api-key", key),)
    game = (
        await a.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, seed=3),
            metadata=app,
        )
    ).game
    tokens = [
        (
            await a.JoinGame(pb.JoinGameRequest(game_id=game.game_id, seat=s), metadata=app)
        ).player_token
        for s in range(2)
    ]
    await b.StartGame(pb.StartGameRequest(game_id=game.game_id), metadata=app)

    # A watcher on server B, from the start.
    start_view = (
        await b.GetView(pb.GetViewRequest(game_id=game.game_id), metadata=_player(tokens[0]))
    ).view
    seen: list[int] = []

    async def watch() -> None:
        stream = b.WatchGame(
            pb.WatchGameRequest(game_id=game.game_id, from_version=start_view.version),
            metadata=_player(tokens[0]),
        )
        async for update in stream:
            seen.append(update.view.version)
            if len(seen) >= rounds:
                return

    rounds = 12
    watcher = asyncio.create_task(watch())
    applied_versions = []
    for _ in range(rounds):
        view = (
            await a.GetView(pb.GetViewRequest(game_id=game.game_id), metadata=_player(tokens[0]))
        ).view
        turn_token = tokens[view.turn]
        legal = await a.ListLegalMoves(
            pb.ListLegalMovesRequest(game_id=game.game_id), metadata=_player(turn_token)
        )
        # Eight writers, half on each server, all at the same version.
        stubs = [a, b] * 4

        async def submit(
            i: int,
            stub: pb_grpc.GameServiceAsyncStub,
            legal: pb.ListLegalMovesResponse = legal,
            turn_token: str = turn_token,
        ) -> str:
            move = legal.moves[i % len(legal.moves)]
            try:
                r = await stub.SubmitMove(
                    pb.SubmitMoveRequest(
                        game_id=game.game_id,
                        expected_version=legal.version,
                        request_id=uuid.uuid4().hex,
                        move=move,
                    ),
                    metadata=_player(turn_token),
                )
                applied_versions.append(r.version)
                return "ok"
            except grpc.aio.AioRpcError as e:
                return e.code().name

        outcomes = await asyncio.gather(*(submit(i, s) for i, s in enumerate(stubs)))
        assert outcomes.count("ok") == 1, outcomes
        assert set(outcomes) - {"ok"} <= {"ABORTED"}, outcomes
    await asyncio.wait_for(watcher, 20)
    assert applied_versions == list(range(start_view.version + 1, start_view.version + 1 + rounds))
    # The watcher on the other process saw every version, in order, with no gap.
    assert seen == applied_versions
    replay = await a.GetReplay(
        pb.GetReplayRequest(game_id=game.game_id), metadata=_player(tokens[0])
    )
    assert [m.version for m in replay.moves] == list(range(1, start_view.version + rounds + 1))
