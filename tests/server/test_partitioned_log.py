"""The move log partitioned by game on PostgreSQL (migration 0008): on a database
with games and moves already logged, the upgrade keeps every row, puts each game's
moves in one hash partition, keeps the keys (a request id logged twice is still
refused), and the downgrade brings the plain table back with the same rows."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterator

import asyncpg
import pytest
from alembic import command

from tests.server.conftest import PG_ADMIN, _pg_admin
from tranca.store import migrate

PARTS = "move_log_parts"


@pytest.fixture
def db_at_0007() -> Iterator[str]:
    name = f"tranca_test_{uuid.uuid4().hex[:10]}"
    try:
        asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        pytest.skip(f"PostgreSQL unreachable: {exc}")
    url = f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}"
    try:
        migrate.upgrade(url, "0007")
        yield url
    finally:
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def _seed(url: str, games: int, rng: random.Random) -> set[tuple[object, ...]]:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(
            "INSERT INTO apps (id, name, key_hash, permissions, revoked, created_at)"
            " VALUES ('a', 'a', 'h', '', false, now())"
        )
        rows = []
        for g in range(games):
            gid = uuid.uuid4().hex
            await conn.execute(
                "INSERT INTO games (id, app_id, status, version, preset, players, label,"
                " setup, snapshot, snapshot_schema, created_at, updated_at)"
                " VALUES ($1, 'a', 'playing', 0, 'tranca-000', 2, '', '{}', '{}', 3,"
                " now(), now())",
                gid,
            )
            for v in range(1, rng.randint(1, 12)):
                rid = None if rng.random() < 0.3 else uuid.uuid4().hex
                rows.append((gid, v, v % 2, f'{{"m": {g}}}', rid, "player"))
        await conn.executemany(
            "INSERT INTO move_log (game_id, version, seat, action, request_id, actor)"
            " VALUES ($1, $2, $3, $4, $5, $6)",
            rows,
        )
        return {tuple(r) for r in rows}
    finally:
        await conn.close()


async def _log(url: str) -> set[tuple[object, ...]]:
    conn = await asyncpg.connect(url)
    try:
        got = await conn.fetch(
            "SELECT game_id, version, seat, action, request_id, actor FROM move_log"
        )
        return {tuple(r) for r in got}
    finally:
        await conn.close()


async def _fetch(url: str, sql: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(url)
    try:
        return list(await conn.fetch(sql))
    finally:
        await conn.close()


def test_the_upgrade_partitions_the_log_and_keeps_every_row(db_at_0007: str) -> None:
    url = db_at_0007
    before = asyncio.run(_seed(url, 40, random.Random(7)))
    migrate.upgrade(url)
    assert asyncio.run(_log(url)) == before
    kind = asyncio.run(
        _fetch(url, "SELECT relkind::text AS relkind FROM pg_class WHERE relname = 'move_log'")
    )
    assert [r["relkind"] for r in kind] == ["p"]
    # Every game's moves in exactly one partition, all in the partitions' schema.
    placed = asyncio.run(
        _fetch(
            url,
            "SELECT game_id, count(DISTINCT tableoid::regclass::text) AS parts,"
            " min(tableoid::regclass::text) AS part FROM move_log GROUP BY game_id",
        )
    )
    assert placed and all(r["parts"] == 1 for r in placed)
    assert all(r["part"].startswith(f"{PARTS}.move_log_p") for r in placed)
    assert len({r["part"] for r in placed}) > 1  # spread over several partitions

    # The keys hold across the partitions: the same request id twice in a game fails.
    gid, version, _, _, rid, _ = next(r for r in sorted(before, key=str) if r[4] is not None)

    async def twice() -> None:
        conn = await asyncpg.connect(url)
        try:
            with pytest.raises(asyncpg.UniqueViolationError):
                await conn.execute(
                    "INSERT INTO move_log (game_id, version, seat, action, request_id, actor)"
                    " VALUES ($1, $2, 0, '{}', $3, 'player')",
                    gid,
                    10_000 + int(str(version)),
                    rid,
                )
            with pytest.raises(asyncpg.ForeignKeyViolationError):
                await conn.execute(
                    "INSERT INTO move_log (game_id, version, seat, action, actor)"
                    " VALUES ('no-such-game', 1, 0, '{}', 'player')"
                )
        finally:
            await conn.close()

    asyncio.run(twice())

    command.downgrade(migrate.alembic_config(url), "0007")  # a plain table, same rows
    assert asyncio.run(_log(url)) == before
    kind = asyncio.run(
        _fetch(url, "SELECT relkind::text AS relkind FROM pg_class WHERE relname = 'move_log'")
    )
    assert [r["relkind"] for r in kind] == ["r"]
    migrate.upgrade(url)
    assert asyncio.run(_log(url)) == before
