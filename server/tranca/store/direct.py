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
    deadline_at: int | None  # when the sweeper looks at the game next (epoch ms)


@dataclass(frozen=True, slots=True)
class GameRow:
    id: str
    app_id: str
    status: str
    version: int
    label: str
    created_at: float  # seconds since the epoch
    snapshot: str
    setup: str
    deadline_at: int | None = None  # epoch ms


@dataclass(frozen=True, slots=True)
class AppRow:
    id: str
    name: str
    permissions: str


@dataclass(frozen=True, slots=True)
class NewGame:
    id: str
    app_id: str
    status: str
    preset: str
    players: int
    label: str
    setup: str
    snapshot: str
    snapshot_schema: int
    invite_hash: str | None = None  # a private table's, with the row: never without it


@dataclass(frozen=True, slots=True)
class SeatToken:
    """A seat's new player token (its hash), written with the join that takes the seat."""

    token_hash: str
    seat: int
    player_name: str
    player_id: str | None = None  # the app's id for the player
    address: str = ""  # the network address the player joined from
    # When the token stops being valid (epoch ms); every issuer sets it (0 is a token
    # that never works).
    expires_at: int = 0


@dataclass(frozen=True, slots=True)
class MoveWrite:
    """The new snapshot of a game at ``version + 1`` and the log row that made it,
    with, for the rarer actions, a seat's token to add or a seat's tokens to revoke."""

    game_id: str
    version: int  # the version the snapshot was read at (the compare-and-swap guard)
    status: str
    snapshot: str
    seat: int
    action: str
    request_id: str | None
    actor: str
    new_token: SeatToken | None = None
    revoke_seat: int | None = None
    # games.deadline_at, written in the same statement as the move: set to
    # ``deadline_at`` (NULL when None) if ``deadline_set``, else left as it is. Tables
    # without timers never set it (see repository.next_deadline).
    deadline_set: bool = False
    deadline_at: int | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """An overdue game a sweeper claimed: its deadline is now ``lease_until`` (so no
    other replica claims it meanwhile); ``due`` is the deadline that fell due."""

    game_id: str
    version: int
    due: int
    lease_until: int


class DuplicateRequest(Exception):
    """The request id is already in this game's log: the caller looks up its first answer."""


class DirectAccess(Protocol):
    async def seat_game(self, token_hash: str, now_ms: int) -> SeatRow | None:
        """The seat of a token valid at ``now_ms`` and its game's row (SEAT_GAME_SQL)."""
        ...

    async def game(self, game_id: str) -> GameRow | None: ...

    async def app(self, key_hash: str) -> AppRow | None: ...

    async def insert_game(self, game: NewGame) -> None: ...

    async def write_move(self, write: MoveWrite) -> bool:
        """True when written; False when the game is no longer at ``write.version``."""
        ...

    async def claim_due(self, now_ms: int, lease_until: int, limit: int) -> list[Claim]:
        """Up to ``limit`` games whose deadline is at or before ``now_ms``, their
        deadline moved to ``lease_until`` atomically: each is claimed by one caller."""
        ...

    async def set_deadline(
        self, game_id: str, version: int, held: int, deadline_at: int | None
    ) -> bool:
        """The deadline of a claimed game (still at ``version`` and at the lease
        ``held``) set to ``deadline_at``; False when something was written since."""
        ...

    async def touch_presence(self, game_id: str, seat: int, now_ms: int) -> None: ...

    async def lease_watches(self, game_ids: list[str], seconds: float) -> None:
        """Moves of these games hint watchers for ``seconds`` from now (PostgreSQL;
        on SQLite, where no hint crosses processes, nothing)."""
        ...

    async def log_rows(self, game_id: str, after: int, upto: int) -> list[Any]:
        """The game's log rows with ``after < version <= upto``, in order: version,
        seat, action, request id, actor, created_at (as the driver gives it)."""
        ...

    async def close(self) -> None: ...


