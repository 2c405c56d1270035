"""PostgreSQL: the connection pool of the move path, its reads, and the one statement
that writes a change of a game (``WRITE_CHANGE_SQL``). Every statement of the service
that writes ``games`` or ``move_log`` on PostgreSQL is in this module.

The change's statement is run by ``PostgresMovePath`` on its own pool (a move, a join, a
leave: one round trip, atomic without BEGIN/COMMIT), or inside a SQLAlchemy
transaction that writes more rows with it (a staked start's chip postings, a
tournament round's games), through ``run_change`` either way.
"""

from __future__ import annotations

import asyncio
import collections
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection

from ..services.errors import DuplicateRequest
from ..services.ports import Claim
from .codec import dumps
from .errors import ConnectionLost, pg_statement_error, pg_unique_violation
from .move_path import (
    APP_SQL,
    GAME_SQL,
    LOG_SQL,
    SEAT_GAME_SQL,
    AppRow,
    EventWrite,
    GameInsert,
    GameRow,
    MoveWrite,
    SeatRow,
    game_row,
    new_game_values,
)

NOTIFY_CHANNEL = "tranca_games"
# The database's clock in epoch milliseconds (the events' created_at).
NOW_MS = "(extract(epoch FROM now()) * 1000)::bigint"

# A change of a game, in one statement, hence atomic without BEGIN/COMMIT: the update
# happens only at the version read; the log row, and a seat's token added or revoked,
# only if the update happened; one row comes back only if the row was logged. Under
# READ COMMITTED a concurrent writer's update is re-checked against ``version = $2``,
# so of two racing changes exactly one gets a row back.
#
# A change may log several moves (a turn in one request): the first row from $5-$7,
# the rest from the arrays $20 (seats), $21 (actions), $22 (request ids), at the
# versions that follow, and the snapshot ($4) is the state after the last of them at
# $2 + 1 + cardinality($20). With $20 NULL (one move, the usual case) ``unnest``
# yields no row. The hint names the last version only: a watcher reads the log after
# its own version, every row of the turn included. The token branches cost a
# one-time filter when they have nothing to do (a move: $11 and $12 are NULL).
#
# The statement gives back the time its log rows hold (``now()``, the transaction's
# start, the same for every row), in seconds as ``epoch_seconds`` reads the column
# back: the rows' hint carries it (store/hints.py).
#
# The hint names the writing replica ($23, ``PostgresMovePath.origin``; NULL from a
# SQLAlchemy transaction): that replica's listener skips it, because the replica
# hinted its own watchers at the commit, with the rows (store/hints.py).
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
#
# The players' events of the change ($19: a JSON array of {"p": player id, "k": kind,
# "d": payload text}, NULL for none, the usual case) are inserted only if the update
# happened, with the game's app, and each gets its webhook delivery (the outbox row,
# due now) if the app has an enabled webhook: the event, its delivery and the change
# commit together or not at all. With $19 NULL the branches cost a one-time filter.
WRITE_CHANGE_SQL = f"""
WITH updated AS (
    UPDATE games SET version = $2 + 1 + coalesce(cardinality($20::int[]), 0), status = $3,
        snapshot = $4, updated_at = now(),
        deadline_at = CASE WHEN $9 THEN $10::bigint ELSE deadline_at END
    WHERE id = $1 AND version = $2
    RETURNING id, watched_until, app_id, version
), logged AS (
    INSERT INTO move_log (game_id, version, seat, action, request_id, actor, created_at)
    SELECT id, $2 + 1, $5, $6, $7, $8, now() FROM updated
    UNION ALL
    SELECT u.id, $2 + 1 + m.o, m.s, m.a, m.r, $8, now()
    FROM updated AS u,
        unnest($20::int[], $21::text[], $22::varchar[]) WITH ORDINALITY AS m(s, a, r, o)
    RETURNING game_id, version
), revoked AS (
    UPDATE player_tokens SET revoked = true
    WHERE $11::int IS NOT NULL AND game_id = $1 AND seat = $11
        AND EXISTS (SELECT 1 FROM updated)
), seated AS (
    INSERT INTO player_tokens (token_hash, game_id, seat, player_name, revoked, created_at,
        player_id, address, expires_at, session_id)
    SELECT $12::varchar, id, $13, $14, false, now(), $15, $16, $17, $18 FROM updated
    WHERE $12::varchar IS NOT NULL
), events AS (
    INSERT INTO player_events (app_id, player_id, kind, game_id, payload, created_at)
    SELECT u.app_id, e.p, e.k, u.id, e.d, {NOW_MS}
    FROM updated AS u, jsonb_to_recordset($19::jsonb) AS e(p text, k text, d text)
    WHERE $19::jsonb IS NOT NULL
    RETURNING id, app_id, created_at
), outbox AS (
    INSERT INTO webhook_deliveries (event_id, app_id, status, attempts, next_attempt_at)
    SELECT v.id, v.app_id, 'pending', 0, v.created_at
    FROM events AS v JOIN app_webhooks AS w ON w.app_id = v.app_id AND w.enabled
)
SELECT u.version, CASE WHEN u.watched_until >= now()
    THEN pg_notify('{NOTIFY_CHANNEL}',
        u.id || ':' || u.version || coalesce(':' || $23::text, ''))::text END,
    extract(epoch FROM now())::float8
FROM updated AS u WHERE EXISTS (SELECT 1 FROM logged)
"""

