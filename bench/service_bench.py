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
import statistics
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

# "G" is G games moving as fast as they can (throughput); "G@T" is G games with a
# pause of about T ms before each move; "G@P%" is G games offered P % of the rate the
# same round's unpaced run reached on that database and layout, evenly spaced
# (latency at a load set by the machine's own speed, so that it compares across
# machines); a trailing "w" has every seat keep a WatchGame stream open while it
# plays, as a client showing the table does (the Python SDK's ``play_seat``): each
# move then also wakes its game's watchers, who read the log and receive a view.
# A trailing "t" plays whole turns: after each draw the rest of the turn goes in one
# SubmitTurn (``tranca loadtest --turns``); a trailing "p" plays the same planned
# turns one SubmitMove a move (``--planned``), its like-for-like single-move twin:
# the two run one after the other, and their ratio is the gain of batching.
DEFAULT_GAMES = ("16", "16p", "16t", "64@25%", "64@50%", "16w")
MODES = {"w": "watched", "t": "turns", "p": "planned"}
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


def parse_games(spec: str) -> tuple[int, float]:
    """``"64@100"`` -> (64 games, 100 ms think time); ``"16"``, ``"16w"`` and
    ``"64@25%"`` -> (games, 0)."""
    games, _, think = spec.rstrip("wtp").partition("@")
    return int(games), 0.0 if think.endswith("%") else float(think or 0)


def pace_fraction(spec: str) -> float | None:
    """``"64@25%"`` -> 0.25: the share of the unpaced run's rate offered; None else."""
    _, _, think = spec.rstrip("wtp").partition("@")
    return float(think[:-1]) / 100 if think.endswith("%") else None


def combined_ceiling(db: float | None, transport: float | None) -> float | None:
    """A move needs a transaction and a call on the same cores: their costs add, so
    the bound is 1 / (1 / database ceiling + 1 / transport ceiling)."""
    if not db or not transport:
        return None
    return 1.0 / (1.0 / db + 1.0 / transport)


def watched(spec: str) -> bool:
    """Whether the games of ``spec`` are watched (a trailing ``w``)."""
    return spec.endswith("w")


def mode(spec: str) -> str:
    """How the games of ``spec`` submit their moves: "single" (the load generator's
    own choice, one SubmitMove a move), "planned" (planned turns, one SubmitMove a
    move), "turns" (planned turns, the rest of each after its draw in one
    SubmitTurn); "watched" is single with watch streams."""
    return MODES.get(spec[-1:], "single")


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


