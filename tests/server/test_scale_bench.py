"""The memory and scale benchmark (bench/scale.py) at a tiny size: a seeded
database, a ``tranca serve`` subprocess, a short load run and a few watch streams.
Figures are only checked to exist, never against timings."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from bench import scale
from bench.engine_bench import machine

from tests.server.conftest import PG_ADMIN, _pg_admin

TINY = scale.Options(
    sizes=[10],
    templates=6,  # four games copied by rows: the copying is exercised too
    warmup_requests=20,
    load_games=2,
    load_seconds=1.0,
    load_warmup=0.0,
    watchers=20,
    watch_channels=2,
    settle_seconds=0.2,
)


def _database(kind: str) -> str:
    if kind == "sqlite":
        return scale.SQLITE
    try:
        asyncio.run(_pg_admin("SELECT 1"))
    except Exception as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI and unreachable: {exc}")
        pytest.skip(f"PostgreSQL unreachable: {exc}")
    return PG_ADMIN


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_scale_benchmark_measures_a_tiny_size(kind: str, tmp_path: Path) -> None:
    database = _database(kind)
    result = asyncio.run(scale.measure_size(10, database, TINY))

    assert result["games_stored"] == 10 and result["templates"] == 6
    assert sum(result["status"].values()) == 10 and result["status"].get("playing", 0) > 0
    for stage in ("idle", "after_warmup", "after_load", "with_watchers", "after_watchers_closed"):
        assert result["memory_mb"][stage]["VmRSS"] > 0, stage
    assert result["load"]["moves"] > 0 and result["load"]["exit_code"] == 0
    watchers = result["watchers"]
    assert watchers["requested"] == 20
    assert watchers["opened"] == 20 and watchers["still_open_at_reading"] == 20
    assert watchers["by_player_token"] > 0
    assert watchers["by_player_token"] + watchers["by_api_key"] == 20
    probe = watchers["live_probe"]
    assert probe["checked"] and probe["delivered"] == probe["streams"] > 0

    report = {
        "command": "test",
        "sizes": [10],
        "settings": vars(TINY),
        "machine": machine(),
        "source": scale.source_state(),
        "results": [result],
    }
    text = scale.write_report(report, tmp_path)
    assert (tmp_path / "scale.json").exists() and "| 10 |" in text


def test_a_throwaway_postgresql_database_is_dropped() -> None:
    database = _database("postgres")

    async def check() -> str:
        async with scale.fresh_database(database, Path("/nonexistent")) as db:
            url = db.url
            assert await db.size_bytes() > 0
        return url

    import asyncpg

    url = asyncio.run(check())
    name = url.rsplit("/", 1)[1]

    async def exists() -> bool:
        conn = await asyncpg.connect(PG_ADMIN.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            return bool(await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name))
        finally:
            await conn.close()

    assert not asyncio.run(exists())
