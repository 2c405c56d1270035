"""The load generator's echo mode: ``tranca loadtest --echo``.

The transport ceiling: the same shape of load as ``tranca loadtest`` (concurrent
loops, several independent channels, a warm-up, then a fixed duration, per-call
latency percentiles) against a trivial echo service (``bench/echo_server.py``)
that does no work, so that what it measures is gRPC and the Python event loops on
both sides. A service run's moves per second divided by this figure says how much
of the machine's ceiling the service's own work leaves.

Each call sends about as much as a ``SubmitMove``: a request of ``payload_bytes``
(200 by default) and a bearer token in the metadata, as a player's call carries.
The echo service answers with the same bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import time
from collections import Counter
from typing import Any

import grpc

from .load_report import latency_summary, mark_window

# The echo service's one method; bench/echo_server.py registers it under this name.
SERVICE = "tranca.bench.Echo"
METHOD = f"/{SERVICE}/Echo"
# Loops stop at the deadline; this bound only guarantees they stop by themselves.
MAX_CALLS_PER_LOOP = 10_000_000


class EchoLoad:
    """Concurrent echo loops ("games") over several channels, like ``LoadGenerator``."""

    def __init__(
        self,
        addresses: list[str],
        *,
        channels: int = 4,
        payload_bytes: int = 200,
        timeout: float = 5.0,
        seed: int = 1,
    ) -> None:
        self.timeout = timeout
        self.payload = random.Random(seed).randbytes(max(0, payload_bytes))
        # Separate subchannel pools: each channel opens its own connection, so that
        # connections spread over the processes sharing a port, as LoadGenerator's do.
        self.channels = [
            grpc.aio.insecure_channel(
                addresses[i % len(addresses)], options=[("grpc.use_local_subchannel_pool", 1)]
            )
            for i in range(max(1, channels))
        ]
        # No serializers: requests and answers are bytes as they are on the wire.
        self.calls: list[grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]] = [
            c.unary_unary(METHOD) for c in self.channels
        ]
        self.latencies: list[float] = []
        self.errors: Counter[str] = Counter()
        self.deadline = 0.0

    async def close(self) -> None:
        for c in self.channels:
            await c.close()

    async def _loop(self, index: int) -> None:
        call = self.calls[index % len(self.calls)]
        # A player's call carries its bearer token (43 characters, like the service's).
        md = (("authorization", f"Bearer {secrets.token_urlsafe(32)}"),)
        for _ in range(MAX_CALLS_PER_LOOP):
            if time.perf_counter() >= self.deadline:
                break
            started = time.perf_counter()
            try:
                reply = await call(self.payload, metadata=md, timeout=self.timeout)
            except grpc.aio.AioRpcError as e:
                self.errors[e.code().name] += 1
                # A refused connection would otherwise spin: back off a little.
                await asyncio.sleep(0.05)
                continue
            self.latencies.append(time.perf_counter() - started)
            if reply != self.payload:
                self.errors["BAD_ECHO"] += 1

    async def run(self, games: int, seconds: float, warmup: float) -> dict[str, Any]:
        if warmup > 0:
            self.deadline = time.perf_counter() + warmup
            await asyncio.gather(*(self._loop(i) for i in range(games)))
            self.latencies.clear()
            self.errors.clear()
        mark_window("open")
        started = time.perf_counter()
        self.deadline = started + seconds
        await asyncio.gather(*(self._loop(i) for i in range(games)))
        elapsed = time.perf_counter() - started
        mark_window("closed")
        return self.report(games, elapsed)

    def report(self, games: int, elapsed: float) -> dict[str, Any]:
        values = self.latencies
        rpcs = {"Echo": latency_summary(values)} if values else {}
        return {
            "mode": "echo",
            "games": games,
            "channels": len(self.channels),
            "payload_bytes": len(self.payload),
            "seconds": round(elapsed, 2),
            "calls": len(values),
            "calls_per_second": round(len(values) / elapsed, 1) if elapsed else 0.0,
            "rpcs": rpcs,
            "errors": dict(self.errors),
        }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    load = EchoLoad(
        args.address,
        channels=args.channels,
        payload_bytes=args.payload_bytes,
        seed=args.seed,
    )
    try:
        return await load.run(args.games, args.seconds, args.warmup)
    finally:
        await load.close()


def run_cli(args: argparse.Namespace) -> int:
    """``tranca loadtest --echo``: the parsed arguments of ``tranca loadtest``."""
    result = asyncio.run(main_async(args))
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if result["calls"] > 0 and not result["errors"] else 1
