"""A restarted ``tranca serve`` can listen at once while the old process drains: the old
one lets go of its gRPC port and its metrics port as soon as its shutdown starts, not
when it exits at the end of its grace period.

Two real ``tranca serve`` processes on one SQLite file, ports chosen free; a
``WatchGame`` stream keeps the first one in its grace period (10 s) after SIGTERM.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tranca.store import migrate
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

KEY = "restart-test-key"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(url: str, port: int, metrics_port: int, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "tranca.cli", "serve",
            "--port", str(port), "--metrics-port", str(metrics_port),
            "--database-url", url, "--dev-api-key", KEY, "--log-level", "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
    )  # fmt: skip


def _refused(port: int) -> bool:
    """Whether nothing listens on the port any more."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except ConnectionRefusedError:
        return True
    except OSError:  # reset by a listener as it closed: look again
        return False
    return False


def _metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as reply:
        return str(reply.read().decode())


def _metrics_up(port: int) -> bool:
    try:
        return "tranca_rpc_requests_total" in _metrics(port)
    except OSError:
        return False


async def _serving(port: int) -> bool:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=1
            )
        except grpc.aio.AioRpcError:
            return False
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


async def _until(check: Callable[[], object], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def test_a_new_server_listens_on_both_ports_while_the_old_one_drains(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'restart.db'}"
    await migrate.upgrade_async(url)
    port, metrics_port = _free_port(), _free_port()
    log = tmp_path / "servers.log"
    first = _serve(url, port, metrics_port, log)
    second: subprocess.Popen[bytes] | None = None
    try:
        await _until(lambda: _serving(port), 30, "the first server")
        assert _metrics_up(metrics_port)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.GameServiceStub(channel)
            app = (("x-api-key", KEY),)
            created = await stub.CreateGame(
                pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
                metadata=app,
            )
            gid = created.game.game_id
            joined = await stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=0), metadata=app)
            # A long-running call: the first server waits for it through its grace period.
            stream = stub.WatchGame(
                pb.WatchGameRequest(game_id=gid),
                metadata=(("authorization", f"Bearer {joined.player_token}"),),
            )
            await stream.read()

            first.send_signal(signal.SIGTERM)
            # Both ports are let go of as the shutdown starts...
            await _until(lambda: _refused(metrics_port), 5, "the metrics port to close")
            await _until(lambda: _refused(port), 5, "the gRPC port to close")
            # ...and a new server listens on both while the first still drains.
            second = _serve(url, port, metrics_port, log)
            await _until(lambda: _serving(port), 30, "the second server")
            await _until(lambda: _metrics_up(metrics_port), 5, "the second server's metrics")
            assert first.poll() is None, "the first server did not wait for its open call"
            assert second.poll() is None, log.read_text(errors="replace")[-3000:]

            stream.cancel()
        # With its last call gone the first server finishes its shutdown.
        assert await asyncio.to_thread(first.wait, 15) == 0
        assert "Address already in use" not in log.read_text(errors="replace")
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    assert second.returncode == 0
