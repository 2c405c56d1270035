"""Database engines: a SQLite file by default, PostgreSQL by URL.

SQLite allows one writer at a time: pysqlite's own BEGIN is switched off and every
transaction starts with ``BEGIN IMMEDIATE``, so a writer takes the lock before it
reads the snapshot it will overwrite (no deadlock between two upgrading readers),
with WAL, ``synchronous=NORMAL`` and a busy timeout.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Insert, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

DEFAULT_URL = "sqlite+aiosqlite:///tranca.db"
READ_ONLY = "tranca_read_only"
BUSY_TIMEOUT_MS = 10_000


def busy_timeout_ms(statement_timeout_ms: int) -> int:
    """How long a SQLite connection waits for another's write lock: at least as long
    as the store lets a call take (``--db-timeout``), so that a write behind a long
    one (a sweep of many finished matches, a large round's games) fails with the
    store's own timeout rather than sooner with "database is locked"."""
    return max(BUSY_TIMEOUT_MS, statement_timeout_ms)


def normalise_url(url: str) -> str:
    """Accept plain ``sqlite:///`` and ``postgresql://`` URLs and pick the async driver."""
    if url.startswith("sqlite:///"):
        return "sqlite+aiosqlite:///" + url[len("sqlite:///") :]
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    return url


def is_sqlite(url: str) -> bool:
    return normalise_url(url).startswith("sqlite")


def make_engine(
    url: str, *, pool_size: int = 10, statement_timeout_ms: int = 5000, pgbouncer: bool = False
) -> AsyncEngine:
    """An engine for ``url``. ``pgbouncer``: the URL is a PgBouncer in transaction
    mode, where consecutive statements of a session may run on different server
    connections: no prepared statement is cached (asyncpg's and SQLAlchemy's
    caches off) and each one prepared gets a unique name, so two clients' statements
    never collide on one server connection (SQLAlchemy's advice for PgBouncer)."""
    url = normalise_url(url)
    if url.startswith("sqlite"):
        # hide_parameters: an error's text (logged with a bug's traceback) must not
        # carry a snapshot (every hand) or a verifiable table's secret.
        busy_ms = busy_timeout_ms(statement_timeout_ms)
        engine = create_async_engine(
            url, connect_args={"timeout": busy_ms / 1000}, hide_parameters=True
        )

        @event.listens_for(engine.sync_engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(engine.sync_engine, "begin")
        def _on_begin(conn: Any) -> None:
            # Reads (see ``reader``) need no write lock; writes take it up front.
            read_only = conn.get_execution_options().get(READ_ONLY, False)
            conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

        return engine
    return create_async_engine(
        url,
        hide_parameters=True,  # as above
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
        pool_timeout=5,
        connect_args={
            "timeout": 5,
            "command_timeout": statement_timeout_ms / 1000,
            "server_settings": {"statement_timeout": str(statement_timeout_ms)},
            **(PGBOUNCER_CONNECT_ARGS if pgbouncer else {}),
        },
    )


def _statement_name() -> str:
    return f"__asyncpg_{uuid.uuid4().hex}__"


# asyncpg's own cache and SQLAlchemy's adapter's cache off, unique statement names.
PGBOUNCER_CONNECT_ARGS: dict[str, Any] = {
    "statement_cache_size": 0,
    "prepared_statement_cache_size": 0,
    "prepared_statement_name_func": _statement_name,
}


def reader(engine: AsyncEngine) -> AsyncEngine:
    """The same engine and pool, for transactions that only read."""
    return engine.execution_options(**{READ_ONLY: True})


def insert_ignoring_duplicates(conn: AsyncConnection, table: Any) -> Insert:
    """INSERT ... ON CONFLICT DO NOTHING, in the connection's dialect."""
    if conn.dialect.name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return sqlite.insert(table).on_conflict_do_nothing()
