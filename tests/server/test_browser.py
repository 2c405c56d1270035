"""The browser port, spoken to as a browser's libraries speak: the Connect protocol
(JSON and binary, unary and the WatchGame stream) and gRPC-Web, over HTTP/1.1 and
HTTP/2, with plain HTTP requests built here from the protocols' specifications
(connectrpc.com/docs/protocol, the gRPC-Web protocol). Same services, credentials,
limits and refusals as the gRPC port; CORS by each app's allow-list; the web table's
files; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import base64
import struct
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import orjson
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2

from tests.harness import servers
from tests.harness.servers import running_server, server_config
from tranca.server import Running
from tranca.v1 import game_pb2 as pb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .conftest import Client

GAME = "/tranca.v1.GameService"
SESSIONS = "/tranca.v1.SessionService"


@pytest.fixture
async def web(db_url: str, tmp_path: Path) -> AsyncIterator[Running]:
    (tmp_path / "index.html").write_text("<!doctype html><title>Tranca</title>")
    async with running_server(
        server_config(db_url, web_port=0, web_root=str(tmp_path), dev_api_key=_dev_key())
    ) as running:
        yield running


def _dev_key() -> str:
    return "dev-" + uuid.uuid4().hex


@pytest.fixture
async def app_client(web: Running) -> AsyncIterator[Client]:
    async with servers.app_client(web, features=frozenset({"fixed_deck"})) as made:
        yield made


@pytest.fixture
async def http(web: Running) -> AsyncIterator[httpx.AsyncClient]:
    assert web.web is not None
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{web.web.port}") as client:
        yield client


async def connect_json(
    http: httpx.AsyncClient,
    path: str,
    body: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    return await http.post(
        path,
        content=orjson.dumps(body),
        headers={"content-type": "application/json", **(headers or {})},
    )


def error_details(answer: dict[str, Any]) -> dict[str, Any]:
    """A Connect error's ErrorInfo and LocalizedMessage, decoded from its details."""
    out: dict[str, Any] = {}
    for detail in answer.get("details", []):
        raw = base64.b64decode(detail["value"] + "==")
        if detail["type"] == "google.rpc.ErrorInfo":
            out["info"] = error_details_pb2.ErrorInfo.FromString(raw)
        elif detail["type"] == "google.rpc.LocalizedMessage":
            out["localized"] = error_details_pb2.LocalizedMessage.FromString(raw)
    return out


async def new_game(http: httpx.AsyncClient, key: str, players: int = 2) -> tuple[str, list[str]]:
    """A started game made through the browser port; its id and seat tokens."""
    app = {"x-api-key": key}
    made = await connect_json(
        http,
        f"{GAME}/CreateGame",
        {"rules": {"preset": "tranca-000"}, "players": players, "seed": 5},
        app,
    )
    assert made.status_code == 200, made.text
    gid = made.json()["game"]["gameId"]
    tokens = []
    for seat in range(players):
        joined = await connect_json(
            http, f"{GAME}/JoinGame", {"gameId": gid, "seat": seat, "playerName": f"p{seat}"}, app
        )
        tokens.append(joined.json()["playerToken"])
    started = await connect_json(http, f"{GAME}/StartGame", {"gameId": gid}, app)
    assert started.status_code == 200, started.text
    return gid, tokens


async def test_a_connect_json_call_answers_what_the_grpc_port_answers(
    http: httpx.AsyncClient, app_client: Client
) -> None:
    gid, tokens = await new_game(http, app_client.api_key)
    by_browser = await connect_json(
        http, f"{GAME}/GetView", {"gameId": gid}, {"authorization": f"Bearer {tokens[0]}"}
    )
    assert by_browser.status_code == 200
    assert by_browser.headers["content-type"] == "application/json"
    by_grpc = await app_client.stub.GetView(
        pb.GetViewRequest(game_id=gid), metadata=Client.player(tokens[0])
    )
    parsed = json_format.Parse(by_browser.content, pb.GetViewResponse())
    assert parsed == by_grpc


async def test_the_binary_codec_and_http2_carry_the_same_call(
    web: Running, app_client: Client
) -> None:
    assert web.web is not None
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{web.web.port}", http1=False, http2=True
    ) as h2:
        answer = await h2.post(
            f"{GAME}/ListPresets",
            content=pb.ListPresetsRequest().SerializeToString(),
            headers={"content-type": "application/proto", "x-api-key": app_client.api_key},
        )
        assert answer.http_version == "HTTP/2"
    assert answer.status_code == 200
    presets = pb.ListPresetsResponse.FromString(answer.content)
    assert "tranca-000" in [p.name for p in presets.presets]


