"""Chat beside play: two replicas on one PostgreSQL with the NATS change feed, 250
tables of four players (1,000 players) playing their moves and, by phase, watching
their table's chat room and writing in it. The cost of chat is stated as a ratio of
moves per second measured in the same run.

One run:

1. a throwaway PostgreSQL database (``--database``: a server; dropped afterwards),
   migrated with ``tranca migrate``; a nats-server of the run's own on a free port;
2. ``--replicas`` ``tranca serve`` processes on it with ``--change-feed`` on that
   NATS (``--feed none``: without it, a room's watchers on another replica read on
   their one-second timer);
3. ``--processes`` load processes (bench/chat_load.py), the tables shared between
   them; each player's client talks to one replica (a table's seats alternate
   between them), plays its moves and, by phase, watches the table's room
   (WatchChat) and writes in it (every ``--interval`` seconds on average, each text
   stamped with its send time);
4. the phases (``--phases``, each ``--phase-seconds`` long after a warm-up; the first
   ``--settle`` seconds of each are not counted): ``off`` (no chat), ``idle`` (every
   player watching, nobody writing), ``on`` (watching and writing), alternated;
   over each phase's window the harness reads the CPU time of the replicas, the
   PostgreSQL backends of the run's database, NATS and the load processes
   (/proc/PID/stat) and the database's committed transactions
   (pg_stat_database).

It reports each phase's moves a second (SubmitMove p50/p99), messages sent and
delivered a second (a delivery: a message received by another player of its table,
on whichever replica), the delivery latency p50/p99 (send to receipt) and the share
of deliveries that crossed replicas, and the load processes' event-loop lateness
(p99: whether the load processes kept up); then the cost of chat: moves/s with chat
÷ moves/s without, each ``on`` phase against the ``off`` phase of its pair.

Results: ``OUT/chat.json`` and ``OUT/chat.md`` with the machine's description.

    python bench/chat_bench.py --out bench/results [--tables 250] [--processes 2]
        [--phases off,idle,on,off,idle,on] [--phase-seconds 25]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tranca.tools.load_report import latency_summary

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.ceilings import PG_ADMIN, CpuMeter, process_tree
    from bench.chat_load import KINDS, PLAYERS, parse_phases
    from bench.engine_bench import machine
    from bench.scale import source_state
    from bench.scale_seed import fresh_database
    from bench.scale_server import ServerProcess, run_cli
else:
    try:  # run as a script, bench/ is on sys.path
        from ceilings import PG_ADMIN, CpuMeter, process_tree
        from chat_load import KINDS, PLAYERS, parse_phases
        from engine_bench import machine
        from scale import source_state
        from scale_seed import fresh_database
        from scale_server import ServerProcess, run_cli
    except ImportError:  # imported as bench.chat_bench (the tests)
        from bench.ceilings import PG_ADMIN, CpuMeter, process_tree
        from bench.chat_load import KINDS, PLAYERS, parse_phases
        from bench.engine_bench import machine
        from bench.scale import source_state
        from bench.scale_seed import fresh_database
        from bench.scale_server import ServerProcess, run_cli

HERE = Path(__file__).resolve().parent
API_KEY = "chat-bench-key"


# ----- the pieces ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def nats_server(log: Path) -> Iterator[tuple[str, int]]:
    """A nats-server of the run's own on loopback (Debian's, `make system-deps`):
    its URL and pid."""
    binary = shutil.which("nats-server") or "/usr/sbin/nats-server"
    if not Path(binary).exists():
        raise SystemExit("nats-server is not installed (`make system-deps`)")
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [binary, "-a", "127.0.0.1", "-p", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        for _ in range(200):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None:
                raise SystemExit(f"nats-server exited: {log.read_text()[-2000:]}")
            time.sleep(0.05)
        yield f"nats://127.0.0.1:{port}", proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def backends_of(database: str) -> list[int]:
    """The PostgreSQL backends connected to ``database`` (their command line names
    it: "postgres: [CLUSTER:] USER DATABASE HOST ..."); the server's shared processes (the WAL
    writer, the checkpointer) are left out, as are other users' databases."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                words = (entry / "cmdline").read_bytes().replace(b"\0", b" ").split()
                if words[:1] == [b"postgres:"] and database.encode() in words[2:4]:
                    found.append(int(entry.name))
    return found