def summarise(rounds: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Each configuration's runs over the rounds: medians (the ratio's range too), and
    the lost and doubled moves of all of them."""
    by_config: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for runs in rounds:
        for r in runs:
            key = (
                r["database"],
                r["workers"],
                r["games"],
                r.get("think_ms", 0),
                r.get("pace"),
                r.get("mode", "watched" if r.get("watched") else "single"),
            )
            by_config.setdefault(key, []).append(r)

    def median(runs: list[dict[str, Any]], name: str) -> Any:
        values = [r[name] for r in runs if r.get(name) is not None]
        return statistics.median(values) if values else None

    out = []
    for (database, workers, games, think, pace, how), runs in by_config.items():
        ratios = [r["ratio"] for r in runs if r.get("ratio") is not None]
        cpu = [r["cpu_ms_per_move"] for r in runs if r.get("cpu_ms_per_move")]
        out.append(
            {
                "database": database,
                "workers": workers,
                "games": games,
                "think_ms": think,
                "pace": pace,
                "offered_rate": median(runs, "offered_rate"),
                "watched": how == "watched",
                "mode": how,
                "runs": len(runs),
                "load_average": median(runs, "load_average_1m"),
                "moves_per_submit": median(runs, "moves_per_submit"),
                "turn_p50_ms": median(runs, "turn_p50_ms"),
                "turn_p99_ms": median(runs, "turn_p99_ms"),
                "turns_ratio": median(runs, "turns_ratio"),
                "turns_refused": sum(r.get("turns_refused") or 0 for r in runs),
                "turns_ratio_min": min(
                    (r["turns_ratio"] for r in runs if r.get("turns_ratio")), default=None
                ),
                "turns_ratio_max": max(
                    (r["turns_ratio"] for r in runs if r.get("turns_ratio")), default=None
                ),
                "moves_per_second": median(runs, "moves_per_second"),
                "submit_p50_ms": median(runs, "submit_p50_ms"),
                "submit_p99_ms": median(runs, "submit_p99_ms"),
                "rpcs_per_move": median(runs, "rpcs_per_move"),
                "db_ceiling_tps": median(runs, "db_ceiling_tps"),
                "transport_ceiling_cps": median(runs, "transport_ceiling_cps"),
                "ratio": statistics.median(ratios) if ratios else None,
                "ratio_min": min(ratios, default=None),
                "ratio_max": max(ratios, default=None),
                "combined_ceiling": median(runs, "combined_ceiling"),
                "ratio_combined": median(runs, "ratio_combined"),
                "cpu_ms_per_move": {
                    name: statistics.median(c[name] for c in cpu if name in c)
                    for name in sorted({n for c in cpu for n in c})
                }
                or None,
                "lost": sum(r["verification"].get("lost", 0) for r in runs),
                "doubled": sum(r["verification"].get("doubled", 0) for r in runs),
                "not_rebuilt": sum(r["verification"].get("not_rebuilt", 0) for r in runs),
            }
        )
    return out


def _load(r: dict[str, Any]) -> str:
    """How a run's games were paced: unpaced, a think time, or a share of the round's
    unpaced rate (with the rate offered)."""
    if r.get("pace"):
        return f"{r['pace']:.0%} of unpaced ({_f(r.get('offered_rate'))}/s)"
    if r.get("think_ms"):
        return f"think {r['think_ms']:g} ms"
    return "unpaced"


def _mode_note(r: dict[str, Any]) -> str:
    """How a run's moves were sent, beside its games (nothing for the usual one)."""
    how = r.get("mode") or ("watched" if r.get("watched") else "single")
    return {
        "watched": ", watched",
        "planned": ", planned turns",
        "turns": ", whole turns",
    }.get(how, "")


def _processes(n: int) -> str:
    return "1 process" if n == 1 else f"{n} processes"