async def test_a_refusal_carries_its_reason_and_the_wording_in_the_language_asked(
    http: httpx.AsyncClient, app_client: Client
) -> None:
    gid, tokens = await new_game(http, app_client.api_key)
    version, idle = await version_and_idle_seat(app_client, gid)
    # A seat moves out of turn: the rule's refusal, in Spanish.
    refused = await connect_json(
        http,
        f"{GAME}/SubmitMove",
        {"gameId": gid, "expectedVersion": version, "move": {"draw": {}}, "requestId": "r1"},
        {"authorization": f"Bearer {tokens[idle]}", "accept-language": "es-AR,es;q=0.9"},
    )
    assert refused.status_code != 200
    answer = refused.json()
    details = error_details(answer)
    grpc_refusal: grpc.aio.AioRpcError | None = None
    try:
        await app_client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=gid,
                expected_version=version,
                move=pb.Move(draw=pb.DrawMove()),
                request_id="r2",
            ),
            metadata=Client.player(tokens[idle]),
        )
    except grpc.aio.AioRpcError as exc:
        grpc_refusal = exc
    assert grpc_refusal is not None
    assert answer["code"] == grpc_refusal.code().name.lower()
    status = status_pb2.Status.FromString(
        dict(grpc_refusal.trailing_metadata() or ())["grpc-status-details-bin"]
    )
    grpc_info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(grpc_info)
    assert details["info"].reason == grpc_info.reason
    assert details["info"].domain == "tranca.v1"
    assert details["localized"].locale == "es"
    assert details["localized"].message != answer["message"]


async def test_the_edges_limits_and_a_body_that_does_not_decode_are_refused_alike(
    http: httpx.AsyncClient, app_client: Client
) -> None:
    app = {"x-api-key": app_client.api_key}
    too_long = await connect_json(
        http, f"{GAME}/CreateGame", {"rules": {"preset": "x" * 500}, "players": 2}, app
    )
    assert too_long.status_code == 400
    assert too_long.json()["code"] == "invalid_argument"
    info = error_details(too_long.json())["info"]
    assert info.reason == "MALFORMED_REQUEST"
    # The particulars an app words its own text with: the field and its limit.
    assert info.metadata["field"] == "rules.preset"
    assert int(info.metadata["max_chars"]) < 500
    for body in (b"{not json", b'{"noSuchField": 1}'):
        bad = await http.post(
            f"{GAME}/CreateGame", content=body, headers={"content-type": "application/json", **app}
        )
        assert bad.json()["code"] == "invalid_argument", bad.text
        assert error_details(bad.json())["info"].reason == "MALFORMED_REQUEST"
    huge = await connect_json(
        http, f"{GAME}/CreateGame", {"label": "x" * (300 * 1024), "players": 2}, app
    )
    assert huge.json()["code"] == "resource_exhausted"
    nobody = await connect_json(http, f"{GAME}/ListGames", {})
    assert error_details(nobody.json())["info"].reason == "NO_CREDENTIALS"


async def version_and_idle_seat(client: Client, gid: str) -> tuple[int, int]:
    """The game's version and a seat whose turn it is not (two players)."""
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    return int(view.version), 1 - view.turn


def grpc_web_frame(message: bytes) -> bytes:
    return struct.pack(">BI", 0, len(message)) + message


def grpc_web_frames(body: bytes) -> tuple[list[bytes], dict[str, str]]:
    """A gRPC-Web answer's messages and its trailers (the frame flagged 0x80)."""
    messages: list[bytes] = []
    trailers: dict[str, str] = {}
    at = 0
    while at < len(body):
        flag, size = struct.unpack(">BI", body[at : at + 5])
        payload = body[at + 5 : at + 5 + size]
        at += 5 + size
        if flag & 0x80:
            for line in payload.decode().split("\r\n"):
                if line:
                    name, _, value = line.partition(":")
                    trailers[name.strip().lower()] = value.strip()
        else:
            messages.append(payload)
    return messages, trailers