# The log's rows after a version (a watch stream's read on every hint, a replay's).
LOG_SQL = (
    "SELECT version, seat, action, request_id, actor, created_at FROM move_log"
    " WHERE game_id = {0} AND version > {1} AND version <= {2} ORDER BY version"
)
GAME_SQL = (
    "SELECT id, app_id, status, version, label, created_at, snapshot, setup, deadline_at"
    " FROM games WHERE id = {0}"
)
APP_SQL = "SELECT id, name, permissions FROM apps WHERE key_hash = {0} AND NOT revoked"
INSERT_GAME_SQL = (
    "INSERT INTO games (id, app_id, status, version, preset, players, label, setup,"
    " snapshot, snapshot_schema, invite_hash, created_at, updated_at)"
    " VALUES ({0}, {1}, {2}, 0, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {10})"
)
REVOKE_SEAT_SQL = "UPDATE player_tokens SET revoked = {0} WHERE game_id = {1} AND seat = {2}"
INSERT_TOKEN_SQL = (
    "INSERT INTO player_tokens (token_hash, game_id, seat, player_name, revoked, created_at,"
    " player_id, address, expires_at)"
    " VALUES ({0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8})"
)
PG_WRITE_SQL = (
    "UPDATE games SET version = $2 + 1, status = $3, snapshot = $4, updated_at = now(),"
    " deadline_at = CASE WHEN $5 THEN $6::bigint ELSE deadline_at END"
    " WHERE id = $1 AND version = $2"
)
PG_LOG_SQL = (
    "INSERT INTO move_log (game_id, version, seat, action, request_id, actor, created_at)"
    " VALUES ($1, $2, $3, $4, $5, $6, now())"
)

# A token works while it is not revoked, not expired (``{1}``: now, epoch ms), and its
# game's app is not revoked: revoking an app ends every credential of it at once.
SEAT_GAME_SQL = (
    "SELECT t.game_id, t.seat, t.player_name, g.app_id, g.version, g.snapshot,"
    " g.setup, g.deadline_at"
    " FROM player_tokens t JOIN games g ON g.id = t.game_id JOIN apps a ON a.id = g.app_id"
    " WHERE t.token_hash = {0} AND NOT t.revoked AND t.expires_at > {1} AND NOT a.revoked"
)

# One statement, hence atomic without BEGIN/COMMIT: the update happens only at the
# version read; the log row only if the update happened; one row comes back only if
# the row was logged. Under READ COMMITTED a concurrent writer's update is
# re-checked against ``version = $2``, so of two racing moves exactly one gets a row
# back.
#
# The hint for watchers (a NOTIFY, sent to every listening replica at commit) goes
# only while a replica holds a watch lease on the game (``watched_until``, written
# by store/watch_leases.py): a notifying commit takes a server-wide lock that
# serialises such commits, WAL flush included, which cost about an eighth of the
# move throughput, and many games have no watcher. ``watched_until`` is read from
# the row this statement updated, so it is the latest committed value, whatever
# the statement's snapshot: a lease and a move both lock the row, and either the
# lease committed first (this move hints) or the move did (the watcher, which
# reads the log only after its lease committed, reads this move).
PG_WRITE_MOVE_SQL = f"""
WITH updated AS (
    UPDATE games SET version = $2 + 1, status = $3, snapshot = $4, updated_at = now(),
        deadline_at = CASE WHEN $9 THEN $10::bigint ELSE deadline_at END
    WHERE id = $1 AND version = $2
    RETURNING id, watched_until
), logged AS (
    INSERT INTO move_log (game_id, version, seat, action, request_id, actor, created_at)
    SELECT id, $2 + 1, $5, $6, $7, $8, now() FROM updated
    RETURNING game_id, version
)
SELECT l.version, CASE WHEN u.watched_until >= now()
    THEN pg_notify('{NOTIFY_CHANNEL}', l.game_id || ':' || l.version)::text END
FROM logged AS l, updated AS u
"""

# The hint of a change written in a transaction of several statements (a join, a
# leave, a start): sent in that transaction after its update of the game's row, and
# only under a lease, as ``PG_WRITE_MOVE_SQL``'s. It reads the transaction's own new
# version of the row, which the update built on the latest committed one: so it
# carries every lease committed before the row was locked, and a later lease waits
# for this transaction. ``{0}``: the game id, ``{1}``: the payload.
HINT_IF_WATCHED_SQL = (
    f"SELECT pg_notify('{NOTIFY_CHANNEL}', {{1}}) FROM games"
    " WHERE id = {0} AND watched_until >= now()"
)

