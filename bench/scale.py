"""Memory and scale benchmark: the server's memory and move latency with many games
stored, and its memory with many open watch streams.

For each size (stored games; 10, 1,000 and 10,000 by default) and each database (a
temporary SQLite file by default; ``--database-url postgresql://...`` names a
PostgreSQL server on which a throwaway database is created and dropped):

1. a fresh database, migrated with ``tranca migrate``;
2. seeded with that many games in realistic states: ``--templates`` games are played
   through the Store's one write path (joins, start, bot moves; most left in
   progress, some played out or resigned, some still waiting for players), and the
   rest are copies of those games' rows under new ids (playing every game through
   the write path would take minutes at 10,000 games, and the server does not care
   whether two games hold the same cards);
3. a ``tranca serve`` subprocess on it (``--port 0 --metrics-port 0``, JSON log to a
   file), whose resident memory (``VmRSS`` of ``/proc/PID/status``) is read idle,
   after a warm-up of reads over the stored games, and after a load run;
4. ``tranca loadtest`` as a subprocess: moves per second and SubmitMove latency with
   that many games stored (the load generator plays new games of its own);
5. ``--watchers`` WatchGame streams over the stored games that are not over, opened
   from this process over several channels: each must deliver its first view, the
   server's memory is read while they are all open, one move checks that they are
   live, and they are closed (and the memory read again).

Results go to ``OUT/scale.json`` and ``OUT/scale.md`` with the machine's description
and the exact command.

    python bench/scale.py --out bench/results [--sizes 10,1000,10000]
        [--database-url sqlite] [--database-url postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc

from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

# The seeding, the server process and the watchers are modules of their own; their
# names used by the tests and the other benchmarks (scale.seed, scale.ServerProcess,
# scale.WatchPool...) are re-exported here.
if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
    from bench.scale_seed import SQLITE as SQLITE
    from bench.scale_seed import Seeded as Seeded
    from bench.scale_seed import fresh_database as fresh_database
    from bench.scale_seed import seed as seed
    from bench.scale_server import MB as MB
    from bench.scale_server import ServerProcess as ServerProcess
    from bench.scale_server import read_memory as read_memory
    from bench.scale_server import run_cli as run_cli
    from bench.scale_watch import WatchPool as WatchPool
    from bench.scale_watch import _app, _player
else:
    try:  # run as a script, bench/ is on sys.path
        from engine_bench import machine
        from scale_seed import SQLITE, Seeded, fresh_database, seed
        from scale_server import MB, ServerProcess, read_memory, run_cli
        from scale_watch import WatchPool, _app, _player
    except ImportError:  # imported as bench.scale (the tests)
        from bench.engine_bench import machine
        from bench.scale_seed import SQLITE, Seeded, fresh_database, seed
        from bench.scale_server import MB, ServerProcess, read_memory, run_cli
        from bench.scale_watch import WatchPool, _app, _player


@dataclass
class Options:
    sizes: list[int] = field(default_factory=lambda: [10, 1000, 10000])
    databases: list[str] = field(default_factory=lambda: [SQLITE])
    templates: int = 40  # games played through the write path; the rest are copies
    seed: int = 1
    warmup_requests: int = 1000  # reads over the stored games before "after warm-up"
    load_games: int = 16
    load_seconds: float = 10.0
    load_warmup: float = 2.0
    watchers: int = 1000
    watch_channels: int = 8
    watch_concurrency: int = 64  # streams being opened at once
    watch_timeout: float = 30.0  # seconds for one stream's first view
    watch_rounds: int = 2  # the watchers opened and closed this many times
    settle_seconds: float = 2.0  # pause before each memory reading
    change_feed: str = ""  # the server's --change-feed (nats://...); "" for NOTIFY
    fanout_games: int = 20  # watched games moved once each to time the fan-out
    log_dir: str = ""  # keep the server logs here (default: a temporary directory)


# ----- load ---------------------------------------------------------------------------


async def warm_up(
    address: str, seeded: Seeded, requests: int, seed_value: int, concurrency: int = 8
) -> dict[str, Any]:
    """Reads spread over the stored games (views as the app and as players, legal
    moves, replays, pages of the game list), so that what the server allocates
    lazily (code paths, protobuf classes, database pages) is counted."""
    rng = random.Random(seed_value)
    errors: Counter[str] = Counter()
    sem = asyncio.Semaphore(concurrency)
    app = _app(seeded.api_key)

    async def one(stub: pb_grpc.GameServiceAsyncStub, i: int) -> None:
        game = rng.choice(seeded.games)
        seat_tokens = [t for t in game.tokens if t]
        async with sem:
            try:
                if i % 20 == 0:
                    page = str(rng.randrange(max(1, len(seeded.games) // 50)) * 50)
                    await stub.ListGames(
                        pb.ListGamesRequest(page_size=50, page_token=page), metadata=app, timeout=10
                    )
                elif i % 10 == 5:
                    req = pb.GetReplayRequest(game_id=game.game_id)
                    await stub.GetReplay(req, metadata=app, timeout=10)
                elif i % 3 == 1 and seat_tokens:
                    md = _player(rng.choice(seat_tokens))
                    req2 = pb.ListLegalMovesRequest(game_id=game.game_id)
                    await stub.ListLegalMoves(req2, metadata=md, timeout=10)
                elif i % 3 == 2 and seat_tokens:
                    md = _player(rng.choice(seat_tokens))
                    await stub.GetView(pb.GetViewRequest(game_id=game.game_id), metadata=md)
                else:
                    await stub.GetView(
                        pb.GetViewRequest(game_id=game.game_id), metadata=app, timeout=10
                    )
            except grpc.aio.AioRpcError as e:
                # A finished or waiting game refuses some reads (GAME_NOT_STARTED...):
                # counted, not fatal.
                errors[e.code().name] += 1

    started = time.perf_counter()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        await asyncio.gather(*(one(stub, i) for i in range(requests)))
    return {
        "requests": requests,
        "seconds": round(time.perf_counter() - started, 2),
        "errors": dict(errors),
    }


async def run_loadtest(
    address: str, api_key: str, games: int, seconds: float, warmup: float
) -> dict[str, Any]:
    """``tranca loadtest`` against the server; its JSON report, reduced."""
    code, out, err = await run_cli(
        [
            "loadtest",
            "--address",
            address,
            "--api-key",
            api_key,
            "--games",
            str(games),
            "--seconds",
            str(seconds),
            "--warmup",
            str(warmup),
        ],
        timeout=seconds + warmup + 300,
    )
    try:
        report: dict[str, Any] = json.loads(out)
    except ValueError:
        raise RuntimeError(f"tranca loadtest failed ({code}):\n{err[-3000:]}") from None
    submit = report.get("rpcs", {}).get("SubmitMove", {})
    return {
        "moves": report["moves"],
        "seconds": report["seconds"],
        "moves_per_second": report["moves_per_second"],
        "submit_p50_ms": submit.get("p50_ms"),
        "submit_p99_ms": submit.get("p99_ms"),
        "errors": report.get("errors", {}),
        "conflicts": report.get("conflicts", 0),
        "verification": report.get("verification", {}),
        "exit_code": code,  # 1: verification found a lost or doubled move
    }


# ----- one size -----------------------------------------------------------------------


async def measure_size(size: int, database: str, opts: Options) -> dict[str, Any]:
    """Every figure for one size on one database; cleans up whatever happens."""
    with tempfile.TemporaryDirectory(prefix="tranca-scale-") as tmp:
        workdir = Path(tmp)
        log_dir = Path(opts.log_dir) if opts.log_dir else workdir
        log_dir.mkdir(parents=True, exist_ok=True)
        async with fresh_database(database, workdir) as db:
            code, out, err = await run_cli(["migrate", "--database-url", db.url], timeout=120)
            if code != 0:
                raise RuntimeError(f"tranca migrate failed ({code}):\n{out}{err}")
            seeded = await seed(db.url, size, opts.templates, opts.seed)
            result: dict[str, Any] = {
                "database": db.kind,
                # Other work on the machine disturbs the timings: its load at the start.
                "load_average_at_start": round(os.getloadavg()[0], 2),
                "games_stored": len(seeded.games),
                "status": seeded.counts(),
                "templates": seeded.templates,
                "seed_seconds": seeded.seed_seconds,
                "copy_seconds": seeded.copy_seconds,
                "database_bytes": await db.size_bytes(),
            }
            server = ServerProcess(
                db.url,
                seeded.api_key,
                log_dir / f"serve-{db.kind}-{size}.log",
                ["--change-feed", opts.change_feed] if opts.change_feed else [],
            )
            memory: dict[str, dict[str, float]] = {}
            result["memory_mb"] = memory
            try:
                await server.start()
                await asyncio.sleep(opts.settle_seconds)
                memory["idle"] = read_memory(server.pid)
                result["warmup"] = await warm_up(
                    server.address, seeded, opts.warmup_requests, opts.seed
                )
                await asyncio.sleep(opts.settle_seconds)
                memory["after_warmup"] = read_memory(server.pid)
                result["load"] = await run_loadtest(
                    server.address,
                    seeded.api_key,
                    opts.load_games,
                    opts.load_seconds,
                    opts.load_warmup,
                )
                await asyncio.sleep(opts.settle_seconds)
                memory["after_load"] = read_memory(server.pid)
                rounds: list[dict[str, Any]] = []
                for n in range(1, max(1, opts.watch_rounds) + 1):
                    # The same streams opened and closed again: memory that keeps
                    # growing round after round is a leak, memory that stays at the
                    # first round's level is the allocator keeping what it got.
                    suffix = "" if n == 1 else f"_round_{n}"
                    watch = await _watch_round(server, seeded, opts, memory, suffix)
                    rounds.append(
                        {
                            "opened": watch["opened"],
                            "still_open_at_reading": watch["still_open_at_reading"],
                            "rss_open_mb": memory["with_watchers" + suffix]["VmRSS"],
                            "rss_closed_mb": memory["after_watchers_closed" + suffix]["VmRSS"],
                        }
                    )
                    if n == 1:
                        result["watchers"] = watch
                result["watch_rounds"] = rounds
                result["database_bytes_after"] = await db.size_bytes()
            except Exception as exc:
                raise RuntimeError(f"{exc}\n--- server log ---\n{server.log_tail()}") from exc
            finally:
                server.stop()
    return result


async def _watch_round(
    server: ServerProcess,
    seeded: Seeded,
    opts: Options,
    memory: dict[str, dict[str, float]],
    suffix: str,
) -> dict[str, Any]:
    """Open the watchers, read the memory with them open, check them, close them,
    read the memory again (``memory["with_watchers" + suffix]`` and
    ``memory["after_watchers_closed" + suffix]``)."""
    pool = WatchPool(server.address, seeded, opts.watchers, opts.watch_channels)
    try:
        started = time.perf_counter()
        await pool.open(opts.watch_concurrency, opts.watch_timeout)
        opened_in = time.perf_counter() - started
        await asyncio.sleep(opts.settle_seconds)
        memory["with_watchers" + suffix] = read_memory(server.pid)
        watch = pool.summary()
        watch["open_seconds"] = round(opened_in, 2)
        watch["still_open_at_reading"] = pool.still_open()
        watch["live_probe"] = await pool.probe()
        watch["fanout"] = await pool.fanout(opts.fanout_games)
    finally:
        await pool.close()
    # Time for the server to see the cancellations and drop the streams.
    await asyncio.sleep(max(opts.settle_seconds, 1.0))
    memory["after_watchers_closed" + suffix] = read_memory(server.pid)
    return watch


# ----- report -------------------------------------------------------------------------


def _command() -> str:
    exe = sys.executable
    with contextlib.suppress(ValueError):
        rel = os.path.relpath(exe)
        if not rel.startswith(".."):
            exe = rel
    return shlex.join([exe, *sys.argv])


def source_state() -> dict[str, Any]:
    """What ran: the commit alone does not say, when the server's files changed since
    it or when ``tranca`` came from elsewhere (``PYTHONPATH`` pointing at another
    copy of the code, which the subprocesses inherit)."""
    import tranca

    package = Path(tranca.__file__).resolve().parent
    state: dict[str, Any] = {"tranca_from": str(package), "modified_since_commit": []}
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if top and package.is_relative_to(Path(top).resolve()):
            changed = subprocess.run(
                ["git", "status", "--porcelain", "--", "server", "proto", "pyproject.toml"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.splitlines()
            state["modified_since_commit"] = [line[3:] for line in changed]
        else:
            state["outside_work_tree"] = True
    except OSError:
        pass
    return state


def write_report(report: dict[str, Any], out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    (out / "scale.json").write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
    s = report["settings"]
    lines = [
        "# Memory and scale benchmark",
        "",
        f"Command: `{report['command']}` (sizes {', '.join(str(n) for n in report['sizes'])}).",
        "",
        "For each size, a fresh database seeded with that many games (about 70 % in "
        f"progress, 20 % over, 10 % waiting for players; {s['templates']} played through "
        "the Store's write path with greedy bots, the rest copies of their rows under "
        "new ids), and a `tranca serve` subprocess on it. Memory is the server "
        "process's VmRSS in MiB: idle after start, after "
        f"{s['warmup_requests']} reads over the stored games, after the load run, with "
        f"{s['watchers']} WatchGame streams open (spread over the games not over, "
        f"{s['watch_channels']} connections, {s['watch_concurrency']} opening at once), "
        "and after closing them. Moves/s and "
        f"SubmitMove latency from `tranca loadtest --games {s['load_games']} --seconds "
        f"{s['load_seconds']:g} --warmup {s['load_warmup']:g}` (new games of its own: the "
        "latency with that many games stored). Client processes and the server share "
        "the machine; the load average when each size started is in scale.json.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['implementation']} {m['python']}, "
        f"{m['platform']}; load average at the end {m['load_average'][0]:.2f}; "
        f"commit {m['commit']}{_source_note(report.get('source', {}))}; {m['date']}.",
        "",
        f"| database | games stored | RSS idle MB | RSS after warm-up MB | RSS with "
        f"{s['watchers']:,} watchers MB | moves/s | SubmitMove p50 ms | SubmitMove p99 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report["results"]:
        mem = r["memory_mb"]
        load = r["load"]
        lines.append(
            f"| {r['database']} | {r['games_stored']:,} | {mem['idle']['VmRSS']} | "
            f"{mem['after_warmup']['VmRSS']} | {mem['with_watchers']['VmRSS']} | "
            f"{load['moves_per_second']} | {load['submit_p50_ms']} | {load['submit_p99_ms']} |"
        )
    lines += [
        "",
        "Memory in detail (VmRSS, MiB): after the load run; with the watchers open and "
        "after closing them, round by round (the same streams opened again: a leak "
        "would grow with every round); the peak (VmHWM) over the whole run.",
        "",
        "| database | games stored | after load | watchers open → closed, by round | peak |",
        "|---|---|---|---|---|",
    ]
    for r in report["results"]:
        mem = r["memory_mb"]
        rounds = ", ".join(f"{w['rss_open_mb']} → {w['rss_closed_mb']}" for w in r["watch_rounds"])
        peak = max(v["VmHWM"] for v in mem.values())
        lines.append(
            f"| {r['database']} | {r['games_stored']:,} | {mem['after_load']['VmRSS']} | "
            f"{rounds} | {peak} |"
        )
    lines += [
        "",
        "Watchers and data (first round): streams that delivered their first view (by "
        "player token / by API key) and were still open at the memory reading; one "
        "move in a watched game and the streams on that game that delivered it; the "
        "time to open them all and each one's first view while they open; the "
        "database's size after seeding and the seeding time (write path + row copies).",
        "",
        "| database | games stored | status | opened (token/key) | open at reading | "
        "move delivered | open s | first view p50/p99 ms | DB MB | seeding s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["results"]:
        w = r["watchers"]
        probe = w["live_probe"]
        status = ", ".join(f"{k} {v}" for k, v in sorted(r["status"].items()))
        delivered = f"{probe['delivered']}/{probe['streams']}" if probe["checked"] else "-"
        lines.append(
            f"| {r['database']} | {r['games_stored']:,} | {status} | "
            f"{w['opened']} ({w['by_player_token']}/{w['by_api_key']}) | "
            f"{w['still_open_at_reading']} | {delivered} | {w['open_seconds']} | "
            f"{w['first_view_p50_ms']}/{w['first_view_p99_ms']} | "
            f"{r['database_bytes'] / MB:.1f} | {r['seed_seconds']} + {r['copy_seconds']} |"
        )
    lines += [
        "",
        "Fan-out (first round, with every watcher open): watched games in progress "
        "moved one after the other; for each stream on the moved game, the time from "
        "the mover's acknowledgement to that stream's delivery of the new version. "
        "SubmitMove p99 as a ratio to the smallest size's on the same database, in "
        f"the same run. Change feed: {s.get('change_feed') or 'NOTIFY (the default)'}.",
        "",
        "| database | games stored | games moved | streams delivered / timed | "
        "fan-out p50 ms | fan-out p99 ms | SubmitMove p99 / smallest size's |",
        "|---|---|---|---|---|---|---|",
    ]
    smallest: dict[str, float] = {}
    for r in sorted(report["results"], key=lambda r: r["games_stored"]):
        smallest.setdefault(r["database"], r["load"]["submit_p99_ms"] or 0.0)
    for r in report["results"]:
        f = r["watchers"].get("fanout", {})
        base = smallest.get(r["database"]) or 0.0
        ratio = f"{r['load']['submit_p99_ms'] / base:.2f}" if base else "-"
        lines.append(
            f"| {r['database']} | {r['games_stored']:,} | {f.get('games', '-')} | "
            f"{f.get('delivered', '-')}/{f.get('streams', '-')} | {f.get('delay_p50_ms')} | "
            f"{f.get('delay_p99_ms')} | {ratio} |"
        )
    problems = [
        f"{r['database']} {r['games_stored']}: {p}" for r in report["results"] for p in _problems(r)
    ]
    if problems:
        lines += ["", "Problems seen:", ""] + [f"- {p}" for p in problems]
    text = "\n".join(lines) + "\n"
    (out / "scale.md").write_text(text)
    return text


def _source_note(source: dict[str, Any]) -> str:
    if source.get("outside_work_tree"):
        return f" (the server's code imported from {source['tranca_from']})"
    if source.get("modified_since_commit"):
        n = len(source["modified_since_commit"])
        return f" with {n} server files changed since it (listed in scale.json)"
    return ""


def _problems(r: dict[str, Any]) -> list[str]:
    """What a reader should not miss: failed checks, errors."""
    out = []
    w = r["watchers"]
    for n, rnd in enumerate(r.get("watch_rounds", [])[1:], start=2):
        if rnd["opened"] < w["requested"] or rnd["still_open_at_reading"] < rnd["opened"]:
            out.append(
                f"round {n}: {rnd['opened']} streams opened, {rnd['still_open_at_reading']} open"
            )
    if w["opened"] < w["requested"]:
        out.append(f"{w['requested'] - w['opened']} watch streams did not open: {w['errors']}")
    if w["still_open_at_reading"] < w["opened"]:
        out.append(f"only {w['still_open_at_reading']} of {w['opened']} streams stayed open")
    probe = w["live_probe"]
    if probe["checked"] and probe["delivered"] < probe["streams"]:
        out.append(
            f"the probe move reached {probe['delivered']} of {probe['streams']} streams"
            + (f" ({probe['error']})" if probe.get("error") else "")
        )
    load = r["load"]
    if load["exit_code"] != 0:
        out.append(f"loadtest verification failed: {load['verification']}")
    if load["errors"]:
        out.append(f"loadtest errors: {load['errors']}")
    return out


async def run(opts: Options) -> dict[str, Any]:
    # What is about to run, read before it runs: the work tree may move on meanwhile.
    source = source_state()
    commit = machine()["commit"]
    results = []
    for database in opts.databases:
        for size in opts.sizes:
            print(f"{database}: {size} games ...", file=sys.stderr, flush=True)
            r = await measure_size(size, database, opts)
            mem = r["memory_mb"]
            print(
                f"  RSS idle {mem['idle']['VmRSS']} MB, warm {mem['after_warmup']['VmRSS']}, "
                f"watchers {mem['with_watchers']['VmRSS']} ({r['watchers']['opened']} open); "
                f"{r['load']['moves_per_second']} moves/s, SubmitMove p50 "
                f"{r['load']['submit_p50_ms']} ms p99 {r['load']['submit_p99_ms']} ms",
                file=sys.stderr,
                flush=True,
            )
            results.append(r)
    return {
        "benchmark": "scale",
        "command": _command(),
        "sizes": opts.sizes,
        "databases": [d if d == SQLITE else "postgresql" for d in opts.databases],
        "settings": {
            k: v for k, v in vars(opts).items() if k not in ("sizes", "databases", "log_dir")
        },
        "machine": _machine_at_end(commit),
        "source": source,
        "results": results,
    }


def _machine_at_end(commit: str) -> dict[str, Any]:
    """The machine as the run leaves it (load average, date), with the commit that
    was checked out when it started."""
    m: dict[str, Any] = machine()
    if m["commit"] != commit:
        m["commit_at_end"] = m["commit"]
    m["commit"] = commit
    return m


def parse_args(argv: list[str] | None = None) -> tuple[Options, Path]:
    d = Options()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", default="bench/results")
    p.add_argument("--sizes", default="10,1000,10000", help="stored-game counts, comma-separated")
    p.add_argument(
        "--database-url",
        action="append",
        default=None,
        help="'sqlite' (a temporary file, the default) or a PostgreSQL URL whose server "
        "hosts a throwaway database per size; repeatable",
    )
    p.add_argument("--templates", type=int, default=d.templates)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--warmup-requests", type=int, default=d.warmup_requests)
    p.add_argument("--load-games", type=int, default=d.load_games)
    p.add_argument("--load-seconds", type=float, default=d.load_seconds)
    p.add_argument("--load-warmup", type=float, default=d.load_warmup)
    p.add_argument("--watchers", type=int, default=d.watchers)
    p.add_argument("--watch-channels", type=int, default=d.watch_channels)
    p.add_argument("--watch-concurrency", type=int, default=d.watch_concurrency)
    p.add_argument("--watch-rounds", type=int, default=d.watch_rounds)
    p.add_argument("--settle-seconds", type=float, default=d.settle_seconds)
    p.add_argument("--log-dir", default="", help="keep the server logs here")
    p.add_argument(
        "--change-feed",
        default="",
        help="the server's --change-feed (nats://127.0.0.1:4222); default: NOTIFY",
    )
    p.add_argument("--fanout-games", type=int, default=d.fanout_games)
    a = p.parse_args(argv)
    try:
        sizes = [int(s.replace("_", "")) for s in a.sizes.split(",") if s.strip()]
    except ValueError:
        p.error("--sizes: comma-separated integers")
    if not sizes or min(sizes) < 1 or max(sizes) > 1_000_000:
        p.error("--sizes: between 1 and 1,000,000 games")
    if a.templates < 1 or a.watchers < 0:
        p.error("--templates must be 1 or more and --watchers 0 or more")
    opts = Options(
        sizes=sizes,
        databases=a.database_url or [SQLITE],
        templates=a.templates,
        seed=a.seed,
        warmup_requests=a.warmup_requests,
        load_games=a.load_games,
        load_seconds=a.load_seconds,
        load_warmup=a.load_warmup,
        watchers=a.watchers,
        watch_channels=a.watch_channels,
        watch_concurrency=a.watch_concurrency,
        watch_rounds=a.watch_rounds,
        settle_seconds=a.settle_seconds,
        log_dir=a.log_dir,
        change_feed=a.change_feed,
        fanout_games=a.fanout_games,
    )
    return opts, Path(a.out)


def main(argv: list[str] | None = None) -> int:
    opts, out = parse_args(argv)
    report = asyncio.run(run(opts))
    print(write_report(report, out))
    return 1 if any(_problems(r) for r in report["results"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
