"""The service benchmark's report (bench/service_bench.py): the rounds summarised by
their medians, and the Markdown of bench/results/service.md."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.load_specs import parse_games, watched
else:
    try:  # run as a script, bench/ is on sys.path
        from load_specs import parse_games, watched
    except ImportError:  # imported as a module of bench
        from bench.load_specs import parse_games, watched


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
