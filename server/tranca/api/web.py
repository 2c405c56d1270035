"""The browser port's HTTP application (ASGI): the services' Connect and gRPC-Web
endpoints (``browser.py``), browsers' CORS preflights, and the web table's files.

Routes, by path:
- ``/tranca.v1.<Service>/<Method>``: a call, in whichever protocol its content type
  says (Connect JSON or binary, gRPC-Web, gRPC where the HTTP server sends trailers).
- ``/tranca-web.json``: what the web table needs to know of this server (the app it
  signs players into, whether guests may sign in, whether the test identity
  provider is there).
- ``/dev-identity/token`` (POST, JSON ``{"name": ..., "nonce": ...}``), on a
  development server only (``--dev-api-key``): an ID token of the test identity
  provider for that name (``services/dev_identity.py``).
- ``/avatars/<digest>.webp`` (GET): a player's uploaded avatar
  (``services/avatars.py``), the same bytes for ever under its digest, cached a day.
- anything else, by GET: a file of the web table (``web_root``), ``index.html`` for
  a directory.

CORS: a preflight (OPTIONS) from a page on another site is answered when some app's
policy lists its origin (``services/origins.py``); an answer to such a page carries
``Access-Control-Allow-Origin`` on the same condition, so a browser lets the page
read it. Which app a call may act for is decided by the use cases, with the origin
in the call's credentials: listing an origin lets pages from it call for that app
only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import orjson
from starlette.exceptions import HTTPException
from starlette.staticfiles import StaticFiles

from ..services.errors import ServiceError
from ..services.origins import Origins
from .browser import is_same_origin

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# What a page may send and read beyond the CORS-safelisted headers: the Connect and
# gRPC-Web protocols' own, and the credentials, language and request id of ours.
ALLOW_HEADERS = (
    "authorization, x-api-key, accept-language, x-request-id, content-type, "
    "connect-protocol-version, connect-timeout-ms, connect-accept-encoding, "
    "connect-content-encoding, grpc-timeout, x-grpc-web, x-user-agent"
)
EXPOSE_HEADERS = (
    "grpc-status, grpc-message, grpc-status-details-bin, connect-content-encoding, content-encoding"
)
PREFLIGHT_MAX_AGE = "7200"
DEV_TOKEN_PATH = "/dev-identity/token"
DEV_TOKEN_MAX_BODY = 4096
AVATARS_PREFIX = "/avatars/"


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


async def _respond(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BrowserApp:
    """The browser port (see the module's docstring)."""

    def __init__(
        self,
        services: Mapping[str, ASGIApp],
        origins: Origins,
        web_root: Path | None,
        web_config: Mapping[str, Any],
        dev_tokens: Callable[[str, str], str] | None = None,
        avatar_images: Callable[[str], Awaitable[bytes | None]] | None = None,
    ) -> None:
        self.services = dict(services)
        self.origins = origins
        self.static: Any = (
            StaticFiles(directory=web_root, html=True) if web_root is not None else None
        )
        self.config_body = orjson.dumps(dict(web_config))
        self.dev_tokens = dev_tokens
        self.avatar_images = avatar_images

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        origin = _header(scope, b"origin")
        cross = bool(origin) and not is_same_origin(origin, _header(scope, b"host"))
        allowed = cross and await self.origins.listed_anywhere(origin)
        if scope["method"] == "OPTIONS" and cross:
            await self._preflight(origin, allowed, send)
            return
        if allowed:
            send = _with_cors(send, origin)
        service = self.services.get(path[: path.rfind("/")]) if path.count("/") == 2 else None
        if service is not None:
            await service(scope, receive, send)
        elif path == "/tranca-web.json":
            await _respond(
                send,
                200,
                [(b"content-type", b"application/json"), (b"cache-control", b"no-store")],
                self.config_body,
            )
        elif path.startswith(AVATARS_PREFIX) and self.avatar_images is not None:
            await self._avatar(scope, path, send)
        elif path == DEV_TOKEN_PATH and self.dev_tokens is not None:
            await self._dev_token(scope, receive, send)
        elif self.static is not None and scope["method"] in ("GET", "HEAD"):
            try:
                await self.static(scope, receive, send)
            except HTTPException as exc:  # no such file (StaticFiles raises it)
                await _respond(
                    send, exc.status_code, [(b"content-type", b"text/plain")], b"not found\n"
                )
        else:
            await _respond(send, 404, [(b"content-type", b"text/plain")], b"not found\n")

    async def _avatar(self, scope: Scope, path: str, send: Send) -> None:
        """An uploaded avatar by its digest: the same bytes for ever (a new picture
        has a new digest), cached a day (an erased player's picture leaves caches
        soon after); nothing else is served under the path."""
        assert self.avatar_images is not None
        name = path[len(AVATARS_PREFIX) :]
        image = None
        if scope["method"] in ("GET", "HEAD") and name.endswith(".webp"):
            image = await self.avatar_images(name.removesuffix(".webp"))
        if image is None:
            await _respond(send, 404, [(b"content-type", b"text/plain")], b"not found\n")
            return
        headers = [
            (b"content-type", b"image/webp"),
            (b"cache-control", b"public, max-age=86400"),
            (b"x-content-type-options", b"nosniff"),
            (b"content-length", str(len(image)).encode()),
        ]
        await _respond(send, 200, headers, b"" if scope["method"] == "HEAD" else image)

    async def _dev_token(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A test provider's ID token for the name posted (development only)."""
        assert self.dev_tokens is not None
        json_type = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
        if scope["method"] != "POST":
            await _respond(send, 405, [(b"content-type", b"text/plain")], b"POST only\n")
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > DEV_TOKEN_MAX_BODY:
                await _respond(send, 413, json_type, b'{"error":"too large"}')
                return
            if not message.get("more_body"):
                break
        try:
            asked = orjson.loads(body)
            name, nonce = asked.get("name", ""), asked.get("nonce", "")
            if not isinstance(name, str) or not isinstance(nonce, str):
                raise ValueError("name and nonce are strings")
            token = self.dev_tokens(name, nonce)
        except (ValueError, AttributeError, ServiceError) as exc:
            await _respond(send, 400, json_type, orjson.dumps({"error": str(exc)}))
            return
        await _respond(send, 200, json_type, orjson.dumps({"id_token": token}))

    @staticmethod
    async def _preflight(origin: str, allowed: bool, send: Send) -> None:
        if not allowed:
            # No CORS header: the browser refuses the page its call.
            await _respond(send, 403, [(b"vary", b"origin")], b"")
            return
        await _respond(
            send,
            204,
            [
                (b"access-control-allow-origin", origin.encode("latin-1")),
                (b"access-control-allow-methods", b"POST, GET"),
                (b"access-control-allow-headers", ALLOW_HEADERS.encode()),
                (b"access-control-max-age", PREFLIGHT_MAX_AGE.encode()),
                (b"vary", b"origin"),
            ],
            b"",
        )

    @staticmethod
    async def _lifespan(receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


def _with_cors(send: Send, origin: str) -> Send:
    """``send`` with the headers that let a page on ``origin`` read the answer."""
    extra = [
        (b"access-control-allow-origin", origin.encode("latin-1")),
        (b"access-control-expose-headers", EXPOSE_HEADERS.encode()),
        (b"vary", b"origin"),
    ]

    async def sending(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return sending
