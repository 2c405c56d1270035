"""Operations: health, reflection, metrics, migrations checked at start-up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import REGISTRY
from sqlalchemy.engine import Connection

from tests.harness.servers import bare_config
from tranca.server import Running, start
from tranca.store.database import make_engine
from tranca.store.models import Base

from .conftest import Client


async def test_health_serves_the_game_service(server: Running) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for name in ("", "tranca.v1.GameService"):
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_reflection_lists_the_services(server: Running) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)

        async def requests() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
            yield reflection_pb2.ServerReflectionRequest(list_services="")

        async for reply in stub.ServerReflectionInfo(requests()):
            names = {s.name for s in reply.list_services_response.service}
            break
    assert {"tranca.v1.GameService", "grpc.health.v1.Health"} <= names


async def test_metrics_count_rpcs_moves_and_conflicts(client: Client) -> None:
    from tranca.v1 import game_pb2 as pb

    def value(name: str, labels: dict[str, str]) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    before_ok = value("tranca_rpc_requests_total", {"method": "SubmitMove", "code": "OK"})
    before_conflicts = value("tranca_version_conflicts_total", {})
    gid, tokens = await client.new_game()
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    md = client.player(tokens[view.turn])
    legal = await client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md)
    await client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid, expected_version=legal.version, request_id="m1", move=legal.moves[0]
        ),
        metadata=md,
    )
    with pytest.raises(grpc.aio.AioRpcError):
        await client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=gid, expected_version=legal.version, request_id="m2", move=legal.moves[0]
            ),
            metadata=md,
        )
    after = value("tranca_rpc_requests_total", {"method": "SubmitMove", "code": "OK"})
    assert after == before_ok + 1
    assert value("tranca_version_conflicts_total", {}) == before_conflicts + 1


async def test_the_server_refuses_a_database_not_migrated(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/empty.db"
    with pytest.raises(SystemExit, match="tranca migrate"):
        await start(bare_config(url))


async def test_auto_migrate_brings_a_new_database_up(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/auto.db"
    running = await start(bare_config(url, auto_migrate=True))
    await running.stop(0)


async def test_models_and_migrations_agree(db_url: str) -> None:
    """Alembic's autogenerate finds nothing to change after the migrations ran."""
    engine = make_engine(db_url)

    def diff(conn: Connection) -> list[object]:
        return list(compare_metadata(MigrationContext.configure(conn), Base.metadata))

    try:
        async with engine.connect() as conn:
            changes = await conn.run_sync(diff)
    finally:
        await engine.dispose()
    assert changes == []


async def test_liveness_stays_serving_while_the_database_is_away(server: Running) -> None:
    """Readiness follows the database; liveness ("tranca.liveness") only the process."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        await server.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)  # as an outage
        live = await stub.Check(health_pb2.HealthCheckRequest(service="tranca.liveness"))
        assert live.status == health_pb2.HealthCheckResponse.SERVING
        await server.health.enter_graceful_shutdown()
        live = await stub.Check(health_pb2.HealthCheckRequest(service="tranca.liveness"))
        assert live.status == health_pb2.HealthCheckResponse.NOT_SERVING


async def test_shutdown_sets_health_not_serving_first(db_url: str) -> None:
    running = await start(bare_config(db_url))
    await running.health.enter_graceful_shutdown()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert reply.status == health_pb2.HealthCheckResponse.NOT_SERVING
    await asyncio.wait_for(running.stop(0.5), 10)
