"""Which web pages may call for an app: its policy's ``allowed_origins``.

A page on another site calls the browser port with an ``Origin`` header ("https://
play.example.com"), which reaches the use cases in the call's credentials. It is
accepted only for an app whose policy lists that origin: where a player signs in
(SignInGuest, SignInDevice), and on every call made with the app's API key or one of
its sessions. A seat token or a refresh token is not checked again: it was given to
a call that was. Native clients (the gRPC port) send no origin and are not concerned,
nor is the page the server itself serves (same origin).

An origin is compared in its serialised form: scheme, host and a port other than the
scheme's default, lower-case, without a path ("https://example.com:8443").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from tranca_rules.errors import quoted

from ..reasons import Reason
from .errors import Refusal, Refused
from .policy import MAX_ORIGIN_CHARS, AppPolicy, normalise_origin


def origin_not_allowed(origin: str) -> Refused:
    return Refused(
        Refusal.FORBIDDEN,
        Reason.ORIGIN_NOT_ALLOWED,
        f"this app does not let pages from {quoted(origin)} call for it"
        " (its policy: allowed_origins)",
        {"origin": origin[:MAX_ORIGIN_CHARS]},
    )


def check_origin(policy: AppPolicy, origin: str) -> None:
    """Refuse a call from a page on another site unless the app lists its origin."""
    if not origin:
        return
    if normalise_origin(origin) not in policy.allowed_origins:
        raise origin_not_allowed(origin)


class PolicyRepository(Protocol):
    async def app_policy(self, app_id: str) -> AppPolicy | None:
        """A live app's policy (None for an unknown or revoked app)."""
        ...

    async def listed_origins(self) -> frozenset[str]:
        """Every origin some live app's policy lists."""
        ...


class Origins:
    """The apps' allow-lists, read through a short cache: an API key's call from a
    page needs its app's list, and a browser's preflight asks whether any app lists
    an origin. A policy change is seen within ``ttl`` seconds on every replica."""

    def __init__(
        self,
        repo: PolicyRepository,
        ttl: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.repo = repo
        self.ttl = ttl
        self.clock = clock
        self._policies: dict[str, tuple[float, AppPolicy | None]] = {}
        self._listed: tuple[float, frozenset[str]] | None = None

    async def check_app(self, app_id: str, origin: str) -> None:
        """Refuse ``origin`` unless the app ``app_id`` lists it."""
        if not origin:
            return
        now = self.clock()
        cached = self._policies.get(app_id)
        if cached is None or now - cached[0] > self.ttl:
            if len(self._policies) > 10_000:
                self._policies.clear()
            cached = (now, await self.repo.app_policy(app_id))
            self._policies[app_id] = cached
        policy = cached[1]
        if policy is None or normalise_origin(origin) not in policy.allowed_origins:
            raise origin_not_allowed(origin)

    async def listed_anywhere(self, origin: str) -> bool:
        """Whether some app lets pages from ``origin`` call (a preflight's answer)."""
        norm = normalise_origin(origin)
        if norm is None:
            return False
        now = self.clock()
        if self._listed is None or now - self._listed[0] > self.ttl:
            self._listed = (now, await self.repo.listed_origins())
        return norm in self._listed[1]
