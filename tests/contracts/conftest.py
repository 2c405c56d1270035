"""The stores a contract case runs on: the in-memory fake of tests/usecases/fakes,
SQLite and PostgreSQL, each behind the same few ports, so that one case proves the
fake behaves as the databases do."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.harness.databases import pg_database, sqlite_database
from tests.usecases.fakes import (
    IdentitiesMemory,
    InMemoryRepository,
    PlayersMemory,
    ProfilesMemory,
)
from tranca.store.database import make_engine
from tranca.store.identities_store import IdentitiesStore
from tranca.store.notifications_store import NotificationsStore
from tranca.store.players_store import PlayersStore
from tranca.store.profiles_store import ProfilesStore
from tranca.store.repository import Store
from tranca.store.sessions_store import SessionsStore


@dataclass
class Backend:
    """One store behind the ports the cases use: ``games`` (GameRepository and the
    credentials' reads), ``notes`` (webhooks), ``sessions`` (app policies), ``players``
    (chip grants), ``identities`` (identities linked to players, spent tokens),
    ``profiles`` (players' profiles)."""

    name: str
    games: Any
    notes: Any
    sessions: Any
    players: Any
    _new_app: Any
    identities: Any = None
    profiles: Any = None

    async def new_app(self, permissions: frozenset[str] = frozenset()) -> tuple[str, str]:
        """A new app's id and API key."""
        made: tuple[str, str] = await self._new_app(f"contract-{uuid.uuid4().hex[:6]}", permissions)
        return made


@pytest.fixture(scope="session")
def contract_sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return sqlite_database(tmp_path_factory.mktemp("contracts") / "tranca.db")


@pytest.fixture(scope="session")
def contract_pg_url() -> Iterator[str]:
    yield from pg_database()


def _fake() -> Backend:
    repo = InMemoryRepository()

    async def new_app(name: str, permissions: frozenset[str]) -> tuple[str, str]:
        app, key = repo.add_app(name, permissions)
        return app.id, key

    return Backend(
        "fake",
        repo,
        repo,
        repo,
        PlayersMemory(repo.chips),
        new_app,
        IdentitiesMemory(),
        ProfilesMemory(repo.sessions),
    )


@pytest.fixture(params=["fake", "sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest) -> str:
    """The database's URL, or "" for the fake (outside any event loop: creating and
    migrating a database runs one of its own)."""
    if request.param == "fake":
        return ""
    fixture = "contract_sqlite_url" if request.param == "sqlite" else "contract_pg_url"
    return str(request.getfixturevalue(fixture))


@pytest.fixture
async def backend(store_url: str) -> AsyncIterator[Backend]:
    if not store_url:
        yield _fake()
        return
    store = Store(make_engine(store_url))
    try:
        yield Backend(
            store_url.split(":", 1)[0],
            store,
            NotificationsStore(store),
            SessionsStore(store),
            PlayersStore(store),
            store.create_app,
            IdentitiesStore(store),
            ProfilesStore(store),
        )
    finally:
        await store.close()
