"""Fixtures of the notifications' end-to-end tests: the service's (databases, a
started server, a test client), a server that delivers webhooks on a short clock,
and a real HTTP receiver."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import grpc
import pytest

from tests.harness.servers import app_client, running_server, server_config
from tests.server.conftest import Client, db_url, pg_url, sqlite_template, sqlite_url  # noqa: F401
from tests.usecases.fakes import FakeResolver
from tranca.server import Running
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import notifications_pb2_grpc as npb_grpc

from .receiver import HookReceiver

# Deliveries attempted every 50 ms, a POST given 0.5 s, retried after 50 ms (then
# 100, 200...), six attempts before a delivery fails.
FAST = {
    "webhook_interval": 0.05,
    "webhook_timeout": 0.5,
    "webhook_backoff": 0.05,
    "webhook_attempts": 6,
}
# The receivers listen on loopback: the operator's allow-list lets deliveries reach
# it, and the development flag lets them use plain http (a default server refuses
# both: test_outbound.py).
LOOPBACK_RECEIVERS = {"outbound_allow": "127.0.0.1/32", "outbound_allow_http": True}


@pytest.fixture
def names() -> FakeResolver:
    """The hook server's resolver: host names the test maps to addresses (a receiver
    at http://127.0.0.1:PORT needs none)."""
    return FakeResolver()


@pytest.fixture
async def hook_server(db_url: str, names: FakeResolver) -> AsyncIterator[Running]:  # noqa: F811
    config = server_config(db_url, **FAST, **LOOPBACK_RECEIVERS)
    async with running_server(config, resolver=names) as running:
        yield running


class NotifyClient(Client):
    def __init__(self, channel: grpc.aio.Channel, api_key: str, running: Running) -> None:
        super().__init__(channel, api_key)
        self.notify = npb_grpc.NotificationServiceStub(channel)
        self.running = running

    async def new_app(self) -> tuple[str, str]:
        """Another app: its id and API key."""
        return await self.running.store.create_app(f"other-{uuid.uuid4().hex[:6]}")

    async def game_with_ids(self, players: list[str], seed: int = 7) -> tuple[str, list[str]]:
        """A started game whose seats have the app's player ids ``players``."""
        created = await self.stub.CreateGame(
            gpb.CreateGameRequest(
                rules=gpb.Rules(preset="tranca-000"), players=len(players), seed=seed
            ),
            metadata=self.app(),
        )
        gid = created.game.game_id
        tokens = []
        for seat, player_id in enumerate(players):
            joined = await self.stub.JoinGame(
                gpb.JoinGameRequest(
                    game_id=gid, seat=seat, player_name=player_id, player_id=player_id
                ),
                metadata=self.app(),
            )
            tokens.append(joined.player_token)
        await self.stub.StartGame(gpb.StartGameRequest(game_id=gid), metadata=self.app())
        return gid, tokens


@pytest.fixture
async def nclient(hook_server: Running) -> AsyncIterator[NotifyClient]:
    async with app_client(hook_server) as made:
        yield NotifyClient(made.channel, made.api_key, hook_server)


@pytest.fixture
async def receiver() -> AsyncIterator[HookReceiver]:
    r = HookReceiver()
    await r.start()
    yield r
    await r.stop()
