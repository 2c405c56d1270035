"""SQLite on the move path (store/move_path.py): writes run on the event loop, and go to
the dedicated thread only when another connection (another server process) holds
the lock; checkpoints never run on the loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

from tranca.store import migrate
from tranca.store.move_path import GameInsert, MoveWrite
from tranca.store.sqlite import SqliteMovePath


def _game(game_id: str) -> GameInsert:
    return GameInsert(game_id, "app", "playing", "tranca-000", 2, "", "{}", "{}", 2)


def _move(game_id: str, version: int) -> MoveWrite:
    return MoveWrite(game_id, version, "playing", f'{{"v": {version + 1}}}', 0, "{}", None, "t")


async def _database(tmp_path: Path) -> tuple[str, SqliteMovePath]:
    path = tmp_path / "direct.db"
    await asyncio.to_thread(migrate.upgrade, f"sqlite:///{path}")
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO apps (id, name, key_hash, permissions, revoked) VALUES"
        " ('app', 'test', 'h', '', 0)"
    )
    conn.commit()
    conn.close()
    return str(path), SqliteMovePath(str(path), busy_timeout_ms=5000)


async def test_a_write_waits_on_its_thread_while_another_process_holds_the_lock(
    tmp_path: Path,
) -> None:
    path, direct = await _database(tmp_path)
    try:
        await direct.insert_game(_game("g1"))
        # Another "process": a connection holding SQLite's write lock for a while.
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        released = threading.Event()

        def release_later() -> None:
            released.wait(0.3)
            other.execute("COMMIT")

        holder = threading.Thread(target=release_later)
        holder.start()
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while not released.is_set():
                ticks += 1
                await asyncio.sleep(0.01)

        ticking = asyncio.create_task(ticker())
        written = await direct.write_move(_move("g1", 0))
        released.set()
        holder.join()
        await ticking
        assert written
        # The event loop kept running while the write waited for the lock.
        assert ticks >= 5
        row = await direct.game("g1")
        assert row is not None and row.version == 1
        other.close()
    finally:
        await direct.close()


async def test_a_stale_version_writes_nothing(tmp_path: Path) -> None:
    _, direct = await _database(tmp_path)
    try:
        await direct.insert_game(_game("g1"))
        assert await direct.write_move(_move("g1", 0))
        assert not await direct.write_move(_move("g1", 0))  # the game is at 1 now
        row = await direct.game("g1")
        assert row is not None and row.version == 1 and row.snapshot == '{"v": 1}'
    finally:
        await direct.close()


async def test_checkpoints_keep_the_write_ahead_log_bounded(tmp_path: Path) -> None:
    path, direct = await _database(tmp_path)
    try:
        await direct.insert_game(_game("g1"))
        writes = SqliteMovePath.CHECKPOINT_EVERY * 10
        for version in range(writes):
            assert await direct.write_move(_move("g1", version))
        await asyncio.sleep(0.2)  # the last checkpoint finishes on its thread
        # Each write puts at least two pages in the log (the game's and the log
        # row's). Without checkpoints that completed, every one would still be there;
        # with them, the log starts again from its beginning every few hundred writes.
        _, log_frames, _ = (
            sqlite3.connect(path).execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        )
        assert log_frames < writes
    finally:
        await direct.close()
