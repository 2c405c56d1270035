"""What a gRPC call carries besides its request: the caller's credentials, read from
its metadata ("x-api-key", "authorization: Bearer <player token>") and its peer."""

from __future__ import annotations

from typing import Any, TypeAlias

import grpc

from ..services.access import Credentials

API_KEY_HEADER = "x-api-key"
# The Origin of a page on another site, as the browser port hands a call on
# (api/browser.py, which drops any a client sent itself).
ORIGIN_METADATA = "tranca-browser-origin"

Ctx: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"


def peer_address(peer: str) -> str:
    """The host of a gRPC peer string ("ipv4:1.2.3.4:5678", "ipv6:[::1]:5678")."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0].strip("[]")
    return peer[:64]


def credentials(context: Ctx) -> Credentials:
    """The call's API key and player token (either may be empty), and its peer."""
    key = token = origin = ""
    for name, value in context.invocation_metadata() or ():
        if not isinstance(value, str):
            continue
        name = name.lower()
        if name == API_KEY_HEADER:
            key = value
        elif name == "authorization" and value.lower().startswith("bearer "):
            token = value[7:].strip()
        elif name == ORIGIN_METADATA:
            origin = value
    return Credentials(key, token, lambda: peer_address(context.peer()), origin)
