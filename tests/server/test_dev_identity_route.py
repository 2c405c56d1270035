"""The development server's test identity provider on the browser port
(``POST /dev-identity/token``, services/dev_identity.py), on SQLite and PostgreSQL:
with a development key it hands a token for a name, which SignInWithIdentity takes
as the provider "dev"; a body out of shape is a 400; and without a development key
the route is not there at all."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import grpc
import httpx
import pytest

from tests.harness.servers import running_server, server_config
from tranca.server import Running
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc


@pytest.fixture
async def dev_server(db_url: str) -> AsyncIterator[Running]:
    key = f"dev-{uuid.uuid4().hex}"
    async with running_server(server_config(db_url, web_port=0, dev_api_key=key)) as running:
        yield running


async def test_a_development_server_hands_out_test_tokens_that_sign_in(
    dev_server: Running,
) -> None:
    assert dev_server.web is not None
    base = f"http://127.0.0.1:{dev_server.web.port}"
    async with httpx.AsyncClient(base_url=base) as http:
        config = (await http.get("/tranca-web.json")).json()
        assert config["devIdentity"] is True
        first = await http.post("/dev-identity/token", json={"name": "Lia Prado"})
        again = await http.post("/dev-identity/token", json={"name": "lia prado"})
        bad_bodies = (
            b"not json",
            b"[]",
            b'{"name": ""}',
            b'{"name": null}',
            b'{"name": "' + b"x" * 65 + b'"}',
            b'{"name": "a\\u0000b"}',
            b'{"name": "ana", "nonce": "' + b"n" * 300 + b'"}',
        )
        for bad in bad_bodies:
            refused = await http.post("/dev-identity/token", content=bad)
            assert refused.status_code == 400, bad
        assert (await http.get("/dev-identity/token")).status_code == 405
    assert first.status_code == 200
    async with grpc.aio.insecure_channel(f"127.0.0.1:{dev_server.port}") as channel:
        stub: spb_grpc.SessionServiceAsyncStub = spb_grpc.SessionServiceStub(channel)
        signed = [
            await stub.SignInWithIdentity(
                spb.SignInWithIdentityRequest(
                    app_id=config["appId"], provider="dev", id_token=r.json()["id_token"]
                )
            )
            for r in (first, again)
        ]
    assert signed[0].new_player and not signed[1].new_player
    assert signed[0].session.player_id == signed[1].session.player_id
    assert signed[0].session.display_name == "Lia Prado"


async def test_without_a_development_key_there_is_no_test_provider(sqlite_url: str) -> None:
    async with running_server(server_config(sqlite_url, web_port=0)) as running:
        assert running.web is not None
        base = f"http://127.0.0.1:{running.web.port}"
        async with httpx.AsyncClient(base_url=base) as http:
            assert (await http.get("/tranca-web.json")).json()["devIdentity"] is False
            answer = await http.post("/dev-identity/token", json={"name": "Lia"})
    assert answer.status_code in (404, 405)
