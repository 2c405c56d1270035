"""Ceilings: what this machine's database and transport allow without the service.

A service benchmark's moves per second mean little alone; these say how far the
service is from what its parts allow on the same machine:

- **PostgreSQL**: ``pgbench`` running the service's move transaction (load the
  snapshot, compare-and-swap it with a new ~5 KB snapshot, append a move-log row,
  commit) on a throwaway database made by the project's own migrations, each client
  on games of its own so that there are no conflicts.
- **SQLite**: the same transaction in a tight loop of the standard library's
  ``sqlite3``, on a fresh migrated file, with the service's settings (WAL,
  ``synchronous=NORMAL``, ``BEGIN IMMEDIATE``).
- **transport**: ``tranca loadtest --echo`` against ``bench/echo_server.py`` in the
  service's process layout (one process, or N sharing a port).

The database ceilings leave out what the service adds to a move's transaction (its
idempotency look-up of the request id, the ``pg_notify`` of a watched game's move
on PostgreSQL) and all of its Python work: they are upper bounds, not predictions.

    python bench/ceilings.py [--seconds 10] [--clients 16] [--jobs 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tranca.store import migrate
from tranca_rules.engine import apply, legal_moves
from tranca_rules.match import Match
from tranca_rules.presets import make_rules

BENCH = Path(__file__).resolve().parent
ECHO_SERVER = BENCH / "echo_server.py"
PG_ADMIN = os.environ.get("TRANCA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
PGBENCH = os.environ.get("PGBENCH", "/usr/bin/pgbench")
# Every written snapshot differs from the last, as a move's does: a fixed-width
# revision field, rewritten in place (cheaply) by every transaction.
MARK_FIELD = '"bench_revision": "'
MARK_WIDTH = 10
# A move's log entry, as app.game.Action writes it (its seat is filled in).
ACTION = '{{"kind": "move", "seat": {seat}, "move": "discard 9C"}}'
# Loops stop at their deadline; this bound only guarantees they stop by themselves.
MAX_TRANSACTIONS = 100_000_000


def tranca_bin() -> str:
    """The ``tranca`` command of the environment running this script."""
    beside = Path(sys.executable).parent / "tranca"
    return str(beside) if beside.exists() else (shutil.which("tranca") or "tranca")


# ----- a realistic snapshot ----------------------------------------------------------


def snapshot_text(seed: int = 7, moves: int = 30) -> str:
    """A game's snapshot as the service stores it (the shape of ``GameState.to_dict``
    with the match's full ``to_dict``: about 5 KB of JSON), some moves into a
    2-player tranca-000 deal. Built from the rules engine alone, so that it does not
    depend on the service's own code; the revision field comes first so that its
    position is fixed."""
    rules = make_rules("tranca-000")
    match = Match(rules, 2, seed)
    rng = random.Random(seed)
    deal = match.deal
    for _ in range(moves):
        if deal.is_over:
            break
        apply(deal, deal.turn, rng.choice(legal_moves(deal)))
    body = {
        "bench_revision": "0" * MARK_WIDTH,
        "schema": 1,
        "setup": {
            "rules": rules.to_dict(),
            "players": 2,
            "seed": seed,
            "deck": None,
            "spectators_allowed": False,
        },
        "seats": [["p0", True, False], ["p1", True, False]],
        "status": "playing",
        "match": match.to_dict(),
        "last_deal": None,
        "winner": -1,
        "result_reason": "",
        "deal_starts": [3],
    }
    return json.dumps(body)


def mark_position(snapshot: str) -> int:
    """0-based offset of the revision digits in ``snapshot``."""
    return snapshot.index(MARK_FIELD) + len(MARK_FIELD)


def setup_text() -> str:
    return json.dumps({"rules": make_rules("tranca-000").to_dict(), "players": 2, "seed": 7})


# ----- PostgreSQL ----------------------------------------------------------------------


async def _pg_admin_async(admin_url: str, sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(admin_url, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextlib.contextmanager
def pg_database(admin_url: str = PG_ADMIN, prefix: str = "tranca_bench") -> Iterator[str]:
    """A fresh, empty database on the admin URL's server, dropped afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    asyncio.run(_pg_admin_async(admin_url, f'CREATE DATABASE "{name}"'))
    try:
        yield f"{admin_url.rsplit('/', 1)[0]}/{name}"
    finally:
        asyncio.run(_pg_admin_async(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def pg_available(admin_url: str = PG_ADMIN) -> str:
    """'' if PostgreSQL answers on the admin URL, else why not."""
    try:
        asyncio.run(_pg_admin_async(admin_url, "SELECT 1"))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


def game_id(index: int) -> str:
    # As long as the service's ids (32 characters), so that keys weigh the same.
    return f"{index:032d}"


async def _pg_seed(url: str, games: int, snapshot: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url, timeout=5)
    try:
        app = uuid.uuid4().hex
        await conn.execute(
            "INSERT INTO apps (id, name, key_hash, permissions, revoked) "
            "VALUES ($1, 'bench', $2, '', false)",
            app,
            uuid.uuid4().hex * 2,
        )
        await conn.executemany(
            "INSERT INTO games (id, app_id, status, version, preset, players, label, setup, "
            "snapshot, snapshot_schema) "
            "VALUES ($1, $2, 'playing', 0, 'tranca-000', 2, '', $3, $4, 1)",
            [(game_id(i), app, setup_text(), snapshot) for i in range(games)],
        )
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


async def _pg_counts(url: str) -> tuple[int, int]:
    import asyncpg

    conn = await asyncpg.connect(url, timeout=5)
    try:
        versions = await conn.fetchval("SELECT coalesce(sum(version), 0) FROM games")
        logged = await conn.fetchval("SELECT count(*) FROM move_log")
    finally:
        await conn.close()
    return int(versions), int(logged)


def pgbench_script(mark: int) -> str:
    """The service's move transaction for pgbench, on a game of this client's own.

    ``-D per=N`` gives each client N games (ids ``client_id * N`` ...); ``-M
    prepared`` sends every variable, the ~5 KB snapshot read back by ``\\gset``
    included, as a bound parameter, as the service's driver does.
    """
    gid = "lpad(:g::text, 32, '0')"
    action = "'" + ACTION.format(seat="' || :seat::text || '") + "'"
    return "\n".join(
        [
            r"\set g :client_id * :per + random(0, :per - 1)",
            "BEGIN;",
            f"SELECT version, snapshot FROM games WHERE id = {gid} \\gset",
            r"\set next :version + 1",
            r"\set seat :next % 2",
            # The compare-and-swap: the row changes only at the version read.
            "UPDATE games SET version = :next, status = 'playing', "
            f"snapshot = overlay(:snapshot::text placing lpad(:next::text, {MARK_WIDTH}, '0') "
            f"from {mark + 1} for {MARK_WIDTH}), updated_at = now() "
            f"WHERE id = {gid} AND version = :version;",
            "INSERT INTO move_log (game_id, version, seat, action, request_id, actor, created_at) "
            f"VALUES ({gid}, :next, :seat, {action}, md5(:g::text || ':' || :next::text), "
            "'player', now());",
            "COMMIT;",
            "",
        ]
    )


def _number(pattern: str, text: str) -> float | None:
    found = re.search(pattern, text, re.MULTILINE)
    return float(found.group(1)) if found else None


def parse_pgbench(output: str) -> dict[str, float | None]:
    return {
        "tps": _number(r"^tps = ([\d.]+)", output),
        "latency_avg_ms": _number(r"^latency average = ([\d.]+) ms", output),
        "transactions": _number(r"number of transactions actually processed: (\d+)", output),
        "failed": _number(r"number of failed transactions: (\d+)", output),
    }


def pgbench_ceiling(
    seconds: float = 10.0,
    *,
    clients: int = 16,
    jobs: int = 2,
    games_per_client: int = 4,
    admin_url: str = PG_ADMIN,
) -> dict[str, Any]:
    """Transactions per second of pgbench running the move transaction."""
    snapshot = snapshot_text()
    with pg_database(admin_url) as url, tempfile.TemporaryDirectory() as tmp:
        migrate.upgrade(url)
        asyncio.run(_pg_seed(url, clients * games_per_client, snapshot))
        script = Path(tmp) / "move.sql"
        script.write_text(pgbench_script(mark_position(snapshot)))
        parts = urlsplit(url)
        command = [
            PGBENCH,
            "-n",
            "-M",
            "prepared",
            "-c",
            str(clients),
            "-j",
            str(jobs),
            "-T",
            str(max(1, round(seconds))),
            "-D",
            f"per={games_per_client}",
            "-f",
            str(script),
            "-h",
            parts.hostname or "127.0.0.1",
            "-p",
            str(parts.port or 5432),
            "-U",
            parts.username or "postgres",
            parts.path.lstrip("/"),
        ]
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=seconds + 120, check=False
        )
        if done.returncode != 0:
            sys.stderr.write(done.stderr[-5000:])
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"pgbench failed (exit {done.returncode}): {last}")
        figures = parse_pgbench(done.stdout)
        versions, logged = asyncio.run(_pg_counts(url))
    return {
        "database": "postgresql",
        "tool": "pgbench",
        **figures,
        # Every transaction moved one game by one version and logged one row.
        "verified": versions == logged == figures["transactions"],
        "clients": clients,
        "jobs": jobs,
        "games": clients * games_per_client,
        "snapshot_bytes": len(snapshot.encode()),
        "seconds": max(1, round(seconds)),
        "command": " ".join(
            "SCRIPT" if c == str(script) else ("DB" if c == parts.path.lstrip("/") else c)
            for c in command
        ),
        "script": pgbench_script(mark_position(snapshot)),
    }