# A replica's watch leases: each game's ``watched_until`` moved to at least the
# database's clock plus the lease (never shortened: another replica may hold a
# longer one). Neither the version nor ``updated_at`` changes: not a change of the
# game. The rows are locked in the order of their ids (the inner ``FOR UPDATE``),
# whatever plan the update would take, so two replicas renewing overlapping sets
# cannot deadlock.
PG_LEASE_WATCHES_SQL = """
UPDATE games AS g
SET watched_until = greatest(g.watched_until, now() + make_interval(secs => $2))
FROM (SELECT id FROM games WHERE id = ANY($1::varchar[]) ORDER BY id FOR UPDATE) AS leased
WHERE g.id = leased.id
"""

# The sweeper's claim: overdue games, oldest deadline first, each locked and moved to
# the lease in one statement. SKIP LOCKED: a game another replica is claiming (or a
# move is writing) right now is left to it, so replicas never wait on each other and
# never claim the same game. Under READ COMMITTED the locking read re-checks
# ``deadline_at <= $1`` against a row a concurrent move just committed.
PG_CLAIM_SQL = """
UPDATE games AS g SET deadline_at = $2
FROM (
    SELECT id, deadline_at FROM games WHERE deadline_at <= $1
    ORDER BY deadline_at LIMIT $3 FOR UPDATE SKIP LOCKED
) AS due
WHERE g.id = due.id
RETURNING g.id, g.version, due.deadline_at
"""
SET_DEADLINE_SQL = (
    "UPDATE games SET deadline_at = {0} WHERE id = {1} AND version = {2} AND deadline_at = {3}"
)
PG_PRESENCE_SQL = (
    "INSERT INTO seat_presence (game_id, seat, last_seen_ms) VALUES ($1, $2, $3)"
    " ON CONFLICT (game_id, seat) DO UPDATE"
    " SET last_seen_ms = GREATEST(seat_presence.last_seen_ms, excluded.last_seen_ms)"
)
SQLITE_PRESENCE_SQL = (
    "INSERT INTO seat_presence (game_id, seat, last_seen_ms) VALUES (?, ?, ?)"
    " ON CONFLICT (game_id, seat) DO UPDATE"
    " SET last_seen_ms = max(seat_presence.last_seen_ms, excluded.last_seen_ms)"
)


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

    # The reads of every call, in this driver's placeholders (formatted once).
    LOG = LOG_SQL.format("$1", "$2", "$3")
    SEAT_GAME = SEAT_GAME_SQL.format("$1", "$2")
    GAME = GAME_SQL.format("$1")
    APP = APP_SQL.format("$1")

    def __init__(self, url: URL, pool_size: int, statement_timeout_ms: int) -> None:
        self._dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._statement_timeout_ms = statement_timeout_ms
        self._pool = ConnectionPool(self._connect, pool_size)

    async def _connect(self) -> Any:
        import asyncpg

        # No ``command_timeout``: every call on these connections is already bounded
        # by the store's deadline (``Store._guard``), which cancels the query, and
        # PostgreSQL's own ``statement_timeout`` ends it on the server; asyncpg's
        # would add a third timer to each of a move's two queries.
        return await asyncpg.connect(
            self._dsn,
            timeout=5,
            server_settings={"statement_timeout": str(self._statement_timeout_ms)},
        )

    async def _using(self, work: Callable[[Any], Awaitable[Any]]) -> Any:
        conn = await self._pool.acquire()
        broken = True
        try:
            result = await work(conn)
            broken = False
            return result
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

    async def _fetchrow(self, sql: str, *args: Any) -> Any:
        return await self._using(lambda conn: conn.fetchrow(sql, *args))

    async def seat_game(self, token_hash: str, now_ms: int) -> SeatRow | None:
        row = await self._fetchrow(self.SEAT_GAME, token_hash, now_ms)
        return None if row is None else SeatRow(*row)

    async def game(self, game_id: str) -> GameRow | None:
        row = await self._fetchrow(self.GAME, game_id)
        return None if row is None else _game_row(row)

    async def app(self, key_hash: str) -> AppRow | None:
        row = await self._fetchrow(self.APP, key_hash)
        return None if row is None else AppRow(*row)

    async def insert_game(self, game: NewGame) -> None:
        sql = INSERT_GAME_SQL.format(*(f"${i}" for i in range(1, 11)), "now()")
        await self._using(lambda conn: conn.execute(sql, *_new_game_values(game)))

    async def write_move(self, write: MoveWrite) -> bool:
        import asyncpg

        try:
            if write.new_token is None and write.revoke_seat is None:
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
                    write.deadline_set,
                    write.deadline_at,
                )
                return row is not None
            return bool(await self._using(lambda conn: _pg_write_with_tokens(conn, write)))
        except asyncpg.UniqueViolationError as exc:
            raise DuplicateRequest(str(exc)) from exc

    async def claim_due(self, now_ms: int, lease_until: int, limit: int) -> list[Claim]:
        rows = await self._using(lambda conn: conn.fetch(PG_CLAIM_SQL, now_ms, lease_until, limit))
        return [Claim(r[0], int(r[1]), int(r[2]), lease_until) for r in rows]

    async def set_deadline(
        self, game_id: str, version: int, held: int, deadline_at: int | None
    ) -> bool:
        sql = SET_DEADLINE_SQL.format("$4::bigint", "$1", "$2", "$3")
        done = await self._using(
            lambda conn: conn.execute(sql, game_id, version, held, deadline_at)
        )
        return bool(done == "UPDATE 1")

    async def touch_presence(self, game_id: str, seat: int, now_ms: int) -> None:
        await self._using(lambda conn: conn.execute(PG_PRESENCE_SQL, game_id, seat, now_ms))

    async def log_rows(self, game_id: str, after: int, upto: int) -> list[Any]:
        rows: list[Any] = await self._using(lambda conn: conn.fetch(self.LOG, game_id, after, upto))
        return rows

    async def lease_watches(self, game_ids: list[str], seconds: float) -> None:
        ids = list(set(game_ids))
        await self._using(lambda conn: conn.execute(PG_LEASE_WATCHES_SQL, ids, seconds))

    async def close(self) -> None:
        await self._pool.close()