INSERT_GAME_SQL = (
    "INSERT INTO games (id, app_id, status, version, preset, players, label, setup,"
    " snapshot, snapshot_schema, invite_hash, owner_id, created_at, updated_at)"
    " VALUES ($1, $2, $3, 0, $4, $5, $6, $7, $8, $9, $10, $11, now(), now())"
)

# A replica's watch leases: each game's ``watched_until`` moved to at least the
# database's clock plus the lease (never shortened: another replica may hold a
# longer one). Neither the version nor ``updated_at`` changes: not a change of the
# game. The rows are locked in the order of their ids (the inner ``FOR UPDATE``),
# whatever plan the update would take, so two replicas renewing overlapping sets
# cannot deadlock.
LEASE_WATCHES_SQL = """
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
CLAIM_SQL = """
UPDATE games AS g SET deadline_at = $2
FROM (
    SELECT id, deadline_at FROM games WHERE deadline_at <= $1
    ORDER BY deadline_at LIMIT $3 FOR UPDATE SKIP LOCKED
) AS due
WHERE g.id = due.id
RETURNING g.id, g.version, due.deadline_at
"""
# A claimed game's next deadline, unless something was written since (its version)
# or another sweep's lease replaced this one.
SET_DEADLINE_SQL = (
    "UPDATE games SET deadline_at = $4::bigint WHERE id = $1 AND version = $2 AND deadline_at = $3"
)
PRESENCE_SQL = (
    "INSERT INTO seat_presence (game_id, seat, last_seen_ms) VALUES ($1, $2, $3)"
    " ON CONFLICT (game_id, seat) DO UPDATE"
    " SET last_seen_ms = GREATEST(seat_presence.last_seen_ms, excluded.last_seen_ms)"
)


def change_args(w: MoveWrite, origin: str | None = None) -> tuple[Any, ...]:
    """``WRITE_CHANGE_SQL``'s parameters for ``w``, written by the replica ``origin``."""
    t = w.new_token
    return (
        w.game_id,
        w.version,
        w.status,
        w.snapshot,
        w.seat,
        w.action,
        w.request_id,
        w.actor,
        w.deadline_set,
        w.deadline_at,
        w.revoke_seat,
        None if t is None else t.token_hash,
        None if t is None else t.seat,
        None if t is None else t.player_name,
        None if t is None else t.player_id,
        None if t is None else t.address,
        None if t is None else t.expires_at,
        None if t is None else t.session_id,
        events_json(w.events) if w.events else None,
        [seat for seat, _, _ in w.then] if w.then else None,
        [action for _, action, _ in w.then] if w.then else None,
        [request_id for _, _, request_id in w.then] if w.then else None,
        origin,
    )


def events_json(events: Sequence[EventWrite]) -> str:
    """A change's events as ``WRITE_CHANGE_SQL``'s $19 reads them."""
    return dumps([{"p": p, "k": k, "d": d} for p, k, d in events])


async def run_change(
    conn: AsyncConnection, w: MoveWrite, origin: str | None = None
) -> float | None:
    """``WRITE_CHANGE_SQL`` inside the caller's SQLAlchemy transaction (a change written
    with more rows): the time its log rows carry if written, None if the game moved
    on. ``origin``: the replica that hints its own watchers after the commit (the
    move path's staked changes); None where nothing does (quick play's and
    tournaments' tables, hinted by their NOTIFY alone)."""
    try:
        result = await conn.exec_driver_sql(WRITE_CHANGE_SQL, change_args(w, origin))
    except Exception as exc:
        if pg_unique_violation(exc):
            raise DuplicateRequest(str(exc)) from exc
        raise
    row: Any = result.first()  # version, the hint, the time logged
    return None if row is None else float(row[2])


async def insert_game_in(conn: AsyncConnection, g: GameInsert) -> None:
    """A new game's row inside the caller's SQLAlchemy transaction."""
    await conn.exec_driver_sql(INSERT_GAME_SQL, new_game_values(g))