async def test_grpc_web_unary_and_a_refusal_in_its_trailers(
    http: httpx.AsyncClient, app_client: Client
) -> None:
    headers = {"content-type": "application/grpc-web+proto", "x-grpc-web": "1"}
    ok = await http.post(
        f"{GAME}/ListPresets",
        content=grpc_web_frame(pb.ListPresetsRequest().SerializeToString()),
        headers={**headers, "x-api-key": app_client.api_key},
    )
    messages, trailers = grpc_web_frames(ok.content)
    assert trailers["grpc-status"] == "0"
    assert pb.ListPresetsResponse.FromString(messages[0]).presets
    refused = await http.post(
        f"{GAME}/ListGames",
        content=grpc_web_frame(pb.ListGamesRequest().SerializeToString()),
        headers={**headers, "x-api-key": "no-such-key", "accept-language": "pt-BR"},
    )
    _, trailers = grpc_web_frames(refused.content)
    if "grpc-status" not in trailers:  # a trailers-only answer: in the headers
        trailers = {k.lower(): v for k, v in refused.headers.items()}
    assert trailers["grpc-status"] == str(grpc.StatusCode.UNAUTHENTICATED.value[0])
    status = status_pb2.Status.FromString(
        base64.b64decode(trailers["grpc-status-details-bin"] + "==")
    )
    info = error_details_pb2.ErrorInfo()
    localized = error_details_pb2.LocalizedMessage()
    status.details[0].Unpack(info)
    status.details[1].Unpack(localized)
    assert info.reason == "BAD_API_KEY"
    assert localized.locale == "pt-BR"


async def test_watch_game_streams_to_connect_and_grpc_web_clients(
    http: httpx.AsyncClient, app_client: Client
) -> None:
    gid, tokens = await new_game(http, app_client.api_key)
    auth = {"authorization": f"Bearer {tokens[0]}"}
    request = pb.WatchGameRequest(game_id=gid)

    async def read_connect_stream() -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        body = orjson.dumps(json_format.MessageToDict(request))
        async with http.stream(
            "POST",
            f"{GAME}/WatchGame",
            content=struct.pack(">BI", 0, len(body)) + body,
            headers={"content-type": "application/connect+json", **auth},
        ) as answer:
            buffer = b""
            async for chunk in answer.aiter_bytes():
                buffer += chunk
                while len(buffer) >= 5:
                    flag, size = struct.unpack(">BI", buffer[:5])
                    if len(buffer) < 5 + size:
                        break
                    payload, buffer = buffer[5 : 5 + size], buffer[5 + size :]
                    if flag & 0x02:
                        return got  # the end-of-stream message
                    got.append(orjson.loads(payload))
                    if "move" in got[-1]:
                        return got
        return got

    async def read_grpc_web_stream() -> list[pb.WatchGameResponse]:
        got: list[pb.WatchGameResponse] = []
        async with http.stream(
            "POST",
            f"{GAME}/WatchGame",
            content=grpc_web_frame(request.SerializeToString()),
            headers={"content-type": "application/grpc-web+proto", **auth},
        ) as answer:
            buffer = b""
            async for chunk in answer.aiter_bytes():
                buffer += chunk
                while len(buffer) >= 5:
                    flag, size = struct.unpack(">BI", buffer[:5])
                    if len(buffer) < 5 + size:
                        break
                    payload, buffer = buffer[5 : 5 + size], buffer[5 + size :]
                    if flag & 0x80:
                        return got
                    got.append(pb.WatchGameResponse.FromString(payload))
                    if got[-1].HasField("move"):
                        return got
        return got

    connect_task = asyncio.create_task(read_connect_stream())
    grpc_web_task = asyncio.create_task(read_grpc_web_stream())
    await asyncio.sleep(0.5)
    # The seat to move draws through the gRPC port; both browser streams see it.
    view = (
        await app_client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=app_client.app())
    ).view
    await app_client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid,
            expected_version=view.version,
            move=pb.Move(draw=pb.DrawMove()),
            request_id="w1",
        ),
        metadata=Client.player(tokens[view.turn]),
    )
    connect_seen, grpc_web_seen = await asyncio.wait_for(
        asyncio.gather(connect_task, grpc_web_task), timeout=20
    )
    assert len(connect_seen) >= 2
    assert len(grpc_web_seen) >= 2
    assert grpc_web_seen[-1].HasField("move")
    assert "move" in connect_seen[-1]