def _f(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def markdown(report: dict[str, Any]) -> str:
    plan = report["plan"]
    m = report["machine"]
    lines = [
        "# Service benchmark",
        "",
        f"{'A quick smoke run (`--quick`): figures are indicative only. ' if plan['quick'] else ''}"
        "Concurrent 2-player tranca-000 games played by random bots through the gRPC API "
        f"(`tranca loadtest`, {plan['channels']} channels, {plan['warmup']:g} s warm-up, "
        f"{plan['seconds']:g} s measured) against `tranca serve` in subprocesses, on a fresh "
        "database each run. The load generator, the server processes and the database share "
        f"the machine's {m['cores']} cores. SubmitMove latency as the client sees it. "
        "Ratio: moves/s ÷ the lower ceiling (the database's transactions/s and the "
        "transport's echo calls/s for the same process layout and load); each move costs "
        "the load generator more than one call (rpcs/move), so the transport ceiling is "
        "generous. Combined ceiling: a move needs both a transaction and a call on the "
        "same cores, whose costs add: 1 / (1 / DB ceiling + 1 / transport ceiling), and "
        "the ratio to it. Load: unpaced (games move as fast as they can, for "
        "throughput), a think time before each move, or a share of the same round's "
        "unpaced rate on that database and layout, offered evenly (for the latency at a "
        "load set by the machine's own speed). "
        "Watched: every seat also keeps a WatchGame stream open while it plays (the "
        "Python SDK's play_seat), so each move also wakes its game's watchers, who read "
        "the log and receive a view; its ratio is to the same ceilings as the unwatched "
        "run's.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['implementation']} {m['python']}, "
        f"{m['platform']}; load average at the end {m['load_average'][0]:.2f}; "
        f"commit {m['commit']}; {m['date']}.",
        "",
        "## Service",
        "",
        (
            f"Each figure is the median of {plan['rounds']} rounds; a round measures the "
            "ceilings, then every service run, and each run's ratio is to its own round's "
            "ceilings (the ratio's range over the rounds in brackets). "
            if plan.get("rounds", 1) > 1
            else "One round: the ceilings, then every service run. "
        )
        + "CPU ms/move: the CPU "
        "time of the server's processes, of the load generator and of PostgreSQL over the "
        "measured window, per move: what a move costs this machine, and where.",
        "",
        "| database | processes | games | load | moves/s | SubmitMove p50 ms | p99 ms "
        "| rpcs/move | CPU ms/move server, load, db | DB ceiling tx/s "
        "| transport ceiling calls/s | ratio | combined ceiling | ratio to combined "
        "| lost / doubled |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["summary"]:
        cpu = r.get("cpu_ms_per_move") or {}
        spread = (
            f" ({_f(r['ratio_min'], 3)}–{_f(r['ratio_max'], 3)})"
            if r["runs"] > 1 and r["ratio_min"] is not None
            else ""
        )
        lines.append(
            f"| {r['database']} | {r['workers']} "
            f"| {r['games']}{_mode_note(r)} | {_load(r)} "
            f"| {_f(r['moves_per_second'])} | "
            f"{_f(r['submit_p50_ms'], 2)} | {_f(r['submit_p99_ms'], 2)} | "
            f"{_f(r['rpcs_per_move'], 2)} | "
            + ", ".join(_f(cpu.get(k), 2) for k in ("server", "load", "database"))
            + f" | {_f(r['db_ceiling_tps'])} | "
            f"{_f(r['transport_ceiling_cps'])} | {_f(r['ratio'], 3)}{spread} | "
            f"{_f(r.get('combined_ceiling'))} | {_f(r.get('ratio_combined'), 3)} | "
            f"{r['lost']} / {r['doubled']}"
            + (f" ({r['not_rebuilt']} not rebuilt)" if r.get("not_rebuilt") else "")
            + " |"
        )
    batched = [r for r in report["summary"] if r.get("mode") == "turns"]
    if batched:
        lines += [
            "",
            "## Whole turns in one request",
            "",
            "The same planned turns (after the draw, a meld or an add three times in four "
            "while one is left, then a discard), played one SubmitMove a move (planned) "
            "and with the rest of each turn after its draw in one SubmitTurn (turns), one "
            "run after the other in each round: moves/s of turns ÷ moves/s of planned, "
            "from the same round (median, range over the rounds). Moves per call: moves "
            "÷ (SubmitMove + SubmitTurn calls).",
            "",
            "| database | processes | games | planned moves/s | turns moves/s | ratio "
            "| moves per call | SubmitTurn p50 / p99 ms | turns refused at a move "
            "| load average | lost / doubled |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in batched:
            twin: dict[str, Any] = next(
                (
                    t
                    for t in report["summary"]
                    if t.get("mode") == "planned"
                    and (t["database"], t["workers"], t["games"])
                    == (r["database"], r["workers"], r["games"])
                ),
                {},
            )
            spread = (
                f" ({_f(r['turns_ratio_min'], 3)}–{_f(r['turns_ratio_max'], 3)})"
                if r["runs"] > 1 and r.get("turns_ratio_min") is not None
                else ""
            )
            lines.append(
                f"| {r['database']} | {r['workers']} | {r['games']} "
                f"| {_f(twin.get('moves_per_second'))} | {_f(r['moves_per_second'])} "
                f"| **{_f(r.get('turns_ratio'), 3)}**{spread} | {_f(r.get('moves_per_submit'), 2)} "
                f"| {_f(r.get('turn_p50_ms'), 2)} / {_f(r.get('turn_p99_ms'), 2)} "
                f"| {_f(r.get('turns_refused'))} | {_f(r.get('load_average'), 2)} "
                f"| {r['lost']} / {r['doubled']} |"
            )
    peers = [(n, p) for n, r in enumerate(report["rounds"], 1) for p in r.get("peer", [])]
    if peers:
        lines += [
            "",
            "## Side by side with boardgame.io",
            "",
            "boardgame.io 0.50 with its PostgreSQL adapter (bgio-postgres), pinned in "
            "bench/peer/package.json with its lock, serving a small draw-and-discard game "
            "for two (bench/peer/game.js: a turn is a draw and a discard), driven over its "
            "socket API by bench/peer/driver.js with as many concurrent matches as our "
            "games, each move sent when the server's answer to the one before arrives, "
            "on a fresh database; run right after our unpaced PostgreSQL run of one "
            "process that it is set beside (single: one SubmitMove a move; turns: the "
            "rest of each turn after its draw in one SubmitTurn). Ratio: our moves/s ÷ "
            "the peer's in that pair.",
            "",
            "| round | after our run | games / matches | ours moves/s | boardgame.io moves/s "
            "| ratio | boardgame.io move p50 / p99 ms | its CPU ms/move server, driver, db "
            "| load average |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for number, p in peers:
            cpu = p.get("cpu_ms_per_move") or {}
            lines.append(
                f"| {number} | {p.get('after')} | {p['games']} "
                f"| {_f(p.get('ours_moves_per_second'))} | {_f(p['moves_per_second'])} "
                f"| **{_f(p.get('ours_ratio'), 2)}** "
                f"| {_f(p.get('move_p50_ms'), 1)} / {_f(p.get('move_p99_ms'), 1)} | "
                + ", ".join(_f(cpu.get(k), 2) for k in ("server", "load", "database"))
                + f" | {_f((p.get('load_average') or [None])[0], 2)} |"
            )
    for number, measured in enumerate(report["rounds"], 1):
        lines += ["", f"## Ceilings, round {number}", ""]
        lines += _ceiling_lines(measured["ceilings"])
    if report["skipped"]:
        lines += ["", "Skipped: " + "; ".join(f"{k}: {v}" for k, v in report["skipped"].items())]
    if report["errors"]:
        lines += ["", "Errors:", "", *(f"- {e}" for e in report["errors"])]
    runs = report["rounds"][0]["runs"] if report["rounds"] else []
    if runs:
        cmds = runs[0]["commands"]
        lines += [
            "",
            "## Commands",
            "",
            "Each service run (KEY from `tranca create-app bench`, URL a fresh database):",
            "",
            "```sh",
            cmds["migrate"],
            *(
                f"{r['commands']['serve']} &\n{r['commands']['load']}"
                for r in runs
                if r["database"] == runs[0]["database"]
                and (r["games"], r.get("think_ms", 0)) == parse_games(plan["games"][0])
                and r.get("watched", False) == watched(plan["games"][0])
            ),
            "```",
        ]
    pg = report["rounds"][0]["ceilings"].get("postgresql") if report["rounds"] else None
    if pg:
        lines += ["", "The pgbench script:", "", "```", pg["script"].rstrip(), "```"]
    lines += [
        "",
        f"Run with: `python bench/service_bench.py {report['argv']}`",
    ]
    return "\n".join(lines) + "\n"


def _ceiling_lines(c: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    pg = c.get("postgresql")
    if pg:
        lines.append(
            f"- PostgreSQL: **{_f(pg['tps'])} tx/s**, latency average {_f(pg['latency_avg_ms'], 2)}"
            f" ms, {pg['clients']} clients on {pg['games']} games, "
            f"{pg['snapshot_bytes']} B snapshots, {_f(pg['failed'], 0)} failed, verified "
            f"{pg['verified']}: `{pg['command']}` with the script below."
        )
    sq = c.get("sqlite")
    if sq:
        lines.append(
            f"- SQLite {sq['sqlite_version']}: **{_f(sq['tps'])} tx/s** "
            f"({_f(sq['latency_avg_ms'], 3)} ms each), one Python sqlite3 loop over "
            f"{sq['games']} games, {sq['snapshot_bytes']} B snapshots, {sq['settings']}, "
            f"{sq['seconds']:g} s, verified {sq['verified']}."
        )
    for t in c.get("transport", []):
        echo = t.get("rpcs", {}).get("Echo", {})
        lines.append(
            f"- Transport, {_processes(t['workers'])}, {t['games']} loops: "
            f"**{_f(t['calls_per_second'])} calls/s**, p50 {_f(echo.get('p50_ms'), 2)} ms, "
            f"p99 {_f(echo.get('p99_ms'), 2)} ms, {t['payload_bytes']} B echoed, errors "
            f"{t['errors'] or 'none'}"
            + (
                f", CPU ms/call server {_f(t['cpu_ms_per_call'].get('server'), 3)}, load "
                f"{_f(t['cpu_ms_per_call'].get('load'), 3)}"
                if t.get("cpu_ms_per_call")
                else ""
            )
            + f": `{t['server_command']}` and `{t['command']}`."
        )
    return lines


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
