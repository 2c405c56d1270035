"""Memory and scale benchmark: the server's memory and move latency with many games
stored, and its memory with many open watch streams.

For each size (stored games; 10, 1,000 and 10,000 by default) and each database (a
temporary SQLite file by default; ``--database-url postgresql://...`` names a
PostgreSQL server on which a throwaway database is created and dropped):

1. a fresh database, migrated with ``tranca migrate``;
2. seeded with that many games in realistic states: ``--templates`` games are played
   through the Store's one write path (joins, start, bot moves; most left in
   progress, some played out or resigned, some still waiting for players), and the
   rest are copies of those games' rows under new ids (playing every game through
   the write path would take minutes at 10,000 games, and the server does not care
   whether two games hold the same cards);
3. a ``tranca serve`` subprocess on it (``--port 0 --metrics-port 0``, JSON log to a
   file), whose resident memory (``VmRSS`` of ``/proc/PID/status``) is read idle,
   after a warm-up of reads over the stored games, and after a load run;
4. ``tranca loadtest`` as a subprocess: moves per second and SubmitMove latency with
   that many games stored (the load generator plays new games of its own);
5. ``--watchers`` WatchGame streams over the stored games that are not over, opened
   from this process over several channels: each must deliver its first view, the
   server's memory is read while they are all open, one move checks that they are
   live, and they are closed (and the memory read again).

Results go to ``OUT/scale.json`` and ``OUT/scale.md`` with the machine's description
and the exact command.

    python bench/scale.py --out bench/results [--sizes 10,1000,10000]
        [--database-url sqlite] [--database-url postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sqlalchemy import (
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    insert,
    select,
    text,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from tranca.app.game import Action, Setup, new_game, play_action
from tranca.rules.bots import GreedyBot
from tranca.rules.engine import legal_moves
from tranca.rules.presets import make_rules, preset_names
from tranca.services.credentials import hash_secret, new_seat_token
from tranca.services.moves import Moves, now_ms
from tranca.services.ports import Committed, NewGame
from tranca.store.database import make_engine, normalise_url
from tranca.store.repository import Store
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
else:
    try:  # run as a script, bench/ is on sys.path
        from engine_bench import machine
    except ImportError:  # imported as bench.scale (the tests)
        from bench.engine_bench import machine

SQLITE = "sqlite"  # --database-url value for a temporary SQLite file
MB = 1024 * 1024  # memory figures are MiB
MEMORY_FIELDS = ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem")


@dataclass
class Options:
    sizes: list[int] = field(default_factory=lambda: [10, 1000, 10000])
    databases: list[str] = field(default_factory=lambda: [SQLITE])
    templates: int = 40  # games played through the write path; the rest are copies
    seed: int = 1
    warmup_requests: int = 1000  # reads over the stored games before "after warm-up"
    load_games: int = 16
    load_seconds: float = 10.0
    load_warmup: float = 2.0
    watchers: int = 1000
    watch_channels: int = 8
    watch_concurrency: int = 64  # streams being opened at once
    watch_timeout: float = 30.0  # seconds for one stream's first view
    watch_rounds: int = 2  # the watchers opened and closed this many times
    settle_seconds: float = 2.0  # pause before each memory reading
    change_feed: str = ""  # the server's --change-feed (nats://...); "" for NOTIFY
    fanout_games: int = 20  # watched games moved once each to time the fan-out
    log_dir: str = ""  # keep the server logs here (default: a temporary directory)


# ----- processes ----------------------------------------------------------------------


def tranca_command() -> list[str]:
    """The ``tranca`` CLI of the running interpreter's environment."""
    script = Path(sys.executable).with_name("tranca")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tranca.cli"]