async def _pg_write_with_tokens(conn: Any, w: MoveWrite) -> bool:
    """A join or a leave: the move's write and a seat's token change, in one
    transaction (rare enough that its several round trips do not matter)."""
    async with conn.transaction():
        done = await conn.execute(
            PG_WRITE_SQL,
            w.game_id,
            w.version,
            w.status,
            w.snapshot,
            w.deadline_set,
            w.deadline_at,
        )
        if done != "UPDATE 1":
            return False
        await conn.execute(
            PG_LOG_SQL, w.game_id, w.version + 1, w.seat, w.action, w.request_id, w.actor
        )
        if w.revoke_seat is not None:
            await conn.execute(REVOKE_SEAT_SQL.format("true", "$1", "$2"), w.game_id, w.revoke_seat)
        if w.new_token is not None:
            t = w.new_token
            await conn.execute(
                INSERT_TOKEN_SQL.format("$1", "$2", "$3", "$4", "false", "now()", "$5", "$6", "$7"),
                t.token_hash,
                w.game_id,
                t.seat,
                t.player_name,
                t.player_id,
                t.address,
                t.expires_at,
            )
        # Delivered to every listening replica only if this transaction commits.
        await conn.execute(
            HINT_IF_WATCHED_SQL.format("$1", "$2"), w.game_id, f"{w.game_id}:{w.version + 1}"
        )
    return True


def _new_game_values(g: NewGame) -> tuple[Any, ...]:
    return (
        g.id,
        g.app_id,
        g.status,
        g.preset,
        g.players,
        g.label,
        g.setup,
        g.snapshot,
        g.snapshot_schema,
        g.invite_hash,
    )


def epoch_seconds(value: Any) -> float:
    """A stored timestamp as seconds since the epoch: asyncpg gives a datetime,
    sqlite3 the text SQLAlchemy wrote (UTC, without a zone)."""
    if value is None:
        return 0.0
    return float(utc_datetime(value).timestamp())