async def committed(url: str) -> int:
    """The database's committed transactions so far (pg_stat_database)."""
    import asyncpg

    conn = await asyncpg.connect(url, timeout=10)
    try:
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        return int(
            await conn.fetchval(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
            )
        )
    finally:
        await conn.close()


class LoadProcess:
    """One bench/chat_load.py process: its tables, its stderr in a file."""

    def __init__(self, argv: list[str], log: Path) -> None:
        self.log = log
        with log.open("wb") as err:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err
            )

    def ready(self) -> bool:
        if self.proc.poll() is not None:
            raise SystemExit(f"a load process exited:\n{self.log.read_text()[-3000:]}")
        return "ready" in self.log.read_text(errors="replace").splitlines()

    def go(self, start: float) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"go {start}\n".encode())
        self.proc.stdin.flush()

    def report(self, timeout: float) -> dict[str, Any]:
        out, _ = self.proc.communicate(timeout=timeout)
        try:
            result: dict[str, Any] = json.loads(out)
            return result
        except ValueError:
            raise SystemExit(f"a load process failed:\n{self.log.read_text()[-3000:]}") from None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# ----- the run ---------------------------------------------------------------------------


async def run(a: argparse.Namespace, work: Path) -> dict[str, Any]:
    schedule = [(kind, a.phase_seconds) for kind in a.phases]
    with contextlib.ExitStack() as stack:
        feed = ""
        nats_pid = 0
        if a.feed == "nats":
            feed, nats_pid = stack.enter_context(nats_server(work / "nats.log"))
        async with fresh_database(a.database, work) as db:
            code, _, err = await run_cli(["migrate", "--database-url", db.url], timeout=300)
            if code:
                raise SystemExit(f"tranca migrate failed:\n{err[-3000:]}")
            command = None
            servers = [
                ServerProcess(
                    db.url,
                    API_KEY,
                    work / f"server-{i}.log",
                    extra=["--change-feed", feed] if feed else [],
                    command=command,
                )
                for i in range(a.replicas)
            ]
            loads: list[LoadProcess] = []
            try:
                for server in servers:  # one at a time: the first registers the key
                    await server.start()
                loads = start_loads(a, [s.address for s in servers], work)
                started = time.monotonic()
                while not all(p.ready() for p in loads):
                    if time.monotonic() - started > 600:
                        raise SystemExit("the load processes did not set up in 10 minutes")
                    await asyncio.sleep(0.2)
                setup_seconds = time.monotonic() - started
                start = time.time() + 1.0
                for p in loads:
                    p.go(start)
                groups: dict[str, Any] = {
                    f"replica {i}": (lambda pid=s.pid: process_tree(pid))
                    for i, s in enumerate(servers)
                }
                groups["postgresql"] = lambda: backends_of(db.url.rsplit("/", 1)[1])
                if nats_pid:
                    groups["nats"] = lambda: [nats_pid]
                groups["load"] = lambda: [p.proc.pid for p in loads]
                meters = await meter_phases(a, start, schedule, groups, db.url)
                total = a.warmup + sum(s for _, s in schedule)
                reports = await asyncio.gather(
                    *(asyncio.to_thread(p.report, total + 120) for p in loads)
                )
            finally:
                for p in loads:
                    p.stop()
                for server in servers:
                    server.stop()
    result = combine(reports, meters, a)
    result["setup_seconds"] = round(setup_seconds, 1)
    return result


