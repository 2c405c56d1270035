"""The move path's database access, one level below SQLAlchemy.

A move costs two round trips: one read (the caller's seat and its game's snapshot,
joined on the player token) and one write (the conditional update of the snapshot
and the log row: one statement on PostgreSQL, one short transaction on SQLite).

Why not SQLAlchemy here: profiled under load, Core spent more time building,
caching and adapting each statement than PostgreSQL spent running it, and on
SQLite every statement crossed to aiosqlite's thread and back (docs/PERFORMANCE.md
has the profile). So this path speaks to the drivers with fixed SQL: asyncpg's own
pool on PostgreSQL (each statement is prepared once per connection), and the
standard library's sqlite3 on SQLite, on the event loop itself unless it would have
to wait for another process's lock (see ``SqliteDirect``). The schema stays
SQLAlchemy's and Alembic's; only these statements are written out, and the tests
run them on both databases.
"""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy.engine import URL

NOTIFY_CHANNEL = "tranca_games"


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A player token's seat and its game's current row."""

    game_id: str
    seat: int
    player_name: str
    app_id: str
    version: int
    snapshot: str
    setup: str


@dataclass(frozen=True, slots=True)
class MoveWrite:
    """The new snapshot of a game at ``version + 1`` and the log row that made it."""

    game_id: str
    version: int  # the version the snapshot was read at (the compare-and-swap guard)
    status: str
    snapshot: str
    seat: int
    action: str
    request_id: str | None
    actor: str


class DuplicateRequest(Exception):
    """The request id is already in this game's log: the caller looks up its first answer."""


class DirectAccess(Protocol):
    async def seat_game(self, token_hash: str) -> SeatRow | None: ...

    async def write_move(self, write: MoveWrite) -> bool:
        """True when written; False when the game is no longer at ``write.version``."""
        ...

    async def close(self) -> None: ...


SEAT_GAME_SQL = (
    "SELECT t.game_id, t.seat, t.player_name, g.app_id, g.version, g.snapshot,"
    " g.setup"
    " FROM player_tokens t JOIN games g ON g.id = t.game_id"
    " WHERE t.token_hash = {0} AND NOT t.revoked"
)

# One statement, hence atomic without BEGIN/COMMIT: the update happens only at the
# version read; the log row only if the update happened; the notification (sent to
# every replica's listener at commit) only if the row was logged. Under READ
# COMMITTED a concurrent writer's update is re-checked against ``version = $2``, so
# of two racing moves exactly one gets a row back.
PG_WRITE_MOVE_SQL = f"""
WITH updated AS (
    UPDATE games SET version = $2 + 1, status = $3, snapshot = $4, updated_at = now()
    WHERE id = $1 AND version = $2
    RETURNING id
), logged AS (
    INSERT INTO move_log (game_id, version, seat, action, request_id, actor, created_at)
    SELECT id, $2 + 1, $5, $6, $7, $8, now() FROM updated
    RETURNING game_id, version
)
SELECT pg_notify('{NOTIFY_CHANNEL}', game_id || ':' || version) FROM logged
"""


async def _keep_session(_connection: Any) -> None:
    """These statements leave no session state (no LISTEN, SET or advisory lock), so a
    connection going back to the pool needs no reset query: one round trip saved
    per statement."""


class PostgresDirect:
    """asyncpg's pool, opened on first use (inside the serving event loop)."""

    def __init__(self, url: URL, pool_size: int, statement_timeout_ms: int) -> None:
        self._dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._pool_size = pool_size
        self._statement_timeout_ms = statement_timeout_ms
        self._pool: Any = None
        self._opening = asyncio.Lock()

    async def _get(self) -> Any:
        if self._pool is None:
            async with self._opening:
                if self._pool is None:
                    import asyncpg

                    self._pool = await asyncpg.create_pool(
                        self._dsn,
                        min_size=1,
                        max_size=self._pool_size,
                        timeout=5,
                        command_timeout=self._statement_timeout_ms / 1000,
                        server_settings={"statement_timeout": str(self._statement_timeout_ms)},
                        reset=_keep_session,
                    )
        return self._pool

    async def seat_game(self, token_hash: str) -> SeatRow | None:
        pool = await self._get()
        row = await pool.fetchrow(SEAT_GAME_SQL.format("$1"), token_hash)
        return None if row is None else SeatRow(*row)

    async def write_move(self, write: MoveWrite) -> bool:
        import asyncpg

        pool = await self._get()
        try:
            row = await pool.fetchrow(
                PG_WRITE_MOVE_SQL,
                write.game_id,
                write.version,
                write.status,
                write.snapshot,
                write.seat,
                write.action,
                write.request_id,
                write.actor,
            )
        except asyncpg.UniqueViolationError as exc:
            raise DuplicateRequest(str(exc)) from exc
        return row is not None

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()


