"""Schema migrations (Alembic), applied by ``tranca migrate`` and checked at start-up."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from .database import make_engine, reader

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url)
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Apply every migration up to ``revision`` (blocking; not inside a running loop)."""
    command.upgrade(alembic_config(url), revision)


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config("")).get_current_head()
    assert head is not None
    return head


async def current_revision(url: str, *, pgbouncer: bool = False) -> str | None:
    engine = make_engine(url, pgbouncer=pgbouncer)
    try:

        def read(conn: Connection) -> str | None:
            return MigrationContext.configure(conn).get_current_revision()

        # A read: on SQLite it must not wait for the write lock (a busy writer would
        # otherwise hold a starting server up to the busy timeout and fail it).
        async with reader(engine).connect() as conn:
            return await conn.run_sync(read)
    finally:
        await engine.dispose()


async def is_up_to_date(url: str, *, pgbouncer: bool = False) -> bool:
    return await current_revision(url, pgbouncer=pgbouncer) == head_revision()


async def upgrade_async(url: str) -> None:
    """``upgrade`` from inside an event loop (Alembic's env runs its own loop)."""
    await asyncio.to_thread(upgrade, url)
