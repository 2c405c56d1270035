"""What a gRPC call carries besides its request: the caller's credentials, read from
its metadata ("x-api-key", "authorization: Bearer <player token>") and its peer."""

from __future__ import annotations

from typing import Any, TypeAlias

import grpc

from ..services.access import (
    API_KEY_HEADER,
    AUTHORIZATION_HEADER,
    Credentials,
    collected_credentials,
)

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
    """The call's API key and player token (either may be empty), and its peer: every
    value of each credential header is handed to the use cases' rule
    (``services.access.collected_credentials``), which refuses a header sent twice."""
    keys: list[str] = []
    authorizations: list[str] = []
    origins: list[str] = []
    for name, value in context.invocation_metadata() or ():
        if not isinstance(value, str):
            continue
        name = name.lower()
        if name == API_KEY_HEADER:
            keys.append(value)
        elif name == AUTHORIZATION_HEADER:
            authorizations.append(value)
        elif name == ORIGIN_METADATA:
            origins.append(value)
    return collected_credentials(
        keys, authorizations, origins, lambda: peer_address(context.peer())
    )
