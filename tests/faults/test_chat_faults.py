"""Chat under a replica's SIGKILL (issue 39: "a replica SIGKILLed mid-conversation
loses no acknowledged message and delivers none twice"): players write in a lobby
room through two server processes, each message retried with its client id on the
other process until it is acknowledged, while a reader follows the room, resuming
after the last message it received on whichever process is up; one process is
killed mid-conversation and started again. Then every acknowledged message is in
the room once, at the number it was acknowledged with, and the reader received
every message of the room exactly once, in order.

The database is the private PostgreSQL cluster of ``test_faults.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
import pytest
from sqlalchemy import text

from tranca.store.database import make_engine
from tranca.v1 import chat_pb2 as pb
from tranca.v1 import chat_pb2_grpc as pb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .rig import PrivatePostgres, ServerProcess, wait_until
from .test_faults import _api_key, _serving, pg, servers

__all__ = ["pg", "servers"]  # the private cluster and its two server processes, as fixtures

WRITERS = 6
MESSAGES = 8  # each writer's: within an author's burst and a second's rate
LOBBY = pb.ChatRoom(kind=pb.ROOM_KIND_LOBBY, id="main")
RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,
}


@contextlib.asynccontextmanager
async def stubs(servers: list[ServerProcess]) -> AsyncIterator[list[pb_grpc.ChatServiceAsyncStub]]:
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{s.port}") for s in servers]
    try:
        yield [pb_grpc.ChatServiceStub(c) for c in channels]
    finally:
        for c in channels:
            await c.close()


async def test_a_replica_killed_mid_conversation_loses_and_doubles_no_message(
    pg: PrivatePostgres, servers: list[ServerProcess]
) -> None:
    key = await _api_key(pg.url)
    app = (("x-api-key", key),)
    async with stubs(servers) as chat:
        sessions: spb_grpc.SessionServiceAsyncStub = spb_grpc.SessionServiceStub(
            grpc.aio.insecure_channel(f"127.0.0.1:{servers[1].port}")
        )
        tokens = []
        for n in range(WRITERS):
            opened = await sessions.CreatePlayerSession(
                spb.CreatePlayerSessionRequest(player_id=f"w{n}", display_name=f"W{n}"),
                metadata=app,
            )
            tokens.append((("authorization", f"Bearer {opened.session.access_token}"),))
        acked: dict[str, int] = {}  # client id -> the number it was acknowledged with
        retries = 0

        async def write(n: int) -> None:
            nonlocal retries
            for m in range(MESSAGES):
                client_id = f"w{n}-{m}"
                attempt = n + m
                while True:
                    stub = chat[attempt % 2]
                    attempt += 1
                    try:
                        sent = await stub.SendChatMessage(
                            pb.SendChatMessageRequest(
                                room=LOBBY, text=f"{client_id} says hi", client_message_id=client_id
                            ),
                            metadata=tokens[n],
                            timeout=2,
                        )
                    except grpc.aio.AioRpcError as exc:
                        if exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                            await asyncio.sleep(1.0)  # the author's rate, on this process
                            continue
                        assert exc.code() in RETRYABLE, exc
                        retries += 1
                        await asyncio.sleep(0.1)
                        continue
                    acked[client_id] = sent.message.id
                    break
                await asyncio.sleep(0.15)

        received: list[int] = []

        async def read() -> None:
            attempt = 0
            while True:
                stream = chat[attempt % 2].WatchChat(
                    pb.WatchChatRequest(room=LOBBY, after_id=received[-1] if received else 0),
                    metadata=app,
                )
                attempt += 1
                try:
                    async for update in stream:
                        received.append(update.message.id)
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() in RETRYABLE, exc
                    await asyncio.sleep(0.1)
                finally:
                    stream.cancel()

        async def fault() -> None:
            await wait_until(lambda: len(acked) >= WRITERS * MESSAGES // 3, 60, "conversation")
            servers[0].kill()
            await asyncio.sleep(1.0)
            servers[0].start()
            await wait_until(lambda: _serving(servers[0].port), 30, "restarted server")

        reader = asyncio.create_task(read())
        await asyncio.wait_for(asyncio.gather(fault(), *(write(n) for n in range(WRITERS))), 120)
        # The reader catches up (on whichever process), then stops following.
        await wait_until(lambda: len(received) >= len(acked), 30, "the reader")
        await asyncio.sleep(0.5)  # and nothing more (a repeat) arrives
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader

    assert len(acked) == WRITERS * MESSAGES
    engine = make_engine(pg.url)
    try:
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    text(
                        "SELECT client_id, seq FROM chat_messages"
                        " WHERE room = 'lobby:main' AND author_id LIKE 'w%'"
                        " AND app_id = (SELECT app_id FROM player_sessions"
                        "               WHERE player_id = 'w0' ORDER BY created_ms DESC LIMIT 1)"
                    )
                )
            ).all()
    finally:
        await engine.dispose()
    kept = {r.client_id: int(r.seq) for r in rows}
    # Every acknowledged message kept once, at the number it was acknowledged with.
    assert len(rows) == len(kept) == len(acked)
    assert kept == acked
    # The reader got every message once, in order, across the kill.
    assert received == sorted(acked.values())
    if retries == 0:
        pytest.fail("no send was retried: the kill did not land mid-conversation")
