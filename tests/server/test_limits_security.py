"""Limits and security: message size, rate limits, watch bounds, slow watchers, TLS and
mutual TLS, revocation, and no secrets in logs."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import trustme
from google.rpc import error_details_pb2, status_pb2

from tests.harness.servers import bare_config, running_server
from tranca.server import Running, start
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

from .conftest import Client


def reason_of(e: grpc.aio.AioRpcError) -> tuple[str, dict[str, str]]:
    for key, value in e.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            info = error_details_pb2.ErrorInfo()
            status.details[0].Unpack(info)
            return info.reason, dict(info.metadata)
    return "", {}


async def _version(client: Client, gid: str) -> int:
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    return view.version


async def test_an_oversized_request_is_refused_and_changes_nothing(client: Client) -> None:
    gid, tokens = await client.new_game()
    before = await _version(client, gid)
    huge = pb.SubmitMoveRequest(
        game_id=gid,
        expected_version=before,
        request_id="x" * 100,
        move=pb.Move(create_meld=pb.CreateMeldMove(cards=["4H"] * 200_000)),
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await client.stub.SubmitMove(huge, metadata=client.player(tokens[0]))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert await _version(client, gid) == before


@pytest.fixture
async def strict_server(db_url: str) -> AsyncIterator[Running]:
    async with running_server(bare_config(db_url, rate_per_token=5, rate_per_app=20)) as running:
        yield running


async def test_rate_limits_per_token_and_per_app(strict_server: Running) -> None:
    _, key = await strict_server.store.create_app(f"rl-{uuid.uuid4().hex[:6]}")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{strict_server.port}") as channel:
        client = Client(channel, key)
        gid, tokens = await client.new_game()
        outcomes = []
        for _ in range(30):
            try:
                await client.stub.GetView(
                    pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[0])
                )
                outcomes.append("ok")
            except grpc.aio.AioRpcError as e:
                assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                reason, meta = reason_of(e)
                assert reason == "RATE_LIMITED" and int(meta["retry_after_ms"]) > 0
                outcomes.append("limited")
        # A burst of twice the rate goes through, then the bucket refills at 5/s.
        assert outcomes[:10] == ["ok"] * 10
        assert "limited" in outcomes
        # The other seat's token has a bucket of its own.
        await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[1]))
        # The app key is limited separately (20/s, bursts of 40).
        app_outcomes = []
        for _ in range(60):
            try:
                await client.stub.ListGames(pb.ListGamesRequest(), metadata=client.app())
                app_outcomes.append("ok")
            except grpc.aio.AioRpcError as e:
                app_outcomes.append(e.code().name)
        assert "RESOURCE_EXHAUSTED" in app_outcomes


async def test_open_watch_streams_per_player_are_bounded(client: Client) -> None:
    gid, tokens = await client.new_game()
    md = client.player(tokens[0])
    streams = [
        client.stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=md) for _ in range(4)
    ]
    for stream in streams:
        await asyncio.wait_for(stream.read(), 5)
    fifth = client.stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=md)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await asyncio.wait_for(fifth.read(), 5)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(err.value)[0] == "TOO_MANY_WATCHES"
    for stream in streams:
        stream.cancel()


async def test_a_slow_watcher_never_blocks_moves_or_other_watchers(client: Client) -> None:
    gid, tokens = await client.new_game()
    # A watcher that never reads after its first message.
    stuck = client.stub.WatchGame(
        pb.WatchGameRequest(game_id=gid), metadata=client.player(tokens[0])
    )
    await asyncio.wait_for(stuck.read(), 5)
    reader = client.stub.WatchGame(
        pb.WatchGameRequest(game_id=gid), metadata=client.player(tokens[1])
    )
    first = await asyncio.wait_for(reader.read(), 5)
    assert isinstance(first, pb.WatchGameResponse)
    version = first.view.version
    played = 0

    async def play_some() -> None:
        nonlocal played, version
        for i in range(30):
            view = (
                await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())
            ).view
            if view.status != pb.GAME_STATUS_PLAYING:
                return
            md = client.player(tokens[view.turn])
            legal = await client.stub.ListLegalMoves(
                pb.ListLegalMovesRequest(game_id=gid), metadata=md
            )
            kinds = [m.WhichOneof("kind") for m in legal.moves]
            pick = kinds.index("draw") if "draw" in kinds else kinds.index("discard")
            done = await client.stub.SubmitMove(
                pb.SubmitMoveRequest(
                    game_id=gid,
                    expected_version=legal.version,
                    request_id=f"s{i}",
                    move=legal.moves[pick],
                ),
                metadata=md,
            )
            version = done.version
            played += 1

    await asyncio.wait_for(play_some(), 30)
    seen: list[int] = []
    while not seen or seen[-1] < version:
        update = await asyncio.wait_for(reader.read(), 10)
        assert isinstance(update, pb.WatchGameResponse)
        seen.append(update.view.version)
    assert seen == list(range(first.view.version + 1, version + 1))
    assert played == 30
    stuck.cancel()
    reader.cancel()


def _tls_files(tmp: Path) -> dict[str, Path]:
    ca = trustme.CA()
    server_cert = ca.issue_cert("127.0.0.1", "localhost")
    client_cert = ca.issue_cert("tranca-test-client")
    files = {
        "ca": tmp / "ca.pem",
        "cert": tmp / "server.pem",
        "key": tmp / "server.key",
        "client_cert": tmp / "client.pem",
        "client_key": tmp / "client.key",
    }
    ca.cert_pem.write_to_path(str(files["ca"]))
    server_cert.private_key_pem.write_to_path(str(files["key"]))
    files["cert"].write_bytes(b"".join(b.bytes() for b in server_cert.cert_chain_pems))
    client_cert.private_key_pem.write_to_path(str(files["client_key"]))
    files["client_cert"].write_bytes(b"".join(b.bytes() for b in client_cert.cert_chain_pems))
    return files


async def test_tls_and_mutual_tls(sqlite_url: str, tmp_path: Path) -> None:
    f = _tls_files(tmp_path)
    tls = await start(
        bare_config(
            sqlite_url,
            tls_cert=str(f["cert"]),
            tls_key=str(f["key"]),
        )
    )
    _, key = await tls.store.create_app("tls")
    app = (("x-api-key", key),)
    try:
        creds = grpc.ssl_channel_credentials(root_certificates=f["ca"].read_bytes())
        async with grpc.aio.secure_channel(f"127.0.0.1:{tls.port}", creds) as channel:
            reply = await pb_grpc.GameServiceStub(channel).ListPresets(
                pb.ListPresetsRequest(), metadata=app
            )
            assert reply.presets
        async with grpc.aio.insecure_channel(f"127.0.0.1:{tls.port}") as plain:
            with pytest.raises(grpc.aio.AioRpcError):
                await pb_grpc.GameServiceStub(plain).ListPresets(
                    pb.ListPresetsRequest(), metadata=app, timeout=3
                )
    finally:
        await tls.stop(0)

    async with running_server(
        bare_config(
            sqlite_url,
            tls_cert=str(f["cert"]),
            tls_key=str(f["key"]),
            tls_client_ca=str(f["ca"]),
        ),
        grace=0,
    ) as mtls:
        no_cert = grpc.ssl_channel_credentials(root_certificates=f["ca"].read_bytes())
        async with grpc.aio.secure_channel(f"127.0.0.1:{mtls.port}", no_cert) as channel:
            with pytest.raises(grpc.aio.AioRpcError):
                await pb_grpc.GameServiceStub(channel).ListPresets(
                    pb.ListPresetsRequest(), metadata=app, timeout=3
                )
        with_cert = grpc.ssl_channel_credentials(
            root_certificates=f["ca"].read_bytes(),
            private_key=f["client_key"].read_bytes(),
            certificate_chain=f["client_cert"].read_bytes(),
        )
        async with grpc.aio.secure_channel(f"127.0.0.1:{mtls.port}", with_cert) as channel:
            reply = await pb_grpc.GameServiceStub(channel).ListPresets(
                pb.ListPresetsRequest(), metadata=app
            )
            assert reply.presets


async def test_a_revoked_app_key_is_refused(server: Running) -> None:
    app_id, key = await server.store.create_app("to-revoke")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = pb_grpc.GameServiceStub(channel)
        await stub.ListPresets(pb.ListPresetsRequest(), metadata=(("x-api-key", key),))
        assert await server.store.revoke_app(app_id)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.ListPresets(pb.ListPresetsRequest(), metadata=(("x-api-key", key),))
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_secrets_are_stored_hashed_and_never_logged(
    client: Client, server: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    from sqlalchemy import Row, text

    gid, tokens = await client.new_game()
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    md = client.player(tokens[view.turn])
    legal = await client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md)
    await client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid, expected_version=legal.version, request_id="log", move=legal.moves[0]
        ),
        metadata=md,
    )
    with pytest.raises(grpc.aio.AioRpcError):
        await client.stub.GetView(
            pb.GetViewRequest(game_id=gid), metadata=(("authorization", "Bearer not-a-token"),)
        )
    out = capsys.readouterr()
    logged = out.out + out.err
    assert gid in logged and "move" in logged  # the move was logged...
    for secret in [client.api_key, *tokens]:
        assert secret not in logged  # ...without any secret
    # The database holds only hashes.
    rows: list[Row[Any]] = []
    async with server.store.engine.connect() as conn:
        for table in ("apps", "player_tokens"):
            rows += (await conn.execute(text(f"SELECT * FROM {table}"))).all()
    dump = " ".join(str(row) for row in rows)
    assert len(rows) >= 3
    for secret in [client.api_key, *tokens]:
        assert secret not in dump
    assert all(len(t) >= 43 for t in tokens)  # 256 random bits, URL-safe
