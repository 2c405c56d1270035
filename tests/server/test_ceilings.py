"""The database ceilings of bench/ceilings.py run and count what they wrote.

The PostgreSQL one needs PostgreSQL and pgbench: when CI is set it fails, never
skips, without them (as the service tests' fixtures do).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from bench import ceilings

PG_ADMIN = os.environ.get("TRANCA_TEST_PG", ceilings.PG_ADMIN).replace(
    "postgresql+asyncpg://", "postgresql://"
)


def _need(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"required in CI: {why}")
    pytest.skip(why)


def test_the_snapshot_is_a_game_sized_json_with_a_revision_field() -> None:
    text = ceilings.snapshot_text()
    body = json.loads(text)
    assert body["status"] == "playing" and body["match"]["deal"]
    mark = ceilings.mark_position(text)
    assert text[mark : mark + ceilings.MARK_WIDTH] == "0" * ceilings.MARK_WIDTH
    assert 3000 < len(text.encode()) < 10_000  # a mid-game snapshot, about 5 KB


def test_pgbench_output_is_parsed() -> None:
    out = (
        "number of transactions actually processed: 9262\n"
        "number of failed transactions: 0 (0.000%)\n"
        "latency average = 5.155 ms\n"
        "initial connection time = 16.161 ms\n"
        "tps = 3103.655457 (without initial connection time)\n"
    )
    assert ceilings.parse_pgbench(out) == {
        "tps": 3103.655457,
        "latency_avg_ms": 5.155,
        "transactions": 9262,
        "failed": 0,
    }


def test_sqlite_ceiling_runs_the_move_transaction() -> None:
    result = ceilings.sqlite_ceiling(1.0, games=4)
    assert result["tps"] > 0 and result["transactions"] > 0
    assert result["verified"]  # one version and one log row per transaction


def test_pgbench_ceiling_runs_the_move_transaction() -> None:
    if not Path(ceilings.PGBENCH).exists():
        _need(f"pgbench not found at {ceilings.PGBENCH}")
    why = ceilings.pg_available(PG_ADMIN)
    if why:
        _need(f"PostgreSQL unreachable: {why}")
    result = ceilings.pgbench_ceiling(
        1.0, clients=2, jobs=1, games_per_client=2, admin_url=PG_ADMIN
    )
    assert result["tps"] > 0 and result["transactions"] > 0
    assert result["failed"] == 0 and result["verified"]