# ----- SQLite --------------------------------------------------------------------------


def _sqlite_connect(path: Path) -> sqlite3.Connection:
    # The service's settings (tranca.store.database): no implicit transactions, WAL,
    # synchronous=NORMAL, a busy timeout, foreign keys on.
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def _timestamp() -> str:
    # As SQLAlchemy stores a DateTime on SQLite.
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def sqlite_ceiling(seconds: float = 10.0, *, games: int = 16) -> dict[str, Any]:
    """Transactions per second of the move transaction in one tight sqlite3 loop
    (SQLite has one writer at a time: one loop is its ceiling)."""
    snapshot = snapshot_text()
    mark = mark_position(snapshot)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ceiling.db"
        migrate.upgrade(f"sqlite:///{path}")
        conn = _sqlite_connect(path)
        try:
            app = uuid.uuid4().hex
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT INTO apps (id, name, key_hash, permissions, created_at, revoked) "
                "VALUES (?, 'bench', ?, '', ?, 0)",
                (app, uuid.uuid4().hex * 2, _timestamp()),
            )
            conn.executemany(
                "INSERT INTO games (id, app_id, status, version, preset, players, label, setup, "
                "snapshot, snapshot_schema, created_at, updated_at) "
                "VALUES (?, ?, 'playing', 0, 'tranca-000', 2, '', ?, ?, 1, ?, ?)",
                [
                    (game_id(i), app, setup_text(), snapshot, _timestamp(), _timestamp())
                    for i in range(games)
                ],
            )
            conn.execute("COMMIT")
            ids = [game_id(i) for i in range(games)]
            done = 0
            started = time.perf_counter()
            deadline = started + seconds
            for i in range(MAX_TRANSACTIONS):
                if time.perf_counter() >= deadline:
                    break
                gid = ids[i % games]
                conn.execute("BEGIN IMMEDIATE")
                version, stored = conn.execute(
                    "SELECT version, snapshot FROM games WHERE id = ?", (gid,)
                ).fetchone()
                new = version + 1
                seat = new % 2
                text = f"{stored[:mark]}{new:0{MARK_WIDTH}d}{stored[mark + MARK_WIDTH :]}"
                changed = conn.execute(
                    "UPDATE games SET version = ?, status = 'playing', snapshot = ?, "
                    "updated_at = ? WHERE id = ? AND version = ?",
                    (new, text, _timestamp(), gid, version),
                ).rowcount
                if changed != 1:
                    raise RuntimeError(f"compare-and-swap missed on {gid} at {version}")
                conn.execute(
                    "INSERT INTO move_log (game_id, version, seat, action, request_id, actor, "
                    "created_at) VALUES (?, ?, ?, ?, ?, 'player', ?)",
                    (gid, new, seat, ACTION.format(seat=seat), uuid.uuid4().hex, _timestamp()),
                )
                conn.execute("COMMIT")
                done += 1
            elapsed = time.perf_counter() - started
            versions = conn.execute("SELECT coalesce(sum(version), 0) FROM games").fetchone()[0]
            logged = conn.execute("SELECT count(*) FROM move_log").fetchone()[0]
        finally:
            conn.close()
    return {
        "database": "sqlite",
        "tool": "python sqlite3 loop",
        "tps": round(done / elapsed, 1),
        "latency_avg_ms": round(elapsed / done * 1000, 3) if done else None,
        "transactions": done,
        "verified": versions == logged == done,
        "games": games,
        "snapshot_bytes": len(snapshot.encode()),
        "seconds": round(elapsed, 2),
        "sqlite_version": sqlite3.sqlite_version,
        "settings": "journal_mode=WAL, synchronous=NORMAL, BEGIN IMMEDIATE",
    }


