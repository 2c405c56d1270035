"""Three replicas on one PostgreSQL, through the local rig (deploy/rig/rig.py): the
change feed and the connection pooler, measured in one run.

Rigs, each brought up fresh (a new database), in this order:

- ``notify``: the servers straight to PostgreSQL, hints by ``NOTIFY`` (the default);
- ``nats``: the same with ``--change-feed`` on the rig's NATS server;
- ``pgbouncer``: ``nats`` with PgBouncer (transaction mode) between the servers
  and PostgreSQL (``--db-pgbouncer``: asyncpg's statement caches off).

On each, ``tranca loadtest`` against the three replicas' addresses, alternating
``--rounds`` times: unwatched games, then watched games (``--watch``: every seat
keeps a WatchGame stream open, so each move wakes two streams, and hints cross
replicas). Every figure is a median over the rounds, and stated as a ratio to
the unwatched rate of the ``notify`` rig measured in the same run.

    python bench/feed_bench.py --out bench/results [--games 16] [--seconds 10] [--rounds 2]

Results: ``OUT/feed.json`` and ``OUT/feed.md`` with the machine's description.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RIG = ROOT / "deploy" / "rig" / "rig.py"
sys.path.insert(0, str(ROOT))

from bench.engine_bench import machine  # noqa: E402

RIGS: dict[str, list[str]] = {
    "notify": [],
    "nats": ["--feed", "nats"],
    "pgbouncer": ["--feed", "nats", "--pgbouncer"],
}


def rig_up(d: Path, flags: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, str(RIG), "up", "--dir", str(d), "--ports", "auto", "--ttl", "900"]
    up = subprocess.run([*cmd, "--json", *flags], capture_output=True, text=True, timeout=300)
    if up.returncode != 0:
        raise SystemExit(f"rig up failed:\n{up.stderr[-3000:]}")
    state: dict[str, Any] = json.loads(up.stdout.strip().splitlines()[-1])
    return state


def rig_down(d: Path) -> None:
    subprocess.run(
        [sys.executable, str(RIG), "down", "--dir", str(d)], capture_output=True, timeout=120
    )


def loadtest(state: dict[str, Any], games: int, seconds: float, watch: bool) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "tranca.cli", "loadtest", "--api-key", state["api_key"]]
    for address in state["replicas"]:
        cmd += ["--address", address]
    cmd += ["--games", str(games), "--seconds", str(seconds), "--warmup", "2"]
    cmd += ["--channels", "6"]
    if watch:
        cmd.append("--watch")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 300)
    try:
        report: dict[str, Any] = json.loads(done.stdout)
    except ValueError:
        raise SystemExit(f"loadtest failed:\n{done.stderr[-3000:]}") from None
    submit = report.get("rpcs", {}).get("SubmitMove", {})
    v = report.get("verification", {})
    return {
        "moves_per_second": report["moves_per_second"],
        "submit_p50_ms": submit.get("p50_ms"),
        "submit_p99_ms": submit.get("p99_ms"),
        "watch_updates": report.get("watch_updates", 0),
        "errors": report.get("errors", {}),
        "lost": v.get("lost"),
        "doubled": v.get("doubled"),
        "exit_code": done.returncode,
    }


def median(runs: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(float(r[key]) for r in runs), 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", default="bench/results")
    p.add_argument("--games", type=int, default=16)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--rigs", default=",".join(RIGS), help="which rigs, comma-separated")
    a = p.parse_args(argv)
    results: dict[str, Any] = {}
    started = time.time()
    load = {"start": os.getloadavg()}
    for name in a.rigs.split(","):
        d = Path(tempfile.mkdtemp(prefix=f"tranca-feed-{name}-"))
        try:
            state = rig_up(d, RIGS[name])
            runs: dict[str, list[dict[str, Any]]] = {"unwatched": [], "watched": []}
            for _ in range(a.rounds):
                for kind in ("unwatched", "watched"):
                    runs[kind].append(loadtest(state, a.games, a.seconds, kind == "watched"))
            results[name] = {
                kind: {
                    "runs": r,
                    "moves_per_second": median(r, "moves_per_second"),
                    "submit_p99_ms": median(r, "submit_p99_ms"),
                }
                for kind, r in runs.items()
            }
        finally:
            rig_down(d)
    load["end"] = os.getloadavg()
    base = results.get("notify", {}).get("unwatched", {}).get("moves_per_second")
    for rig in results.values():
        for kind in rig.values():
            kind["ratio_to_notify_unwatched"] = (
                round(kind["moves_per_second"] / base, 3) if base else None
            )
        rig["watched_over_unwatched"] = round(
            rig["watched"]["moves_per_second"] / rig["unwatched"]["moves_per_second"], 3
        )
    m: dict[str, Any] = machine()
    report = {
        "machine": m,
        "command": shlex.join([sys.executable, *sys.argv]),
        "settings": vars(a),
        "seconds_total": round(time.time() - started, 1),
        "load_average": load,
        "results": results,
    }
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "feed.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        "# Three replicas: NOTIFY vs NATS, direct vs PgBouncer",
        "",
        f"`{report['command']}` — {a.games} games, {a.seconds:.0f} s per run, "
        f"{a.rounds} rounds (medians); load average {load['start']} at the start, "
        f"{load['end']} at the end (a shared machine).",
        "",
        f"Machine: {json.dumps({k: m[k] for k in m if k != 'commit'})}; commit {m.get('commit')}.",
        "",
        "| rig | games | moves/s | SubmitMove p99 ms | ratio to notify unwatched "
        "| watched / unwatched (same rig) |",
        "|---|---|---|---|---|---|",
    ]
    for name, rig in results.items():
        for kind in ("unwatched", "watched"):
            k = rig[kind]
            lines.append(
                f"| {name} | {kind} | {k['moves_per_second']} | {k['submit_p99_ms']} "
                f"| {k['ratio_to_notify_unwatched']} "
                f"| {rig['watched_over_unwatched'] if kind == 'watched' else ''} |"
            )
    problems = [
        (name, kind, run)
        for name, rig in results.items()
        for kind in ("unwatched", "watched")
        for run in rig[kind]["runs"]
        if run["lost"] or run["doubled"] or run["exit_code"]
    ]
    lines += ["", f"Runs with a lost or doubled move or a failed verification: {len(problems)}."]
    (out / "feed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
