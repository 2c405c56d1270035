"""Two variants of one service run, alternated: the way each CPU step and the
whole-turn gain in docs/PERFORMANCE.md were measured on a shared, drifting machine.

Each run is ``service_bench.service_run`` (a fresh database, ``tranca serve`` with
one process, ``tranca loadtest`` metered): the variants differ by the load spec
(``--spec 16p --spec 16t``) or by an environment variable of the server
(``--env TRANCA_KEEP_STATES=0 --env TRANCA_KEEP_STATES=4096``), and run A B, B A,
A B, ... so that a drift of the machine falls on both. One JSON line a run, with
the load average it began at; then the pairs' ratios of moves/s and of server CPU
per move.

    python bench/alternate.py --database sqlite --spec 16p --spec 16t --pairs 4
    python bench/alternate.py --database postgresql --spec 16p \\
        --env TRANCA_KEEP_STATES=0 --env TRANCA_KEEP_STATES=4096 --pairs 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.service_bench import Plan, service_run
else:
    from service_bench import Plan, service_run


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    p.add_argument("--spec", action="append", default=None, help="load spec (one, or two)")
    p.add_argument("--env", action="append", default=[], help="VAR=VALUE of the server (two)")
    p.add_argument("--pairs", type=int, default=4)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=2.0)
    args = p.parse_args()
    specs = args.spec or ["16"]
    if len(specs) == 2 and not args.env:
        variants = [(spec, None) for spec in specs]
    elif len(specs) == 1 and len(args.env) == 2:
        variants = [(specs[0], e.split("=", 1)) for e in args.env]
    else:
        p.error("give two --spec, or one --spec and two --env")
    plan = Plan(
        seconds=args.seconds,
        warmup=args.warmup,
        games=specs,
        layouts=[1],
        channels=4,
        ceiling_seconds=args.seconds,
        pgbench_clients=16,
        pgbench_jobs=2,
        databases=[args.database],
        quick=False,
        peer=False,
    )
    runs: list[list[dict[str, Any]]] = [[], []]
    with tempfile.TemporaryDirectory(prefix="tranca-alternate-") as tmp:
        for pair in range(args.pairs):
            order = (0, 1) if pair % 2 == 0 else (1, 0)
            for index in order:
                spec, env = variants[index]
                if env is not None:
                    os.environ[env[0]] = env[1]
                run = service_run(args.database, 1, spec, plan, Path(tmp))
                row = {
                    "variant": f"{spec}{' ' + '='.join(env) if env else ''}",
                    "pair": pair + 1,
                    "moves_per_second": run["moves_per_second"],
                    "cpu_ms_per_move": run["cpu_ms_per_move"],
                    "moves_per_submit": run["moves_per_submit"],
                    "submit_p99_ms": run["submit_p99_ms"],
                    "load_average": run["load_average"][0],
                    "lost": run["verification"].get("lost"),
                    "doubled": run["verification"].get("doubled"),
                }
                runs[index].append(row)
                print(json.dumps(row), flush=True)
    ratios = [
        b["moves_per_second"] / a["moves_per_second"]
        for a, b in zip(*runs, strict=True)
        if a["moves_per_second"]
    ]
    cpu = [
        (b["cpu_ms_per_move"] or {}).get("server", 0) / (a["cpu_ms_per_move"] or {})["server"]
        for a, b in zip(*runs, strict=True)
        if (a["cpu_ms_per_move"] or {}).get("server")
    ]
    print(
        json.dumps(
            {
                "second_over_first_moves_per_second": [round(r, 3) for r in ratios],
                "median": round(statistics.median(ratios), 3) if ratios else None,
                "second_over_first_server_cpu_per_move": [round(c, 3) for c in cpu],
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main())
