"""The store's one error map: what each driver's errors (sqlite3, asyncpg, and
SQLAlchemy's wrappers of both) mean to the service.

An error that means the database cannot serve now (unreachable, restarting, full,
locked for longer than the busy timeout, too slow) becomes ``Unavailable``; a write
that meets the log's unique request id becomes ``DuplicateRequest``; anything else is
a bug and surfaces as it is. Every database call of the store goes through
``Bounded`` (or ``outages_as_unavailable``), and nothing else in the service looks at
a driver's exceptions.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ..services.errors import Unavailable

# SQLite's result codes (the low byte of an extended code) that mean the file cannot
# be used now, as opposed to a statement SQLite refuses.
UNAVAILABLE_SQLITE_CODES = {
    sqlite3.SQLITE_BUSY,
    sqlite3.SQLITE_LOCKED,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_PROTOCOL,
}


class ConnectionLost(ConnectionError):
    """The connection closed while a query was on it."""


def sqlite_unavailable(exc: sqlite3.Error) -> bool:
    """The database file cannot be used now (locked, unreadable, full), as opposed to
    a statement SQLite refuses, which is a bug and must surface as one."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        text = str(exc)
        return any(w in text for w in ("locked", "busy", "unable to open", "disk", "I/O"))
    return code & 0xFF in UNAVAILABLE_SQLITE_CODES


def sqlite_busy(exc: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY: another connection holds the lock (worth waiting for elsewhere)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return bool(code & 0xFF == sqlite3.SQLITE_BUSY)
    return "locked" in str(exc) or "busy" in str(exc)


def pg_statement_error(exc: BaseException) -> bool:
    """An error PostgreSQL raised for the statement itself (a constraint, say), after
    which the connection is idle and sound; not a connection or timeout error."""
    import asyncpg

    if isinstance(exc, asyncpg.PostgresConnectionError | asyncpg.InterfaceError):
        return False
    state = str(getattr(exc, "sqlstate", "") or "")
    if state.startswith(("08", "57")):  # connection exception, operator intervention
        return False
    return isinstance(exc, asyncpg.PostgresError)


def pg_unique_violation(exc: BaseException) -> bool:
    """A unique index refused the row (SQLSTATE 23505), however wrapped."""
    seen: BaseException | None = exc
    for _ in range(4):
        if seen is None:
            return False
        if str(getattr(seen, "sqlstate", "") or getattr(seen, "pgcode", "") or "") == "23505":
            return True
        seen = getattr(seen, "orig", None) or seen.__cause__
    return False


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means the database cannot be reached or answered too slowly
    (as opposed to a bug, which must surface as one)."""
    if isinstance(
        exc,
        OperationalError | InterfaceError | PoolTimeout | OSError | TimeoutError,
    ):
        return True
    if isinstance(exc, sqlite3.Error):
        return sqlite_unavailable(exc)
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    try:
        from asyncpg import exceptions as pg
    except ImportError:  # pragma: no cover - asyncpg is a dependency
        return False
    # asyncpg's own errors arrive as they are (while a pool opens a connection) or
    # wrapped by SQLAlchemy's adapter: look down the chain of causes.
    seen: BaseException | None = exc
    for _ in range(6):
        if seen is None:
            return False
        if isinstance(
            seen,
            pg.PostgresConnectionError
            | pg.CannotConnectNowError
            | pg.InterfaceError
            | pg.AdminShutdownError
            | pg.CrashShutdownError,
        ):
            return True
        # SQLSTATE class 08 (connection exception), 57P (operator intervention), 53
        # (insufficient resources: too many connections, out of memory or disk) and
        # 57014 (the statement timeout): the database cannot serve now.
        state = str(getattr(seen, "sqlstate", "") or getattr(seen, "pgcode", "") or "")
        if state.startswith(("08", "57P", "53")) or state == "57014":
            return True
        seen = getattr(seen, "orig", None) or seen.__cause__ or seen.__context__
    return False


def raise_if_outage(exc: BaseException | None) -> None:
    """``Unavailable`` in place of an error that means the database cannot serve now;
    a bug, or a cancellation (not an ``Exception``), is left to propagate as it is."""
    if isinstance(exc, Exception) and not isinstance(exc, Unavailable) and unavailable(exc):
        raise Unavailable(str(exc) or "database timeout") from exc


class outages_as_unavailable:
    """Errors that mean the database cannot serve now become ``Unavailable``; any
    other error (a bug) surfaces as it is. A class rather than a generator-based
    context manager: it wraps every database call of every move, where the
    generator's creation, ``next`` and ``throw`` cost more than the test itself."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> None:
        raise_if_outage(exc)


class Bounded:
    """A bounded database call: cancelled after ``seconds`` (``asyncio.timeout``),
    its outages raised as ``Unavailable`` (``outages_as_unavailable``). One object
    for both, used by each of a move's two database calls."""

    __slots__ = ("_deadline",)

    def __init__(self, seconds: float) -> None:
        self._deadline = asyncio.timeout(seconds)

    async def __aenter__(self) -> None:
        await self._deadline.__aenter__()

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> None:
        try:
            # Past the deadline the block was cancelled: this raises TimeoutError.
            await self._deadline.__aexit__(kind, exc, tb)
        except Exception as timed_out:
            raise_if_outage(timed_out)
            raise
        raise_if_outage(exc)
