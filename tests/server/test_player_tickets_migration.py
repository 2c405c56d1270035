"""Migration 0011 on a database with quick-play tickets already stored, on SQLite and
PostgreSQL: every player of every ticket (both partners of a party) finds it among
their tickets, newest first, as ListQuickPlayTickets reads them."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.server.conftest import PG_ADMIN, _pg_admin
from tranca.store import migrate
from tranca.store.database import make_engine
from tranca.store.quick_play_store import QuickPlayStore
from tranca.store.repository import Store

BEFORE = "0010"  # the revision before player_tickets


@pytest.fixture(params=["sqlite", "postgres"])
def db_before(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'before.db'}"
        migrate.upgrade(url, BEFORE)
        yield url
        return
    name = f"tranca_test_{uuid.uuid4().hex[:10]}"
    try:
        asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        pytest.skip(f"PostgreSQL unreachable: {exc}")
    url = f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}"
    try:
        migrate.upgrade(url, BEFORE)
        yield url
    finally:
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


TICKET = text(
    "INSERT INTO match_tickets (id, app_id, player_ids, display_names, preset, players,"
    " competitive, stake, rating, robots_after_ms, turn_seconds, status, reason,"
    " created_ms, ended_ms, game_id, seats, request_id) VALUES (:id, 'a', :players,"
    " :players, 'tranca-000', 4, false, 0, 25.0, 0, 60, :status, '', :created, NULL,"
    " NULL, NULL, NULL)"
)


async def test_tickets_stored_before_are_listed_for_each_of_their_players(
    db_before: str,
) -> None:
    engine = make_engine(db_before)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO apps (id, name, key_hash, permissions, revoked)"
                    " VALUES ('a', 'a', 'h', '', false)"
                )
            )
            for ticket_id, players, status, created in [
                ("a1", '["ana","bia"]', "cancelled", 1000),
                ("a2", '["ana"]', "waiting", 2000),
                ("c1", '["cai"]', "waiting", 1500),
            ]:
                await conn.execute(
                    TICKET,
                    {"id": ticket_id, "players": players, "status": status, "created": created},
                )
    finally:
        await engine.dispose()
    await asyncio.to_thread(migrate.upgrade, db_before)
    store = Store(make_engine(db_before))
    try:
        tickets = QuickPlayStore(store)

        async def listed(player: str) -> list[str]:
            return [t.id for t in await tickets.player_tickets("a", player, None, 10)]

        assert await listed("ana") == ["a2", "a1"]
        assert await listed("bia") == ["a1"]
        assert await listed("cai") == ["c1"]
    finally:
        await store.close()
