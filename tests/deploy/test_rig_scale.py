"""The local rig with the parts for more than one machine: the NATS change feed
(``--feed nats``: a NATS server of the rig's own) and PgBouncer in transaction mode
between the three servers and PostgreSQL (``--pgbouncer``).

Whole games are played through nginx while watchers follow them on every replica
directly. Mid-game the bus is stopped: moves go on, and the watchers catch up by
re-reading the log (on their timer, or woken by a move made on their own replica)
while no hint comes from the bus; the bus is started again: every replica
reconnects and hints flow again. Then one replica is killed with SIGKILL; the games
end through the survivors. Then: every acknowledged move is in the log once, at its
version, and nothing else is; every watcher saw every version once, in order (those
on the killed replica resumed on a survivor); no watch lease was taken (so no move
sent a NOTIFY); and the servers' transactions went through PgBouncer.

Needs nginx, prometheus, nats-server and pgbouncer (`make system-deps`) and
PostgreSQL on 127.0.0.1:5432; when CI is set, their absence fails the test.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import grpc
import pytest

from tests.deploy.test_rig import (
    PLAYERS,
    RIG,
    Stats,
    Table,
    Watch,
    _api_key,
    _get,
    _installed,
    _player,
    call,
    open_table,
    play,
    watch,
)
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc

GAMES = 4
KILLED = 1
STOP_BUS_AFTER = 6  # moves acknowledged in every game before the bus is stopped
WHILE_DOWN = 4  # ... and after, before it is started again
KILL_AFTER = 4  # more moves in every game after the bus is back, before the kill
BUDGET = 110.0


@pytest.fixture
def scale_rig(tmp_path: Path) -> Iterator[dict[str, Any]]:
    missing = [b for b in ("nginx", "prometheus", "nats-server", "pgbouncer") if not _installed(b)]
    if missing:
        message = f"{' and '.join(missing)} not installed (`make system-deps`)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    where = tmp_path / "rig"
    cmd = [
        sys.executable,
        str(RIG),
        "up",
        "--dir",
        str(where),
        "--ports",
        "auto",
        "--ttl",
        "300",
        "--json",
        "--feed",
        "nats",
        "--pgbouncer",
    ]
    try:
        up = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            pytest.fail(f"rig up failed:\n{up.stdout}\n{up.stderr}")
        state = json.loads(up.stdout.strip().splitlines()[-1])
        state["dir"] = str(where)
        yield state
    finally:
        for log in sorted((where / "logs").glob("*.log")):  # shown if the test failed
            print(f"--- {log.name}\n" + "\n".join(log.read_text().splitlines()[-20:]))
        down = subprocess.run(
            [sys.executable, str(RIG), "down", "--dir", str(where)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        print(down.stdout, down.stderr)


def _rig(state: dict[str, Any], *args: str) -> None:
    done = subprocess.run(
        [sys.executable, str(RIG), *args, "--dir", state["dir"]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def _metric(metrics_url: str, name: str) -> float:
    for line in _get(metrics_url).splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return float("nan")


async def _feeds(replicas: list[dict[str, Any]], name: str) -> list[float]:
    return list(
        await asyncio.gather(*(asyncio.to_thread(_metric, p["metrics"], name) for p in replicas))
    )


class Gates:
    """One gate a game: its player waits before each move while its gate is shut. The
    games move at very different speeds (a deal's length and the calls' luck), and a
    deal is finite: each step holds a game once it has made its moves, so that no game
    runs to its end before the steps after."""

    def __init__(self, tables: list[Table]) -> None:
        self.events = {t.game_id: asyncio.Event() for t in tables}
        self.open_all()

    def open_all(self) -> None:
        for event in self.events.values():
            event.set()

    def shut_all(self) -> None:
        for event in self.events.values():
            event.clear()


async def _until_moved(
    tables: list[Table], moves: int, players: list[asyncio.Task[None]], gates: Gates
) -> None:
    """Until every game has ``moves`` more moves acknowledged than now, each held
    once it has; the gates are left shut."""
    goal = {t.game_id: len(t.acked) + moves for t in tables}
    gates.open_all()
    while True:
        for p in players:
            if p.done():
                p.result()
        assert all(t.view.status == pb.GAME_STATUS_PLAYING for t in tables), (
            "a game ended early",
            [(t.view.status, t.view.version, len(t.acked)) for t in tables],
        )
        for t in tables:
            if len(t.acked) >= goal[t.game_id]:
                gates.events[t.game_id].clear()
        if all(len(t.acked) >= goal[t.game_id] for t in tables):
            return
        await asyncio.sleep(0.02)


async def test_nats_feed_and_pgbouncer_through_a_bus_restart_and_a_killed_replica(
    scale_rig: dict[str, Any],
) -> None:
    rig = scale_rig
    started = time.monotonic()
    key = _api_key(rig["database"]["url"])
    replicas = [p for p in rig["procs"] if p["name"].startswith("replica")]
    pooler = next(p for p in rig["procs"] if p["name"] == "pgbouncer")
    stats = Stats()
    dead: set[int] = set()
    players: list[asyncio.Task[None]] = []
    watchers: list[asyncio.Task[None]] = []
    async with asyncio.timeout(BUDGET):
        balanced = grpc.aio.insecure_channel(rig["balancer"])
        direct = [grpc.aio.insecure_channel(p["address"]) for p in replicas]
        try:
            stub = game_pb2_grpc.GameServiceStub(balanced)
            stubs = [game_pb2_grpc.GameServiceStub(c) for c in direct]
            assert await _feeds(replicas, "tranca_change_feed_up") == [1.0] * 3
            tables = [await open_table(stub, key, 700 + i, stats) for i in range(GAMES)]
            for t in tables:
                for r in range(3):
                    w = Watch(r, t.tokens[r % PLAYERS])
                    t.watches.append(w)
                    watchers.append(asyncio.create_task(watch(t, w, stubs, dead)))
            async with asyncio.timeout(15):
                while not all(w.seen for t in tables for w in t.watches):
                    await asyncio.sleep(0.02)
            progress = asyncio.Event()
            # The players stop between moves while the test waits on the watchers'
            # timers and the bus's restart: a deal is finite, and the moves made while
            # it waits must not end a game before the steps after it.
            gates = Gates(tables)
            players += [
                asyncio.create_task(play(t, stub, stats, progress, gates.events[t.game_id]))
                for t in tables
            ]
            await _until_moved(tables, STOP_BUS_AFTER, players, gates)

            # The bus goes away: every replica sees it, moves go on.
            _rig(rig, "stop", "--name", "nats")
            while await _feeds(replicas, "tranca_change_feed_up") != [0.0] * 3:
                await asyncio.sleep(0.2)
            hints_down = await _feeds(replicas, "tranca_change_feed_hints_total")
            await _until_moved(tables, WHILE_DOWN, players, gates)
            # The watchers catch up without the bus, on their timer's re-reads (no move
            # wakes them now).
            latest = {t.game_id: max(t.acked) for t in tables}
            for t in tables:
                for w in t.watches:
                    while not w.seen or w.seen[-1] < latest[t.game_id]:
                        await asyncio.sleep(0.1)
            assert await _feeds(replicas, "tranca_change_feed_hints_total") == hints_down

            # The bus is back: every replica reconnects and hints come again.
            _rig(rig, "start", "--name", "nats")
            while await _feeds(replicas, "tranca_change_feed_up") != [1.0] * 3:
                await asyncio.sleep(0.2)
            await _until_moved(tables, KILL_AFTER, players, gates)
            while True:
                hints = await _feeds(replicas, "tranca_change_feed_hints_total")
                if all(h > d for h, d in zip(hints, hints_down, strict=True)):
                    break
                await _until_moved(tables, 1, players, gates)
            await asyncio.sleep(0.5)  # the moves under way are answered
            assert all(t.view.status == pb.GAME_STATUS_PLAYING for t in tables)

            # A replica killed: the games end through the survivors.
            for t in tables:
                t.at_kill = t.view.version
            dead.add(KILLED)
            os.kill(int(replicas[KILLED]["pid"]), signal.SIGKILL)
            gates.open_all()
            await asyncio.gather(*players)
            await asyncio.gather(*watchers)

            for t in tables:
                assert t.view.status == pb.GAME_STATUS_FINISHED
                final = t.view.version
                for w in t.watches:
                    assert w.seen == list(range(w.seen[0], final + 1)), (w.replica, w.seen)
                    assert bool(w.resumed_on) == (w.replica == KILLED), w
                replay = await call(
                    stub.GetReplay,
                    pb.GetReplayRequest(game_id=t.game_id),
                    _player(t.tokens[0]),
                    stats,
                )
                versions = [m.version for m in replay.moves]
                assert versions == list(range(1, final + 1)), "the log has a gap"
                logged = {
                    m.version: (m.seat, m.move.text)
                    for m in replay.moves
                    if m.version > t.start_version
                }
                assert logged == t.acked, "the log and the acknowledged moves differ"
        finally:
            for task in [*players, *watchers]:
                task.cancel()
            await balanced.close()
            for c in direct:
                await c.close()

    db = rig["database"]["url"]
    conn = await asyncpg.connect(db, timeout=5)
    try:
        # No lease, hence no NOTIFY from any move's statement.
        leased = await conn.fetchval(
            "SELECT count(*) FROM games"
            " WHERE id = ANY($1::varchar[]) AND watched_until IS NOT NULL",
            [t.game_id for t in tables],
        )
        assert leased == 0
    finally:
        await conn.close()
    # The servers' transactions went through PgBouncer (its own count; its console
    # speaks only the simple query protocol, as psql does).
    console = urllib.parse.urlsplit(pooler["url"])
    shown = subprocess.run(
        [
            "psql",
            "-h",
            str(console.hostname),
            "-p",
            str(console.port),
            "-U",
            console.username or "postgres",
            "-d",
            "pgbouncer",
            "--csv",
            "-c",
            "SHOW STATS",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert shown.returncode == 0, shown.stderr
    rows = list(csv.DictReader(io.StringIO(shown.stdout)))
    name = rig["database"]["name"]
    xacts = sum(int(r["total_xact_count"]) for r in rows if r["database"] == name)
    moves = sum(len(t.acked) for t in tables)
    assert xacts >= moves, (xacts, moves)
    print(
        f"{GAMES} games, {moves} moves, {xacts} transactions through PgBouncer; "
        f"retries {dict(stats.retries)}, replayed {stats.replayed}; "
        f"total {time.monotonic() - started:.1f} s"
    )
