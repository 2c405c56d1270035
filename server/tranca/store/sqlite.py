"""SQLite: the move path's connections, its reads, and the one write of a change of a
game (``change_statements``). Every statement of the service that writes ``games`` or
``move_log`` on SQLite is in this module.

A change is a short IMMEDIATE transaction of its statements, run by ``SqliteMovePath``
on its own connections (``write_change``), or inside a SQLAlchemy transaction that
writes more rows with it (``run_change``): the same statements either way.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from ..services.errors import DuplicateRequest
from ..services.ports import Claim
from .errors import sqlite_busy
from .move_path import (
    APP_SQL,
    GAME_SQL,
    LOG_SQL,
    SEAT_GAME_SQL,
    AppRow,
    GameInsert,
    GameRow,
    MoveWrite,
    SeatRow,
    epoch_seconds,
    game_row,
    new_game_values,
)

Statement = tuple[str, tuple[Any, ...]]

UPDATE_GAME_SQL = (
    "UPDATE games SET version = ?, status = ?, snapshot = ?, updated_at = ?,"
    " deadline_at = CASE WHEN ? THEN ? ELSE deadline_at END"
    " WHERE id = ? AND version = ?"
)
INSERT_LOG_SQL = (
    "INSERT INTO move_log (game_id, version, seat, action, request_id, actor, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
REVOKE_SEAT_SQL = "UPDATE player_tokens SET revoked = 1 WHERE game_id = ? AND seat = ?"
INSERT_TOKEN_SQL = (
    "INSERT INTO player_tokens (token_hash, game_id, seat, player_name, revoked, created_at,"
    " player_id, address, expires_at, session_id)"
    " VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)"
)
# A player's event of the change, with the game's app; then its webhook delivery if
# the app has an enabled webhook (``last_insert_rowid()``: the event just inserted;
# app_webhooks' key is the app, so the SELECT yields one row at most, read before
# the delivery's own insert changes it).
INSERT_EVENT_SQL = (
    "INSERT INTO player_events (app_id, player_id, kind, game_id, payload, created_at)"
    " SELECT app_id, ?, ?, id, ?, ? FROM games WHERE id = ?"
)
INSERT_DELIVERY_SQL = (
    "INSERT INTO webhook_deliveries (event_id, app_id, status, attempts, next_attempt_at)"
    " SELECT last_insert_rowid(), w.app_id, 'pending', 0, ? FROM app_webhooks AS w"
    " WHERE w.app_id = (SELECT app_id FROM games WHERE id = ?) AND w.enabled"
)
INSERT_GAME_SQL = (
    "INSERT INTO games (id, app_id, status, version, preset, players, label, setup,"
    " snapshot, snapshot_schema, invite_hash, owner_id, created_at, updated_at)"
    " VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# The sweeper's claim: a plain read first (most sweeps find nothing due, and need not
# take the write lock for it), then the due games moved to the lease.
ANY_DUE_SQL = "SELECT 1 FROM games WHERE deadline_at <= ? LIMIT 1"
DUE_SQL = (
    "SELECT id, version, deadline_at FROM games WHERE deadline_at <= ? ORDER BY deadline_at LIMIT ?"
)
LEASE_SQL = "UPDATE games SET deadline_at = ? WHERE id = ?"
# A claimed game's next deadline, unless something was written since (its version)
# or another sweep's lease replaced this one.
SET_DEADLINE_SQL = (
    "UPDATE games SET deadline_at = ? WHERE id = ? AND version = ? AND deadline_at = ?"
)
PRESENCE_SQL = (
    "INSERT INTO seat_presence (game_id, seat, last_seen_ms) VALUES (?, ?, ?)"
    " ON CONFLICT (game_id, seat) DO UPDATE"
    " SET last_seen_ms = max(seat_presence.last_seen_ms, excluded.last_seen_ms)"
)


def sqlite_timestamp() -> str:
    """Now, in the text form SQLAlchemy writes and reads for SQLite's DateTime."""
    return datetime.now(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def change_statements(w: MoveWrite, now: str) -> tuple[Statement, list[Statement]]:
    """A change of a game: the compare-and-swap update (it must change one row, or the
    game moved on and nothing is written), then the rest of the change (its log rows,
    one per move of a turn, and what else it writes)."""
    update = (
        UPDATE_GAME_SQL,
        (
            w.new_version,
            w.status,
            w.snapshot,
            now,
            w.deadline_set,
            w.deadline_at,
            w.game_id,
            w.version,
        ),
    )
    rest: list[Statement] = [
        (INSERT_LOG_SQL, (w.game_id, w.version + 1, w.seat, w.action, w.request_id, w.actor, now))
    ]
    # A turn in one request: the moves after the first, each its own row and version.
    for k, (seat, action, request_id) in enumerate(w.then, start=2):
        rest.append(
            (INSERT_LOG_SQL, (w.game_id, w.version + k, seat, action, request_id, w.actor, now))
        )
    if w.revoke_seat is not None:
        rest.append((REVOKE_SEAT_SQL, (w.game_id, w.revoke_seat)))
    if w.new_token is not None:
        t = w.new_token
        rest.append(
            (
                INSERT_TOKEN_SQL,
                (
                    t.token_hash,
                    w.game_id,
                    t.seat,
                    t.player_name,
                    now,
                    t.player_id,
                    t.address,
                    t.expires_at,
                    t.session_id,
                ),
            )
        )
    if w.events:
        ms = epoch_ms()
        for player_id, kind, payload in w.events:
            rest.append((INSERT_EVENT_SQL, (player_id, kind, payload, ms, w.game_id)))
            rest.append((INSERT_DELIVERY_SQL, (ms, w.game_id)))
    return update, rest


def epoch_ms() -> int:
    return int(time.time() * 1000)


def _duplicate(exc: sqlite3.IntegrityError) -> bool:
    """The log's UNIQUE (game_id, request_id), as on PostgreSQL."""
    return "request_id" in str(exc)


async def run_change(
    conn: AsyncConnection, w: MoveWrite, origin: str | None = None
) -> float | None:
    """The change's statements inside the caller's SQLAlchemy transaction (a change
    written with more rows): the time its log rows carry if written, None if the
    game moved on. (``origin`` is PostgreSQL's: no hint crosses processes here.)"""
    now = sqlite_timestamp()
    update, rest = change_statements(w, now)
    try:
        if (await conn.exec_driver_sql(*update)).rowcount != 1:
            return None
        for statement in rest:
            await conn.exec_driver_sql(*statement)
    except Exception as exc:
        cause = getattr(exc, "orig", None)
        if isinstance(cause, sqlite3.IntegrityError) and _duplicate(cause):
            raise DuplicateRequest(str(exc)) from exc
        raise
    return epoch_seconds(now)


async def insert_game_in(conn: AsyncConnection, g: GameInsert) -> None:
    """A new game's row inside the caller's SQLAlchemy transaction."""
    now = sqlite_timestamp()
    await conn.exec_driver_sql(INSERT_GAME_SQL, (*new_game_values(g), now, now))


# Settling a finished match sets its flag, once (store/settlement.py): only games still
# finished and unsettled, so a game another process settled meanwhile is left alone.
MARK_SETTLED_SQL = (
    "UPDATE games SET settled = 1"
    " WHERE id IN ({}) AND status = 'finished' AND settled = 0"
    " RETURNING id"
)


async def mark_settled(conn: AsyncConnection, game_ids: Sequence[str]) -> list[str]:
    """Set the settled flag of those of ``game_ids`` still finished and unsettled, in
    the caller's SQLAlchemy transaction; the ids it set."""
    if not game_ids:
        return []
    sql = MARK_SETTLED_SQL.format(", ".join("?" * len(game_ids)))
    result = await conn.exec_driver_sql(sql, tuple(game_ids))
    return [str(row[0]) for row in result.all()]


class SqliteMovePath:
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
    ``CHECKPOINT_EVERY`` writes a checkpoint runs on the dedicated thread, where
    its disk waits block nobody. It is a RESTART checkpoint: while it runs it
    holds off writers (the loop's writes meet the lock and queue on the thread
    behind it, a few milliseconds), so it completes and the log starts again from
    its beginning. A passive one, racing a steady stream of writes, would never
    complete, and the log would grow without bound. Writes made while it runs
    queue on the thread behind it; it waits for readers only briefly (see
    ``_checkpoint``), so a reader that holds on stalls no writer for long.
    """

    CHECKPOINT_EVERY = 200
    LOG = LOG_SQL.format("?", "?", "?")
    SEAT_GAME = SEAT_GAME_SQL.format("?", "?")
    GAME = GAME_SQL.format("?")
    APP = APP_SQL.format("?")

    origin: str | None = None  # no hint crosses processes on SQLite

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

    CHECKPOINT_WAIT_MS = 50

    def _checkpoint(self) -> None:  # on the SQLite thread
        """A RESTART checkpoint that waits at most ``CHECKPOINT_WAIT_MS`` for readers
        (it holds writers off meanwhile); if a reader holds on (a long report, a
        backup tool), a passive one instead, and a full one at the next turn."""
        conn = self._thread_connection()
        conn.execute(f"PRAGMA busy_timeout={self.CHECKPOINT_WAIT_MS}")
        try:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
            if busy:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        finally:
            conn.execute(f"PRAGMA busy_timeout={self._busy_timeout_ms}")

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
    def _seat_game(conn: sqlite3.Connection, token_hash: str, now_ms: int) -> SeatRow | None:
        row = conn.execute(SqliteMovePath.SEAT_GAME, (token_hash, now_ms)).fetchone()
        return None if row is None else SeatRow(*row)

    @staticmethod
    def _game(conn: sqlite3.Connection, game_id: str) -> GameRow | None:
        row = conn.execute(SqliteMovePath.GAME, (game_id,)).fetchone()
        return None if row is None else game_row(row)

    @staticmethod
    def _app(conn: sqlite3.Connection, key_hash: str) -> AppRow | None:
        row = conn.execute(SqliteMovePath.APP, (key_hash,)).fetchone()
        return None if row is None else AppRow(*row)

    @staticmethod
    def _insert_game(conn: sqlite3.Connection, game: GameInsert) -> None:
        now = sqlite_timestamp()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(INSERT_GAME_SQL, (*new_game_values(game), now, now))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @staticmethod
    def _write_move(conn: sqlite3.Connection, w: MoveWrite) -> float | None:
        now = sqlite_timestamp()
        update, rest = change_statements(w, now)
        # IMMEDIATE: take the write lock first, as every writer of the service does.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute(*update).rowcount != 1:
                conn.execute("ROLLBACK")
                return None
            for statement in rest:
                conn.execute(*statement)
            conn.execute("COMMIT")
            return epoch_seconds(now)
        except sqlite3.IntegrityError as exc:
            conn.execute("ROLLBACK")
            if _duplicate(exc):
                raise DuplicateRequest(str(exc)) from exc
            raise
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @staticmethod
    def _claim_due(
        conn: sqlite3.Connection, now_ms: int, lease_until: int, limit: int
    ) -> list[Claim]:
        # Most sweeps find nothing due: a plain read first, so that they do not take
        # the write lock (and hold up moves) for nothing.
        due = conn.execute(ANY_DUE_SQL, (now_ms,)).fetchone()
        if due is None:
            return []
        # One writer at a time on SQLite: the IMMEDIATE transaction is the lock.
        conn.execute("BEGIN IMMEDIATE")
        try:
            rows = conn.execute(DUE_SQL, (now_ms, limit)).fetchall()
            conn.executemany(LEASE_SQL, [(lease_until, r[0]) for r in rows])
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return [Claim(r[0], int(r[1]), int(r[2]), lease_until) for r in rows]

    async def claim_due(self, now_ms: int, lease_until: int, limit: int) -> list[Claim]:
        self._count_write()
        claims: list[Claim] = await self._inline_first(
            lambda conn: self._claim_due(conn, now_ms, lease_until, limit), writes=True
        )
        return claims

    async def set_deadline(
        self, game_id: str, version: int, held: int, deadline_at: int | None
    ) -> bool:
        done = await self._inline_first(
            lambda conn: (
                conn.execute(SET_DEADLINE_SQL, (deadline_at, game_id, version, held)).rowcount
            ),
            writes=True,
        )
        return bool(done == 1)

    async def touch_presence(self, game_id: str, seat: int, now_ms: int) -> None:
        await self._inline_first(
            lambda conn: conn.execute(PRESENCE_SQL, (game_id, seat, now_ms)), writes=True
        )

    async def log_rows(self, game_id: str, after: int, upto: int) -> list[Any]:
        def read(conn: sqlite3.Connection) -> list[Any]:
            return conn.execute(self.LOG, (game_id, after, upto)).fetchall()

        if after == 0:
            # A whole log (a replay) may be long: read on the thread, off the loop. A
            # watch stream's read of what followed its version is a row or two.
            rows: list[Any] = await self._on_thread(lambda: read(self._thread_connection()))
            return rows
        tail: list[Any] = await self._inline_first(read)
        return tail

    async def lease_watches(self, game_ids: list[str], seconds: float) -> None:
        """Nothing: on SQLite no move sends a hint to other processes (a watcher in
        another process catches up on its timer), so there is no hint to keep."""

    async def seat_game(self, token_hash: str, now_ms: int) -> SeatRow | None:
        row: SeatRow | None = await self._inline_first(
            lambda conn: self._seat_game(conn, token_hash, now_ms)
        )
        return row

    async def _inline_first(
        self, work: Callable[[sqlite3.Connection], Any], *, writes: bool = False
    ) -> Any:
        """``work`` on the loop's connection; on the thread's if it would have to wait.
        While a checkpoint is under way, writes queue on the thread behind it rather
        than race it for the lock (a checkpoint that keeps losing would never
        complete)."""
        checkpointing = self._checkpointing is not None and not self._checkpointing.done()
        if not (writes and checkpointing):
            try:
                return work(self._loop_connection())
            except sqlite3.OperationalError as exc:
                if not sqlite_busy(exc):
                    raise
        return await self._on_thread(lambda: work(self._thread_connection()))

    async def write_move(self, write: MoveWrite) -> float | None:
        self._count_write()
        written: float | None = await self._inline_first(
            lambda conn: self._write_move(conn, write), writes=True
        )
        return written

    async def game(self, game_id: str) -> GameRow | None:
        row: GameRow | None = await self._inline_first(lambda conn: self._game(conn, game_id))
        return row

    async def app(self, key_hash: str) -> AppRow | None:
        row: AppRow | None = await self._inline_first(lambda conn: self._app(conn, key_hash))
        return row

    async def insert_game(self, game: GameInsert) -> None:
        self._count_write()
        await self._inline_first(lambda conn: self._insert_game(conn, game), writes=True)

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