def read_memory(pid: int) -> dict[str, float]:
    """Resident memory of a process in MiB: VmRSS (now), VmHWM (peak so far) and
    VmRSS's parts (anonymous, file-backed, shared memory: SQLite's WAL index is
    a shared mapping)."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in MEMORY_FIELDS:
            out[name] = round(int(value.split()[0]) * 1024 / MB, 1)
    return out


class ServerProcess:
    """``tranca serve`` as a subprocess on a free port, logging to a file."""

    def __init__(
        self,
        database_url: str,
        api_key: str,
        log_path: Path,
        extra: list[str] | None = None,
        command: list[str] | None = None,
    ) -> None:
        self.extra = extra or []
        # The ``tranca`` command to run (bench/watch_memory.py runs it under tracemalloc).
        self.command = command or tranca_command()
        self.database_url = database_url
        self.api_key = api_key
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.address = ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    async def start(self, timeout: float = 60.0) -> None:
        with self.log_path.open("wb") as log:
            # Port 0: the kernel picks a free port (no race with other runs); the
            # server logs the address it got.
            self.proc = subprocess.Popen(
                [
                    *self.command,
                    "serve",
                    "--database-url",
                    self.database_url,
                    "--port",
                    "0",
                    "--metrics-port",
                    "0",
                    "--dev-api-key",
                    self.api_key,
                    "--log-format",
                    "json",
                    *self.extra,
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while not self.address:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"tranca serve exited ({self.proc.returncode}):\n{self.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"tranca serve did not start in {timeout} s:\n{self.log_tail()}")
            for line in self.log_path.read_text(errors="replace").splitlines():
                if '"listening"' in line:
                    with contextlib.suppress(ValueError):
                        self.address = str(json.loads(line)["address"])
            await asyncio.sleep(0.1)
        # Listening is not serving: wait for the health service to say so.
        async with grpc.aio.insecure_channel(self.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            while True:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    reply = await health.Check(health_pb2.HealthCheckRequest(service=""), timeout=2)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"tranca serve never became SERVING:\n{self.log_tail()}")
                await asyncio.sleep(0.1)

    def stop(self) -> None:
        """SIGTERM (the server's graceful shutdown), then SIGKILL if it lingers."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


async def run_cli(args: list[str], timeout: float) -> tuple[int, str, str]:
    """A ``tranca`` subcommand, killed if it outlives ``timeout`` or we are cancelled."""
    proc = subprocess.Popen(
        [*tranca_command(), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = await asyncio.to_thread(proc.communicate, timeout=timeout)
        return proc.returncode, out, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ----- databases ----------------------------------------------------------------------


@dataclass
class Database:
    kind: str  # "sqlite" or "postgresql"
    url: str
    path: Path | None = None  # the SQLite file

    async def size_bytes(self) -> int:
        if self.path is not None:
            # The WAL holds recent writes until a checkpoint: part of the size.
            files = [self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")]
            return sum(f.stat().st_size for f in files if f.exists())
        import asyncpg

        conn = await asyncpg.connect(self.url, timeout=10)
        try:
            return int(await conn.fetchval("SELECT pg_database_size(current_database())"))
        finally:
            await conn.close()


def _plain_pg(url: str) -> str:
    return "postgresql://" + url.split("://", 1)[1]


async def _pg_admin(admin_url: str, sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(_plain_pg(admin_url), timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def fresh_database(spec: str, workdir: Path) -> AsyncIterator[Database]:
    """A new, empty database: a file in ``workdir`` for ``sqlite``, or a throwaway
    database on the PostgreSQL server of ``spec``, dropped afterwards whatever
    happens (FORCE: a server killed mid-run may leave connections behind)."""
    if spec == SQLITE or spec.startswith("sqlite"):
        path = workdir / "scale.db"
        yield Database(SQLITE, f"sqlite:///{path}", path)
        return
    name = f"tranca_scale_{uuid.uuid4().hex[:10]}"
    await _pg_admin(spec, f'CREATE DATABASE "{name}"')
    try:
        yield Database("postgresql", _plain_pg(spec).rsplit("/", 1)[0] + "/" + name)
    finally:
        await _pg_admin(spec, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# ----- seeding ------------------------------------------------------------------------


@dataclass
class SeededGame:
    game_id: str
    status: str
    tokens: list[str]  # player token by seat; "" for a free seat


@dataclass
class Seeded:
    api_key: str
    games: list[SeededGame]
    templates: int
    seed_seconds: float  # the templates, through the write path
    copy_seconds: float  # the copies, by rows

    def counts(self) -> dict[str, int]:
        return dict(Counter(g.status for g in self.games))


def _template_plan(index: int) -> str:
    """Out of every ten games: one waiting for players, one played to its end, one
    resigned part-way, seven in progress."""
    return {9: "waiting", 3: "played_out", 7: "resigned"}.get(index % 10, "playing")


async def _seed_template(store: Store, app_id: str, index: int, rng: random.Random) -> SeededGame:
    """One game through the Store's write path, as the API would write it."""
    plan = _template_plan(index)
    # Half the games are the common case (tranca-000, two players); the rest spread
    # over the presets and their player counts, whose snapshots differ in size.
    preset = "tranca-000" if rng.random() < 0.5 else rng.choice(preset_names())
    overrides = {"target_score": 0} if plan == "played_out" else None  # a single deal
    rules = make_rules(preset, overrides)
    players = 2 if preset == "tranca-000" else rng.choice(rules.player_counts)
    setup = Setup(rules, players, rng.getrandbits(63))
    game_id = await store.create_game(NewGame(app_id, setup, new_game(setup), f"scale {index}"))
    writes = Moves(store)
    seated = rng.randrange(players) if plan == "waiting" else players
    tokens = [""] * players
    done: Committed | None = None
    for seat in range(seated):
        tokens[seat], seat_token = new_seat_token(
            seat, f"player {seat}", expires_at=now_ms() + 24 * 3600 * 1000
        )
        done = await writes.apply(
            game_id, Action("join", seat, name=f"player {seat}"), new_token=seat_token
        )
    if plan == "waiting" or done is None:
        return SeededGame(game_id, "waiting", tokens)
    done = await writes.apply(game_id, Action("start"))
    bots = [GreedyBot(rng.getrandbits(32)) for _ in range(players)]
    # In progress: somewhere in the first deal or two; played out: to the match's end.
    moves = 2000 if plan == "played_out" else rng.randint(4, 120)
    for _ in range(moves):
        deal = done.state.deal
        if done.state.status != "playing" or deal is None:
            break
        seat = deal.turn
        move = bots[seat].choose(deal, legal_moves(deal))
        done = await writes.apply(
            game_id,
            play_action(seat, move),
            expected_version=done.version,
            request_id=uuid.uuid4().hex,
        )
    if plan in ("resigned", "played_out") and done.state.status == "playing":
        done = await writes.apply(
            game_id, Action("resign", rng.randrange(players)), request_id=uuid.uuid4().hex
        )
    return SeededGame(game_id, done.state.status, tokens)


async def _copy_games(
    engine: AsyncEngine, templates: list[SeededGame], count: int, rng: random.Random
) -> list[SeededGame]:
    """``count`` copies of the template games' rows under new game ids.

    The tables are read from the migrated database, not from the models, so that a
    column added by a migration is copied too: ``games`` by ``id``, and every table
    with a ``game_id`` column with it. Where ``game_id`` is part of a table's key
    (the games, the move log) the database copies the rows itself: one ``INSERT ...
    SELECT`` per table joined to a temporary table of (new id, template id), so no
    row goes through Python. Other tables' keys need new values: a new token for
    ``token_hash`` (kept, so that the copies can be watched with their players'
    tokens), a new random id for another text key; an integer key is left to the
    database.
    """
    meta = MetaData()
    async with engine.connect() as conn:
        await conn.run_sync(meta.reflect)
    games_t = meta.tables["games"]
    children = [t for t in meta.sorted_tables if t.name != "games" and "game_id" in t.c]
    in_sql = [t for t in children if "game_id" in t.primary_key.columns]
    by_row = [t for t in children if t not in in_sql]
    ids = [t.game_id for t in templates]
    child_rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    async with engine.connect() as conn:
        for t in by_row:
            by_game: dict[str, list[dict[str, Any]]] = {}
            rows = (await conn.execute(select(t).where(t.c.game_id.in_(ids)))).mappings().all()
            for r in rows:
                by_game.setdefault(r["game_id"], []).append(dict(r))
            child_rows[t.name] = by_game
    mapping = Table(
        "scale_copies",
        MetaData(),
        Column("new_id", String(64), primary_key=True),
        Column("template_id", String(64)),
        Column("created", DateTime(timezone=True)),
        prefixes=["TEMPORARY"],
    )
    now = datetime.now(UTC)
    pairs: list[dict[str, Any]] = []
    new_rows: dict[str, list[dict[str, Any]]] = {t.name: [] for t in by_row}
    copies: list[SeededGame] = []
    for k in range(count):
        template = templates[k % len(templates)]
        game_id = uuid.uuid4().hex
        # Spread over a week, as a service's games would be (ListGames sorts by it).
        created = now - timedelta(seconds=rng.uniform(0, 7 * 86400))
        pairs.append({"new_id": game_id, "template_id": template.game_id, "created": created})
        tokens = [""] * len(template.tokens)
        for t in by_row:
            new_rows[t.name].extend(
                _copy_child(t, r, game_id, tokens)
                for r in child_rows[t.name].get(template.game_id, [])
            )
        copies.append(SeededGame(game_id, template.status, tokens))
    if not copies:
        return copies
    replaced: dict[str, Any] = {
        "id": mapping.c.new_id,
        "created_at": mapping.c.created,
        "updated_at": mapping.c.created,
    }
    async with engine.begin() as conn:
        await conn.run_sync(mapping.create)
        await _bulk_insert(conn, mapping, pairs)
        await conn.execute(
            insert(games_t).from_select(
                [c.name for c in games_t.c],
                select(*(replaced.get(c.name, c) for c in games_t.c)).join_from(
                    games_t, mapping, games_t.c.id == mapping.c.template_id
                ),
            )
        )
        for t in in_sql:
            await conn.execute(
                insert(t).from_select(
                    [c.name for c in t.c],
                    select(
                        *(mapping.c.new_id if c.name == "game_id" else c for c in t.c)
                    ).join_from(t, mapping, t.c.game_id == mapping.c.template_id),
                )
            )
        for t in by_row:
            if new_rows[t.name]:
                await _bulk_insert(conn, t, new_rows[t.name])
        await conn.run_sync(mapping.drop)
    return copies


async def _bulk_insert(conn: AsyncConnection, table: Table, rows: list[dict[str, Any]]) -> None:
    """``rows`` into ``table``: with PostgreSQL's COPY (asyncpg's binary copy, on the
    transaction's own connection), one executemany on SQLite."""
    if conn.dialect.name != "postgresql":
        await conn.execute(insert(table), rows)
        return
    columns = [c.name for c in table.c if c.name in rows[0]]
    raw = await conn.get_raw_connection()
    driver: Any = raw.driver_connection
    await driver.copy_records_to_table(
        table.name, records=[tuple(r[c] for c in columns) for r in rows], columns=columns
    )


def _copy_child(
    table: Table, row: dict[str, Any], game_id: str, tokens: list[str]
) -> dict[str, Any]:
    new = dict(row, game_id=game_id)
    for c in table.primary_key.columns:
        if c.name == "token_hash":
            token = "tp_" + secrets.token_urlsafe(32)
            new[c.name] = hash_secret(token)
            seat = int(row.get("seat", -1))
            if 0 <= seat < len(tokens) and not row.get("revoked"):
                tokens[seat] = token
        elif isinstance(c.type, Integer):
            new.pop(c.name)
        else:
            new[c.name] = uuid.uuid4().hex
    return new


async def seed(url: str, games: int, templates: int, seed_value: int) -> Seeded:
    """``games`` games: ``templates`` of them through the Store, the rest copied."""
    rng = random.Random(seed_value)
    # The copies are a few long statements (at 1,000,000 games, the move log's copy
    # runs for many minutes): PostgreSQL's 5 s default would cut them.
    engine = make_engine(normalise_url(url), statement_timeout_ms=6 * 3600 * 1000)
    store = Store(engine)
    try:
        app_id, api_key = await store.create_app("scale-bench")
        started = time.perf_counter()
        # One at a time: the work is the process's own (rules, encoding), so games
        # side by side gain nothing on either database.
        first = [
            await _seed_template(store, app_id, i, random.Random(seed_value * 7919 + i))
            for i in range(min(games, templates))
        ]
        seeded = time.perf_counter()
        copies = await _copy_games(engine, first, games - len(first), rng) if first else []
        if engine.dialect.name == "postgresql":
            # Fresh statistics, as a database in service has (autovacuum would gather
            # them some time during the run and change the plans meanwhile).
            async with engine.begin() as conn:
                await conn.execute(text("ANALYZE"))
        copied = time.perf_counter()
    finally:
        # The Store being rewritten may hold connections of its own beside the
        # engine's (a close() where it has one); the engine's pool either way.
        close = getattr(store, "close", None)
        if close is not None:
            await close()
        await engine.dispose()
    return Seeded(
        api_key,
        first + copies,
        len(first),
        round(seeded - started, 2),
        round(copied - seeded, 2),
    )


# ----- load ---------------------------------------------------------------------------


def _app(api_key: str) -> tuple[tuple[str, str], ...]:
    return (("x-api-key", api_key),)


def _player(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def warm_up(
    address: str, seeded: Seeded, requests: int, seed_value: int, concurrency: int = 8
) -> dict[str, Any]:
    """Reads spread over the stored games (views as the app and as players, legal
    moves, replays, pages of the game list), so that what the server allocates
    lazily (code paths, protobuf classes, database pages) is counted."""
    rng = random.Random(seed_value)
    errors: Counter[str] = Counter()
    sem = asyncio.Semaphore(concurrency)
    app = _app(seeded.api_key)

    async def one(stub: pb_grpc.GameServiceAsyncStub, i: int) -> None:
        game = rng.choice(seeded.games)
        seat_tokens = [t for t in game.tokens if t]
        async with sem:
            try:
                if i % 20 == 0:
                    page = str(rng.randrange(max(1, len(seeded.games) // 50)) * 50)
                    await stub.ListGames(
                        pb.ListGamesRequest(page_size=50, page_token=page), metadata=app, timeout=10
                    )
                elif i % 10 == 5:
                    req = pb.GetReplayRequest(game_id=game.game_id)
                    await stub.GetReplay(req, metadata=app, timeout=10)
                elif i % 3 == 1 and seat_tokens:
                    md = _player(rng.choice(seat_tokens))
                    req2 = pb.ListLegalMovesRequest(game_id=game.game_id)
                    await stub.ListLegalMoves(req2, metadata=md, timeout=10)
                elif i % 3 == 2 and seat_tokens:
                    md = _player(rng.choice(seat_tokens))
                    await stub.GetView(pb.GetViewRequest(game_id=game.game_id), metadata=md)
                else:
                    await stub.GetView(
                        pb.GetViewRequest(game_id=game.game_id), metadata=app, timeout=10
                    )
            except grpc.aio.AioRpcError as e:
                # A finished or waiting game refuses some reads (GAME_NOT_STARTED...):
                # counted, not fatal.
                errors[e.code().name] += 1

    started = time.perf_counter()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        await asyncio.gather(*(one(stub, i) for i in range(requests)))
    return {
        "requests": requests,
        "seconds": round(time.perf_counter() - started, 2),
        "errors": dict(errors),
    }


async def run_loadtest(
    address: str, api_key: str, games: int, seconds: float, warmup: float
) -> dict[str, Any]:
    """``tranca loadtest`` against the server; its JSON report, reduced."""
    code, out, err = await run_cli(
        [
            "loadtest",
            "--address",
            address,
            "--api-key",
            api_key,
            "--games",
            str(games),
            "--seconds",
            str(seconds),
            "--warmup",
            str(warmup),
        ],
        timeout=seconds + warmup + 300,
    )
    try:
        report: dict[str, Any] = json.loads(out)
    except ValueError:
        raise RuntimeError(f"tranca loadtest failed ({code}):\n{err[-3000:]}") from None
    submit = report.get("rpcs", {}).get("SubmitMove", {})
    return {
        "moves": report["moves"],
        "seconds": report["seconds"],
        "moves_per_second": report["moves_per_second"],
        "submit_p50_ms": submit.get("p50_ms"),
        "submit_p99_ms": submit.get("p99_ms"),
        "errors": report.get("errors", {}),
        "conflicts": report.get("conflicts", 0),
        "verification": report.get("verification", {}),
        "exit_code": code,  # 1: verification found a lost or doubled move
    }


# ----- watchers -----------------------------------------------------------------------


@dataclass
class Watcher:
    game: SeededGame
    credential: str  # "player" or "app"
    metadata: tuple[tuple[str, str], ...]
    call: Any = None  # grpc.aio.UnaryStreamCall
    version: int = -1  # of the last view received
    open_ms: float = 0.0
    error: str = ""


class WatchPool:
    """WatchGame streams over the stored games that are not over (a finished game's
    stream ends after its last view). Each game's seated players watch it first,
    one stream per player token (as a player's app would), and further streams
    use the API key (as an app's dashboard would): the server allows a player
    token only a few streams at once."""

    def __init__(self, address: str, seeded: Seeded, count: int, channels: int) -> None:
        self.address = address
        self.seeded = seeded
        live = [g for g in seeded.games if g.status != "finished"]
        random.Random(len(live)).shuffle(live)
        self.watchers: list[Watcher] = []
        for i in range(count if live else 0):
            game = live[i % len(live)]
            k = i // len(live)  # this game's k-th watcher
            tokens = [t for t in game.tokens if t]
            if k < len(tokens):
                self.watchers.append(Watcher(game, "player", _player(tokens[k])))
            else:
                self.watchers.append(Watcher(game, "app", _app(seeded.api_key)))
        # Separate subchannel pools: each channel is its own connection.
        self.channels = [
            grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
            for _ in range(max(1, channels))
        ]

    async def open(
        self, concurrency: int, timeout: float, watchers: list[Watcher] | None = None
    ) -> None:
        """Open ``watchers`` (default: every one of the pool; a slice of them to open
        in steps), each until its first view."""
        sem = asyncio.Semaphore(concurrency)

        async def one(i: int, w: Watcher) -> None:
            stub = pb_grpc.GameServiceStub(self.channels[i % len(self.channels)])
            async with sem:
                started = time.perf_counter()
                w.call = stub.WatchGame(
                    pb.WatchGameRequest(game_id=w.game.game_id), metadata=w.metadata
                )
                try:
                    first = await asyncio.wait_for(w.call.read(), timeout)
                except (grpc.aio.AioRpcError, TimeoutError) as e:
                    w.error = e.code().name if isinstance(e, grpc.aio.AioRpcError) else "TIMEOUT"
                    return
                w.open_ms = (time.perf_counter() - started) * 1000
                if first is grpc.aio.EOF:
                    w.error = "ENDED"
                else:
                    w.version = first.view.version

        chosen = self.watchers if watchers is None else watchers
        await asyncio.gather(*(one(i, w) for i, w in enumerate(chosen)))

    def still_open(self) -> int:
        """Streams that delivered their first view and have not ended since."""
        return sum(1 for w in self.watchers if w.version >= 0 and not w.call.done())

    async def probe(self, timeout: float = 10.0) -> dict[str, Any]:
        """One move in a watched game in progress: every stream on that game must
        deliver it, or the streams are open but not being served."""
        on_game: dict[str, list[Watcher]] = {}
        for w in self.watchers:
            if w.version >= 0 and w.game.status == "playing" and all(w.game.tokens):
                on_game.setdefault(w.game.game_id, []).append(w)
        if not on_game:
            return {"checked": False}
        game_id, watchers = max(on_game.items(), key=lambda kv: len(kv[1]))
        game = watchers[0].game
        stub = pb_grpc.GameServiceStub(self.channels[0])
        try:
            view = (
                await stub.GetView(
                    pb.GetViewRequest(game_id=game_id),
                    metadata=_app(self.seeded.api_key),
                    timeout=10,
                )
            ).view
            md = _player(game.tokens[view.turn])
            legal = await stub.ListLegalMoves(
                pb.ListLegalMovesRequest(game_id=game_id), metadata=md, timeout=10
            )
            done = await stub.SubmitMove(
                pb.SubmitMoveRequest(
                    game_id=game_id,
                    expected_version=legal.version,
                    request_id=uuid.uuid4().hex,
                    move=legal.moves[0],
                ),
                metadata=md,
                timeout=10,
            )
        except grpc.aio.AioRpcError as e:
            # The probe could not be made: a failed check, not a crash of the run.
            return {
                "checked": True,
                "streams": len(watchers),
                "delivered": 0,
                "error": e.code().name,
            }
        delivered: list[Watcher] = []

        async def follow(w: Watcher) -> None:
            # Read until the probe's version: a stream opened at an older version
            # first catches up through the versions in between.
            while w.version < done.version:
                update = await w.call.read()
                if update is grpc.aio.EOF:
                    return
                w.version = update.view.version
            delivered.append(w)

        with contextlib.suppress(TimeoutError, grpc.aio.AioRpcError):
            await asyncio.wait_for(asyncio.gather(*(follow(w) for w in watchers)), timeout)
        return {"checked": True, "streams": len(watchers), "delivered": len(delivered)}

    async def fanout(self, games: int, timeout: float = 15.0) -> dict[str, Any]:
        """The fan-out delay: up to ``games`` watched games in progress are moved one
        after the other, and for each stream on the moved game the time from the
        mover's acknowledgement to the stream's delivery of that version (0 when the
        update came first) is recorded; p50 and p99 over all of them."""
        on_game: dict[str, list[Watcher]] = {}
        for w in self.watchers:
            live = w.version >= 0 and not w.call.done()
            if live and w.game.status == "playing" and all(w.game.tokens):
                on_game.setdefault(w.game.game_id, []).append(w)
        picked = sorted(on_game.items(), key=lambda kv: -len(kv[1]))[:games]
        stub = pb_grpc.GameServiceStub(self.channels[0])
        delays: list[float] = []
        missed = 0
        for game_id, watchers in picked:
            game = watchers[0].game
            try:
                view = (
                    await stub.GetView(
                        pb.GetViewRequest(game_id=game_id),
                        metadata=_app(self.seeded.api_key),
                        timeout=10,
                    )
                ).view
                # Streams still behind catch up first, so that only this move is timed.
                await asyncio.wait_for(
                    asyncio.gather(*(_read_to(w, view.version) for w in watchers)), timeout
                )
                md = _player(game.tokens[view.turn])
                legal = await stub.ListLegalMoves(
                    pb.ListLegalMovesRequest(game_id=game_id), metadata=md, timeout=10
                )
                arrived: dict[int, float] = {}
                target = legal.version + 1
                readers = [
                    asyncio.ensure_future(_timed_read(w, target, arrived, i))
                    for i, w in enumerate(watchers)
                ]
                done = await stub.SubmitMove(
                    pb.SubmitMoveRequest(
                        game_id=game_id,
                        expected_version=legal.version,
                        request_id=uuid.uuid4().hex,
                        move=legal.moves[0],
                    ),
                    metadata=md,
                    timeout=10,
                )
                acked = time.perf_counter()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.gather(*readers), timeout)
                for r in readers:
                    r.cancel()
                assert done.version == target
                delays += [max(0.0, arrived[i] - acked) * 1000 for i in arrived]
                missed += len(watchers) - len(arrived)
            except (grpc.aio.AioRpcError, TimeoutError) as e:
                missed += len(watchers)
                print(f"  fan-out probe of {game_id}: {e!r}", file=sys.stderr)
        q = statistics.quantiles(delays, n=100) if len(delays) >= 2 else delays * 99
        return {
            "games": len(picked),
            "streams": len(delays) + missed,
            "delivered": len(delays),
            "missed": missed,
            "delay_p50_ms": round(q[49], 2) if q else None,
            "delay_p99_ms": round(q[98], 2) if q else None,
        }

    async def close(self) -> None:
        for w in self.watchers:
            if w.call is not None:
                w.call.cancel()
        for channel in self.channels:
            await channel.close()

    def summary(self) -> dict[str, Any]:
        opened = [w for w in self.watchers if w.version >= 0]
        times = sorted(w.open_ms for w in opened)
        q = statistics.quantiles(times, n=100) if len(times) >= 2 else times * 99
        return {
            "requested": len(self.watchers),
            "opened": len(opened),
            "games_watched": len({w.game.game_id for w in self.watchers}),
            "by_player_token": sum(1 for w in opened if w.credential == "player"),
            "by_api_key": sum(1 for w in opened if w.credential == "app"),
            "errors": dict(Counter(w.error for w in self.watchers if w.error)),
            "first_view_p50_ms": round(q[49], 1) if q else None,
            "first_view_p99_ms": round(q[98], 1) if q else None,
        }


async def _timed_read(w: Watcher, version: int, arrived: dict[int, float], key: int) -> None:
    await _read_to(w, version)
    arrived[key] = time.perf_counter()


async def _read_to(w: Watcher, version: int) -> None:
    """Read ``w``'s stream until it has delivered ``version``."""
    while w.version < version:
        update = await w.call.read()
        if update is grpc.aio.EOF:
            raise TimeoutError("the stream ended")
        w.version = update.view.version


# ----- one size -----------------------------------------------------------------------


async def measure_size(size: int, database: str, opts: Options) -> dict[str, Any]:
    """Every figure for one size on one database; cleans up whatever happens."""
    with tempfile.TemporaryDirectory(prefix="tranca-scale-") as tmp:
        workdir = Path(tmp)
        log_dir = Path(opts.log_dir) if opts.log_dir else workdir
        log_dir.mkdir(parents=True, exist_ok=True)
        async with fresh_database(database, workdir) as db:
            code, out, err = await run_cli(["migrate", "--database-url", db.url], timeout=120)
            if code != 0:
                raise RuntimeError(f"tranca migrate failed ({code}):\n{out}{err}")
            seeded = await seed(db.url, size, opts.templates, opts.seed)
            result: dict[str, Any] = {
                "database": db.kind,
                # Other work on the machine disturbs the timings: its load at the start.
                "load_average_at_start": round(os.getloadavg()[0], 2),
                "games_stored": len(seeded.games),
                "status": seeded.counts(),
                "templates": seeded.templates,
                "seed_seconds": seeded.seed_seconds,
                "copy_seconds": seeded.copy_seconds,
                "database_bytes": await db.size_bytes(),
            }
            server = ServerProcess(
                db.url,
                seeded.api_key,
                log_dir / f"serve-{db.kind}-{size}.log",
                ["--change-feed", opts.change_feed] if opts.change_feed else [],
            )
            memory: dict[str, dict[str, float]] = {}
            result["memory_mb"] = memory
            try:
                await server.start()
                await asyncio.sleep(opts.settle_seconds)
                memory["idle"] = read_memory(server.pid)
                result["warmup"] = await warm_up(
                    server.address, seeded, opts.warmup_requests, opts.seed
                )
                await asyncio.sleep(opts.settle_seconds)
                memory["after_warmup"] = read_memory(server.pid)
                result["load"] = await run_loadtest(
                    server.address,
                    seeded.api_key,
                    opts.load_games,
                    opts.load_seconds,
                    opts.load_warmup,
                )
                await asyncio.sleep(opts.settle_seconds)
                memory["after_load"] = read_memory(server.pid)
                rounds: list[dict[str, Any]] = []
                for n in range(1, max(1, opts.watch_rounds) + 1):
                    # The same streams opened and closed again: memory that keeps
                    # growing round after round is a leak, memory that stays at the
                    # first round's level is the allocator keeping what it got.
                    suffix = "" if n == 1 else f"_round_{n}"
                    watch = await _watch_round(server, seeded, opts, memory, suffix)
                    rounds.append(
                        {
                            "opened": watch["opened"],
                            "still_open_at_reading": watch["still_open_at_reading"],
                            "rss_open_mb": memory["with_watchers" + suffix]["VmRSS"],
                            "rss_closed_mb": memory["after_watchers_closed" + suffix]["VmRSS"],
                        }
                    )
                    if n == 1:
                        result["watchers"] = watch
                result["watch_rounds"] = rounds
                result["database_bytes_after"] = await db.size_bytes()
            except Exception as exc:
                raise RuntimeError(f"{exc}\n--- server log ---\n{server.log_tail()}") from exc
            finally:
                server.stop()
    return result


async def _watch_round(
    server: ServerProcess,
    seeded: Seeded,
    opts: Options,
    memory: dict[str, dict[str, float]],
    suffix: str,
) -> dict[str, Any]:
    """Open the watchers, read the memory with them open, check them, close them,
    read the memory again (``memory["with_watchers" + suffix]`` and
    ``memory["after_watchers_closed" + suffix]``)."""
    pool = WatchPool(server.address, seeded, opts.watchers, opts.watch_channels)
    try:
        started = time.perf_counter()
        await pool.open(opts.watch_concurrency, opts.watch_timeout)
        opened_in = time.perf_counter() - started
        await asyncio.sleep(opts.settle_seconds)
        memory["with_watchers" + suffix] = read_memory(server.pid)
        watch = pool.summary()
        watch["open_seconds"] = round(opened_in, 2)
        watch["still_open_at_reading"] = pool.still_open()
        watch["live_probe"] = await pool.probe()
        watch["fanout"] = await pool.fanout(opts.fanout_games)
    finally:
        await pool.close()
    # Time for the server to see the cancellations and drop the streams.
    await asyncio.sleep(max(opts.settle_seconds, 1.0))
    memory["after_watchers_closed" + suffix] = read_memory(server.pid)
    return watch


# ----- report -------------------------------------------------------------------------


def _command() -> str:
    exe = sys.executable
    with contextlib.suppress(ValueError):
        rel = os.path.relpath(exe)
        if not rel.startswith(".."):
            exe = rel
    return shlex.join([exe, *sys.argv])


def source_state() -> dict[str, Any]:
    """What ran: the commit alone does not say, when the server's files changed since
    it or when ``tranca`` came from elsewhere (``PYTHONPATH`` pointing at another
    copy of the code, which the subprocesses inherit)."""
    import tranca

    package = Path(tranca.__file__).resolve().parent
    state: dict[str, Any] = {"tranca_from": str(package), "modified_since_commit": []}
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if top and package.is_relative_to(Path(top).resolve()):
            changed = subprocess.run(
                ["git", "status", "--porcelain", "--", "server", "proto", "pyproject.toml"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.splitlines()
            state["modified_since_commit"] = [line[3:] for line in changed]
        else:
            state["outside_work_tree"] = True
    except OSError:
        pass
    return state


def write_report(report: dict[str, Any], out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    (out / "scale.json").write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
    s = report["settings"]
    lines = [
        "# Memory and scale benchmark",
        "",
        f"Command: `{report['command']}` (sizes {', '.join(str(n) for n in report['sizes'])}).",
        "",
        "For each size, a fresh database seeded with that many games (about 70 % in "
        f"progress, 20 % over, 10 % waiting for players; {s['templates']} played through "
        "the Store's write path with greedy bots, the rest copies of their rows under "
        "new ids), and a `tranca serve` subprocess on it. Memory is the server "
        "process's VmRSS in MiB: idle after start, after "
        f"{s['warmup_requests']} reads over the stored games, after the load run, with "
        f"{s['watchers']} WatchGame streams open (spread over the games not over, "
        f"{s['watch_channels']} connections, {s['watch_concurrency']} opening at once), "
        "and after closing them. Moves/s and "
        f"SubmitMove latency from `tranca loadtest --games {s['load_games']} --seconds "
        f"{s['load_seconds']:g} --warmup {s['load_warmup']:g}` (new games of its own: the "
        "latency with that many games stored). Client processes and the server share "
        "the machine; the load average when each size started is in scale.json.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['implementation']} {m['python']}, "
        f"{m['platform']}; load average at the end {m['load_average'][0]:.2f}; "
        f"commit {m['commit']}{_source_note(report.get('source', {}))}; {m['date']}.",
        "",
        f"| database | games stored | RSS idle MB | RSS after warm-up MB | RSS with "
        f"{s['watchers']:,} watchers MB | moves/s | SubmitMove p50 ms | SubmitMove p99 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report["results"]:
        mem = r["memory_mb"]
        load = r["load"]
        lines.append(
            f"| {r['database']} | {r['games_stored']:,} | {mem['idle']['VmRSS']} | "
            f"{mem['after_warmup']['VmRSS']} | {mem['with_watchers']['VmRSS']} | "
            f"{load['moves_per_second']} | {load['submit_p50_ms']} | {load['submit_p99_ms']} |"
        )
    lines += [
        "",
        "Memory in detail (VmRSS, MiB): after the load run; with the watchers open and "
        "after closing them, round by round (the same streams opened again: a leak "
        "would grow with every round); the peak (VmHWM) over the whole run.",
        "",
        "| database | games stored | after load | watchers open → closed, by round | peak |",
        "|---|---|---|---|---|",
    ]
    for r in report["results"]:
        mem = r["memory_mb"]
        rounds = ", ".join(f"{w['rss_open_mb']} → {w['rss_closed_mb']}" for w in r["watch_rounds"])
        peak = max(v["VmHWM"] for v in mem.values())
        lines.append(
            f"| {r['database']} | {r['games_stored']:,} | {mem['after_load']['VmRSS']} | "
            f"{rounds} | {peak} |"
        )
    lines += [
        "",
        "Watchers and data (first round): streams that delivered their first view (by "
        "player token / by API key) and were still open at the memory reading; one "
        "move in a watched game and the streams on that game that delivered it; the "
        "time to open them all and each one's first view while they open; the "
        "database's size after seeding and the seeding time (write path + row copies).",
        "",
        "| database | games stored | status | opened (token/key) | open at reading | "
        "move delivered | open s | first view p50/p99 ms | DB MB | seeding s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["results"]:
        w = r["watchers"]
        probe = w["live_probe"]
        status = ", ".join(f"{k} {v}" for k, v in sorted(r["status"].items()))
        delivered = f"{probe['delivered']}/{probe['streams']}" if probe["checked"] else "-"
        lines.append(
            f"| {r['database']} | {r['games_stored']:,} | {status} | "
            f"{w['opened']} ({w['by_player_token']}/{w['by_api_key']}) | "
            f"{w['still_open_at_reading']} | {delivered} | {w['open_seconds']} | "
            f"{w['first_view_p50_ms']}/{w['first_view_p99_ms']} | "
            f"{r['database_bytes'] / MB:.1f} | {r['seed_seconds']} + {r['copy_seconds']} |"
        )
    lines += [
        "",
        "Fan-out (first round, with every watcher open): watched games in progress "
        "moved one after the other; for each stream on the moved game, the time from "
        "the mover's acknowledgement to that stream's delivery of the new version. "
        "SubmitMove p99 as a ratio to the smallest size's on the same database, in "
        f"the same run. Change feed: {s.get('change_feed') or 'NOTIFY (the default)'}.",
        "",
        "| database | games stored | games moved | streams delivered / timed | "
        "fan-out p50 ms | fan-out p99 ms | SubmitMove p99 / smallest size's |",
        "|---|---|---|---|---|---|---|",
    ]
    smallest: dict[str, float] = {}
    for r in sorted(report["results"], key=lambda r: r["games_stored"]):
        smallest.setdefault(r["database"], r["load"]["submit_p99_ms"] or 0.0)
    for r in report["results"]:
        f = r["watchers"].get("fanout", {})
        base = smallest.get(r["database"]) or 0.0
        ratio = f"{r['load']['submit_p99_ms'] / base:.2f}" if base else "-"
        lines.append(
            f"| {r['database']} | {r['games_stored']:,} | {f.get('games', '-')} | "
            f"{f.get('delivered', '-')}/{f.get('streams', '-')} | {f.get('delay_p50_ms')} | "
            f"{f.get('delay_p99_ms')} | {ratio} |"
        )
    problems = [
        f"{r['database']} {r['games_stored']}: {p}" for r in report["results"] for p in _problems(r)
    ]
    if problems:
        lines += ["", "Problems seen:", ""] + [f"- {p}" for p in problems]
    text = "\n".join(lines) + "\n"
    (out / "scale.md").write_text(text)
    return text


def _source_note(source: dict[str, Any]) -> str:
    if source.get("outside_work_tree"):
        return f" (the server's code imported from {source['tranca_from']})"
    if source.get("modified_since_commit"):
        n = len(source["modified_since_commit"])
        return f" with {n} server files changed since it (listed in scale.json)"
    return ""


def _problems(r: dict[str, Any]) -> list[str]:
    """What a reader should not miss: failed checks, errors."""
    out = []
    w = r["watchers"]
    for n, rnd in enumerate(r.get("watch_rounds", [])[1:], start=2):
        if rnd["opened"] < w["requested"] or rnd["still_open_at_reading"] < rnd["opened"]:
            out.append(
                f"round {n}: {rnd['opened']} streams opened, {rnd['still_open_at_reading']} open"
            )
    if w["opened"] < w["requested"]:
        out.append(f"{w['requested'] - w['opened']} watch streams did not open: {w['errors']}")
    if w["still_open_at_reading"] < w["opened"]:
        out.append(f"only {w['still_open_at_reading']} of {w['opened']} streams stayed open")
    probe = w["live_probe"]
    if probe["checked"] and probe["delivered"] < probe["streams"]:
        out.append(
            f"the probe move reached {probe['delivered']} of {probe['streams']} streams"
            + (f" ({probe['error']})" if probe.get("error") else "")
        )
    load = r["load"]
    if load["exit_code"] != 0:
        out.append(f"loadtest verification failed: {load['verification']}")
    if load["errors"]:
        out.append(f"loadtest errors: {load['errors']}")
    return out


async def run(opts: Options) -> dict[str, Any]:
    # What is about to run, read before it runs: the work tree may move on meanwhile.
    source = source_state()
    commit = machine()["commit"]
    results = []
    for database in opts.databases:
        for size in opts.sizes:
            print(f"{database}: {size} games ...", file=sys.stderr, flush=True)
            r = await measure_size(size, database, opts)
            mem = r["memory_mb"]
            print(
                f"  RSS idle {mem['idle']['VmRSS']} MB, warm {mem['after_warmup']['VmRSS']}, "
                f"watchers {mem['with_watchers']['VmRSS']} ({r['watchers']['opened']} open); "
                f"{r['load']['moves_per_second']} moves/s, SubmitMove p50 "
                f"{r['load']['submit_p50_ms']} ms p99 {r['load']['submit_p99_ms']} ms",
                file=sys.stderr,
                flush=True,
            )
            results.append(r)
    return {
        "benchmark": "scale",
        "command": _command(),
        "sizes": opts.sizes,
        "databases": [d if d == SQLITE else "postgresql" for d in opts.databases],
        "settings": {
            k: v for k, v in vars(opts).items() if k not in ("sizes", "databases", "log_dir")
        },
        "machine": _machine_at_end(commit),
        "source": source,
        "results": results,
    }


def _machine_at_end(commit: str) -> dict[str, Any]:
    """The machine as the run leaves it (load average, date), with the commit that
    was checked out when it started."""
    m: dict[str, Any] = machine()
    if m["commit"] != commit:
        m["commit_at_end"] = m["commit"]
    m["commit"] = commit
    return m


def parse_args(argv: list[str] | None = None) -> tuple[Options, Path]:
    d = Options()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", default="bench/results")
    p.add_argument("--sizes", default="10,1000,10000", help="stored-game counts, comma-separated")
    p.add_argument(
        "--database-url",
        action="append",
        default=None,
        help="'sqlite' (a temporary file, the default) or a PostgreSQL URL whose server "
        "hosts a throwaway database per size; repeatable",
    )
    p.add_argument("--templates", type=int, default=d.templates)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--warmup-requests", type=int, default=d.warmup_requests)
    p.add_argument("--load-games", type=int, default=d.load_games)
    p.add_argument("--load-seconds", type=float, default=d.load_seconds)
    p.add_argument("--load-warmup", type=float, default=d.load_warmup)
    p.add_argument("--watchers", type=int, default=d.watchers)
    p.add_argument("--watch-channels", type=int, default=d.watch_channels)
    p.add_argument("--watch-concurrency", type=int, default=d.watch_concurrency)
    p.add_argument("--watch-rounds", type=int, default=d.watch_rounds)
    p.add_argument("--settle-seconds", type=float, default=d.settle_seconds)
    p.add_argument("--log-dir", default="", help="keep the server logs here")
    p.add_argument(
        "--change-feed",
        default="",
        help="the server's --change-feed (nats://127.0.0.1:4222); default: NOTIFY",
    )
    p.add_argument("--fanout-games", type=int, default=d.fanout_games)
    a = p.parse_args(argv)
    try:
        sizes = [int(s.replace("_", "")) for s in a.sizes.split(",") if s.strip()]
    except ValueError:
        p.error("--sizes: comma-separated integers")
    if not sizes or min(sizes) < 1 or max(sizes) > 1_000_000:
        p.error("--sizes: between 1 and 1,000,000 games")
    if a.templates < 1 or a.watchers < 0:
        p.error("--templates must be 1 or more and --watchers 0 or more")
    opts = Options(
        sizes=sizes,
        databases=a.database_url or [SQLITE],
        templates=a.templates,
        seed=a.seed,
        warmup_requests=a.warmup_requests,
        load_games=a.load_games,
        load_seconds=a.load_seconds,
        load_warmup=a.load_warmup,
        watchers=a.watchers,
        watch_channels=a.watch_channels,
        watch_concurrency=a.watch_concurrency,
        watch_rounds=a.watch_rounds,
        settle_seconds=a.settle_seconds,
        log_dir=a.log_dir,
        change_feed=a.change_feed,
        fanout_games=a.fanout_games,
    )
    return opts, Path(a.out)


def main(argv: list[str] | None = None) -> int:
    opts, out = parse_args(argv)
    report = asyncio.run(run(opts))
    print(write_report(report, out))
    return 1 if any(_problems(r) for r in report["results"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
