"""The service benchmark: the real service against this machine's ceilings.

In one run it measures the ceilings (``ceilings.py``: PostgreSQL with pgbench, SQLite
with a tight sqlite3 loop, the transport with an echo service in each process
layout), then runs the service as it is deployed, in subprocesses (``tranca
migrate``, ``tranca serve`` with one process and with ``--workers N``) on a fresh
SQLite file and on a fresh PostgreSQL database, and drives each with ``tranca
loadtest`` in a process of its own. For each service run it reports moves per
second, SubmitMove latency, the verification of every acknowledged move, and the
ratio of its moves per second to the lower of its two ceilings (the database's
and the transport's for the same layout and load). Results go to
``OUT/service.json`` and ``OUT/service.md`` with the machine's description.

    python bench/service_bench.py --out bench/results [--seconds 10] [--games 16 --games 64]
                                  [--workers 2] [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.ceilings import (
        PG_ADMIN,
        Process,
        cpu_ms_per,
        echo_ceiling,
        free_port,
        pg_available,
        pg_database,
        pgbench_ceiling,
        postgres_processes,
        process_tree,
        run_json_metered,
        sqlite_ceiling,
        tranca_bin,
    )
    from bench.engine_bench import machine
    from bench.load_specs import DEFAULT_GAMES as DEFAULT_GAMES
    from bench.load_specs import mode as mode
    from bench.load_specs import pace_fraction as pace_fraction
    from bench.load_specs import parse_games as parse_games
    from bench.load_specs import watched as watched
    from bench.service_report import _processes
    from bench.service_report import markdown as markdown
    from bench.service_report import summarise as summarise
else:  # run as a script: bench/ is on sys.path
    from ceilings import (
        PG_ADMIN,
        Process,
        cpu_ms_per,
        echo_ceiling,
        free_port,
        pg_available,
        pg_database,
        pgbench_ceiling,
        postgres_processes,
        process_tree,
        run_json_metered,
        sqlite_ceiling,
        tranca_bin,
    )
    from engine_bench import machine
    from load_specs import DEFAULT_GAMES, mode, pace_fraction, parse_games, watched
    from service_report import _processes, markdown, summarise

DATABASES = ("sqlite", "postgresql")
API_KEY_PLACEHOLDER = "KEY"


@dataclass
class Plan:
    seconds: float
    warmup: float
    games: list[str]
    layouts: list[int]  # server processes: 1 and --workers
    channels: int
    ceiling_seconds: float
    pgbench_clients: int
    pgbench_jobs: int
    databases: list[str]
    quick: bool
    rounds: int = 1
    peer: bool = True  # boardgame.io beside our PostgreSQL runs (bench/peer)


def wait_serving(port: int, timeout: float = 30.0) -> None:
    """Until the server's health service answers SERVING."""
    deadline = time.monotonic() + timeout
    last = ""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=2)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
                last = f"status {reply.status}"
            except grpc.RpcError as exc:
                last = str(exc.code())
            time.sleep(0.1)
    raise RuntimeError(f"the server on {port} is not SERVING after {timeout:g} s ({last})")


@contextlib.contextmanager
def fresh_database(kind: str, tmp: Path, tag: str) -> Iterator[str]:
    """An empty database of ``kind`` (a file in ``tmp``, or a throwaway PostgreSQL
    database, dropped afterwards)."""
    if kind == "sqlite":
        path = tmp / f"service-{tag}.db"
        yield f"sqlite:///{path}"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    else:
        with pg_database(PG_ADMIN) as url:
            yield url


def _check(argv: list[str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-5000:])
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"tranca {argv[1]} failed (exit {done.returncode}): {last}")
    return done.stdout


def combined_ceiling(db: float | None, transport: float | None) -> float | None:
    """A move needs a transaction and a call on the same cores: their costs add, so
    the bound is 1 / (1 / database ceiling + 1 / transport ceiling)."""
    if not db or not transport:
        return None
    return 1.0 / (1.0 / db + 1.0 / transport)


