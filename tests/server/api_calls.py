"""The game service's calls as the API tests make them: creating, joining, moving,
reading, and the reason of a refusal."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable
from typing import Unpack

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from tests.harness.clients import Client, GameOptions
from tranca.v1 import game_pb2 as pb

OK_TIMEOUT = 5.0
Code = grpc.StatusCode
RANKS = "A23456789TJQK"


# ----- helpers ---------------------------------------------------------------------


def error_info(e: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo of a refusal (from the "grpc-status-details-bin" trailer)."""
    for key, value in e.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            info = error_details_pb2.ErrorInfo()
            assert status.details and status.details[0].Unpack(info)
            assert info.domain == "tranca.v1"
            return info
    raise AssertionError(f"no status details in the refusal: {e!r}")


def reason_of(e: grpc.aio.AioRpcError) -> str:
    return str(error_info(e).reason)


async def refused(
    call: Awaitable[object], code: grpc.StatusCode, reason: str | None = None
) -> grpc.aio.AioRpcError:
    """Await ``call``, expect it to fail with ``code`` (and ``reason``), return the error."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await asyncio.wait_for(call, OK_TIMEOUT)
    e = caught.value
    assert e.code() == code, f"{e.code()} {reason_of(e)}: {e.details()}"
    if reason is not None:
        assert reason_of(e) == reason, e.details()
    return e


async def app_view(client: Client, gid: str) -> pb.GameView:
    return (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view


async def seat_view(client: Client, gid: str, token: str) -> pb.GameView:
    md = client.player(token)
    return (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=md)).view


async def create(
    client: Client, players: int = 2, rules: pb.Rules | None = None, **kwargs: Unpack[GameOptions]
) -> str:
    if rules is None:
        rules = pb.Rules(preset="tranca-000")
    done = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=rules, players=players, seed=7, **kwargs),
        metadata=client.app(),
    )
    return str(done.game.game_id)


async def join(client: Client, gid: str, seat: int, name: str = "") -> pb.JoinGameResponse:
    req = pb.JoinGameRequest(game_id=gid, seat=seat, player_name=name or f"p{seat}")
    return await client.stub.JoinGame(req, metadata=client.app())


async def submit(
    client: Client, gid: str, token: str, move: pb.Move, version: int, request_id: str = ""
) -> pb.SubmitMoveResponse:
    req = pb.SubmitMoveRequest(
        game_id=gid,
        expected_version=version,
        request_id=request_id or uuid.uuid4().hex,
        move=move,
    )
    return await client.stub.SubmitMove(req, metadata=client.player(token))


DRAW = pb.Move(draw=pb.DrawMove())


def discard(card: str) -> pb.Move:
    return pb.Move(discard=pb.DiscardMove(card=card))


async def step(client: Client, gid: str, tokens: list[str]) -> pb.SubmitMoveResponse:
    """The player to act draws, or discards the first card of its hand."""
    view = await app_view(client, gid)
    token = tokens[view.turn]
    if view.phase == pb.PHASE_DRAW:
        return await submit(client, gid, token, DRAW, view.version)
    hand = (await seat_view(client, gid, token)).hand
    return await submit(client, gid, token, discard(hand[0]), view.version)


def plain_deck() -> list[str]:
    """The 104 cards, red threes last (so no hand holds one at the deal)."""
    cards = [r + s for s in "CDHS" for r in RANKS] * 2
    reds = [c for c in cards if c in ("3D", "3H")]
    return [c for c in cards if c not in ("3D", "3H")] + reds


async def read(
    call: grpc.aio.UnaryStreamCall[pb.WatchGameRequest, pb.WatchGameResponse],
    timeout: float = OK_TIMEOUT,
) -> pb.WatchGameResponse:
    msg = await asyncio.wait_for(call.read(), timeout)
    assert msg is not grpc.aio.EOF, "the watch stream ended"
    assert isinstance(msg, pb.WatchGameResponse)
    return msg
