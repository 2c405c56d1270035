"""The chat benchmark (bench/chat_bench.py) end to end at a tiny size: two replicas
on a throwaway PostgreSQL database with a NATS bus of its own, one load process,
four tables, a phase without chat and one with it. Figures are only checked to
exist and add up, never against timings."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from bench import chat_bench

from tests.harness.databases import PG_ADMIN, _pg_admin

from .test_nats_feed import nats_binary


def _postgres() -> str:
    try:
        asyncio.run(_pg_admin("SELECT 1"))
    except Exception as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI and unreachable: {exc}")
        pytest.skip(f"PostgreSQL unreachable: {exc}")
    return PG_ADMIN


def test_the_chat_benchmark_runs_at_a_tiny_size(tmp_path: Path) -> None:
    database = _postgres()
    nats_binary()  # skips without nats-server
    out = tmp_path / "results"
    code = chat_bench.main(
        [
            "--out",
            str(out),
            "--database",
            database.replace("postgresql+asyncpg://", "postgresql://"),
            "--tables",
            "4",
            "--processes",
            "1",
            "--channels",
            "2",
            "--phases",
            "off,on",
            "--phase-seconds",
            "4",
            "--settle",
            "1",
            "--warmup",
            "1",
            "--interval",
            "2",
            "--verify",
        ]
    )
    assert code == 0
    report = json.loads((out / "chat.json").read_text())
    assert report["machine"]["cores"] and report["settings"]["tables"] == 4
    off, on = report["results"]["phases"]
    assert (off["kind"], on["kind"]) == ("off", "on")
    assert off["moves"] > 0 and off["messages_sent"] == 0 and off["deliveries"] == 0
    # Each message answered reaches the table's other three players, once each.
    assert on["messages_sent"] > 0 and 0 < on["deliveries"] <= 3 * on["messages_attempted"]
    assert on["delivery"]["calls"] == on["deliveries"]
    assert set(on["cores"]) == {"replica 0", "replica 1", "postgresql", "nats", "load"}
    (load,) = report["results"]["load_processes"]
    assert load["out_of_order"] == 0
    assert load["verification"]["lost"] == 0 and load["verification"]["doubled"] == 0
    summary = report["results"]["summary"]
    assert summary["on_over_off_median"] is not None
    assert "cost of chat" in (out / "chat.md").read_text()
