"""The scale benchmark's databases (bench/scale.py): a fresh one per run (a SQLite
file or a throwaway PostgreSQL database), seeded with many games in realistic
states, most copied from a few played through the Store's write path."""

from __future__ import annotations

import contextlib
import random
import secrets
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

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

from tranca.services.credentials import hash_secret, new_seat_token
from tranca.services.moves import Moves, now_ms
from tranca.services.ports import Committed, NewGame
from tranca.store.database import make_engine, normalise_url
from tranca.store.repository import Store
from tranca.table.game import Action, Setup, new_game, play_action
from tranca_rules.bots import GreedyBot
from tranca_rules.engine import legal_moves
from tranca_rules.presets import make_rules, preset_names

SQLITE = "sqlite"  # --database-url value for a temporary SQLite file


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
