"""The processes that serve: ``tranca serve`` in one process or in worker processes
sharing one port, each stopped by SIGTERM or SIGINT after a grace period, with its
metrics endpoint and its garbage collector set for a long-lived server."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import os
import signal
from collections.abc import Sequence
from wsgiref.simple_server import WSGIServer

import structlog
from prometheus_client import start_http_server

from .config import Config
from .logs import configure_logging
from .server import start
from .store import migrate
from .store.database import normalise_url

log = structlog.get_logger("tranca.server")


# The collector's thresholds once a server has started (``settle_collector``): a
# young collection every GC_YOUNG net allocations (Python's default is 700), each
# older generation every 10 of the one before, as by default.
GC_YOUNG = 10_000


def settle_collector() -> None:
    """Set the garbage collector for a server process that has started (``_serve``;
    the benchmarks that run a server in their own process call it too).

    Everything allocated so far (modules, presets, the server) lives as long as the
    process: it is collected once, then frozen out of every later collection
    (``gc.freeze``); otherwise each full collection walks it all, and shows up as a
    pause of the whole process (every call waits for it: in the tournament
    benchmark's process, before it froze, up to 0.5 s while a 64-entrant event
    recorded its results, 3.5 s at 1,024 entrants). A young collection every 10,000
    net allocations rather than 700 makes collections rarer (while that benchmark
    recorded 256 players' results: none, against about 4,000 of up to 22 ms), each
    of a few more objects, as large Python services do. See
    docs/platform/tournaments.md."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 10, 10)


async def _serve(cfg: Config, reuse_port: bool, metrics_server: WSGIServer | None = None) -> None:
    running = await start(cfg, reuse_port=reuse_port)
    settle_collector()
    log.info("listening", address=f"{cfg.host}:{running.port}", pid=os.getpid())
    if running.web is not None:
        log.info("browser_port", url=f"http://{cfg.host}:{running.web.port}/")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting_down", grace_seconds=cfg.grace_seconds)

    async def close_metrics() -> None:
        if metrics_server is not None:
            await asyncio.to_thread(metrics_server.shutdown)  # its loop wakes every 0.5 s
            metrics_server.server_close()

    # Both ports are let go of as shutdown starts, so that a new process can listen on
    # them while this one drains its calls for up to the grace period: gRPC closes its
    # listener as server.stop begins; the metrics endpoint would listen until exit.
    await asyncio.gather(close_metrics(), running.stop(cfg.grace_seconds))


def _worker(cfg: Config, index: int) -> None:
    configure_logging(cfg.log_format, cfg.log_level)
    metrics_server = None
    if cfg.metrics_port:
        # One metrics port per worker: counters live in each process.
        metrics_server, _ = start_http_server(cfg.metrics_port + index, addr=cfg.host)
    asyncio.run(_serve(cfg, reuse_port=True, metrics_server=metrics_server))


def serve(argv: list[str] | None = None) -> int:
    cfg = Config.from_args(argv)
    configure_logging(cfg.log_format, cfg.log_level)
    print(f"tranca server: {cfg.host}:{cfg.port} (database {cfg.database_url})", flush=True)
    if cfg.web_port >= 0:
        scheme = "https" if cfg.tls_cert else "http"
        print(
            f"web table and browser endpoint (Connect, gRPC-Web): "
            f"{scheme}://{cfg.host}:{cfg.web_port}/",
            flush=True,
        )
    if cfg.workers <= 1:
        metrics_server = None
        if cfg.metrics_port:
            metrics_server, _ = start_http_server(cfg.metrics_port, addr=cfg.host)
            print(f"metrics: http://{cfg.host}:{cfg.metrics_port}/metrics", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_serve(cfg, reuse_port=False, metrics_server=metrics_server))
        return 0
    if cfg.auto_migrate:
        migrate.upgrade(normalise_url(cfg.database_url))
        cfg.auto_migrate = False
    # gRPC's core is not fork-safe: workers are spawned, each with its own server on
    # the shared port (SO_REUSEPORT; the kernel spreads connections, not calls).
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_worker, args=(cfg, i), daemon=False) for i in range(cfg.workers)]
    if cfg.metrics_port:
        last = cfg.metrics_port + cfg.workers - 1
        print(f"metrics: http://{cfg.host}:{cfg.metrics_port}..{last}/metrics", flush=True)
    return supervise(procs)


def supervise(procs: Sequence[multiprocessing.process.BaseProcess]) -> int:
    """Start worker processes, pass SIGTERM and SIGINT on to them, wait for them all."""
    for proc in procs:
        proc.start()

    def forward(signum: int, _frame: object) -> None:
        for proc in procs:
            if proc.pid:
                os.kill(proc.pid, signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    for proc in procs:
        proc.join()
    return 0