def service_run(
    kind: str, workers: int, spec: str, plan: Plan, tmp: Path, rate: float | None = None
) -> dict[str, Any]:
    """One service configuration under ``tranca loadtest`` (``rate``: moves offered a
    second in all, for a paced spec)."""
    tranca = tranca_bin()
    games, think_ms = parse_games(spec)
    watch = watched(spec)
    pace = pace_fraction(spec)
    how = mode(spec)
    tag = f"{kind}-{workers}w-{games}g-{think_ms:g}t{pace or ''}-{how}"
    load_average = list(os.getloadavg())
    with fresh_database(kind, tmp, tag) as url:
        _check([tranca, "migrate", "--database-url", url])
        # The app is registered before the server starts and its key then given as
        # the development key: the server finds it, rather than each of N workers
        # racing to insert it at start-up.
        key = json.loads(_check([tranca, "create-app", "bench", "--database-url", url]))["api_key"]
        port = free_port()
        serve = [
            tranca,
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--metrics-port",
            "0",
            "--database-url",
            url,
            "--dev-api-key",
            key,
            "--log-format",
            "json",
            "--workers",
            str(workers),
            # The benchmark's one app would otherwise meet its own rate limit (2000
            # calls/s per key by default): the limit would be measured, not the service.
            "--rate-per-app",
            "0",
            "--rate-per-token",
            "0",
        ]
        load = [
            tranca,
            "loadtest",
            "--address",
            f"127.0.0.1:{port}",
            "--api-key",
            key,
            "--games",
            str(games),
            "--seconds",
            str(plan.seconds),
            "--warmup",
            str(plan.warmup),
            "--channels",
            str(plan.channels),
            *(["--rate", f"{rate:.1f}"] if rate else ["--think-ms", f"{think_ms:g}"]),
            "--database-url",
            url,
            *(["--watch"] if watch else []),
            *(["--turns"] if how == "turns" else []),
            *(["--planned"] if how == "planned" else []),
        ]
        server = Process(serve, tmp / f"serve-{tag}.log")
        try:
            server.wait_listening(port, workers)
            wait_serving(port)
            root = server.proc.pid
            groups: dict[str, Any] = {"server": lambda: process_tree(root)}
            if kind == "postgresql":
                groups["database"] = postgres_processes
            result, code, cpu = run_json_metered(load, plan.seconds + plan.warmup + 600, groups)
        except Exception:
            print(server.tail(), file=sys.stderr)
            raise
        finally:
            server.stop()

    # The commands as run, with this run's throwaway values named instead.
    names = {key: API_KEY_PLACEHOLDER, url: "URL", f"127.0.0.1:{port}": "127.0.0.1:PORT"}
    names[str(port)] = "PORT"

    def shown(argv: list[str]) -> str:
        return " ".join(names.get(w, w) for w in ["tranca", *argv[1:]])

    rpcs = result.get("rpcs", {})
    submit = rpcs.get("SubmitMove", {})
    turn = rpcs.get("SubmitTurn", {})
    calls = sum(r.get("calls", 0) for r in rpcs.values())
    submits = submit.get("calls", 0) + turn.get("calls", 0)
    return {
        "mode": how,
        # The load average (1, 5, 15 min) as the run began: the machine is shared.
        "load_average": load_average,
        "load_average_1m": load_average[0],
        "database": kind,
        "workers": workers,
        "games": games,
        "think_ms": think_ms,
        "pace": pace,
        "offered_rate": rate,
        "watched": watch,
        "moves_per_second": result.get("moves_per_second", 0.0),
        "watch_updates": result.get("watch_updates", 0) if watch else None,
        "submit_p50_ms": submit.get("p50_ms"),
        "submit_p99_ms": submit.get("p99_ms"),
        "turn_p50_ms": turn.get("p50_ms"),
        "turn_p99_ms": turn.get("p99_ms"),
        # Moves per SubmitMove or SubmitTurn call: 1 on the single-move path.
        "moves_per_submit": round(result["moves"] / submits, 2)
        if result.get("moves") and submits
        else None,
        "turns_refused": result.get("turns_refused"),
        # The load generator's RPCs per move (ListLegalMoves, SubmitMove, a game's set-up
        # and views): each of them costs the transport a call.
        "rpcs_per_move": round(calls / result["moves"], 2) if result.get("moves") else None,
        "verification": result.get("verification", {}),
        # CPU time per move over the measured window: the server's processes, the
        # load generator's and (PostgreSQL) the database server's, which share the
        # machine's cores; their sum is what a move costs this machine.
        "cpu_ms_per_move": cpu_ms_per(cpu, result.get("moves", 0)),
        "exit_code": code,
        "commands": {
            "migrate": shown([tranca, "migrate", "--database-url", url]),
            "serve": shown(serve),
            "load": shown(load),
        },
        "loadtest": result,
    }


