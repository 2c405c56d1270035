"""The deployment on this machine, without containers: the local rig
(deploy/rig/rig.py: a fresh PostgreSQL database, three ``tranca serve`` processes,
nginx as the gRPC balancer, Prometheus scraping every second), with one replica
killed by SIGKILL in the middle of the games.

- Whole games are played through the balancer's address on one client channel;
  nginx spreads the calls (not the connection) over all three replicas.
- Watchers are connected to each replica directly; those on the killed one resume
  on a survivor from the last version they saw.
- After the kill the games go on through the survivors: a call that failed is sent
  again, a move with the same request_id, so no acknowledged move is lost or played
  twice (the acknowledged versions are compared with GetReplay's log).
- The image's health check script says SERVING for the survivors, not for the dead.
- Prometheus's own HTTP API shows the killed target down, the survivors' counters
  as scraped, the replica-down alert on its way, and every panel of the Grafana
  dashboard evaluating.

Needs nginx and prometheus (`make system-deps`, which `make test` runs first) and
PostgreSQL on 127.0.0.1:5432; when CI is set, their absence fails the test.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest

from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
RIG = ROOT / "deploy" / "rig" / "rig.py"
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "tranca.json"
HEALTHCHECK = ROOT / "deploy" / "docker" / "healthcheck.py"

GAMES = 4
PLAYERS = 2
KILLED = 1  # the replica (0, 1, 2) that gets SIGKILL
KILL_AFTER = 8  # ... once every game has had this many moves acknowledged
SINGLE_DEAL = {"target_score": pb.KnobValue(int_value=0)}
MAX_MOVES = 3000  # a deal that has not ended by then is a bug
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
ATTEMPTS = 8
BUDGET = 75.0  # seconds for the games, the watchers and the Prometheus checks
Req = TypeVar("Req")
Resp = TypeVar("Resp")
# Panels whose queries must return data after these games (the others may be empty:
# no move was refused, say).
MUST_HAVE_DATA = {
    "RPC rate by method",
    "RPC latency p99 by method",
    "Moves applied by type",
    "Open watch streams",
    "Database latency p99 by operation",
    "Games by status",
    "Replicas up",
}


# ----- the rig ----------------------------------------------------------------------------


def _installed(name: str) -> bool:
    return shutil.which(name) is not None or Path(f"/usr/sbin/{name}").exists()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[dict[str, Any]]:
    missing = [b for b in ("nginx", "prometheus") if not _installed(b)]
    if missing:
        message = f"{' and '.join(missing)} not installed (`make system-deps`)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    where = tmp_path / "rig"
    # The rig's watchdog ends everything by itself after --ttl, even if this process
    # dies; the finally below ends it at once.
    cmd = [
        sys.executable,
        str(RIG),
        "up",
        "--dir",
        str(where),
        "--ports",
        "auto",
        "--ttl",
        "240",
        "--json",
    ]
    try:
        up = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            pytest.fail(f"rig up failed:\n{up.stdout}\n{up.stderr}")
        yield json.loads(up.stdout.strip().splitlines()[-1])
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


def _api_key(database_url: str) -> str:
    cli = [sys.executable, "-m", "tranca.cli"]
    made = subprocess.run(
        [*cli, "create-app", "rig-test", "--database-url", database_url],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return str(json.loads(made.stdout.strip().splitlines()[-1])["api_key"])


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return str(resp.read().decode())


def _get_json(url: str) -> Any:
    return json.loads(_get(url))


def _rpc_total(metrics_url: str) -> float:
    """The sum of tranca_rpc_requests_total on one replica's own metrics endpoint."""
    text = _get(metrics_url)
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("tranca_rpc_requests_total{")
    )


def _query(prometheus: str, expr: str) -> dict[str, Any]:
    url = f"{prometheus}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    answer: dict[str, Any] = _get_json(url)
    assert answer["status"] == "success", (expr, answer)
    return answer


# ----- players and watchers ---------------------------------------------------------------


@dataclass
class Stats:
    retries: Counter[str] = field(default_factory=Counter)
    replayed: int = 0  # answers to retries of a move whose first answer was lost
    rate_limited: int = 0
    acked: int = 0


