"""A trivial gRPC echo service: the transport ceiling's server.

One generic unary method (``tranca.tools.loadgen_echo.METHOD``) with identity
serializers, so requests and answers are bytes and no proto is needed. It runs in
the service's process layout: one process, or ``--workers N`` spawned processes
each with its own server on one shared port (``grpc.so_reuseport``), with the
service's channel options, so that the only difference from ``tranca serve`` is the
work the service does per call.

    python bench/echo_server.py --port 50061 [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import signal

import grpc

from tranca.processes import supervise
from tranca.tools.loadgen_echo import SERVICE


def _options(reuse_port: bool) -> list[tuple[str, int]]:
    # The service's own server options (tranca.server.start), transport-wise.
    return [
        ("grpc.so_reuseport", 1 if reuse_port else 0),
        ("grpc.max_receive_message_length", 256 * 1024),
        ("grpc.max_send_message_length", 4 * 1024 * 1024),
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
        ("grpc.max_connection_age_ms", 300_000),
        ("grpc.max_connection_age_grace_ms", 30_000),
    ]


async def _echo(request: bytes, _context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    return request


async def start(
    host: str = "127.0.0.1", port: int = 0, *, reuse_port: bool = False
) -> tuple[grpc.aio.Server, int]:
    """A started echo server and the port it listens on (``port`` 0: any free one)."""
    server = grpc.aio.server(options=_options(reuse_port))
    # No serializers given: the handler sees and returns the raw bytes.
    handler = grpc.method_handlers_generic_handler(
        SERVICE, {"Echo": grpc.unary_unary_rpc_method_handler(_echo)}
    )
    server.add_generic_rpc_handlers((handler,))
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise SystemExit(f"cannot listen on {host}:{port}")
    await server.start()
    return server, bound


async def _serve(host: str, port: int, reuse_port: bool) -> None:
    server, bound = await start(host, port, reuse_port=reuse_port)
    print(f"echo server {host}:{bound} pid {os.getpid()}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(1)


def _worker(host: str, port: int) -> None:
    asyncio.run(_serve(host, port, reuse_port=True))


def serve(host: str, port: int, workers: int) -> int:
    if workers <= 1:
        asyncio.run(_serve(host, port, reuse_port=False))
        return 0
    # As tranca.server.serve: gRPC's core is not fork-safe, so workers are spawned.
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_worker, args=(host, port)) for _ in range(workers)]
    return supervise(procs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50061)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.workers > 1 and args.port == 0:
        parser.error("--workers needs a fixed --port (the processes share it)")
    return serve(args.host, args.port, args.workers)


if __name__ == "__main__":
    raise SystemExit(main())