# ----- processes -----------------------------------------------------------------------


def free_port() -> int:
    """A port free now on loopback (the processes that get it bind it themselves)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening_sockets(port: int) -> int:
    """Sockets listening on ``port``: one per process sharing it with SO_REUSEPORT."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                    count += 1
    return count


class Process:
    """A subprocess in a session of its own, its output in a log file; ``stop`` ends
    it and whatever it spawned (its process group), gently first."""

    def __init__(self, argv: list[str], log: Path) -> None:
        self.argv = argv
        self.log = log
        self._out = log.open("wb")
        try:
            # A session of its own: a terminal's Ctrl-C reaches this script only, whose
            # clean-up then stops the process (and its workers) itself.
            self.proc = subprocess.Popen(
                argv, stdout=self._out, stderr=subprocess.STDOUT, start_new_session=True
            )
        except BaseException:
            self._out.close()
            raise

    def tail(self, chars: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-chars:]
        return ""

    def wait_listening(self, port: int, count: int = 1, timeout: float = 60.0) -> None:
        """Until ``count`` processes listen on ``port`` (all of the workers: a client
        that connected before the last one started would never reach it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"{self.argv[0]} exited ({self.proc.returncode}) before listening:\n"
                    + self.tail()
                )
            if listening_sockets(port) >= count:
                return
            time.sleep(0.1)
        raise RuntimeError(f"nothing listening on {port} after {timeout:g} s:\n" + self.tail())

    def stop(self, timeout: float = 30.0) -> None:
        try:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(10)
            # Spawned workers left behind by a parent that died first.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        finally:
            self._out.close()


# ----- CPU time over a load generator's measured window ----------------------------------

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (which may hold spaces)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None  # gone
    return text.rsplit(")", 1)[1].split()


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)  # utime and stime are fields 14 and 15 of stat(5)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / TICKS


def process_tree(root: int) -> list[int]:
    """``root`` and every process descended from it (a server's workers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def postgres_processes() -> list[int]:
    """The PostgreSQL server's processes on this machine (by command name)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip() == "postgres":
                    found.append(int(entry.name))
    return found


class CpuMeter:
    """CPU seconds used by groups of processes between two samples. A group is a
    function giving its processes at the time of the sample, so processes started
    in between (a PostgreSQL backend for a new connection) are counted from zero."""

    def __init__(self, groups: dict[str, Any]) -> None:
        self.groups = groups
        self._first: dict[str, dict[int, float]] = {}
        self.seconds: dict[str, float] = {}

    def _sample(self) -> dict[str, dict[int, float]]:
        return {name: {p: _cpu_seconds(p) for p in pids()} for name, pids in self.groups.items()}

    def start(self) -> None:
        self._first = self._sample()

    def stop(self) -> None:
        last = self._sample()
        self.seconds = {
            name: sum(t - self._first.get(name, {}).get(p, 0.0) for p, t in now.items())
            for name, now in last.items()
        }


def run_json_metered(
    argv: list[str], timeout: float, groups: dict[str, Any]
) -> tuple[dict[str, Any], int, dict[str, float] | None]:
    """Run ``tranca loadtest`` (or a command that prints one JSON document and marks
    its measured window on stderr): its document, its exit code, and the CPU seconds
    of each group of processes (and of the command itself, "load") over the window;
    None for those if it marked no window."""
    opened = closed = False
    tail: list[str] = []
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, text=True)
        meter = CpuMeter({**groups, "load": lambda: [proc.pid]})
        watchdog = threading.Timer(timeout, proc.kill)
        watchdog.start()
        try:
            assert proc.stderr is not None
            for line in proc.stderr:
                if line.startswith("loadtest: measured window open"):
                    meter.start()
                    opened = True
                elif line.startswith("loadtest: measured window closed") and opened:
                    meter.stop()
                    closed = True
                else:
                    tail = [*tail[-200:], line]
            code = proc.wait()
        finally:
            watchdog.cancel()
            if proc.poll() is None:
                proc.kill()
        out.seek(0)
        stdout = out.read().decode()
    try:
        result = json.loads(stdout)
    except json.JSONDecodeError as exc:
        sys.stderr.write("".join(tail)[-5000:])
        raise RuntimeError(f"{Path(argv[0]).name} printed no JSON (exit {code})") from exc
    return result, code, (meter.seconds if closed else None)


def cpu_ms_per(seconds: dict[str, float] | None, count: float) -> dict[str, float] | None:
    """CPU milliseconds of each group per move (or call)."""
    if not seconds or not count:
        return None
    return {name: round(1000 * s / count, 3) for name, s in seconds.items()}


# ----- transport -------------------------------------------------------------------------


def echo_ceiling(
    workers: int = 1,
    *,
    games: int = 16,
    seconds: float = 10.0,
    warmup: float = 2.0,
    channels: int = 4,
    log_dir: Path | None = None,
) -> dict[str, Any]:
    """Echo calls per second through the service's process layout, driven by
    ``tranca loadtest --echo`` in a process of its own, as a service run is."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log = (log_dir or Path(tmp)) / f"echo-{workers}w-{games}g.log"
        server = Process(
            [sys.executable, str(ECHO_SERVER), "--port", str(port), "--workers", str(workers)],
            log,
        )
        try:
            server.wait_listening(port, workers)
            command = [
                tranca_bin(),
                "loadtest",
                "--echo",
                "--address",
                f"127.0.0.1:{port}",
                "--games",
                str(games),
                "--seconds",
                str(seconds),
                "--warmup",
                str(warmup),
                "--channels",
                str(channels),
            ]
            root = server.proc.pid
            result, code, cpu = run_json_metered(
                command, seconds + warmup + 120, {"server": lambda: process_tree(root)}
            )
        except Exception:
            print(server.tail(), file=sys.stderr)
            raise
        finally:
            server.stop()
    result["cpu_ms_per_call"] = cpu_ms_per(cpu, result.get("calls", 0))
    result["workers"] = workers
    result["exit_code"] = code
    result["command"] = " ".join(["tranca", *command[1:]]).replace(str(port), "PORT")
    result["server_command"] = f"python bench/echo_server.py --port PORT --workers {workers}"
    return result


# ----- command line --------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0, help="per measurement")
    parser.add_argument("--clients", type=int, default=16, help="pgbench clients")
    parser.add_argument("--jobs", type=int, default=2, help="pgbench threads")
    parser.add_argument("--games-per-client", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="processes of the echo layout")
    parser.add_argument("--games", type=int, default=16, help="concurrent echo loops")
    parser.add_argument("--channels", type=int, default=4)
    parser.add_argument(
        "--only", choices=["postgresql", "sqlite", "transport"], action="append", default=None
    )
    args = parser.parse_args()
    wanted = set(args.only or ["postgresql", "sqlite", "transport"])
    out: dict[str, Any] = {}
    if "postgresql" in wanted:
        out["postgresql"] = pgbench_ceiling(
            args.seconds,
            clients=args.clients,
            jobs=args.jobs,
            games_per_client=args.games_per_client,
        )
    if "sqlite" in wanted:
        out["sqlite"] = sqlite_ceiling(args.seconds)
    if "transport" in wanted:
        layouts = sorted({1, max(1, args.workers)})
        out["transport"] = [
            echo_ceiling(
                w,
                games=args.games,
                seconds=args.seconds,
                warmup=min(2.0, args.seconds / 5),
                channels=args.channels,
            )
            for w in layouts
        ]
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
