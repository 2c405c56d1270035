"""The SDK's connection: the channel to the service (plaintext to this machine, TLS
elsewhere, keepalives) and how calls are retried (``RetryPolicy``, the server's
``retry_after_ms`` hint, the watch stream's resumable codes)."""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from .errors import (
    TrancaError,
)

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_TIMEOUT = 10.0
API_KEY_HEADER = "x-api-key"

RATE_LIMITED = "RATE_LIMITED"

# A broken watch stream is resumed after these; the other codes are the service's
# answer and are raised.
_WATCH_RESUMABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
    }
)


def _retry_after(error: TrancaError, backoff: float) -> float:
    """The server's ``retry_after_ms`` hint (RATE_LIMITED), or ``backoff``."""
    try:
        hint = int(error.metadata.get("retry_after_ms", "0")) / 1000
    except ValueError:
        hint = 0.0
    return max(hint, backoff) if hint else backoff


@dataclass(frozen=True)
class RetryPolicy:
    """How calls are retried after UNAVAILABLE or DEADLINE_EXCEEDED (``retry_on``).

    ``max_attempts`` counts the first attempt (1 turns retries off). The n-th retry
    waits ``min(max_backoff, initial_backoff * multiplier ** (n - 1))``, give or take
    ``jitter`` (a fraction). A watch stream uses the same policy for consecutive
    failed reconnections (any update received resets the count).
    """

    max_attempts: int = 5
    initial_backoff: float = 0.1
    max_backoff: float = 2.0
    multiplier: float = 2.0
    jitter: float = 0.2
    retry_on: frozenset[grpc.StatusCode] = frozenset(
        {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
    )

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (1, 2, ...)."""
        base = min(self.max_backoff, self.initial_backoff * self.multiplier ** max(0, retry - 1))
        return max(0.0, base * (1 + self.jitter * (2 * random.random() - 1)))


def is_loopback(address: str) -> bool:
    """Whether ``host:port`` names this machine (localhost, 127.0.0.0/8, ::1)."""
    host = address
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.rsplit(":", 1)[0]
    if host.startswith(("dns:", "unix:", "ipv4:", "ipv6:")):
        return host.startswith("unix:")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _channel(
    address: str,
    insecure: bool | None,
    root_certificates: bytes | None,
    client_certificate: tuple[bytes, bytes] | None,
    options: Sequence[tuple[str, Any]],
    interceptors: Sequence[grpc.aio.ClientInterceptor],
) -> grpc.aio.Channel:
    opts: list[tuple[str, Any]] = [
        # The server allows pings every 10 s without data; 30 s keeps idle watch
        # streams alive through NATs and finds dead connections.
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.keepalive_permit_without_calls", 1),
        *options,
    ]
    plain = is_loopback(address) if insecure is None else insecure
    if plain and root_certificates is None and client_certificate is None:
        return grpc.aio.insecure_channel(address, options=opts, interceptors=interceptors)
    chain, key = client_certificate or (None, None)
    creds = grpc.ssl_channel_credentials(
        root_certificates=root_certificates, private_key=key, certificate_chain=chain
    )
    return grpc.aio.secure_channel(address, creds, options=opts, interceptors=interceptors)