async def call(
    method: grpc.aio.UnaryUnaryMultiCallable[Req, Resp],
    request: Req,
    metadata: tuple[tuple[str, str], ...],
    stats: Stats,
) -> Resp:
    """One call, sent again as it was (same request, same request_id) when it failed
    on the way: the replica that had it may be dead."""
    for attempt in range(ATTEMPTS):
        try:
            return await method(request, metadata=metadata, timeout=10)
        except grpc.aio.AioRpcError as exc:
            if attempt == ATTEMPTS - 1:
                raise
            if exc.code() in RETRYABLE:
                stats.retries[exc.code().name] += 1
                await asyncio.sleep(0.05 * (attempt + 1))
            elif exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                stats.rate_limited += 1
                wait = dict(exc.trailing_metadata() or ()).get("retry_after_ms", "100")
                await asyncio.sleep(int(wait) / 1000)
            else:
                raise
    raise AssertionError("unreachable")


def choose(rng: random.Random, moves: list[pb.Move]) -> pb.Move:
    """A random legal move that keeps the deal going: draw rather than take, build
    often, discard now and then."""
    by_kind: dict[str, list[pb.Move]] = {}
    for m in moves:
        by_kind.setdefault(str(m.WhichOneof("kind")), []).append(m)
    if "draw" in by_kind or "take_pile" in by_kind:
        if "take_pile" in by_kind and rng.random() < 0.5:
            return rng.choice(by_kind["take_pile"])
        return rng.choice(by_kind.get("draw") or by_kind["take_pile"])
    builds = [m for m in moves if m.WhichOneof("kind") != "discard"]
    if builds and rng.random() < 0.85:
        return rng.choice(builds)
    return rng.choice(by_kind.get("discard") or moves)


@dataclass
class Table:
    game_id: str
    tokens: list[str]
    start_version: int
    rng: random.Random
    view: pb.GameView = field(default_factory=pb.GameView)
    acked: dict[int, tuple[int, str]] = field(default_factory=dict)  # version: seat, move
    at_kill: int = -1  # the version when the replica was killed
    resent: bool = False  # a move sent twice on purpose after the kill
    watches: list[Watch] = field(default_factory=list)


@dataclass
class Watch:
    replica: int
    token: str
    seen: list[int] = field(default_factory=list)
    resumed_on: list[int] = field(default_factory=list)


def _player(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def open_table(
    stub: game_pb2_grpc.GameServiceAsyncStub, key: str, seed: int, stats: Stats
) -> Table:
    app = (("x-api-key", key),)
    created = await call(
        stub.CreateGame,
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000", overrides=SINGLE_DEAL),
            players=PLAYERS,
            seed=seed,
            label=f"rig {seed}",
        ),
        app,
        stats,
    )
    gid = created.game.game_id
    tokens = []
    for seat in range(PLAYERS):
        joined = await call(
            stub.JoinGame,
            pb.JoinGameRequest(game_id=gid, seat=seat, player_name=f"bot{seat}"),
            app,
            stats,
        )
        tokens.append(joined.player_token)
    started = await call(stub.StartGame, pb.StartGameRequest(game_id=gid), app, stats)
    view = started.view
    return Table(gid, tokens, view.version, random.Random(seed), view)