# Settling a finished match sets its flag, once (store/settlement.py): only games still
# finished and unsettled, so a game another replica settled meanwhile is left alone.
MARK_SETTLED_SQL = (
    "UPDATE games SET settled = true"
    " WHERE id = ANY($1::varchar[]) AND status = 'finished' AND NOT settled"
    " RETURNING id"
)


async def mark_settled(conn: AsyncConnection, game_ids: Sequence[str]) -> list[str]:
    """Set the settled flag of those of ``game_ids`` still finished and unsettled, in
    the caller's SQLAlchemy transaction; the ids it set."""
    result = await conn.exec_driver_sql(MARK_SETTLED_SQL, (list(game_ids),))
    return [str(row[0]) for row in result.all()]


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


class PostgresMovePath:
    """Connections opened on first use (inside the serving event loop)."""

    # The reads of every call, in this driver's placeholders (formatted once).
    LOG = LOG_SQL.format("$1", "$2", "$3")
    SEAT_GAME = SEAT_GAME_SQL.format("$1", "$2")
    GAME = GAME_SQL.format("$1")
    APP = APP_SQL.format("$1")

    def __init__(
        self, url: URL, pool_size: int, statement_timeout_ms: int, *, pgbouncer: bool = False
    ) -> None:
        self._dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._statement_timeout_ms = statement_timeout_ms
        # Through PgBouncer in transaction mode no named statement may be kept: each
        # query is prepared unnamed and bound in its own round trip.
        self._cache: dict[str, Any] = {"statement_cache_size": 0} if pgbouncer else {}
        self._pool = ConnectionPool(self._connect, pool_size)
        # This replica's name in its moves' NOTIFY, which its own listener skips.
        self.origin: str | None = uuid.uuid4().hex[:12]

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
            **self._cache,
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
            broken = not pg_statement_error(exc)
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

    async def fetchrow(self, sql: str, *args: Any) -> Any:
        """One statement of another hot path (chat's post and reads, store/
        chat_store.py) on this pool's connections, prepared once per connection: the
        move path's own cost, not SQLAlchemy's."""
        return await self._fetchrow(sql, *args)

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        """``fetchrow``'s rows."""
        rows: list[Any] = await self._using(lambda conn: conn.fetch(sql, *args))
        return rows

    async def seat_game(self, token_hash: str, now_ms: int) -> SeatRow | None:
        row = await self._fetchrow(self.SEAT_GAME, token_hash, now_ms)
        return None if row is None else SeatRow(*row)

    async def game(self, game_id: str) -> GameRow | None:
        row = await self._fetchrow(self.GAME, game_id)
        return None if row is None else game_row(row)

    async def app(self, key_hash: str) -> AppRow | None:
        row = await self._fetchrow(self.APP, key_hash)
        return None if row is None else AppRow(*row)

    async def insert_game(self, game: GameInsert) -> None:
        await self._using(lambda conn: conn.execute(INSERT_GAME_SQL, *new_game_values(game)))

    async def write_move(self, write: MoveWrite) -> float | None:
        try:
            row = await self._fetchrow(WRITE_CHANGE_SQL, *change_args(write, self.origin))
        except Exception as exc:
            if pg_unique_violation(exc):
                raise DuplicateRequest(str(exc)) from exc
            raise
        return None if row is None else float(row[2])

    async def claim_due(self, now_ms: int, lease_until: int, limit: int) -> list[Claim]:
        rows = await self._using(lambda conn: conn.fetch(CLAIM_SQL, now_ms, lease_until, limit))
        return [Claim(r[0], int(r[1]), int(r[2]), lease_until) for r in rows]

    async def set_deadline(
        self, game_id: str, version: int, held: int, deadline_at: int | None
    ) -> bool:
        done = await self._using(
            lambda conn: conn.execute(SET_DEADLINE_SQL, game_id, version, held, deadline_at)
        )
        return bool(done == "UPDATE 1")

    async def touch_presence(self, game_id: str, seat: int, now_ms: int) -> None:
        await self._using(lambda conn: conn.execute(PRESENCE_SQL, game_id, seat, now_ms))

    async def log_rows(self, game_id: str, after: int, upto: int) -> list[Any]:
        rows: list[Any] = await self._using(lambda conn: conn.fetch(self.LOG, game_id, after, upto))
        return rows

    async def lease_watches(self, game_ids: list[str], seconds: float) -> None:
        ids = list(set(game_ids))
        await self._using(lambda conn: conn.execute(LEASE_WATCHES_SQL, ids, seconds))

    async def close(self) -> None:
        await self._pool.close()
