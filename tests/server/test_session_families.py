"""Sessions opened before refresh token families (migration 0010), on SQLite and
PostgreSQL: the upgrade fills in when each opened (ListPlayerSessions' order) from
its creation time; its refresh token, of the older shape, still refreshes it, and
from then on every token of the session carries the family, so that any one spent
ends it; the last token of the older shape, once spent, still does too."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from sqlalchemy import text

from tests.harness.servers import running_server, server_config
from tranca.server import Running
from tranca.services.credentials import hash_secret
from tranca.store import migrate
from tranca.store.database import make_engine
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .api_calls import refused
from .conftest import PG_ADMIN, _pg_admin

Code = grpc.StatusCode
OPENED = "2026-01-02 03:04:05"  # UTC, as the database's clock wrote it
OPENED_MS = 1767323045000


@pytest.fixture(params=["sqlite", "postgres"])
def db_at_0009(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'before.db'}"
        migrate.upgrade(url, "0009")
        yield url
        return
    name = f"tranca_test_{uuid.uuid4().hex[:10]}"
    try:
        asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        pytest.skip(f"PostgreSQL unreachable: {exc}")
    url = f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}"
    try:
        migrate.upgrade(url, "0009")
        yield url
    finally:
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@dataclass(frozen=True)
class Before:
    """What a server before families had handed out: an app's key, a session's
    current refresh token and the one spent before it."""

    api_key: str
    session_id: str
    refresh_token: str
    spent_token: str


def old_refresh_token() -> str:
    return "tr_" + secrets.token_urlsafe(32)


async def _seed(url: str) -> Before:
    before = Before(
        "tk_" + secrets.token_urlsafe(32),
        uuid.uuid4().hex,
        old_refresh_token(),
        old_refresh_token(),
    )
    opened = f"TIMESTAMPTZ '{OPENED}+00'" if url.startswith("postgresql") else f"'{OPENED}'"
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO apps (id, name, key_hash, permissions, revoked, policy)"
                    " VALUES ('oldapp', 'old', :key, '', :no, '{}')"
                ),
                {"key": hash_secret(before.api_key), "no": False},
            )
            await conn.execute(
                text(
                    "INSERT INTO player_sessions (id, app_id, player_id, display_name, kind,"
                    " access_hash, access_expires_at, refresh_hash, refresh_expires_at,"
                    " previous_refresh_hash, refreshed, revoked, address, created_at,"
                    f" last_used_at) VALUES (:id, 'oldapp', 'ana', 'Ana', 'server', :access,"
                    f" 0, :refresh, :forever, :spent, 1, :no, '', {opened}, :used)"
                ),
                {
                    "id": before.session_id,
                    "access": hash_secret("ts_" + secrets.token_urlsafe(32)),
                    "refresh": hash_secret(before.refresh_token),
                    "forever": 2**62,
                    "spent": hash_secret(before.spent_token),
                    "no": False,
                    "used": OPENED_MS + 60_000,
                },
            )
    finally:
        await engine.dispose()
    return before


@pytest.fixture
async def upgraded(db_at_0009: str) -> AsyncIterator[tuple[Running, Before]]:
    before = await _seed(db_at_0009)
    await migrate.upgrade_async(db_at_0009)
    async with running_server(server_config(db_at_0009)) as running:
        yield running, before


async def test_a_session_from_before_families_refreshes_into_one_and_every_spent_token_counts(
    upgraded: tuple[Running, Before],
) -> None:
    running, before = upgraded
    app = (("x-api-key", before.api_key),)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        sessions = spb_grpc.SessionServiceStub(channel)
        games = pb_grpc.GameServiceStub(channel)
        listed = await sessions.ListPlayerSessions(spb.ListPlayerSessionsRequest(), metadata=app)
        assert [(s.session_id, s.created_at_ms) for s in listed.sessions] == [
            (before.session_id, OPENED_MS)
        ]

        async def refresh(token: str) -> spb.PlayerSession:
            done = await sessions.RefreshSession(spb.RefreshSessionRequest(refresh_token=token))
            return done.session

        first = await refresh(before.refresh_token)
        assert first.session_id == before.session_id
        assert first.refresh_token.startswith("tr_") and "." in first.refresh_token
        second = await refresh(first.refresh_token)
        await games.ListGames(
            pb.ListGamesRequest(), metadata=(("authorization", f"Bearer {second.access_token}"),)
        )
        await refused(refresh(first.refresh_token), Code.UNAUTHENTICATED, "REFRESH_TOKEN_REUSED")
        await refused(
            games.ListGames(
                pb.ListGamesRequest(),
                metadata=(("authorization", f"Bearer {second.access_token}"),),
            ),
            Code.UNAUTHENTICATED,
            "BAD_SESSION",
        )
        # The last token of the older shape, spent at the first refresh, says so too.
        await refused(refresh(before.refresh_token), Code.UNAUTHENTICATED, "REFRESH_TOKEN_REUSED")
