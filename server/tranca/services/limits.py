"""Limits on calls: player tokens' lifetimes, rate limits (a token bucket per player
token and per app, in each process), and open watch streams per credential.

Rate limits are per replica (nothing is shared between processes, as nothing about a
game is): with N replicas behind a balancer a client may reach N times the rate.
A refused call gets RESOURCE_EXHAUSTED with reason RATE_LIMITED and a
``retry_after_ms`` hint, and changes nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..reasons import Reason
from .errors import Refusal, Refused

# Player tokens' lifetimes, in seconds (JoinGameRequest.token_lifetime_seconds): the
# server's default, which its operator may change (``--token-lifetime``), and the
# range an app may choose from.
DEFAULT_TOKEN_LIFETIME = 7 * 24 * 3600
MIN_TOKEN_LIFETIME = 60
MAX_TOKEN_LIFETIME = 365 * 24 * 3600


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """``rate`` calls per second on average, bursts up to ``burst``, per key."""

    def __init__(self, rate: float, burst: float, max_keys: int = 100_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: dict[str, _Bucket] = {}

    def take(self, key: str, now: float | None = None) -> float:
        """0 if the call may go ahead, else the seconds to wait before retrying."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic() if now is None else now
        b = self._buckets.get(key)
        if b is None:
            if len(self._buckets) >= self.max_keys:
                self._evict(now)
            b = self._buckets[key] = _Bucket(self.burst, now)
        b.tokens = min(self.burst, b.tokens + (now - b.stamp) * self.rate)
        b.stamp = now
        if b.tokens >= 1:
            b.tokens -= 1
            return 0.0
        return (1 - b.tokens) / self.rate

    def give_back(self, key: str) -> None:
        """Undo a ``take`` of ``key`` that let a call go ahead: the call turned out not
        to be one the limit counts (a refusal, for a caller that says so)."""
        b = self._buckets.get(key)
        if b is not None:
            b.tokens = min(self.burst, b.tokens + 1)

    def _evict(self, now: float) -> None:
        """Drop buckets that have refilled: they hold no information."""
        full = [
            k
            for k, b in self._buckets.items()
            if b.tokens + (now - b.stamp) * self.rate >= self.burst
        ]
        for k in full:
            del self._buckets[k]
        if len(self._buckets) >= self.max_keys:
            self._buckets.clear()


class WatchCounts:
    """Open watch streams per credential in this process, each kind with its cap: a
    player token's streams (keyed by its hash) and an API key's (by its app). A
    stream refused for the cap holds no slot, so it gives none back."""

    def __init__(self, per_token: int, per_app: int) -> None:
        self.per_token = per_token
        self.per_app = per_app
        self._open: dict[str, int] = {}

    def open(self, key: str) -> int:
        """How many streams ``key`` holds now."""
        return self._open.get(key, 0)

    def hold(self, key: str, cap: int) -> _Slot:
        """One slot of ``key`` for the life of the ``with`` block, or TOO_MANY_WATCHES
        when it is entered. (A plain object rather than a generator-based context
        manager: every open stream holds one.)"""
        return _Slot(self, key, cap)

    def _take(self, key: str, cap: int) -> None:
        held = self._open.get(key, 0)
        if held >= cap:
            raise Refused(
                Refusal.EXHAUSTED,
                Reason.TOO_MANY_WATCHES,
                f"at most {cap} open watches per credential: close one first",
            )
        self._open[key] = held + 1

    def _give_back(self, key: str) -> None:
        left = self._open.get(key, 1) - 1
        if left > 0:
            self._open[key] = left
        else:
            self._open.pop(key, None)


class _Slot:
    __slots__ = ("_cap", "_counts", "_key")

    def __init__(self, counts: WatchCounts, key: str, cap: int) -> None:
        self._counts = counts
        self._key = key
        self._cap = cap

    def __enter__(self) -> None:
        self._counts._take(self._key, self._cap)

    def __exit__(self, *_exc: object) -> None:
        self._counts._give_back(self._key)
