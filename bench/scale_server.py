"""The scale benchmark's server (bench/scale.py): ``tranca serve`` as a subprocess on
a free port, its resident memory read from /proc, and the ``tranca`` CLI run."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

MB = 1024 * 1024  # memory figures are MiB
MEMORY_FIELDS = ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem")


def tranca_command() -> list[str]:
    """The ``tranca`` CLI of the running interpreter's environment."""
    script = Path(sys.executable).with_name("tranca")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tranca.cli"]


def read_memory(pid: int) -> dict[str, float]:
    """Resident memory of a process in MiB: VmRSS (now), VmHWM (peak so far) and
    VmRSS's parts (anonymous, file-backed, shared memory: SQLite's WAL index is
    a shared mapping)."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in MEMORY_FIELDS:
            out[name] = round(int(value.split()[0]) * 1024 / MB, 1)
    return out


class ServerProcess:
    """``tranca serve`` as a subprocess on a free port, logging to a file."""

    def __init__(
        self,
        database_url: str,
        api_key: str,
        log_path: Path,
        extra: list[str] | None = None,
        command: list[str] | None = None,
    ) -> None:
        self.extra = extra or []
        # The ``tranca`` command to run (bench/watch_memory.py runs it under tracemalloc).
        self.command = command or tranca_command()
        self.database_url = database_url
        self.api_key = api_key
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.address = ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    async def start(self, timeout: float = 60.0) -> None:
        with self.log_path.open("wb") as log:
            # Port 0: the kernel picks a free port (no race with other runs); the
            # server logs the address it got.
            self.proc = subprocess.Popen(
                [
                    *self.command,
                    "serve",
                    "--database-url",
                    self.database_url,
                    "--port",
                    "0",
                    "--metrics-port",
                    "0",
                    "--dev-api-key",
                    self.api_key,
                    "--log-format",
                    "json",
                    *self.extra,
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while not self.address:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"tranca serve exited ({self.proc.returncode}):\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"tranca serve did not start in {timeout} s:\n{self.log_tail()}")
            for line in self.log_path.read_text(errors="replace").splitlines():
                if '"listening"' in line:
                    with contextlib.suppress(ValueError):
                        self.address = str(json.loads(line)["address"])
            await asyncio.sleep(0.1)
        # Listening is not serving: wait for the health service to say so.
        async with grpc.aio.insecure_channel(self.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            while True:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    reply = await health.Check(health_pb2.HealthCheckRequest(service=""), timeout=2)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"tranca serve never became SERVING:\n{self.log_tail()}")
                await asyncio.sleep(0.1)

    def stop(self) -> None:
        """SIGTERM (the server's graceful shutdown), then SIGKILL if it lingers."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


async def run_cli(args: list[str], timeout: float) -> tuple[int, str, str]:
    """A ``tranca`` subcommand, killed if it outlives ``timeout`` or we are cancelled."""
    proc = subprocess.Popen(
        [*tranca_command(), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = await asyncio.to_thread(proc.communicate, timeout=timeout)
        return proc.returncode, out, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