async def play(
    table: Table,
    stub: game_pb2_grpc.GameServiceAsyncStub,
    stats: Stats,
    progress: asyncio.Event,
    go: asyncio.Event | None = None,
) -> None:
    """Play the table's seats to the end of its match; while ``go`` is clear, wait
    before each move (a test holds the games still across a slow step)."""
    while table.view.status == pb.GAME_STATUS_PLAYING:
        if go is not None:
            await go.wait()
        assert len(table.acked) < MAX_MOVES, "the match did not end"
        seat = table.view.turn
        me = _player(table.tokens[seat])
        legal = await call(
            stub.ListLegalMoves, pb.ListLegalMovesRequest(game_id=table.game_id), me, stats
        )
        assert legal.version == table.view.version, "someone else moved this game"
        assert legal.moves, f"seat {seat} has no legal move at v{legal.version}"
        request = pb.SubmitMoveRequest(
            game_id=table.game_id,
            expected_version=legal.version,
            request_id=uuid.uuid4().hex,
            move=choose(table.rng, list(legal.moves)),
        )
        done = await call(stub.SubmitMove, request, me, stats)
        assert done.version == request.expected_version + 1, "a move made two versions"
        assert done.version not in table.acked, "a version acknowledged twice"
        stats.replayed += done.replayed
        stats.acked += 1
        table.acked[done.version] = (seat, request.move.text)
        if table.at_kill >= 0 and not table.resent:
            # The same request again, as a client that lost the answer sends it: the
            # first answer comes back, from whichever replica gets it, and nothing moves.
            table.resent = True
            again = await call(stub.SubmitMove, request, me, stats)
            assert again.replayed, "a resent move was played again"
            assert again.version == done.version
            assert again.view == done.view
        table.view = done.view
        progress.set()


async def watch(
    table: Table, w: Watch, stubs: list[game_pb2_grpc.GameServiceAsyncStub], dead: set[int]
) -> None:
    """Follow the game on replica ``w.replica``; if that replica dies, go on on the
    next live one from the last version seen, until the match is over."""
    replica = w.replica
    while True:
        from_version = w.seen[-1] if w.seen else 0
        stream = stubs[replica].WatchGame(
            pb.WatchGameRequest(game_id=table.game_id, from_version=from_version),
            metadata=_player(w.token),
        )
        try:
            async for update in stream:
                w.seen.append(update.view.version)
            return  # the stream ends with the match
        except grpc.aio.AioRpcError as exc:
            if exc.code() not in RETRYABLE or replica not in dead:
                raise
            replica = next(r for r in ((replica + k) % 3 for k in (1, 2)) if r not in dead)
            w.resumed_on.append(replica)


# ----- the test ---------------------------------------------------------------------------


