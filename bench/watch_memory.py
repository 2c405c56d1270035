"""Where a replica's memory goes per open WatchGame stream.

One seeded database (bench/scale.py's seeding), one ``tranca serve`` subprocess, and
WatchGame streams opened in steps (``--steps 1000,5000,10000``), the server's
memory read at each step once they are all open: ``VmRSS`` and its anonymous part
from ``/proc``, so the cost per stream is the difference between two steps divided
by the streams added. With ``--trace`` the server runs under tracemalloc
(bench/traced_serve.py) and at each step dumps a snapshot and a count of live
objects by type; the report then lists what the Python heap gained between the
first and the last step, by source line and by type (tracemalloc sees Python's
allocations only: the rest of the RSS difference is native, gRPC's C core and the
allocator's slack). Tracing costs memory and time of its own: the RSS figures of a
traced run are not the service's.

    python bench/watch_memory.py --games 10000 --steps 1000,5000,10000 \\
        --database-url postgresql://postgres@127.0.0.1:5432/test \\
        [--change-feed nats://127.0.0.1:4222] [--trace] [--out DIR]

Prints a report, and writes ``DIR/watch_memory.json`` with ``--out``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench import scale
    from bench.engine_bench import machine
else:
    try:
        import scale
        from engine_bench import machine
    except ImportError:
        from bench import scale
        from bench.engine_bench import machine

HERE = Path(__file__).resolve().parent


async def dump_trace(pid: int, trace_dir: Path, n: int, timeout: float = 300.0) -> None:
    os.kill(pid, signal.SIGUSR1)
    deadline = time.monotonic() + timeout
    while not (trace_dir / f"done-{n}").exists():
        if time.monotonic() > deadline:
            raise RuntimeError("the traced server wrote no snapshot")
        await asyncio.sleep(0.2)


def _where(frame: tracemalloc.Frame) -> str:
    return f"{frame.filename.split('site-packages/')[-1]}:{frame.lineno}"


def heap_report(trace_dir: Path, first: int, last: int, streams: int, top: int) -> dict[str, Any]:
    """What the Python heap gained between two snapshots, per stream added."""
    old = tracemalloc.Snapshot.load(str(trace_dir / f"snapshot-{first}.pickle"))
    new = tracemalloc.Snapshot.load(str(trace_dir / f"snapshot-{last}.pickle"))
    by_line = new.compare_to(old, "lineno")
    total = sum(s.size_diff for s in by_line)
    lines = [
        {
            "where": _where(s.traceback[0]),
            "bytes_per_stream": round(s.size_diff / streams, 1),
            "blocks_per_stream": round(s.count_diff / streams, 2),
        }
        for s in by_line[:top]
    ]
    by_trace = new.compare_to(old, "traceback")[: max(5, top // 3)]
    traces = [
        {
            "bytes_per_stream": round(s.size_diff / streams, 1),
            "traceback": [_where(f) for f in s.traceback],
        }
        for s in by_trace
    ]
    objs_old = Counter(json.loads((trace_dir / f"objects-{first}.json").read_text()))
    objs_new = Counter(json.loads((trace_dir / f"objects-{last}.json").read_text()))
    gained = {k: objs_new[k] - objs_old.get(k, 0) for k in objs_new}
    objects = {
        k: round(v / streams, 2)
        for k, v in sorted(gained.items(), key=lambda kv: -kv[1])[:top]
        if v > 0
    }
    return {
        "python_heap_bytes_per_stream": round(total / streams, 1),
        "by_line": lines,
        "by_traceback": traces,
        "objects_per_stream": objects,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    steps = [int(s) for s in args.steps.split(",")]
    with tempfile.TemporaryDirectory(prefix="tranca-watchmem-") as tmp:
        workdir = Path(tmp)
        # The snapshots, kept with --keep-trace for a closer look.
        trace_dir = Path(args.keep_trace) if args.keep_trace else workdir / "trace"
        trace_dir.mkdir(parents=True, exist_ok=True)
        async with scale.fresh_database(args.database_url, workdir) as db:
            code, out, err = await scale.run_cli(["migrate", "--database-url", db.url], timeout=120)
            if code != 0:
                raise RuntimeError(f"tranca migrate failed:\n{out}{err}")
            t0 = time.perf_counter()
            seeded = await scale.seed(db.url, args.games, args.templates, 1)
            print(f"seeded {args.games} games in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            extra = ["--max-watches-per-app", str(max(steps) + 1000)]
            # No connection recycled while the streams open (a stream outlives it).
            extra += ["--max-connection-age", "100000"]
            if args.change_feed:
                extra += ["--change-feed", args.change_feed]
            command = None
            if args.trace:
                command = [sys.executable, str(HERE / "traced_serve.py")]
            os.environ["TRACE_DIR"] = str(trace_dir)
            server = scale.ServerProcess(
                db.url, seeded.api_key, workdir / "serve.log", extra, command
            )
            result: dict[str, Any] = {"games": args.games, "steps": []}
            try:
                # Under tracemalloc the imports alone take a minute.
                await server.start(timeout=600 if args.trace else 60)
                await asyncio.sleep(args.settle)
                base = scale.read_memory(server.pid)
                result["idle"] = base
                pool = scale.WatchPool(server.address, seeded, max(steps), args.channels)
                done = 0
                try:
                    for n, step in enumerate(steps, start=1):
                        started = time.perf_counter()
                        await pool.open(args.concurrency, args.timeout, pool.watchers[done:step])
                        opened_s = time.perf_counter() - started
                        done = step
                        await asyncio.sleep(args.settle)
                        mem = scale.read_memory(server.pid)
                        row = {
                            "streams": step,
                            "open": pool.still_open(),
                            "errors": dict(Counter(w.error for w in pool.watchers if w.error)),
                            "open_seconds": round(opened_s, 1),
                            "memory_mb": mem,
                        }
                        result["steps"].append(row)
                        print(json.dumps(row), file=sys.stderr, flush=True)
                        if args.trace:
                            await dump_trace(server.pid, trace_dir, n)
                    mem_first = result["steps"][0]["memory_mb"]
                    added = steps[-1] - steps[0]
                    if added > 0:
                        last = result["steps"][-1]["memory_mb"]
                        result["rss_kib_per_stream"] = round(
                            (last["VmRSS"] - mem_first["VmRSS"]) * 1024 / added, 2
                        )
                        result["anon_kib_per_stream"] = round(
                            (last["RssAnon"] - mem_first["RssAnon"]) * 1024 / added, 2
                        )
                        if args.trace:
                            result["heap"] = heap_report(trace_dir, 1, len(steps), added, args.top)
                finally:
                    await pool.close()
            finally:
                server.stop()
    result["machine"] = machine()
    result["command"] = scale._command()
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=10000)
    p.add_argument("--templates", type=int, default=40)
    p.add_argument("--steps", default="1000,5000,10000")
    p.add_argument("--database-url", default=scale.SQLITE)
    p.add_argument("--change-feed", default="")
    p.add_argument("--trace", action="store_true")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--keep-trace", default="", help="write the snapshots to this directory")
    p.add_argument("--channels", type=int, default=8)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--settle", type=float, default=3.0)
    p.add_argument("--out", default="")
    args = p.parse_args(argv)
    result = asyncio.run(run(args))
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "watch_memory.json").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
