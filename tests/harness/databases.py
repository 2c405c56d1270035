"""Databases for the tests: a migrated SQLite file, and a fresh migrated PostgreSQL
database on 127.0.0.1:5432 (TRANCA_TEST_PG), dropped after use.

When CI is set a PostgreSQL test fails, never skips, if PostgreSQL is unreachable."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tranca.store import migrate

PG_ADMIN = os.environ.get("TRANCA_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


async def _pg_admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(
        PG_ADMIN.replace("postgresql+asyncpg://", "postgresql://"), timeout=5
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def pg_database() -> Iterator[str]:
    """A fresh migrated PostgreSQL database's URL (a fixture's body: it skips, or in CI
    fails, when PostgreSQL is unreachable), dropped once the caller is done."""
    name = f"tranca_test_{uuid.uuid4().hex[:10]}"
    try:
        asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    except (OSError, Exception) as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI and unreachable: {exc}")
        pytest.skip(f"PostgreSQL unreachable: {exc}")
    base = PG_ADMIN.rsplit("/", 1)[0]
    url = f"{base}/{name}"
    migrate.upgrade(url)
    yield url
    asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def sqlite_database(path: Path) -> str:
    """The URL of a migrated SQLite file at ``path``."""
    url = f"sqlite:///{path}"
    migrate.upgrade(url)
    return url


def sqlite_copy(template: Path, path: Path) -> str:
    """The URL of a copy at ``path`` of the migrated SQLite file ``template``: a test's
    own database for the cost of a file copy rather than a migration."""
    with sqlite3.connect(template) as source, sqlite3.connect(path) as target:
        source.backup(target)
    source.close()
    target.close()
    return f"sqlite:///{path}"
