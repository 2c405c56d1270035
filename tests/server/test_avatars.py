"""Uploaded avatars through a real channel and the browser port, on SQLite and
PostgreSQL: a session uploads a photo; its profile names the small WebP kept, which
the browser port serves by digest for a year; a new upload replaces it; what is not
a picture is refused; an erased player's picture is gone."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import grpc
import httpx
import pytest
from PIL import Image

from tests.harness.clients import Client
from tests.harness.servers import server_and_client
from tranca.server import Running
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .api_calls import refused


@pytest.fixture
async def served(db_url: str) -> AsyncIterator[tuple[Running, Client]]:
    async with server_and_client(db_url, web_port=0) as both:
        yield both


def photo(color: tuple[int, int, int], size: tuple[int, int] = (640, 480)) -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


async def test_an_uploaded_avatar_is_kept_small_served_replaced_and_erased(
    served: tuple[Running, Client],
) -> None:
    running, client = served
    assert running.web is not None
    stub: spb_grpc.SessionServiceAsyncStub = spb_grpc.SessionServiceStub(client.channel)
    opened = await stub.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id="ana", display_name="Ana"), metadata=client.app()
    )
    ana = (("authorization", f"Bearer {opened.session.access_token}"),)
    first = (
        await stub.UploadAvatar(spb.UploadAvatarRequest(image=photo((200, 30, 30))), metadata=ana)
    ).profile
    assert first.avatar_url.startswith("/avatars/") and first.avatar_url.endswith(".webp")
    assert first.display_name == "Ana"
    public = (
        await stub.GetPlayerProfile(
            spb.GetPlayerProfileRequest(player_id="ana"), metadata=client.app()
        )
    ).profile
    assert public.avatar_url == first.avatar_url
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{running.web.port}") as http:
        got = await http.get(first.avatar_url)
        assert got.status_code == 200
        assert got.headers["content-type"] == "image/webp"
        assert got.headers["cache-control"] == "public, max-age=86400"
        assert b"PhoneMaker" not in got.content
        assert Image.open(io.BytesIO(got.content)).size == (128, 128)
        assert (await http.head(first.avatar_url)).status_code == 200
        assert (await http.get("/avatars/" + "0" * 64 + ".webp")).status_code == 404
        assert (await http.get("/avatars/not-a-digest.webp")).status_code == 404
        assert (await http.get(first.avatar_url.removesuffix(".webp"))).status_code == 404
        # A new picture replaces the old: the old one is served no more.
        second = (
            await stub.UploadAvatar(
                spb.UploadAvatarRequest(image=photo((30, 30, 200))), metadata=ana
            )
        ).profile
        assert second.avatar_url != first.avatar_url
        assert (await http.get(first.avatar_url)).status_code == 404
        assert (await http.get(second.avatar_url)).status_code == 200
        # Not a picture, or without a session: refused, nothing changed.
        await refused(
            stub.UploadAvatar(spb.UploadAvatarRequest(image=b"<svg/>"), metadata=ana),
            grpc.StatusCode.INVALID_ARGUMENT,
            "AVATAR_INVALID",
        )
        # Over the contract's limit: refused at the edge, before any decoding.
        await refused(
            stub.UploadAvatar(spb.UploadAvatarRequest(image=b"\xff" * 204_801), metadata=ana),
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        )
        await refused(
            stub.UploadAvatar(
                spb.UploadAvatarRequest(image=photo((0, 0, 0))), metadata=client.app()
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "SESSION_TOKEN_REQUIRED",
        )
        own = (await stub.GetProfile(spb.GetProfileRequest(), metadata=ana)).profile
        assert own.avatar_url == second.avatar_url
        # Erased with the player.
        erased = await stub.ErasePlayer(
            spb.ErasePlayerRequest(player_id="ana"), metadata=client.app()
        )
        assert erased.rows["avatar_images"] == 1
        assert (await http.get(second.avatar_url)).status_code == 404
