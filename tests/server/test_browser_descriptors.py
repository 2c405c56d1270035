"""What a generic client needs to read the contracts and the error details without
this repository's code: google.rpc's status.proto and error_details.proto beside
the contracts in proto/ (one copy, the web client's TypeScript made from it), and
server reflection on the browser port, so that ``buf curl --reflect`` calls it over
Connect, gRPC-Web and gRPC and decodes a refusal's details."""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc_tools
import httpx
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.rpc import error_details_pb2, status_pb2
from grpc_tools import protoc

from tests.harness.servers import running_server, server_config
from tranca.server import Running
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto"
KEY = "dev-" + uuid.uuid4().hex
BUF = Path(sys.executable).parent / "buf"  # the buf-bin dev dependency


def test_google_rpc_is_vendored_unchanged_once_for_every_client() -> None:
    installed = Path(status_pb2.__file__).parent  # googleapis-common-protos
    for name in ("status.proto", "error_details.proto"):
        vendored = (PROTO / "google" / "rpc" / name).read_text()
        assert vendored == (installed / name).read_text(), name
        assert vendored.startswith("// Copyright"), "the license header is kept"
    # The web client's TypeScript is generated from proto/ alone: no second copy.
    web = ROOT / "clients" / "web"
    copies = [p for p in web.rglob("*.proto") if "node_modules" not in p.parts]
    assert copies == []
    inputs = [
        line.split(":", 1)[1].strip()
        for line in (web / "buf.gen.yaml").read_text().splitlines()
        if line.strip().startswith("- directory:")
    ]
    assert inputs == ["../../proto"]


def _descriptors_of_proto_dir(out: Path) -> descriptor_pool.DescriptorPool:
    """A pool built from proto/ alone (and protoc's well-known types), as a generic
    client builds one: no module of this repository or of googleapis involved."""
    files = sorted(str(p.relative_to(PROTO)) for p in PROTO.rglob("*.proto"))
    assert "google/rpc/error_details.proto" in files
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    target = out / "contracts.binpb"
    code = protoc.main(
        [
            "protoc",
            f"-I{PROTO}",
            f"-I{well_known}",
            "--include_imports",
            f"--descriptor_set_out={target}",
            *files,
        ]
    )
    assert code == 0
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(target.read_bytes()).file:
        pool.Add(file)
    return pool


def _decode_details(pool: descriptor_pool.DescriptorPool, raw: bytes) -> dict[str, Any]:
    status_cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("google.rpc.Status"))
    status: Any = status_cls.FromString(raw)
    decoded: dict[str, Any] = {}
    for detail in status.details:
        name = detail.type_url.rsplit("/", 1)[1]
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
        decoded[name] = cls.FromString(detail.value)
    return decoded


@pytest.fixture
async def web(sqlite_url: str) -> AsyncIterator[Running]:
    async with running_server(server_config(sqlite_url, web_port=0, dev_api_key=KEY)) as running:
        yield running


async def test_a_generic_client_decodes_error_details_from_proto_alone(
    web: Running, tmp_path: Path
) -> None:
    assert web.web is not None
    pool = _descriptors_of_proto_dir(tmp_path)
    # gRPC: the details in grpc-status-details-bin.
    async with grpc.aio.insecure_channel(f"127.0.0.1:{web.port}") as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await pb_grpc.GameServiceStub(channel).ListGames(
                pb.ListGamesRequest(),
                metadata=(("x-api-key", "wrong"), ("accept-language", "es")),
            )
    raw = dict(refused.value.trailing_metadata() or ())["grpc-status-details-bin"]
    by_grpc = _decode_details(pool, raw)
    assert by_grpc["google.rpc.ErrorInfo"].reason == "BAD_API_KEY"
    assert by_grpc["google.rpc.LocalizedMessage"].locale == "es"
    # gRPC-Web: the same, base64 in the trailers (or the headers of a trailers-only
    # answer).
    message = pb.ListGamesRequest().SerializeToString()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{web.web.port}") as http:
        answer = await http.post(
            "/tranca.v1.GameService/ListGames",
            content=struct.pack(">BI", 0, len(message)) + message,
            headers={"content-type": "application/grpc-web+proto", "x-api-key": "wrong"},
        )
    fields = {k.lower(): v for k, v in answer.headers.items()}
    body = answer.content
    while body:
        flag, size = struct.unpack(">BI", body[:5])
        if flag & 0x80:
            for line in body[5 : 5 + size].decode().split("\r\n"):
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
        body = body[5 + size :]
    by_grpc_web = _decode_details(pool, base64.b64decode(fields["grpc-status-details-bin"] + "=="))
    assert by_grpc_web["google.rpc.ErrorInfo"].reason == "BAD_API_KEY"


async def _buf_curl(*args: str) -> tuple[int, str, str]:
    assert BUF.exists(), "buf comes with the dev dependencies (make venv)"
    process = await asyncio.create_subprocess_exec(
        str(BUF),
        "curl",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.mark.parametrize("protocol", ["connect", "grpcweb", "grpc"])
async def test_buf_curl_calls_the_browser_port_by_reflection(web: Running, protocol: str) -> None:
    assert web.web is not None
    base = f"http://127.0.0.1:{web.web.port}"
    code, out, err = await _buf_curl(
        "--protocol",
        protocol,
        "--reflect",
        "-H",
        f"x-api-key: {KEY}",
        f"{base}/tranca.v1.GameService/ListPresets",
    )
    assert code == 0, err
    assert "tranca-000" in [p["name"] for p in json.loads(out)["presets"]]
    # A refusal: its code in the exit status, its details whole, whatever the
    # protocol (under Connect, the server adds each one's fields in "debug").
    code, out, err = await _buf_curl(
        "--protocol",
        protocol,
        "-H",
        "x-api-key: wrong",
        f"{base}/tranca.v1.GameService/ListGames",
    )
    assert code == grpc.StatusCode.UNAUTHENTICATED.value[0] << 3, (out, err)
    details = {d["type"]: d for d in json.loads(err)["details"]}
    info = error_details_pb2.ErrorInfo.FromString(
        base64.b64decode(details["google.rpc.ErrorInfo"]["value"] + "==")
    )
    assert info.reason == "BAD_API_KEY"
    assert "google.rpc.LocalizedMessage" in details
    if protocol == "connect":
        assert details["google.rpc.ErrorInfo"]["debug"]["reason"] == "BAD_API_KEY"


@pytest.mark.parametrize("version", ["grpc-v1", "grpc-v1alpha"])
async def test_both_reflection_versions_list_the_services(web: Running, version: str) -> None:
    assert web.web is not None
    code, out, err = await _buf_curl(
        "--reflect-protocol", version, "--list-services", f"http://127.0.0.1:{web.web.port}/"
    )
    assert code == 0, err
    listed = out.split()
    assert "tranca.v1.GameService" in listed
    assert "tranca.v1.SessionService" in listed
    assert "grpc.reflection.v1.ServerReflection" in listed