def sqlite_timestamp() -> str:
    """Now, in the text form SQLAlchemy writes and reads for SQLite's DateTime."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


class SqliteDirect:
    """SQLite without a thread crossing where none is needed.

    A read of one row and a write of two take tens of microseconds, less than
    handing them to another thread and back (which, under load, also waits for the
    GIL). So each operation first runs on the event loop's own connection, whose
    busy timeout is zero: it never waits there. Only when another writer holds the
    lock (another server process on the same file) does the operation go to a
    dedicated thread whose connection waits with the service's busy timeout.
    Same durability settings as ``database.make_engine``.
    """

    def __init__(self, path: str, busy_timeout_ms: int) -> None:
        self._path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="tranca-sqlite")
        self._inline: sqlite3.Connection | None = None
        self._waiting: sqlite3.Connection | None = None

    def _open(self, busy_timeout_ms: int) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self._path,
            timeout=busy_timeout_ms / 1000,
            isolation_level=None,  # BEGIN is issued explicitly
            check_same_thread=False,
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    def _loop_connection(self) -> sqlite3.Connection:
        if self._inline is None:
            self._inline = self._open(0)
        return self._inline

    def _thread_connection(self) -> sqlite3.Connection:  # on the SQLite thread only
        if self._waiting is None:
            self._waiting = self._open(self._busy_timeout_ms)
        return self._waiting

    async def _on_thread(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

    @staticmethod
    def _seat_game(conn: sqlite3.Connection, token_hash: str) -> SeatRow | None:
        row = conn.execute(SEAT_GAME_SQL.format("?"), (token_hash,)).fetchone()
        return None if row is None else SeatRow(*row)

    @staticmethod
    def _write_move(conn: sqlite3.Connection, w: MoveWrite) -> bool:
        now = sqlite_timestamp()
        # IMMEDIATE: take the write lock first, as every writer of the service does.
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = conn.execute(
                "UPDATE games SET version = ?, status = ?, snapshot = ?, updated_at = ?"
                " WHERE id = ? AND version = ?",
                (w.version + 1, w.status, w.snapshot, now, w.game_id, w.version),
            )
            if done.rowcount != 1:
                conn.execute("ROLLBACK")
                return False
            conn.execute(
                "INSERT INTO move_log"
                " (game_id, version, seat, action, request_id, actor, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (w.game_id, w.version + 1, w.seat, w.action, w.request_id, w.actor, now),
            )
            conn.execute("COMMIT")
            return True
        except sqlite3.IntegrityError as exc:
            conn.execute("ROLLBACK")
            raise DuplicateRequest(str(exc)) from exc
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    async def seat_game(self, token_hash: str) -> SeatRow | None:
        try:
            return self._seat_game(self._loop_connection(), token_hash)
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise
        result: SeatRow | None = await self._on_thread(
            lambda: self._seat_game(self._thread_connection(), token_hash)
        )
        return result

    async def write_move(self, write: MoveWrite) -> bool:
        try:
            return self._write_move(self._loop_connection(), write)
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise
        return bool(
            await self._on_thread(lambda: self._write_move(self._thread_connection(), write))
        )

    def _close_waiting(self) -> None:
        if self._waiting is not None:
            self._waiting.close()
            self._waiting = None

    async def close(self) -> None:
        if self._inline is not None:
            self._inline.close()
            self._inline = None
        # A fresh executor (no thread until used) keeps the object usable and a
        # second close harmless.
        thread, self._thread = (
            self._thread,
            ThreadPoolExecutor(1, thread_name_prefix="tranca-sqlite"),
        )
        await asyncio.get_running_loop().run_in_executor(thread, self._close_waiting)
        thread.shutdown(wait=False)


def _busy(exc: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY: another connection holds the lock (worth waiting for elsewhere)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool(code & 0xFF == sqlite3.SQLITE_BUSY)
    return "locked" in str(exc) or "busy" in str(exc)


def direct_access(
    url: URL, *, pool_size: int, timeout_ms: int, busy_timeout_ms: int
) -> DirectAccess:
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if not database or database == ":memory:":
            raise ValueError("the service needs a SQLite file, not an in-memory database")
        return SqliteDirect(database, busy_timeout_ms)
    return PostgresDirect(url, pool_size, timeout_ms)
