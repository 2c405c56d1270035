"""Fixtures for the service tests: a real gRPC server on a real database (a SQLite
file, and a fresh PostgreSQL database on 127.0.0.1:5432), and a small client.

When CI is set the PostgreSQL tests fail, never skip, if PostgreSQL is unreachable.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.harness.clients import Client as Client
from tests.harness.clients import GameOptions as GameOptions
from tests.harness.databases import PG_ADMIN as PG_ADMIN
from tests.harness.databases import _pg_admin as _pg_admin
from tests.harness.databases import pg_database, sqlite_copy, sqlite_database
from tests.harness.servers import app_client, running_server, running_servers
from tests.harness.servers import server_config as server_config
from tranca.server import Running
from tranca.v1 import game_pb2 as pb

# Client, GameOptions, PG_ADMIN, _pg_admin and server_config are imported from here
# by the service tests (and `import *` by the SDK tests' conftest): kept where they were.


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    yield from pg_database()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file, copied for each test (sqlite_url)."""
    path = tmp_path_factory.mktemp("db") / "template.db"
    sqlite_database(path)
    return path


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A SQLite file of each test's own. A file shared by a worker's tests holds every
    game the earlier ones left, whose sweeps compete for its one write lock: a test's
    first call once waited past its 15 s database timeout behind them."""
    return sqlite_copy(sqlite_template, tmp_path / "tranca.db")


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    name = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return str(request.getfixturevalue(name))


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[Running]:
    async with running_server(server_config(db_url)) as running:
        yield running


@pytest.fixture
async def client(server: Running) -> AsyncIterator[Client]:
    async with app_client(server, features=frozenset({"fixed_deck"})) as made:
        yield made


@pytest.fixture
async def replicas(pg_url: str) -> AsyncIterator[list[Running]]:
    async with running_servers(2, server_config(pg_url, sweep_interval=0)) as servers:
        yield servers


async def move_first_legal(client: Client, gid: str, tokens: list[str]) -> int:
    """The mover's first legal move, submitted; the version it made."""
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    md = client.player(tokens[view.turn])
    legal = await client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md)
    done = await client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid,
            expected_version=legal.version,
            request_id=uuid.uuid4().hex,
            move=legal.moves[0],
        ),
        metadata=md,
    )
    return int(done.version)