PEER_DIR = Path(__file__).resolve().parent / "peer"


def peer_missing() -> str:
    """'' if the peer (bench/peer: boardgame.io and its PostgreSQL adapter, installed
    by ``make peer-deps``) can run here, else why not."""
    if shutil.which("node") is None:
        return "node not found"
    if not (PEER_DIR / "node_modules" / "boardgame.io").is_dir():
        return "bench/peer's packages are not installed (make peer-deps)"
    return ""


def peer_run(games: int, plan: Plan, tmp: Path) -> dict[str, Any]:
    """boardgame.io with its PostgreSQL adapter on a fresh database, driven over its
    socket API by ``bench/peer/driver.js`` with ``games`` concurrent matches, as
    ``tranca loadtest`` drives ours: moves/s, the move's latency, CPU per move."""
    with pg_database(PG_ADMIN, "tranca_peer") as url:
        port = free_port()
        serve = ["node", str(PEER_DIR / "server.js"), str(port), url]
        load = [
            "node",
            str(PEER_DIR / "driver.js"),
            f"127.0.0.1:{port}",
            str(games),
            str(plan.seconds),
            str(plan.warmup),
        ]
        server = Process(serve, tmp / f"peer-{games}.log")
        load_average = list(os.getloadavg())
        try:
            server.wait_listening(port)
            root = server.proc.pid
            result, code, cpu = run_json_metered(
                load,
                plan.seconds + plan.warmup + 300,
                {"server": lambda: process_tree(root), "database": postgres_processes},
            )
        except Exception:
            print(server.tail(), file=sys.stderr)
            raise
        finally:
            server.stop()
    return {
        "peer": "boardgame.io",
        "games": games,
        "load_average": load_average,
        "moves_per_second": result.get("moves_per_second", 0.0),
        "move_p50_ms": result.get("move_p50_ms"),
        "move_p99_ms": result.get("move_p99_ms"),
        "cpu_ms_per_move": cpu_ms_per(cpu, result.get("moves", 0)),
        "exit_code": code,
        "commands": {
            "serve": " ".join(["node", "bench/peer/server.js", "PORT", "URL"]),
            "load": " ".join(["node", "bench/peer/driver.js", "127.0.0.1:PORT", *load[3:]]),
        },
        "driver": result,
    }


