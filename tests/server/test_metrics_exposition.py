"""The metrics endpoint's exposition: no `_created` series, and the LISTEN gauge
only on a server with a listener (PostgreSQL), which TrancaNotifyListenerDown
(deploy/prometheus/alerts.yml) relies on."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from tests.harness.servers import bare_config, running_server

ROOT = Path(__file__).resolve().parents[2]

# A SQLite-backed server in a fresh interpreter, as each spawned worker is (and with
# no test in this process having touched the metrics): one call, then the
# exposition as the metrics endpoint serves it (generate_latest on the registry).
SCRIPT = """
import asyncio, sys
import grpc
from prometheus_client import REGISTRY, generate_latest
from tranca.server import Config, start
from tranca.store import migrate
from tranca.v1 import game_pb2, game_pb2_grpc

async def main(url):
    running = await start(Config(
        host="127.0.0.1", port=0, metrics_port=0, database_url=url, dev_api_key="k"))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_pb2_grpc.GameServiceStub(channel)
            await stub.ListPresets(game_pb2.ListPresetsRequest(), metadata=(("x-api-key", "k"),))
    finally:
        await running.stop(0)
    sys.stdout.write(generate_latest(REGISTRY).decode())

url = "sqlite:///" + sys.argv[1]
migrate.upgrade(url)
asyncio.run(main(url))
"""


def _samples(exposition: str) -> list[str]:
    return [line for line in exposition.splitlines() if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def sqlite_exposition(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = tmp_path_factory.mktemp("exposition") / "tranca.db"
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_DISABLE_CREATED_SERIES"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def test_the_exposition_has_no_created_series(sqlite_exposition: str) -> None:
    samples = _samples(sqlite_exposition)
    # The scrape holds labelled counters and histograms, which would have them.
    assert any(
        s.startswith('tranca_rpc_requests_total{code="OK",method="ListPresets"}') for s in samples
    )
    assert any(s.startswith("tranca_rpc_latency_seconds_bucket{") for s in samples)
    created = [s for s in samples if s.split("{")[0].split(" ")[0].endswith("_created")]
    assert created == []


def test_a_sqlite_server_exports_no_listener_gauge(sqlite_exposition: str) -> None:
    assert [
        s for s in _samples(sqlite_exposition) if s.startswith("tranca_notify_listener_up")
    ] == []


async def test_a_postgresql_server_exports_its_listener_gauge(pg_url: str) -> None:
    async with running_server(bare_config(pg_url), grace=0):
        labels = {"database": "postgresql"}
        for _ in range(100):
            if REGISTRY.get_sample_value("tranca_notify_listener_up", labels) == 1:
                break
            await asyncio.sleep(0.05)
        assert REGISTRY.get_sample_value("tranca_notify_listener_up", labels) == 1
