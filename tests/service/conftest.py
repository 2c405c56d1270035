"""Fixtures for the service tests: a real gRPC server on a real database (a SQLite
file, and a fresh PostgreSQL database on 127.0.0.1:5432), and a small client.

When CI is set the PostgreSQL tests fail, never skip, if PostgreSQL is unreachable.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Any, TypedDict, Unpack

import grpc
import pytest

from tranca.server import Config, Running, start
from tranca.store import migrate
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

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


def _pg_database() -> Iterator[str]:
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


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    yield from _pg_database()


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("db") / "tranca.db"
    url = f"sqlite:///{path}"
    migrate.upgrade(url)
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    name = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return str(request.getfixturevalue(name))


def server_config(database_url: str, **changes: Any) -> Config:
    """A server for the tests: on loopback, any free port, no metrics endpoint, and
    rate limits off (they have tests of their own: test_limits_security.py). A
    database call may wait 15 s rather than 5: a worker's SQLite file is shared by
    every test it runs, and under a loaded 2-core machine a test's call once waited
    over 5 s for the write lock behind a sweep of the matches earlier tests left."""
    settings: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "metrics_port": 0,
        "database_url": database_url,
        "rate_per_token": 0,
        "rate_per_app": 0,
        "db_timeout": 15.0,
    }
    return Config(**{**settings, **changes})


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[Running]:
    running = await start(server_config(db_url))
    yield running
    await running.stop(0.5)


class GameOptions(TypedDict, total=False):
    """The fields of a CreateGameRequest besides its rules, players and seed."""

    deck: Iterable[str]
    spectators_allowed: bool
    label: str
    table: pb.TableOptions


class Client:
    """A test client: one channel, credentials per call."""

    def __init__(self, channel: grpc.aio.Channel, api_key: str) -> None:
        self.stub = pb_grpc.GameServiceStub(channel)
        self.channel = channel
        self.api_key = api_key

    def app(self) -> tuple[tuple[str, str], ...]:
        return (("x-api-key", self.api_key),)

    @staticmethod
    def player(token: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {token}"),)

    async def new_game(
        self,
        preset: str = "tranca-000",
        players: int = 2,
        seed: int = 7,
        **kwargs: Unpack[GameOptions],
    ) -> tuple[str, list[str]]:
        """Create, seat every player and start; returns the game id and the tokens."""
        created = await self.stub.CreateGame(
            pb.CreateGameRequest(
                rules=pb.Rules(preset=preset), players=players, seed=seed, **kwargs
            ),
            metadata=self.app(),
        )
        gid = created.game.game_id
        tokens = []
        for seat in range(players):
            joined = await self.stub.JoinGame(
                pb.JoinGameRequest(game_id=gid, seat=seat, player_name=f"p{seat}"),
                metadata=self.app(),
            )
            tokens.append(joined.player_token)
        await self.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=self.app())
        return gid, tokens


@pytest.fixture
async def client(server: Running) -> AsyncIterator[Client]:
    _, key = await server.store.create_app(
        f"test-{uuid.uuid4().hex[:6]}", frozenset({"fixed_deck"})
    )
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield Client(channel, key)


@pytest.fixture
async def replicas(pg_url: str) -> AsyncIterator[list[Running]]:
    servers = [await start(server_config(pg_url, sweep_interval=0)) for _ in range(2)]
    try:
        yield servers
    finally:
        for s in servers:
            await s.stop(0.2)


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
