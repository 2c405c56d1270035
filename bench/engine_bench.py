"""Engine benchmark: random-bot playouts per preset on one core.

Every move is generated (``legal_moves``), chosen by a random bot, validated
(``validate``) and applied, so the figures count the whole cost of a move. Each
preset runs ``--repeat`` times and the best run is kept (the machine is shared;
the best run is the least disturbed). Results go to ``OUT/engine.json`` and
``OUT/engine.md`` (``--name``) with a description of the machine and of the engine
measured: compiled when ``build/compiled/server`` is first on the path.

    PYTHONPATH=build/compiled/server python bench/engine_bench.py --out bench/results
    python bench/engine_bench.py --out bench/results --name engine-interpreted
                                 [--seconds 3] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tranca_rules import engine
from tranca_rules.bots import Bot, RandomBot
from tranca_rules.presets import PRESETS
from tranca_rules.simulate import play_deal


def machine() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "cpu": model or platform.processor(),
        "cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
        "commit": commit,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def run_preset(name: str, players: int, seconds: float) -> dict[str, float]:
    rules = PRESETS[name]
    deals = moves = 0
    seed = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        bots: list[Bot] = [RandomBot(seed * 10 + k) for k in range(players)]
        _, result = play_deal(rules, players, seed, bots)
        moves += result.moves
        deals += 1
        seed += 1
    elapsed = time.perf_counter() - started
    return {
        "deals": deals,
        "moves": moves,
        "seconds": round(elapsed, 3),
        "moves_per_second": round(moves / elapsed),
        "deals_per_second": round(deals / elapsed, 1),
        "moves_per_deal": round(moves / deals, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--seconds", type=float, default=3.0, help="per run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--presets", nargs="*", default=None)
    parser.add_argument("--name", default="engine", help="the results' file name, less .json")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    names = args.presets or sorted(PRESETS)
    results: list[dict[str, object]] = []
    for name in names:
        for players in PRESETS[name].player_counts:
            runs = [run_preset(name, players, args.seconds) for _ in range(args.repeat)]
            fastest = max(runs, key=lambda r: r["moves_per_second"])
            best = {**fastest, "preset": name, "players": players, "runs": args.repeat}
            results.append(best)
            print(
                f"{name:22} {players}p {best['moves_per_second']:>8} moves/s "
                f"{best['deals_per_second']:>7} deals/s",
                flush=True,
            )
    m = machine()
    build = "compiled" if not engine.__file__.endswith(".py") else "interpreted"
    report = {"machine": m, "bots": "random", "engine": build, "results": results}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.name}.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        f"# Engine benchmark ({build}: {engine.__file__.rsplit('/', 1)[-1]})",
        "",
        f"Random-bot playouts on one core: every move generated, validated and applied. "
        f"Best of {args.repeat} runs of {args.seconds:g} s per row.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['implementation']} {m['python']}, "
        f"{m['platform']}; load average at the end {m['load_average'][0]:.2f}; "
        f"commit {m['commit']}; {m['date']}.",
        "",
        "| preset | players | moves/s | deals/s | moves/deal |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['preset']} | {r['players']} | {r['moves_per_second']} | "
            f"{r['deals_per_second']} | {r['moves_per_deal']} |"
        )
    (out / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / args.name}.json and .md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
