"""A credential header comes once: a call carrying two ``authorization`` or two
``x-api-key`` (even twice the same) is refused UNAUTHENTICATED AMBIGUOUS_CREDENTIALS
before anything is looked up, rather than one of them taken, on the gRPC port and on
the browser port (Connect and gRPC-Web), unary calls and streams alike; on SQLite
and PostgreSQL. One of each (a key and a token) is no ambiguity: the token is used."""

from __future__ import annotations

import base64
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import httpx
import orjson
import pytest
from google.rpc import error_details_pb2, status_pb2

from tests.harness.servers import running_server, server_config
from tranca.server import Running
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .api_calls import reason_of, refused

Code = grpc.StatusCode
GAME = "/tranca.v1.GameService"


@pytest.fixture
async def both_ports(db_url: str, tmp_path: Path) -> AsyncIterator[tuple[Running, str]]:
    (tmp_path / "index.html").write_text("<!doctype html><title>Tranca</title>")
    async with running_server(server_config(db_url, web_port=0, web_root=str(tmp_path))) as running:
        _, key = await running.store.create_app("headers", frozenset())
        yield running, key


async def seated(stub: pb_grpc.GameServiceAsyncStub, key: str) -> tuple[str, list[str]]:
    """A waiting game of the app and two seat tokens of it."""
    app = (("x-api-key", key),)
    made = await stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2), metadata=app
    )
    gid = made.game.game_id
    tokens = []
    for seat in range(2):
        joined = await stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=seat), metadata=app)
        tokens.append(joined.player_token)
    return gid, tokens


def bearer(token: str) -> tuple[str, str]:
    return ("authorization", f"Bearer {token}")


async def test_the_grpc_port_refuses_a_credential_header_sent_twice(
    both_ports: tuple[Running, str],
) -> None:
    running, key = both_ports
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = pb_grpc.GameServiceStub(channel)
        sessions = spb_grpc.SessionServiceStub(channel)
        gid, tokens = await seated(stub, key)
        view = pb.GetViewRequest(game_id=gid)
        for metadata in (
            (bearer(tokens[0]), bearer(tokens[1])),  # whose seat would it be?
            (bearer(tokens[0]), bearer(tokens[0])),
            (bearer(tokens[0]), ("authorization", "Basic dXNlcjpwYXNz")),
            (("x-api-key", key), ("x-api-key", "tk_another")),
            (("x-api-key", key), ("x-api-key", key)),
        ):
            error = await refused(
                stub.GetView(view, metadata=metadata),
                Code.UNAUTHENTICATED,
                "AMBIGUOUS_CREDENTIALS",
            )
            assert "more than once" in (error.details() or "")
        # A stream, and a call that needs no credential, refuse it alike.
        stream = stub.WatchGame(
            pb.WatchGameRequest(game_id=gid), metadata=(bearer(tokens[0]), bearer(tokens[1]))
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async for _ in stream:
                pass
        assert caught.value.code() == Code.UNAUTHENTICATED
        assert reason_of(caught.value) == "AMBIGUOUS_CREDENTIALS"
        await refused(
            sessions.SignInGuest(
                spb.SignInGuestRequest(app_id="0" * 32),
                metadata=(("x-api-key", key), ("x-api-key", key)),
            ),
            Code.UNAUTHENTICATED,
            "AMBIGUOUS_CREDENTIALS",
        )
        # One of each is no ambiguity: the seat's token is used, as always.
        shown = await stub.GetView(view, metadata=(("x-api-key", key), bearer(tokens[1])))
        assert shown.view.seat == 1


def details(status: status_pb2.Status) -> str:
    info = error_details_pb2.ErrorInfo()
    for detail in status.details:
        if detail.Unpack(info):
            return str(info.reason)
    return ""


async def test_the_browser_port_refuses_a_credential_header_sent_twice(
    both_ports: tuple[Running, str],
) -> None:
    running, key = both_ports
    assert running.web is not None
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        gid, tokens = await seated(pb_grpc.GameServiceStub(channel), key)
    body = orjson.dumps({"gameId": gid})
    json = ("content-type", "application/json")
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{running.web.port}") as http:
        for headers in (
            [json, bearer(tokens[0]), bearer(tokens[1])],
            [json, ("x-api-key", key), ("x-api-key", key)],
        ):
            answer = await http.post(f"{GAME}/GetView", content=body, headers=headers)
            assert answer.status_code == 401, answer.text
            error = answer.json()
            assert error["code"] == "unauthenticated"
            reasons = [
                error_details_pb2.ErrorInfo.FromString(base64.b64decode(d["value"] + "==")).reason
                for d in error["details"]
                if d["type"] == "google.rpc.ErrorInfo"
            ]
            assert reasons == ["AMBIGUOUS_CREDENTIALS"]
        one = await http.post(f"{GAME}/GetView", content=body, headers=[json, bearer(tokens[1])])
        assert one.status_code == 200 and one.json()["view"]["seat"] == 1
        # gRPC-Web carries its headers the same way.
        frame = pb.GetViewRequest(game_id=gid).SerializeToString()
        answer = await http.post(
            f"{GAME}/GetView",
            content=struct.pack(">BI", 0, len(frame)) + frame,
            headers=[
                ("content-type", "application/grpc-web+proto"),
                ("x-grpc-web", "1"),
                bearer(tokens[0]),
                bearer(tokens[1]),
            ],
        )
        trailers = {k.lower(): v for k, v in answer.headers.items()}
        if "grpc-status" not in trailers:  # trailers in the body's last frame
            raw = answer.content
            while raw:
                flags, size = struct.unpack(">BI", raw[:5])
                if flags & 0x80:
                    for line in raw[5 : 5 + size].decode().split("\r\n"):
                        name, _, value = line.partition(":")
                        if name:
                            trailers[name.strip().lower()] = value.strip()
                raw = raw[5 + size :]
        assert trailers["grpc-status"] == str(Code.UNAUTHENTICATED.value[0])
        status = status_pb2.Status.FromString(
            base64.b64decode(trailers["grpc-status-details-bin"] + "==")
        )
        assert details(status) == "AMBIGUOUS_CREDENTIALS"
