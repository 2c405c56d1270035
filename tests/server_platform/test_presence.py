"""A client calling Heartbeat in a loop writes a seat's presence about once a second,
not once per call: on SQLite every write takes the one writer the moves need."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from tests.server.conftest import Client
from tranca.server import Running
from tranca.v1 import game_pb2 as pb


async def last_seen(server: Running, gid: str) -> int:
    async with server.store.engine.connect() as conn:
        row = (
            await conn.execute(
                text("SELECT last_seen_ms FROM seat_presence WHERE game_id = :g AND seat = 0"),
                {"g": gid},
            )
        ).first()
    assert row is not None
    return int(row[0])


async def test_heartbeats_in_a_loop_write_about_once_a_second(
    client: Client, server: Running
) -> None:
    gid, tokens = await client.new_game(table=pb.TableOptions(robot_grace_seconds=60))
    beat = pb.HeartbeatRequest(game_id=gid)
    await client.stub.Heartbeat(beat, metadata=client.player(tokens[0]))
    first = await last_seen(server, gid)
    for _ in range(10):
        await client.stub.Heartbeat(beat, metadata=client.player(tokens[0]))
    assert await last_seen(server, gid) == first
    await asyncio.sleep(1.05)
    await client.stub.Heartbeat(beat, metadata=client.player(tokens[0]))
    assert await last_seen(server, gid) >= first + 1000
