"""A replica LISTENs for other replicas' hints only while it has watch streams open
(store/hints.py): a replica serving no watchers is not woken by every move of the
service, and a watcher still sees another replica's moves at once, by hint."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest

from tests.server.conftest import Client, move_first_legal
from tranca.server import Running
from tranca.services import watch as games_service
from tranca.v1 import game_pb2 as pb


async def test_a_replica_listens_while_it_has_watchers_and_hints_reach_them(
    replicas: list[Running], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Watchers' timer out of reach: only a hint can bring them a move in time.
    monkeypatch.setattr(games_service, "WATCH_POLL_SECONDS", 300.0)
    mover, watching = replicas
    assert watching.listener is not None
    watching.listener.linger = 0.3
    hub = watching.listener.hub
    hints: list[str] = []
    publish = hub.publish

    def noted(game_id: str, version: int | None = None) -> None:
        hints.append(game_id)
        publish(game_id, version)

    monkeypatch.setattr(hub, "publish", noted)

    _, key = await mover.store.create_app(f"t-{uuid.uuid4().hex[:6]}")
    async with (
        grpc.aio.insecure_channel(f"127.0.0.1:{mover.port}") as ch0,
        grpc.aio.insecure_channel(f"127.0.0.1:{watching.port}") as ch1,
    ):
        players, watcher = Client(ch0, key), Client(ch1, key)
        gid, tokens = await players.new_game()
        await move_first_legal(players, gid, tokens)
        await asyncio.sleep(0.3)
        # No watchers here: not listening, and the move hinted nothing here.
        assert not hub.listening.is_set() and hints == []

        watch = watcher.stub.WatchGame(
            pb.WatchGameRequest(game_id=gid), metadata=watcher.player(tokens[0])
        )
        updates = aiter(watch)
        first = await asyncio.wait_for(anext(updates), 10)
        await asyncio.wait_for(hub.listening.wait(), 10)
        # The LISTEN's start wakes the watcher to re-read the log, which may bring it
        # this first move without a hint; the next one can come by hint only.
        version = await move_first_legal(players, gid, tokens)
        update = await asyncio.wait_for(anext(updates), 30)
        assert update.move.version == version == first.view.version + 1
        version = await move_first_legal(players, gid, tokens)
        update = await asyncio.wait_for(anext(updates), 30)
        assert update.move.version == version == first.view.version + 2
        assert gid in hints

        watch.cancel()
        for _ in range(100):  # the last watcher gone, the listener stops after linger
            if not hub.listening.is_set():
                break
            await asyncio.sleep(0.05)
        assert not hub.listening.is_set()
        hints.clear()
        await move_first_legal(players, gid, tokens)
        await asyncio.sleep(0.3)
        assert hints == []
