"""Limits on calls: the size of a request id, and rate limits (a token bucket per
player token and per app, in each process).

Rate limits are per replica (nothing is shared between processes, as nothing about a
game is): with N replicas behind a balancer a client may reach N times the rate.
A refused call gets RESOURCE_EXHAUSTED with reason RATE_LIMITED and a
``retry_after_ms`` hint, and changes nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .errors import malformed

MAX_REQUEST_ID = 128  # characters


def optional_request_id(request_id: str) -> str | None:
    """An optional request id (as LeaveGame's): without one a retry is a second
    request."""
    if len(request_id) > MAX_REQUEST_ID:
        raise malformed(f"request_id is at most {MAX_REQUEST_ID} characters")
    return request_id or None


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
