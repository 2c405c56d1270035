"""Tournaments: GetTournament's latency and the time to record a result for Swiss
events of 64, 256 and 1,024 players with drawn tables, and how long a trivial call
waits on the same server meanwhile.

One server process (this one) on PostgreSQL (or ``--database-url``). For each size:
a Swiss tournament at 2-player tables, ``ceil(log2(n))`` rounds; each round started
with ``StartRound`` (its games created, seated and started), then every table's
result recorded as the settlement records a finished game's
(``services.tournaments.record_game_result`` in a transaction of its own, here in
the server's process and on its event loop, as a replica's sweeper runs it): a
quarter of the tables drawn, the rest won by either side, from a fixed seed. After
each round, ``--reads`` GetTournament calls through gRPC.

A separate probe process calls the server's health check (answered without the
database) every 5 ms for the whole run; its latencies are reported per phase: idle
(before the tournament), while rounds start, while results are recorded (each
recording rebuilds the tournament and recomputes its standings), while
GetTournament is read.

Reference, measured in the same run: the pure recomputation every GetTournament
and every recorded result did before standings were stored (the tournament rebuilt
by pairing every Swiss round again, then its standings), on the finished event.

Results go to ``OUT/tournaments.json`` and ``.md`` with the machine's description.

    python bench/tournament_bench.py --out bench/results [--sizes 64 256 1024] [--reads 20]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc

from tranca.platform.tournament_events import Event, TournamentConfig
from tranca.platform.tournaments import Outcome
from tranca.processes import settle_collector
from tranca.server import Config, configure_logging, start
from tranca.services.tournaments import record_game_result
from tranca.store import migrate
from tranca.store.tournament_store import TournamentTransaction
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import platform_pb2 as pb
from tranca.v1 import platform_pb2_grpc as pb_grpc
from tranca_rules.match import DRAWN

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
    from bench.service_quick import _pg_drop, _pg_fresh
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine
    from service_quick import _pg_drop, _pg_fresh

PRESET = "tranca-000"

# The probe: a health check every 5 ms until a line arrives on stdin, then every
# sample (wall-clock start in epoch seconds, latency in ms) as JSON on stdout.
PROBE = textwrap.dedent(
    """
    import asyncio, json, sys, time
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async def main(port):
        samples = []
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_reader(sys.stdin.fileno(), stop.set)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            await stub.Check(health_pb2.HealthCheckRequest())
            print("ready", flush=True)
            while not stop.is_set():
                at = time.time()
                t0 = time.perf_counter()
                await stub.Check(health_pb2.HealthCheckRequest())
                samples.append((at, (time.perf_counter() - t0) * 1000))
                await asyncio.sleep(0.005)
        print(json.dumps(samples), flush=True)

    asyncio.run(main(int(sys.argv[1])))
    """
)


def quantile(values: list[float], q: int) -> float:
    """The ``q``-th percentile (1..99); the single value for fewer than two."""
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "count": len(values),
        "p50_ms": round(quantile(values, 50), 2),
        "p99_ms": round(quantile(values, 99), 2),
        "max_ms": round(max(values), 2) if values else 0.0,
    }


def from_scratch_ms(config: TournamentConfig, events: list[Event], times: int) -> float:
    """The best of ``times`` recomputations as every read did before: every Swiss
    round paired again, every result recorded, then the standings."""
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        t = config.new_tournament()
        for event in events:
            if event["type"] == "pair":
                t.pair_next_round()
            elif event["type"] == "result":
                t.record(int(event["round"]), int(event["table"]), Outcome(event["outcome"]))
        t.standings()
        best = min(best, time.perf_counter() - started)
    return best * 1000


class Pauses:
    """What held the server's process: the interpreter's garbage collections (each
    one's duration) and the event loop's lag (how late a 5 ms sleep wakes), with
    their wall-clock times, to attribute the probe's slow calls."""

    def __init__(self) -> None:
        self.gc: list[tuple[float, float]] = []  # (epoch s, ms)
        self.lag: list[tuple[float, float]] = []
        self._gc_started = 0.0

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc.append((time.time(), (time.perf_counter() - self._gc_started) * 1000))

    async def watch_loop(self) -> None:
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(0.005)
            self.lag.append((time.time(), (time.perf_counter() - t0) * 1000 - 5.0))

    @staticmethod
    def within(samples: list[tuple[float, float]], spans: list[tuple[float, float]]) -> list[float]:
        return [ms for at, ms in samples if any(a <= at <= b for a, b in spans)]


async def one_size(url: str, size: int, reads: int, seed: int) -> dict[str, Any]:
    server = await start(Config(port=0, metrics_port=0, database_url=url, sweep_interval=0))
    settle_collector()  # as `tranca serve` does once it has started
    pauses = Pauses()
    gc.callbacks.append(pauses.on_gc)
    watcher = asyncio.create_task(pauses.watch_loop())
    probe = subprocess.Popen(
        [sys.executable, "-c", PROBE, str(server.port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    windows: dict[str, list[tuple[float, float]]] = {
        "idle": [],
        "start_round": [],
        "recording": [],
        "get_tournament": [],
    }
    try:
        assert probe.stdout is not None and probe.stdin is not None
        await asyncio.to_thread(probe.stdout.readline)  # "ready"
        app_id, key = await server.store.create_app("bench")
        md = (("x-api-key", key),)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        stub = pb_grpc.TournamentServiceStub(channel)
        began = time.time()
        await asyncio.sleep(2.0)
        windows["idle"].append((began, time.time()))
        people = [pb.Entrant(id=f"e{i:04}", player_ids=[f"p{i:04}"]) for i in range(size)]
        created = (
            await stub.CreateTournament(
                pb.CreateTournamentRequest(
                    name=f"bench {size}",
                    format=pb.TOURNAMENT_FORMAT_SWISS,
                    entrants=people,
                    table_size=2,
                    rules=gpb.Rules(preset=PRESET),
                    seed=seed,
                ),
                metadata=md,
            )
        ).tournament
        tid = created.tournament_id
        rng = random.Random(seed)
        start_ms: list[float] = []
        record_ms: list[float] = []
        read_ms: list[float] = []
        draws = 0
        for number in range(1, created.total_rounds + 1):
            began = time.time()
            t0 = time.perf_counter()
            rnd = (
                await stub.StartRound(
                    pb.StartRoundRequest(tournament_id=tid, round=number), metadata=md
                )
            ).round
            start_ms.append((time.perf_counter() - t0) * 1000)
            windows["start_round"].append((began, time.time()))
            began = time.time()
            for tb in rnd.tables:
                winner = rng.choice((0, 0, 0, 1, 1, 1, DRAWN, DRAWN))
                draws += winner == DRAWN
                reason = "drawn" if winner == DRAWN else "won"
                t0 = time.perf_counter()
                # Bounded at a minute rather than a call's 5 s: on a loaded machine a
                # large event's recording can take longer (the settlement, which this
                # stands for, would retry it at its next sweep; here it is measured).
                async with server.store.writing(60.0) as conn:
                    await record_game_result(
                        TournamentTransaction(conn), tb.game_id, winner, reason
                    )
                record_ms.append((time.perf_counter() - t0) * 1000)
            windows["recording"].append((began, time.time()))
            began = time.time()
            for _ in range(reads):
                t0 = time.perf_counter()
                shown = (
                    await stub.GetTournament(
                        pb.GetTournamentRequest(tournament_id=tid), metadata=md
                    )
                ).tournament
                read_ms.append((time.perf_counter() - t0) * 1000)
            windows["get_tournament"].append((began, time.time()))
        assert shown.status == pb.TOURNAMENT_STATUS_FINISHED, shown.status
        await channel.close()
        row = await server.tournament_store.load_tournament(tid, app_id)
        assert row is not None
        scratch = from_scratch_ms(row.config, row.events, 1 if size > 256 else 3)
    finally:
        if probe.stdin is not None:
            probe.stdin.write("stop\n")
            probe.stdin.flush()
        out, _ = await asyncio.to_thread(probe.communicate)
        watcher.cancel()
        gc.callbacks.remove(pauses.on_gc)
        await server.stop(0.5)
    samples = json.loads(out.strip().splitlines()[-1])
    probes: dict[str, dict[str, float]] = {}
    lag: dict[str, dict[str, float]] = {}
    gcs: dict[str, dict[str, float]] = {}
    for phase, spans in windows.items():
        inside = [ms for at, ms in samples if any(a <= at <= b for a, b in spans)]
        probes[phase] = summary(inside)
        lag[phase] = summary(Pauses.within(pauses.lag, spans))
        collected = Pauses.within(pauses.gc, spans)
        gcs[phase] = {"count": len(collected), "total_ms": round(sum(collected), 1)} | {
            "max_ms": round(max(collected), 1) if collected else 0.0
        }
    tables = len(record_ms)
    idle_p50 = probes["idle"]["p50_ms"] or 1.0
    get = summary(read_ms)
    rec = summary(record_ms)
    return {
        "players": size,
        "rounds": created.total_rounds,
        "tables": tables,
        "drawn_tables": draws,
        "start_round_ms": summary(start_ms),
        "record_result_ms": rec,
        "get_tournament_ms": get,
        "from_scratch_ms": round(scratch, 1),
        "get_p99_over_from_scratch": round(get["p99_ms"] / scratch, 3),
        "record_p50_over_from_scratch": round(rec["p50_ms"] / scratch, 3),
        "probe_ms": probes,
        "loop_lag_ms": lag,
        "gc_pauses": gcs,
        "probe_max_over_idle_p50": {
            phase: round(p["max_ms"] / idle_p50, 1) for phase, p in probes.items()
        },
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for size in args.sizes:
        if args.database_url:
            url = args.database_url
            await asyncio.to_thread(migrate.upgrade, url)
            results[str(size)] = await one_size(url, size, args.reads, args.seed)
            continue
        try:
            url = await _pg_fresh()
        except OSError as exc:
            return {"skipped": f"PostgreSQL unreachable: {exc}"}
        try:
            await asyncio.to_thread(migrate.upgrade, url)
            results[str(size)] = await one_size(url, size, args.reads, args.seed)
        except Exception as exc:  # reported, and the sizes done so far are kept
            results[str(size)] = {"failed": f"{type(exc).__name__}: {exc}"}
        finally:
            await _pg_drop(url)
        print(json.dumps(results[str(size)]), flush=True)
        write_report(args, results)  # after each size: a long run's partial figures stay
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--reads", type=int, default=20, help="GetTournament calls a round")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--database-url", default="", help="default: a fresh PostgreSQL database")
    args = parser.parse_args()
    configure_logging("json", "warning")
    write_report(args, asyncio.run(main_async(args)))
    return 0


def write_report(args: argparse.Namespace, results: dict[str, Any]) -> None:
    database = "the given database" if args.database_url else "PostgreSQL (127.0.0.1:5432)"
    report = {
        "machine": machine(),
        "settings": {
            "sizes": args.sizes,
            "reads_per_round": args.reads,
            "seed": args.seed,
            "database": database,
            "preset": PRESET,
        },
        "results": results,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tournaments.json").write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
    lines = [
        "# Tournaments: standings, reads and results",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, "
        f"commit {m['commit']}, {m['date']}. Database: {database}.",
        "",
        "Swiss events at 2-player tables, ceil(log2(n)) rounds, a quarter of the tables "
        "drawn (seed "
        f"{args.seed}). Each result recorded as the settlement records one (its own "
        "transaction, on the server's event loop); "
        f"{args.reads} GetTournament calls through gRPC after each round. "
        "'from scratch': the pure recomputation every read and every result did before "
        "standings were stored (every Swiss round paired again, then the standings), "
        "measured in the same run.",
        "",
        "| players | rounds | tables (drawn) | StartRound p50 / max ms | record a result "
        "p50 / p99 ms | GetTournament p50 / p99 ms | from scratch ms | GetTournament p99 "
        "/ from scratch |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size, r in results.items():
        if not isinstance(r, dict) or "players" not in r:
            lines.append(f"| {size} | {r} | | | | | | |")
            continue
        lines.append(
            f"| {r['players']} | {r['rounds']} | {r['tables']} ({r['drawn_tables']}) | "
            f"{r['start_round_ms']['p50_ms']} / {r['start_round_ms']['max_ms']} | "
            f"{r['record_result_ms']['p50_ms']} / {r['record_result_ms']['p99_ms']} | "
            f"{r['get_tournament_ms']['p50_ms']} / {r['get_tournament_ms']['p99_ms']} | "
            f"{r['from_scratch_ms']} | {r['get_p99_over_from_scratch']} |"
        )
    lines += [
        "",
        "A health check every 5 ms from another process, on the same server: its latency "
        "by phase (p50 / p99 / max ms), and its max as a multiple of its idle p50.",
        "",
        "| players | idle | rounds starting | results recorded | GetTournament read |",
        "|---|---|---|---|---|",
    ]
    for size, r in results.items():
        if not isinstance(r, dict) or "probe_ms" not in r:
            continue
        cells = []
        for phase in ("idle", "start_round", "recording", "get_tournament"):
            p = r["probe_ms"][phase]
            ratio = r["probe_max_over_idle_p50"][phase]
            cells.append(f"{p['p50_ms']} / {p['p99_ms']} / {p['max_ms']} (max x{ratio})")
        lines.append(f"| {size} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "What held the server's process, by phase: the event loop's lag (how late a 5 ms "
        "sleep woke: p99 / max ms) and the garbage collector's pauses (count, longest ms).",
        "",
        "| players | idle | rounds starting | results recorded | GetTournament read |",
        "|---|---|---|---|---|",
    ]
    for size, r in results.items():
        if not isinstance(r, dict) or "loop_lag_ms" not in r:
            continue
        cells = []
        for phase in ("idle", "start_round", "recording", "get_tournament"):
            lg, g = r["loop_lag_ms"][phase], r["gc_pauses"][phase]
            cells.append(f"lag {lg['p99_ms']} / {lg['max_ms']}; gc {g['count']}, {g['max_ms']}")
        lines.append(f"| {size} | " + " | ".join(cells) + " |")
    (out / "tournaments.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
