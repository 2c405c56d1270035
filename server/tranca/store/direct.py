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
import collections
import sqlite3
from collections.abc import Awaitable, Callable
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


class ConnectionLost(ConnectionError):
    """The connection closed while a query was on it."""


class ConnectionPool:
    """A minimal pool of asyncpg connections: a stack of idle ones and a queue of
    waiters. asyncpg's own pool spent more CPU per query than the query's own round
    trip (acquire and release through holders, proxies and a reset query); these
    statements leave no session state behind (no LISTEN, SET or advisory lock), so
    a connection goes back as it is, unless it broke or a query on it was cut
    short, in which case it is closed and a new one opened on demand.
    """

    def __init__(self, connect: Callable[[], Awaitable[Any]], size: int) -> None:
        self._connect = connect
        self._size = size
        self._opened = 0
        self._idle: list[Any] = []
        self._waiters: collections.deque[asyncio.Future[Any]] = collections.deque()

    async def acquire(self) -> Any:
        while self._idle:
            conn = self._idle.pop()
            if not conn.is_closed():
                return conn
            # Closed while idle (the database restarted, say): its slot is free again.
            conn.terminate()
            self._opened -= 1
        if self._opened < self._size:
            self._opened += 1
            return await self._open_reserved()
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            conn = await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                # Handed a connection or a slot as we were cancelled: pass it on.
                if waiter.result() is not None:
                    self.release(waiter.result(), broken=False)
                else:
                    self._opened -= 1
                    self._hand_over(None)
            raise
        return conn if conn is not None else await self._open_reserved()

    async def _open_reserved(self) -> Any:
        """Open a connection in a slot already counted in ``_opened``."""
        try:
            return await self._connect()
        except BaseException:
            self._opened -= 1
            self._hand_over(None)
            raise

    def release(self, conn: Any, *, broken: bool) -> None:
        if broken or conn.is_closed():
            conn.terminate()
            self._opened -= 1
            self._hand_over(None)  # a waiter may open a new connection in its place
            return
        self._hand_over(conn)

    def _hand_over(self, conn: Any) -> None:
        """A connection (or, with None, a free slot) to the first live waiter."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                if conn is None:
                    self._opened += 1  # reserved for this waiter
                waiter.set_result(conn)
                return
        if conn is not None:
            self._idle.append(conn)

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            self._opened -= 1
            await conn.close()


class PostgresDirect:
    """Connections opened on first use (inside the serving event loop)."""

    def __init__(self, url: URL, pool_size: int, statement_timeout_ms: int) -> None:
        self._dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._statement_timeout_ms = statement_timeout_ms
        self._pool = ConnectionPool(self._connect, pool_size)

    async def _connect(self) -> Any:
        import asyncpg

        return await asyncpg.connect(
            self._dsn,
            timeout=5,
            command_timeout=self._statement_timeout_ms / 1000,
            server_settings={"statement_timeout": str(self._statement_timeout_ms)},
        )

    async def _fetchrow(self, sql: str, *args: Any) -> Any:
        conn = await self._pool.acquire()
        broken = True
        try:
            row = await conn.fetchrow(sql, *args)
            broken = False
            return row
        except Exception as exc:
            # A statement's own error leaves the connection usable; anything else
            # (a dropped connection, a timeout mid-query) may not have.
            broken = not _statement_error(exc)
            if conn.is_closed() and not isinstance(exc, OSError):
                # The connection went away under the query: asyncpg then reports a
                # driver error of its own (seen: "cannot switch to state"), which
                # means the database is unreachable, not a bug.
                raise ConnectionLost(f"the database connection was lost: {exc}") from exc
            raise
        finally:
            self._pool.release(conn, broken=broken)

    async def seat_game(self, token_hash: str) -> SeatRow | None:
        row = await self._fetchrow(SEAT_GAME_SQL.format("$1"), token_hash)
        return None if row is None else SeatRow(*row)

    async def write_move(self, write: MoveWrite) -> bool:
        import asyncpg

        try:
            row = await self._fetchrow(
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
        await self._pool.close()


def _statement_error(exc: BaseException) -> bool:
    """An error PostgreSQL raised for the statement itself (a constraint, say), after
    which the connection is idle and sound; not a connection or timeout error."""
    import asyncpg

    if isinstance(exc, asyncpg.PostgresConnectionError | asyncpg.InterfaceError):
        return False
    state = str(getattr(exc, "sqlstate", "") or "")
    if state.startswith(("08", "57")):  # connection exception, operator intervention
        return False
    return isinstance(exc, asyncpg.PostgresError)


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

    With WAL and ``synchronous=NORMAL`` a commit does not wait for the disk; only a
    checkpoint does (it syncs the log, copies it into the database and syncs that).
    SQLite would run one inside a commit every 1,000 pages, on the event loop: the
    loop's connection has automatic checkpoints off instead, and every
    ``CHECKPOINT_EVERY`` writes a passive checkpoint runs on the dedicated thread,
    where its disk waits block nobody.
    """

    CHECKPOINT_EVERY = 200

    def __init__(self, path: str, busy_timeout_ms: int) -> None:
        self._path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="tranca-sqlite")
        self._inline: sqlite3.Connection | None = None
        self._waiting: sqlite3.Connection | None = None
        self._writes = 0
        self._checkpointing: asyncio.Future[Any] | None = None

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
            self._inline.execute("PRAGMA wal_autocheckpoint=0")
        return self._inline

    def _checkpoint(self) -> None:  # on the SQLite thread
        self._thread_connection().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def _count_write(self) -> None:
        self._writes += 1
        if self._writes % self.CHECKPOINT_EVERY == 0 and (
            self._checkpointing is None or self._checkpointing.done()
        ):
            loop = asyncio.get_running_loop()
            self._checkpointing = loop.run_in_executor(self._thread, self._checkpoint)
            # Its outcome matters to no caller; a failed checkpoint is retried later.
            self._checkpointing.add_done_callback(_ignore_outcome)

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
        self._count_write()
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


def _ignore_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved, so asyncio does not log it as unhandled


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
