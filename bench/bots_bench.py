"""The bots' arena on every preset: greedy against random, expert against greedy.

Duplicate pairs (``tranca.tools.arena``): each deal played twice with the sides swapped.
The three presets of the acceptance (tranca-000 with 2 players, tranca-003 and
canasta-002 with 4) get ``--pairs`` pairs, every other preset ``--other-pairs``;
the expert plays with ``--iterations`` playouts a decision (no clock: reproducible)
so that the runs fit a shared machine. A last run plays the expert at its default
budget (200 ms and 400 playouts a decision, on the clock) for ``--budget-pairs``
pairs, to measure its decision time p99 against that budget. Results, with the
sizes that ran and the machine, go to ``OUT/bots.json`` and ``OUT/bots.md``,
rewritten after every run so a long run can be read while it goes on.

    PYTHONPATH=build/compiled/server python bench/bots_bench.py --out bench/results \
        [--pairs 400] [--other-pairs 20] [--iterations 40] [--budget-pairs 4]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tranca.tools.arena import LevelConfig, arena
from tranca_rules import engine
from tranca_rules.presets import PRESETS, make_rules

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine

ACCEPTANCE = [("tranca-000", 2), ("tranca-003", 4), ("canasta-002", 4)]


def plan(args: argparse.Namespace) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = []
    matchups = [("greedy", "random"), ("expert", "greedy")]
    if args.matchups:
        matchups = [(m.split("-")[0], m.split("-")[1]) for m in args.matchups.split(",")]
    for preset, players in ACCEPTANCE:
        for a, b in matchups:
            runs.append({"preset": preset, "players": players, "a": a, "b": b, "pairs": args.pairs})
    if args.other_pairs:
        for name in sorted(PRESETS):
            for players in make_rules(name).player_counts:
                if (name, players) in ACCEPTANCE or players == 3:
                    continue
                for a, b in matchups:
                    runs.append(
                        {
                            "preset": name,
                            "players": players,
                            "a": a,
                            "b": b,
                            "pairs": args.other_pairs,
                        }
                    )
    return [r for r in runs if r["pairs"] > 0]


def markdown(doc: dict[str, Any]) -> str:
    m = doc["machine"]
    lines = [
        "# Bots: duplicate pairs in the arena",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, "
        f"commit {m['commit']}, {m['date']}; engine {doc['engine']} (how and where each "
        "part ran: the notes below).",
        "",
        f"Command: `{doc['command']}`",
        "",
        "The expert played with the playouts a decision its row gives (no clock: "
        f"{doc['iterations']} where a row does not say) in these runs; its default budget "
        "is 200 ms and 400 playouts a decision. A pair "
        "is one deck played twice with the sides swapped; A wins the pair when its "
        "points over both deals beat B's (a tie counts half). Intervals are 95 % "
        "(Wilson for the win rate, normal over pairs for the difference).",
        "",
        "| preset | players | A | B | expert playouts | pairs | A win rate | 95 % CI "
        "| A − B per deal | 95 % CI | A p50 / p99 ms | B p50 / p99 ms | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in doc["runs"]:
        ta, tb = r["move_time"][r["a"]], r["move_time"][r["b"]]
        if r.get("partial"):
            r = {**r, "preset": f"{r['preset']} (stopped: {r['partial']})"}
        playouts = "–"
        for level, config in ((r["a"], r.get("config_a")), (r["b"], r.get("config_b"))):
            if level == "expert":
                playouts = str((config or {}).get("iterations") or doc["iterations"])
        lines.append(
            f"| {r['preset']} | {r['players']} | {r['a']} | {r['b']} | {playouts} | "
            f"{r['pairs']} | "
            f"{r['a_win_rate']:.3f} | "
            f"{r['a_win_rate_ci95'][0]:.3f}–{r['a_win_rate_ci95'][1]:.3f} | "
            f"{r['a_mean_diff_per_deal']:.1f} | {r['a_mean_diff_ci95'][0]:.1f} – "
            f"{r['a_mean_diff_ci95'][1]:.1f} | {ta.get('p50_ms', '-')} / {ta.get('p99_ms', '-')} | "
            f"{tb.get('p50_ms', '-')} / {tb.get('p99_ms', '-')} | {r.get('seconds', '-')} |"
        )
    budget = doc.get("budget")
    if budget:
        t = budget["move_time"]["expert"]
        lines += [
            "",
            "## The expert at its default budget",
            "",
            f"{budget['preset']}, {budget['players']} players, {budget['pairs']} pairs "
            f"against greedy, the expert at 200 ms / 400 playouts on the clock: "
            f"{t['decisions']} decisions, p50 {t['p50_ms']} ms, p99 {t['p99_ms']} ms, "
            f"max {t['max_ms']} ms: p99 / budget = {t['p99_ms'] / 200:.2f} (a search looks "
            "at the clock between playouts and every 8 moves within one). Engine: "
            f"{budget.get('engine', doc['engine'])}.",
        ]
    for note in doc.get("notes", []):
        lines += ["", note]
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("bench/results"))
    p.add_argument("--pairs", type=int, default=400)
    p.add_argument("--other-pairs", type=int, default=20)
    p.add_argument("--iterations", type=int, default=40)
    p.add_argument("--budget-pairs", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--horizon", type=int, default=None, help="the expert's playout length")
    p.add_argument("--only", default="", help="comma-separated preset:players to run")
    p.add_argument("--matchups", default="", help="A-B,... (default greedy-random,expert-greedy)")
    p.add_argument("--name", default="bots", help="the results' file name, without suffix")
    p.add_argument("--merge", nargs="*", type=Path, help="join these results into --name")
    p.add_argument("--note", action="append", default=[], help="a paragraph for the report")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.merge:
        # Each file is a document of this script or one `tranca arena` summary.
        loaded = [json.loads(f.read_text()) for f in args.merge]
        docs = [d for d in loaded if "runs" in d]
        merged = dict(docs[0])
        merged["runs"] = [r for d in docs for r in d["runs"] if r]
        merged["runs"] += [d for d in loaded if "runs" not in d]
        merged["command"] = "; ".join(d["command"] for d in docs)
        merged["notes"] = args.note
        budgets = [{**d["budget"], "engine": d["engine"]} for d in docs if d.get("budget")]
        if budgets:
            merged["budget"] = budgets[0]
        (args.out / f"{args.name}.json").write_text(json.dumps(merged, indent=2) + "\n")
        (args.out / f"{args.name}.md").write_text(markdown(merged))
        return 0
    compiled = not str(engine.__file__).endswith(".py")
    doc: dict[str, Any] = {
        "machine": machine(),
        "engine": "compiled (mypyc)" if compiled else "interpreted",
        "command": "python bench/bots_bench.py " + " ".join(sys.argv[1:]),
        "iterations": args.iterations,
        "runs": [],
    }
    runs = plan(args)
    if args.only:
        wanted = {tuple(x.split(":")) for x in args.only.split(",")}
        runs = [r for r in runs if (r["preset"], str(r["players"])) in wanted]

    def write() -> None:
        (args.out / f"{args.name}.json").write_text(json.dumps(doc, indent=2) + "\n")
        (args.out / f"{args.name}.md").write_text(markdown(doc))

    config = LevelConfig(args.iterations, None, args.horizon)
    for run in runs:
        started = time.perf_counter()
        doc["runs"].append({})

        def progress(
            done: int, partial: dict[str, Any], run: dict[str, Any] = run, started: float = started
        ) -> None:
            if done % 10 == 0:
                partial["partial"] = f"{done} of {run['pairs']} pairs so far"
                partial["seconds"] = round(time.perf_counter() - started, 1)
                doc["runs"][-1] = partial
                write()

        out = arena(
            make_rules(run["preset"]),
            run["players"],
            run["a"],
            run["b"],
            run["pairs"],
            seed=args.seed,
            config_a=config,
            config_b=config,
            progress=progress,
        )
        out["seconds"] = round(time.perf_counter() - started, 1)
        doc["runs"][-1] = out
        write()
        print(
            json.dumps(
                {
                    k: out[k]
                    for k in (
                        "preset",
                        "players",
                        "a",
                        "b",
                        "pairs",
                        "a_win_rate",
                        "a_win_rate_ci95",
                    )
                }
            ),
            flush=True,
        )
    if args.budget_pairs:
        out = arena(
            make_rules("tranca-000"), 2, "expert", "greedy", args.budget_pairs, seed=args.seed + 1
        )
        doc["budget"] = out
        write()
    write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
