"""Servers as separate processes (`tranca serve`), for the tests of the command line,
the browser port and replicas: a free port, the command that serves on it, waiting
for its health to answer and stopping it."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def free_port() -> int:
    """A port free on loopback now (another process may take it before it is bound)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve_command(port: int, database_url: str, *options: str) -> list[str]:
    """`tranca serve` on ``port`` and ``database_url``, without a metrics endpoint."""
    return [
        sys.executable,
        "-m",
        "tranca.cli",
        "serve",
        "--port",
        str(port),
        "--metrics-port",
        "0",
        "--database-url",
        database_url,
        *options,
    ]


def wait_healthy(
    proc: subprocess.Popen[bytes], address: str, timeout: float, service: str = ""
) -> bool:
    """True once ``address`` answers SERVING for ``service``; False if the process died
    or the time ran out."""
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return False
            try:
                reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.RpcError:
                pass
            time.sleep(0.1)
    return False


def stop(proc: subprocess.Popen[bytes], timeout: float = 15) -> None:
    """Ends ``proc`` as the operator would (SIGTERM), killing it if it lingers."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