def start_loads(a: argparse.Namespace, addresses: list[str], work: Path) -> list[LoadProcess]:
    """The tables shared out between ``--processes`` load processes."""
    shares = [a.tables // a.processes + (i < a.tables % a.processes) for i in range(a.processes)]
    loads, first = [], 0
    for i, share in enumerate(shares):
        argv = [sys.executable, str(HERE / "chat_load.py"), "--api-key", API_KEY]
        for address in addresses:
            argv += ["--address", address]
        argv += ["--tables", str(share), "--first-table", str(first)]
        argv += ["--channels", str(a.channels), "--interval", str(a.interval)]
        argv += ["--phases", ",".join(a.phases), "--phase-seconds", str(a.phase_seconds)]
        argv += ["--settle", str(a.settle), "--warmup", str(a.warmup), "--seed", str(i + 1)]
        argv += ["--think-ms", str(a.think_ms)]
        if a.verify:
            argv.append("--verify")
        loads.append(LoadProcess(argv, work / f"load-{i}.log"))
        first += share
    return loads


async def meter_phases(
    a: argparse.Namespace,
    start: float,
    schedule: list[tuple[str, float]],
    groups: dict[str, Any],
    url: str,
) -> list[dict[str, Any]]:
    """Each phase's window: the CPU seconds of each group of processes, the
    database's committed transactions, the load average."""
    out = []
    at = start + a.warmup
    for _kind, seconds in schedule:
        opened, closed = at + a.settle, at + seconds
        await asyncio.sleep(max(0.0, opened - time.time()))
        meter = CpuMeter(groups)
        meter.start()
        xacts = await committed(url)
        await asyncio.sleep(max(0.0, closed - time.time()))
        meter.stop()
        window = closed - opened
        out.append(
            {
                "cores": {k: round(v / window, 3) for k, v in meter.seconds.items()},
                "transactions_per_second": round((await committed(url) - xacts) / window, 1),
                "load_average": os.getloadavg()[0],
            }
        )
        at = closed
    return out


# ----- the figures -------------------------------------------------------------------------


def _ms(values: list[float]) -> dict[str, float] | None:
    return latency_summary(values) if values else None


def combine(
    reports: list[dict[str, Any]], meters: list[dict[str, Any]], a: argparse.Namespace
) -> dict[str, Any]:
    phases = []
    for i, meter in enumerate(meters):
        parts = [r["phases"][i] for r in reports]
        seconds = parts[0]["seconds"]
        moves = sum(p["moves"] for p in parts)
        sent = sum(p["sent"] for p in parts)
        attempted = sum(p["attempted"] for p in parts)
        delivery = [v for p in parts for v in p["delivery"]]
        cross = sum(p["cross_replica"] for p in parts)
        lags = [latency_summary(p["loop_lag"])["p99_ms"] if p["loop_lag"] else None for p in parts]
        phases.append(
            {
                "kind": parts[0]["kind"],
                "seconds": seconds,
                "moves": moves,
                "moves_per_second": round(moves / seconds, 1),
                "submit_move": _ms([v for p in parts for v in p["submit"]]),
                "messages_attempted": attempted,
                "messages_sent": sent,
                "messages_sent_per_second": round(sent / seconds, 1),
                "send_chat_message": _ms([v for p in parts for v in p["send"]]),
                "deliveries": len(delivery),
                "deliveries_per_second": round(len(delivery) / seconds, 1),
                # Each message is for the three other seats of its table; a send
                # that timed out may have been kept (and delivered) all the same.
                "delivered_share": round(len(delivery) / ((PLAYERS - 1) * attempted), 4)
                if attempted
                else None,
                "cross_replica_share": round(cross / len(delivery), 3) if delivery else None,
                "delivery": _ms(delivery),
                "load_loop_lag_p99_ms": lags,
                **meter,
            }
        )
    return {"phases": phases, "summary": summarise(phases), "load_processes": strip(reports)}


def summarise(phases: list[dict[str, Any]]) -> dict[str, Any]:
    """Each ``on`` (and ``idle``) phase against the last ``off`` phase before it:
    the ratios of moves/s, then their median; the ``on`` phases' deliveries
    pooled."""
    ratios: dict[str, list[float]] = {"on": [], "idle": []}
    last_off = None
    for p in phases:
        if p["kind"] == "off":
            last_off = p["moves_per_second"]
        elif last_off:
            ratios[p["kind"]].append(round(p["moves_per_second"] / last_off, 3))
    by_kind: dict[str, Any] = {}
    for kind in KINDS:
        mine = [p for p in phases if p["kind"] == kind]
        if mine:
            by_kind[kind] = {
                "moves_per_second": round(statistics.median(p["moves_per_second"] for p in mine), 1)
            }
    on = [p for p in phases if p["kind"] == "on"]
    summary: dict[str, Any] = {
        "moves_per_second": by_kind,
        "on_over_off": ratios["on"],
        "on_over_off_median": round(statistics.median(ratios["on"]), 3) if ratios["on"] else None,
        "idle_over_off": ratios["idle"],
        "idle_over_off_median": (
            round(statistics.median(ratios["idle"]), 3) if ratios["idle"] else None
        ),
    }
    if on:
        summary["deliveries_per_second"] = round(
            statistics.median(p["deliveries_per_second"] for p in on), 1
        )
        summary["messages_sent_per_second"] = round(
            statistics.median(p["messages_sent_per_second"] for p in on), 1
        )
        summary["delivery_p50_ms"] = statistics.median(
            p["delivery"]["p50_ms"] for p in on if p["delivery"]
        )
        summary["delivery_p99_ms"] = statistics.median(
            p["delivery"]["p99_ms"] for p in on if p["delivery"]
        )
    return summary


def strip(reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The load processes' reports without their raw latencies."""
    return [{k: v for k, v in r.items() if k != "phases"} for r in reports]


# ----- the report --------------------------------------------------------------------------


def write_report(report: dict[str, Any], out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    (out / "chat.json").write_text(json.dumps(report, indent=2) + "\n")
    s = report["settings"]
    r = report["results"]
    m = report["machine"]
    sm = r["summary"]

    def q(d: dict[str, float] | None, key: str) -> str:
        return "" if not d else f"{d[key]:g}"

    lines = [
        "# Chat beside play: two replicas, PostgreSQL, NATS",
        "",
        f"`{report['command']}`",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, commit "
        f"{m['commit']}, {m['date']}; load average {m['load_average'][0]:.2f} at the start "
        "(a shared machine: compare the ratios, measured in the same run).",
        "",
        f"{s['tables']} tables of {PLAYERS} ({s['tables'] * PLAYERS} players) on "
        f"{s['replicas']} replicas (change feed: {s['feed']}), driven by "
        f"{s['processes']} load process(es); each player's client on one replica (a "
        "table's seats alternate), playing its moves at once when it is its turn"
        + (f" after {s['think_ms']:g} ms" if s["think_ms"] else "")
        + f"; with chat, each player writes every {s['interval']:g} s on average. "
        + f"Phases of {s['phase_seconds']:g} s (the first {s['settle']:g} s of each not "
        f"counted) after {s['warmup']:g} s of warm-up; set-up took {r['setup_seconds']} s.",
        "",
        "## Summary",
        "",
        "| figure | value |",
        "|---|---|",
    ]
    for kind, v in sm["moves_per_second"].items():
        lines.append(f"| moves/s, chat {kind} (median of its phases) | {v['moves_per_second']} |")
    lines += [
        f"| **cost of chat: moves/s on ÷ off** (each pair; median) | {sm['on_over_off']}; "
        f"**{sm['on_over_off_median']}** |",
        f"| open streams alone: moves/s idle ÷ off | {sm['idle_over_off']}; "
        f"{sm['idle_over_off_median']} |",
    ]
    if "deliveries_per_second" in sm:
        lines += [
            f"| messages sent/s (chat on) | {sm['messages_sent_per_second']} |",
            f"| **messages delivered/s** (receipts by another player) | "
            f"**{sm['deliveries_per_second']}** |",
            f"| delivery latency p50 / **p99** ms | {sm['delivery_p50_ms']:g} / "
            f"**{sm['delivery_p99_ms']:g}** |",
        ]
    lines += [
        "",
        "## Phases",
        "",
        "| # | chat | moves/s | SubmitMove p50 / p99 ms | sent/s (answered) | delivered/s | "
        "delivered ÷ (3 × sends tried) | cross-replica | delivery p50 / p99 / max ms | "
        "Send p99 ms | cores: "
        + " / ".join(r["phases"][0]["cores"])
        + " | PG xact/s | load loop lag p99 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, p in enumerate(r["phases"]):
        d, sub = p["delivery"], p["submit_move"]
        lines.append(
            f"| {i + 1} | {p['kind']} | {p['moves_per_second']} | {q(sub, 'p50_ms')} / "
            f"{q(sub, 'p99_ms')} | {p['messages_sent_per_second']} | "
            f"{p['deliveries_per_second']} | {p['delivered_share'] or ''} | "
            f"{p['cross_replica_share'] or ''} | {q(d, 'p50_ms')} / {q(d, 'p99_ms')} / "
            f"{q(d, 'max_ms')} | {q(p['send_chat_message'], 'p99_ms')} | "
            + " / ".join(f"{v:.2f}" for v in p["cores"].values())
            + f" | {p['transactions_per_second']} | {p['load_loop_lag_p99_ms']} |"
        )
    problems = Counter[str]()
    for lp in r["load_processes"]:
        problems.update(lp["chat_errors"])
        problems.update({f"game call {k}": v for k, v in lp["errors"].items()})
        problems["messages out of order or repeated"] += lp["out_of_order"]
        for key in ("lost", "doubled"):
            if "verification" in lp:
                problems[f"moves {key}"] += lp["verification"][key]
    lines += [
        "",
        "Errors and checks over the whole run: "
        + (", ".join(f"{k}: {v}" for k, v in sorted(problems.items())) or "none")
        + ".",
    ]
    if report.get("notes"):
        lines += ["", "## Notes", "", *report["notes"]]
    text = "\n".join(lines) + "\n"
    (out / "chat.md").write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", default="bench/results")
    p.add_argument("--database", default=PG_ADMIN, help="the PostgreSQL server (a database on it)")
    p.add_argument("--tables", type=int, default=250)
    p.add_argument("--replicas", type=int, default=2)
    p.add_argument("--processes", type=int, default=2, help="load processes")
    p.add_argument("--channels", type=int, default=8, help="connections per load process")
    p.add_argument("--feed", choices=["nats", "none"], default="nats")
    p.add_argument("--phases", type=parse_phases, default=parse_phases("off,idle,on,off,idle,on"))
    p.add_argument("--phase-seconds", type=float, default=25.0)
    p.add_argument("--settle", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--interval", type=float, default=3.0, help="mean s between a player's messages")
    p.add_argument("--think-ms", type=float, default=0.0)
    p.add_argument("--verify", action="store_true", help="check every acknowledged move after")
    p.add_argument("--notes", default="", help="a Markdown file appended to the report")
    p.add_argument("--keep-logs", default="", help="keep the processes' logs in this directory")
    a = p.parse_args(argv)
    began = time.time()
    m = machine()
    work = Path(a.keep_logs) if a.keep_logs else Path(tempfile.mkdtemp(prefix="tranca-chat-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        results = asyncio.run(run(a, work))
    finally:
        if not a.keep_logs:
            shutil.rmtree(work, ignore_errors=True)
    notes = Path(a.notes).read_text().splitlines() if a.notes else []
    report = {
        "machine": m,
        "source": source_state(),
        "command": shlex.join([sys.executable, *sys.argv]),
        "settings": {k: v for k, v in vars(a).items() if k not in ("out", "notes", "keep_logs")},
        "seconds_total": round(time.time() - began, 1),
        "results": results,
        "notes": notes,
    }
    print(write_report(report, Path(a.out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
