"""``tranca loadtest`` with its server killed under it: the load counts the failures by
status code and goes on, retrying each move with its request id, and still prints its
report and verifies every acknowledged move against the server's move log once a
server answers again; if none does, it lists the moves it could not verify and exits
with 1.

The real command in a subprocess, against ``tranca serve`` in another (tests/faults/
rig.py) on a SQLite file, SIGKILLed mid-run.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tranca.store import migrate
from tranca.store.database import make_engine
from tranca.store.repository import Store

from .rig import SERVING, ServerProcess, health, wait_until


async def _serving(port: int) -> bool:
    return await health(port) == SERVING


def _logged_moves(path: Path) -> int:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
        return int(db.execute("SELECT count(*) FROM move_log").fetchone()[0])


@pytest.fixture
def database(tmp_path: Path) -> tuple[str, Path]:
    path = tmp_path / "load.db"
    url = f"sqlite:///{path}"
    migrate.upgrade(url)
    return url, path


@pytest.fixture
def server(database: tuple[str, Path]) -> Iterator[ServerProcess]:
    proc = ServerProcess(database[0])
    proc.start()
    yield proc
    proc.kill()
    proc.log_path.unlink(missing_ok=True)


async def _api_key(url: str) -> str:
    engine = make_engine(url)
    try:
        _, key = await Store(engine).create_app("loadtest")
    finally:
        await engine.dispose()
    return key


def _loadtest(port: int, key: str, *extra: str) -> subprocess.Popen[str]:
    """The load generator for 10 s: its measured window must outlast a restart (a
    server process takes about 3 s to serve on a loaded 2-core machine)."""
    return subprocess.Popen(
        [
            sys.executable, "-m", "tranca.cli", "loadtest",
            "--address", f"127.0.0.1:{port}", "--api-key", key,
            "--games", "3", "--channels", "2", "--seconds", "10", "--warmup", "0.2",
            "--think-ms", "5", *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


async def _kill_mid_run(server: ServerProcess, path: Path) -> int:
    """Wait for the load to be in its measured window, SIGKILL the server; the number
    of moves logged when it died."""
    await wait_until(lambda: _logged_moves(path) > 0, 30, "the load to make moves")
    await asyncio.sleep(0.5)  # past the 0.2 s warm-up: the failures are counted
    server.kill()
    return _logged_moves(path)


async def test_the_load_goes_on_through_a_server_restart_and_verifies_every_move(
    database: tuple[str, Path], server: ServerProcess
) -> None:
    url, path = database
    await wait_until(lambda: _serving(server.port), 30, "the server to serve")
    load = _loadtest(server.port, await _api_key(url), "--database-url", url)
    try:
        logged_at_kill = await _kill_mid_run(server, path)
        await asyncio.sleep(1.0)
        server.start()  # the same port and database
        out, err = await asyncio.to_thread(load.communicate, timeout=90)
    finally:
        if load.poll() is None:
            load.kill()
    assert "Traceback" not in err, err
    report = json.loads(out)
    assert load.returncode == 0, err
    # The failures were counted by status code, and the calls sent again.
    assert report["errors"].get("UNAVAILABLE", 0) > 0, report["errors"]
    assert report["retries"] > 0
    # The load went on once the server was back.
    assert _logged_moves(path) > logged_at_kill, json.dumps(report)[:3000] + err
    verification = report["verification"]
    assert verification["moves_checked"] >= report["moves"] > 0
    assert verification["lost"] == 0 and verification["doubled"] == 0
    assert verification["moves_unverified"] == 0 and verification["unverified"] == {}
    assert verification["not_rebuilt"] == 0


async def test_with_no_server_back_it_names_the_moves_it_could_not_verify(
    database: tuple[str, Path], server: ServerProcess
) -> None:
    url, path = database
    await wait_until(lambda: _serving(server.port), 30, "the server to serve")
    load = _loadtest(server.port, await _api_key(url), "--verify-wait", "1")
    try:
        logged_at_kill = await _kill_mid_run(server, path)
        out, err = await asyncio.to_thread(load.communicate, timeout=90)
    finally:
        if load.poll() is None:
            load.kill()
    assert "Traceback" not in err, err
    report = json.loads(out)  # the report is printed all the same
    assert load.returncode == 1
    assert report["errors"].get("UNAVAILABLE", 0) > 0
    verification = report["verification"]
    assert verification["moves_checked"] == 0
    unverified = verification["unverified"]
    # Every move the load saw acknowledged is listed, game by game, by its version.
    assert verification["moves_unverified"] == sum(len(v) for v in unverified.values())
    assert 0 < verification["moves_unverified"] <= logged_at_kill
    assert all(versions == sorted(set(versions)) for versions in unverified.values())
    last = err.strip().splitlines()[-1]
    assert last.startswith("tranca loadtest: ") and "could not be verified" in last