async def test_a_page_on_another_site_calls_only_for_an_app_that_lists_its_origin(
    web: Running, http: httpx.AsyncClient, app_client: Client
) -> None:
    page = f"https://play-{uuid.uuid4().hex[:8]}.example"
    preflight = {"origin": page, "access-control-request-method": "POST"}
    before = await http.options(f"{SESSIONS}/SignInGuest", headers=preflight)
    assert before.status_code == 403
    assert "access-control-allow-origin" not in before.headers
    # The app lists the page's origin (and lets guests in).
    sessions = spb_grpc.SessionServiceStub(app_client.channel)
    policy = (
        await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=app_client.app())
    ).policy
    policy.guest_sign_in = True
    policy.allowed_origins.append(page + ":443/")  # normalised to the origin
    saved = await sessions.SetAppPolicy(
        spb.SetAppPolicyRequest(policy=policy), metadata=app_client.app()
    )
    assert list(saved.policy.allowed_origins) == [page]
    await asyncio.sleep(5.2)  # the allow-lists are cached for five seconds
    after = await http.options(
        f"{SESSIONS}/SignInGuest",
        headers={**preflight, "access-control-request-headers": "content-type,authorization"},
    )
    assert after.status_code == 204
    assert after.headers["access-control-allow-origin"] == page
    assert "authorization" in after.headers["access-control-allow-headers"]
    app_id = (await web.store.app_by_key(app_client.api_key)).id  # type: ignore[union-attr]
    signed = await connect_json(
        http, f"{SESSIONS}/SignInGuest", {"appId": app_id}, {"origin": page}
    )
    assert signed.status_code == 200, signed.text
    assert signed.headers["access-control-allow-origin"] == page
    # The same page may not act for another app, nor with that app's key.
    other = await web.store.app_by_key(app_client.api_key)
    assert other is not None
    _, other_key = await web.store.create_app("other", frozenset())
    refused = await connect_json(
        http, f"{GAME}/ListGames", {}, {"origin": page, "x-api-key": other_key}
    )
    assert error_details(refused.json())["info"].reason == "ORIGIN_NOT_ALLOWED"
    allowed = await connect_json(
        http, f"{GAME}/ListGames", {}, {"origin": page, "x-api-key": app_client.api_key}
    )
    assert allowed.status_code == 200, allowed.text
    # A session opened from the page works from it.
    token = signed.json()["session"]["accessToken"]
    listed = await connect_json(
        http, f"{GAME}/ListGames", {}, {"origin": page, "authorization": f"Bearer {token}"}
    )
    assert listed.status_code == 200, listed.text


async def test_the_servers_own_page_is_same_origin_and_needs_no_listing(
    web: Running, http: httpx.AsyncClient
) -> None:
    assert web.web is not None
    config = (await http.get("/tranca-web.json")).json()
    assert config["guestSignIn"] is True
    own = f"http://127.0.0.1:{web.web.port}"
    signed = await connect_json(
        http, f"{SESSIONS}/SignInGuest", {"appId": config["appId"]}, {"origin": own}
    )
    assert signed.status_code == 200, signed.text
    index = await http.get("/")
    assert index.status_code == 200
    assert "<title>Tranca</title>" in index.text
    assert (await http.get("/../../etc/passwd")).status_code == 404


async def test_every_method_of_every_service_is_served_through_the_same_handlers(
    http: httpx.AsyncClient,
) -> None:
    """Called with an empty body and no credentials, each method answers as its
    handler does on the gRPC port (a typed refusal, or an answer), never
    unimplemented or an internal error: the browser's call offers the servicers
    what they read of a call."""
    from tranca.v1 import (
        admin_pb2,
        notifications_pb2,
        platform_pb2,
        quick_play_pb2,
        session_pb2,
    )

    modules = (pb, platform_pb2, session_pb2, admin_pb2, quick_play_pb2, notifications_pb2)
    seen = 0
    for module in modules:
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                if method.server_streaming:
                    continue  # streams: test_watch_game_streams_...
                answer = await connect_json(http, f"/{service.full_name}/{method.name}", {})
                seen += 1
                if answer.status_code == 200:
                    continue
                body = answer.json()
                assert body["code"] not in ("unimplemented", "internal", "unknown"), (
                    method.full_name,
                    body,
                )
                assert error_details(body)["info"].reason, method.full_name
    assert seen > 40