def measure(plan: Plan, tmp: Path) -> dict[str, Any]:
    errors: list[str] = []
    skipped: dict[str, str] = {}
    ceilings: dict[str, Any] = {"transport": []}

    def attempt(what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        print(f"-- {what}", file=sys.stderr, flush=True)
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            traceback.print_exc()
            errors.append(f"{what}: {type(exc).__name__}: {exc}")
            return None

    if "postgresql" in plan.databases:
        why = pg_available(PG_ADMIN)
        if why:
            skipped["postgresql"] = f"PostgreSQL unreachable at {PG_ADMIN}: {why}"
            print(f"!! {skipped['postgresql']}", file=sys.stderr)
    databases = [d for d in plan.databases if d not in skipped]

    # The transport first, while the database server is idle.
    # Echo loops never pause: the ceiling is the transport's capacity at that many
    # concurrent loops, whatever pace a service run is given.
    loop_counts = sorted({parse_games(spec)[0] for spec in plan.games})
    for workers in plan.layouts:
        for games in loop_counts:
            found = attempt(
                f"transport ceiling, {_processes(workers)}, {games} loops",
                echo_ceiling,
                workers,
                games=games,
                seconds=plan.seconds,
                warmup=plan.warmup,
                channels=plan.channels,
            )
            if found is not None:
                ceilings["transport"].append(found)
    if "sqlite" in databases:
        ceilings["sqlite"] = attempt("SQLite ceiling", sqlite_ceiling, plan.ceiling_seconds)
    if "postgresql" in databases:
        ceilings["postgresql"] = attempt(
            "PostgreSQL ceiling (pgbench)",
            pgbench_ceiling,
            plan.ceiling_seconds,
            clients=plan.pgbench_clients,
            jobs=plan.pgbench_jobs,
        )

    runs: list[dict[str, Any]] = []
    peers: list[dict[str, Any]] = []
    peer_skip = peer_missing() if plan.peer and "postgresql" in databases else ""
    if peer_skip:
        skipped["peer"] = peer_skip
    # Paced specs after the others: they are set from this round's unpaced rate.
    specs = sorted(plan.games, key=lambda spec: pace_fraction(spec) is not None)
    for kind in databases:
        for workers in plan.layouts:
            unpaced: float | None = None
            for spec in specs:
                games = parse_games(spec)[0]
                fraction = pace_fraction(spec)
                pace = fraction
                rate = None
                if fraction is not None:
                    if unpaced is None:
                        errors.append(f"service on {kind}, {workers}w, {spec}: no unpaced run")
                        continue
                    rate = fraction * unpaced
                run = attempt(
                    f"service on {kind}, {_processes(workers)}, {spec} games",
                    service_run,
                    kind,
                    workers,
                    spec,
                    plan,
                    tmp,
                    rate,
                )
                if run is None:
                    continue
                if fraction is None and run["mode"] == "single" and not run["think_ms"]:
                    unpaced = unpaced or run["moves_per_second"]
                db = ceilings.get(kind) or {}
                echo: dict[str, Any] = next(
                    (
                        t
                        for t in ceilings["transport"]
                        if t["workers"] == workers and t["games"] == games
                    ),
                    {},
                )
                run["db_ceiling_tps"] = db.get("tps")
                run["transport_ceiling_cps"] = echo.get("calls_per_second")
                bounds = [b for b in (run["db_ceiling_tps"], run["transport_ceiling_cps"]) if b]
                run["ceiling"] = min(bounds) if bounds else None
                run["ratio"] = (
                    round(run["moves_per_second"] / run["ceiling"], 3) if run["ceiling"] else None
                )
                combined = combined_ceiling(run["db_ceiling_tps"], run["transport_ceiling_cps"])
                run["combined_ceiling"] = round(combined, 1) if combined else None
                run["ratio_combined"] = (
                    round(run["moves_per_second"] / combined, 3) if combined else None
                )
                v = run["verification"]
                if run["exit_code"] != 0 or v.get("lost") or v.get("doubled"):
                    errors.append(f"service on {kind}, {workers}w, {spec}: verification {v}")
                if run["mode"] == "turns":
                    # Against the planned single-move twin of the same round.
                    twin = next(
                        (
                            r
                            for r in runs
                            if r["mode"] == "planned"
                            and (r["database"], r["workers"], r["games"]) == (kind, workers, games)
                        ),
                        None,
                    )
                    if twin is not None and twin["moves_per_second"]:
                        run["turns_ratio"] = round(
                            run["moves_per_second"] / twin["moves_per_second"], 3
                        )
                runs.append(run)
                print(
                    f"   {run['moves_per_second']} moves/s, ratio {run['ratio']}",
                    file=sys.stderr,
                    flush=True,
                )
                # The peer beside ours, alternated: after each of our unpaced
                # PostgreSQL runs of one process, the peer with as many matches.
                if (
                    plan.peer
                    and kind == "postgresql"
                    and workers == 1
                    and not peer_skip
                    and run["mode"] in ("single", "turns")
                    and not run["think_ms"]
                    and not pace
                ):
                    found = attempt(
                        f"peer (boardgame.io) on postgresql, {games} matches",
                        peer_run,
                        games,
                        plan,
                        tmp,
                    )
                    if found is not None:
                        found["after"] = run["mode"]
                        found["ours_moves_per_second"] = run["moves_per_second"]
                        found["ours_ratio"] = (
                            round(run["moves_per_second"] / found["moves_per_second"], 2)
                            if found["moves_per_second"]
                            else None
                        )
                        peers.append(found)
                        print(
                            f"   peer {found['moves_per_second']} moves/s",
                            file=sys.stderr,
                            flush=True,
                        )
    return {
        "ceilings": ceilings,
        "runs": runs,
        "peer": peers,
        "skipped": skipped,
        "errors": errors,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured, per run")
    parser.add_argument("--warmup", type=float, default=2.0, help="not measured, per run")
    parser.add_argument(
        "--games",
        action="append",
        default=None,
        # (argparse formats help with %: the default's "50%" is written "50%%")
        help="concurrent games, G or G@THINK_MS (repeatable; default "
        f"{' and '.join(DEFAULT_GAMES)})".replace("%", "%%"),
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="server processes of the multi-process layout"
    )
    parser.add_argument("--channels", type=int, default=4, help="load generator's channels")
    parser.add_argument("--ceiling-seconds", type=float, default=None, help="default --seconds")
    parser.add_argument("--pgbench-clients", type=int, default=16)
    parser.add_argument("--pgbench-jobs", type=int, default=2)
    parser.add_argument(
        "--database", choices=DATABASES, action="append", default=None, help="default both"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure everything (ceilings, then the service runs) this many times; "
        "the tables give each figure's median, the ratio's range too",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a short smoke run: 2 s runs, the first --games only"
    )
    args = parser.parse_args()
    games = args.games or list(DEFAULT_GAMES)
    seconds, warmup = (2.0, 0.5) if args.quick else (args.seconds, args.warmup)
    plan = Plan(
        seconds=seconds,
        warmup=warmup,
        games=games[:1] if args.quick else games,
        layouts=sorted({1, max(1, args.workers)}),
        channels=args.channels,
        ceiling_seconds=seconds if args.quick else (args.ceiling_seconds or seconds),
        pgbench_clients=args.pgbench_clients,
        pgbench_jobs=args.pgbench_jobs,
        databases=args.database or list(DATABASES),
        quick=args.quick,
        rounds=1 if args.quick else max(1, args.rounds),
    )
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tranca-service-bench-") as tmp:
        rounds = []
        for number in range(1, plan.rounds + 1):
            print(f"== round {number} of {plan.rounds}", file=sys.stderr, flush=True)
            rounds.append(measure(plan, Path(tmp)))
    report = {
        "machine": machine(),
        "argv": " ".join(sys.argv[1:]),
        "plan": asdict(plan),
        "elapsed_seconds": round(time.monotonic() - started, 1),
        "summary": summarise([r["runs"] for r in rounds]),
        "rounds": rounds,
        "errors": [e for r in rounds for e in r["errors"]],
        "skipped": rounds[0]["skipped"],
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "service.json").write_text(json.dumps(report, indent=2) + "\n")
    text = markdown(report)
    (out / "service.md").write_text(text)
    print(text)
    print(f"wrote {out / 'service.json'} and {out / 'service.md'}")
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