def utc_datetime(value: datetime | str) -> datetime:
    """A stored timestamp with its zone: SQLite gives back the UTC time it was given
    (as text through sqlite3) without its zone."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _game_row(row: Any) -> GameRow:
    return GameRow(
        row[0], row[1], row[2], int(row[3]), row[4], epoch_seconds(row[5]), row[6], row[7], row[8]
    )


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
    return datetime.now(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


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
        row = conn.execute(SqliteDirect.SEAT_GAME, (token_hash, now_ms)).fetchone()
        return None if row is None else SeatRow(*row)

    @staticmethod
    def _game(conn: sqlite3.Connection, game_id: str) -> GameRow | None:
        row = conn.execute(SqliteDirect.GAME, (game_id,)).fetchone()
        return None if row is None else _game_row(row)

    @staticmethod
    def _app(conn: sqlite3.Connection, key_hash: str) -> AppRow | None:
        row = conn.execute(SqliteDirect.APP, (key_hash,)).fetchone()
        return None if row is None else AppRow(*row)

    @staticmethod
    def _insert_game(conn: sqlite3.Connection, game: NewGame) -> None:
        now = sqlite_timestamp()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(INSERT_GAME_SQL.format(*("?" * 11)), (*_new_game_values(game), now, now))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @staticmethod
    def _write_move(conn: sqlite3.Connection, w: MoveWrite) -> bool:
        now = sqlite_timestamp()
        # IMMEDIATE: take the write lock first, as every writer of the service does.
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = conn.execute(
                "UPDATE games SET version = ?, status = ?, snapshot = ?, updated_at = ?,"
                " deadline_at = CASE WHEN ? THEN ? ELSE deadline_at END"
                " WHERE id = ? AND version = ?",
                (
                    w.version + 1,
                    w.status,
                    w.snapshot,
                    now,
                    w.deadline_set,
                    w.deadline_at,
                    w.game_id,
                    w.version,
                ),
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
            if w.revoke_seat is not None:
                conn.execute(REVOKE_SEAT_SQL.format("1", "?", "?"), (w.game_id, w.revoke_seat))
            if w.new_token is not None:
                t = w.new_token
                conn.execute(
                    INSERT_TOKEN_SQL.format("?", "?", "?", "?", "0", "?", "?", "?", "?"),
                    (
                        t.token_hash,
                        w.game_id,
                        t.seat,
                        t.player_name,
                        now,
                        t.player_id,
                        t.address,
                        t.expires_at,
                    ),
                )
            conn.execute("COMMIT")
            return True
        except sqlite3.IntegrityError as exc:
            conn.execute("ROLLBACK")
            if "request_id" in str(exc):  # UNIQUE (game_id, request_id), as on PostgreSQL
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
        due = conn.execute(
            "SELECT 1 FROM games WHERE deadline_at <= ? LIMIT 1", (now_ms,)
        ).fetchone()
        if due is None:
            return []
        # One writer at a time on SQLite: the IMMEDIATE transaction is the lock.
        conn.execute("BEGIN IMMEDIATE")
        try:
            rows = conn.execute(
                "SELECT id, version, deadline_at FROM games WHERE deadline_at <= ?"
                " ORDER BY deadline_at LIMIT ?",
                (now_ms, limit),
            ).fetchall()
            conn.executemany(
                "UPDATE games SET deadline_at = ? WHERE id = ?",
                [(lease_until, r[0]) for r in rows],
            )
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
        sql = SET_DEADLINE_SQL.format("?", "?", "?", "?")
        done = await self._inline_first(
            lambda conn: conn.execute(sql, (deadline_at, game_id, version, held)).rowcount,
            writes=True,
        )
        return bool(done == 1)

    async def touch_presence(self, game_id: str, seat: int, now_ms: int) -> None:
        await self._inline_first(
            lambda conn: conn.execute(SQLITE_PRESENCE_SQL, (game_id, seat, now_ms)), writes=True
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
                if not _busy(exc):
                    raise
        return await self._on_thread(lambda: work(self._thread_connection()))

    async def write_move(self, write: MoveWrite) -> bool:
        self._count_write()
        return bool(
            await self._inline_first(lambda conn: self._write_move(conn, write), writes=True)
        )

    async def game(self, game_id: str) -> GameRow | None:
        row: GameRow | None = await self._inline_first(lambda conn: self._game(conn, game_id))
        return row

    async def app(self, key_hash: str) -> AppRow | None:
        row: AppRow | None = await self._inline_first(lambda conn: self._app(conn, key_hash))
        return row

    async def insert_game(self, game: NewGame) -> None:
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


UNAVAILABLE_SQLITE_CODES = {
    sqlite3.SQLITE_BUSY,
    sqlite3.SQLITE_LOCKED,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_PROTOCOL,
}


def sqlite_unavailable(exc: sqlite3.Error) -> bool:
    """The database file cannot be used now (locked, unreadable, full), as opposed to
    a statement SQLite refuses, which is a bug and must surface as one."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        text = str(exc)
        return any(w in text for w in ("locked", "busy", "unable to open", "disk", "I/O"))
    return code & 0xFF in UNAVAILABLE_SQLITE_CODES


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