async def test_games_go_on_through_the_survivors_of_a_killed_replica(
    rig: dict[str, Any],
) -> None:
    started = time.monotonic()
    key = _api_key(rig["database"]["url"])
    replicas = [p for p in rig["procs"] if p["name"].startswith("replica")]
    prometheus = rig["prometheus"]
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
            tables = [await open_table(stub, key, 500 + i, stats) for i in range(GAMES)]

            # Watchers on every replica, directly: replica r watches as seat r % PLAYERS.
            for t in tables:
                for r in range(3):
                    w = Watch(r, t.tokens[r % PLAYERS])
                    t.watches.append(w)
                    watchers.append(asyncio.create_task(watch(t, w, stubs, dead)))
            async with asyncio.timeout(15):
                while not all(w.seen for t in tables for w in t.watches):
                    await asyncio.sleep(0.02)

            progress = asyncio.Event()
            players += [asyncio.create_task(play(t, stub, stats, progress)) for t in tables]

            # The kill: once every game is well under way.
            while not all(len(t.acked) >= KILL_AFTER for t in tables):
                if any(p.done() for p in players):
                    break
                progress.clear()
                await progress.wait()
            for p in players:  # a game that failed or ended already is a bad test
                if p.done():
                    p.result()
            assert all(t.view.status == pb.GAME_STATUS_PLAYING for t in tables)
            before_kill = await asyncio.gather(
                *(asyncio.to_thread(_rpc_total, p["metrics"]) for p in replicas)
            )
            # nginx picked a replica per call: the calls of one client channel went to
            # all three, about evenly (a per-connection balancer would give one all).
            assert min(before_kill) >= 0.2 * sum(before_kill), before_kill
            for t in tables:
                t.at_kill = t.view.version
            dead.add(KILLED)
            os.kill(int(replicas[KILLED]["pid"]), signal.SIGKILL)
            killed_at = time.monotonic()

            await asyncio.gather(*players)
            await asyncio.gather(*watchers)
            games_done = time.monotonic()

            for t in tables:
                assert t.view.status == pb.GAME_STATUS_FINISHED
                assert t.view.version > t.at_kill, "the game did not go on after the kill"
                final = t.view.version
                # Every watcher saw every version from its first one, in order, once;
                # only those on the killed replica had to resume elsewhere.
                for w in t.watches:
                    assert w.seen == list(range(w.seen[0], final + 1)), (w.replica, w.seen)
                    assert bool(w.resumed_on) == (w.replica == KILLED), w
                # The log holds exactly the acknowledged moves.
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

        # The image's health check (deploy/docker/healthcheck.py) against the replicas.
        for i, p in enumerate(replicas):
            checked = subprocess.run(
                [sys.executable, str(HEALTHCHECK), p["address"]],
                capture_output=True,
                text=True,
                timeout=30,
            )
            assert checked.returncode == (1 if i == KILLED else 0), checked

        # Prometheus, from its own scrapes: the killed target down, the survivors'
        # counters as the survivors themselves report them.
        survivors = [p for i, p in enumerate(replicas) if i != KILLED]
        own = {p["name"]: await asyncio.to_thread(_rpc_total, p["metrics"]) for p in survivors}
        scraped: dict[str, float] = {}
        up: dict[str, float] = {}
        while True:
            up = {
                r["metric"]["replica"]: float(r["value"][1])
                for r in _query(prometheus, 'up{job="tranca"}')["data"]["result"]
            }
            scraped = {
                r["metric"]["replica"]: float(r["value"][1])
                for r in _query(
                    prometheus, 'sum by (replica) (tranca_rpc_requests_total{job="tranca"})'
                )["data"]["result"]
            }
            if up.get(replicas[KILLED]["name"]) == 0 and scraped == own:
                break
            await asyncio.sleep(0.5)
        assert up == {p["name"]: (0.0 if i == KILLED else 1.0) for i, p in enumerate(replicas)}
        assert all(v > 0 for v in scraped.values())

        # The replica-down alert is on its way (pending for its minute, then firing).
        while True:
            alerts = _get_json(f"{prometheus}/api/v1/alerts")["data"]["alerts"]
            down = [
                a
                for a in alerts
                if a["labels"]["alertname"] == "TrancaReplicaDown"
                and a["labels"].get("replica") == replicas[KILLED]["name"]
            ]
            if down:
                break
            await asyncio.sleep(0.5)
        assert down[0]["state"] in ("pending", "firing")
        assert not [
            a
            for a in alerts
            if a["labels"]["alertname"] == "TrancaReplicaDown"
            and a["labels"].get("replica") != replicas[KILLED]["name"]
        ]

        # Every panel of the Grafana dashboard evaluates; the main ones have data.
        empty = []
        for title, expr in dashboard_queries():
            result = _query(prometheus, expr)["data"]["result"]
            if not result and title in MUST_HAVE_DATA:
                empty.append(title)
        assert not empty, f"panels without data: {empty}"

    elapsed = time.monotonic() - started
    moves = sum(len(t.acked) for t in tables)
    resumed = sum(len(w.resumed_on) for t in tables for w in t.watches)
    print(
        f"{GAMES} games, {moves} moves in {games_done - started:.1f} s "
        f"({games_done - killed_at:.1f} s after the kill); retries {dict(stats.retries)}, "
        f"replayed {stats.replayed}, rate-limited {stats.rate_limited}, "
        f"watchers resumed elsewhere {resumed}; "
        f"calls per replica before the kill {before_kill}; total {elapsed:.1f} s"
    )


def dashboard_queries() -> list[tuple[str, str]]:
    """(panel title, PromQL) for every query of the dashboard, with Grafana's
    variables filled in as a viewer would."""
    board = json.loads(DASHBOARD.read_text())
    out = []
    for panel in board["panels"]:
        for target in panel.get("targets", []):
            expr = target["expr"]
            expr = expr.replace("$__rate_interval", "1m").replace("$__interval", "15s")
            expr = re.sub(r"\$\{?instance\}?", ".*", expr)
            expr = re.sub(r"\$\{?job\}?", "tranca", expr)
            out.append((panel["title"], expr))
    assert out, "the dashboard has no query"
    return out
