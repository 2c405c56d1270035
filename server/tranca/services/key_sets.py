"""The identity providers' published keys (JWKS documents), fetched over HTTPS and
kept by each replica, for ``services/identity_sign_in.py``.

What is kept and when it is fetched again, as the providers ask (Google's and
Apple's keys rotate every few days to weeks, the old key published beside the new
one for a while):
- a document is kept for ``ttl`` seconds, then fetched again when next needed;
- a token signed with a key id the kept document does not list is the sign of a
  rotation: the document is fetched again at once, but not more than once every
  ``min_refresh`` seconds per provider (a stream of made-up key ids must not make
  the server hammer the provider, nor wait on it every time);
- when a fetch fails (the provider down, slow past ``timeout``, an answer that is
  not a key set), the document kept, however old, still serves: sign-ins go on
  through a provider's outage with the keys it last published. With nothing kept,
  ``KeysUnavailable``, which callers answer UNAVAILABLE (a client retries).
Concurrent needs of one document share one fetch.

Keys are the providers' public data, not a game's state: keeping them per replica
leaves every replica able to serve every request (each fetches for itself).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .destinations import Destination, Destinations

DEFAULT_TTL = 3600.0
DEFAULT_MIN_REFRESH = 30.0
DEFAULT_TIMEOUT = 3.0  # seconds a fetch may take: a sign-in waits on it


class KeysUnavailable(Exception):
    """No key set of the provider is kept and it cannot be fetched now."""


class Answered(Protocol):
    """What an HTTP answer gives (``tranca.outbound.Answer``)."""

    @property
    def status(self) -> int: ...
    @property
    def body(self) -> bytes: ...
    @property
    def truncated(self) -> bool: ...


class Requester(Protocol):
    """An HTTP client that connects only to a checked destination's addresses
    (``tranca.outbound.OutboundClient``)."""

    async def request(
        self,
        method: str,
        destination: Destination,
        headers: dict[str, str],
        body: bytes,
        timeout: float,
    ) -> Answered: ...


class KeyFetcher(Protocol):
    """The key set published at a URL, as a JWKS document (a dict with ``keys``);
    ``KeysUnavailable`` when it cannot be had now."""

    async def fetch(self, url: str) -> dict[str, Any]: ...


class HttpKeyFetcher:
    """Fetches a key set with a GET to its https URL, checked as every outgoing call
    is (``Destinations.check``: https, public addresses or the operator's allow-list,
    resolved now and connected to no other address), following no redirect."""

    def __init__(
        self, destinations: Destinations, http: Requester, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.destinations = destinations
        self.http = http
        self.timeout = timeout

    async def fetch(self, url: str) -> dict[str, Any]:
        try:
            destination = await self.destinations.check(url, self.timeout)
            answer = await self.http.request(
                "GET", destination, {"Accept": "application/json"}, b"", self.timeout
            )
        # Whatever stopped the fetch (a refused destination, the HTTP client's own
        # connect, TLS or protocol errors, a timeout) means the same to a sign-in:
        # the provider cannot be reached now.
        except Exception as exc:
            raise KeysUnavailable(f"the key set at {url} cannot be fetched: {exc!r}") from exc
        if answer.status != 200 or answer.truncated:
            raise KeysUnavailable(f"the key set at {url} answered {answer.status}")
        return parsed_key_set(answer.body, url)


def parsed_key_set(body: bytes, url: str = "") -> dict[str, Any]:
    """A JWKS document read from ``body``: an object whose ``keys`` is a list of
    objects; KeysUnavailable otherwise."""
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise KeysUnavailable(f"the key set at {url} is not JSON") from exc
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list) or not all(isinstance(k, dict) for k in keys):
        raise KeysUnavailable(f"the key set at {url} is not a JWKS document")
    return {"keys": keys}


@dataclass
class _Kept:
    document: dict[str, Any]
    key_ids: frozenset[str]
    fetched_at: float


class KeySets:
    """Each provider's key set as last fetched, fetched again as the module says."""

    def __init__(
        self,
        fetcher: KeyFetcher,
        *,
        ttl: float = DEFAULT_TTL,
        min_refresh: float = DEFAULT_MIN_REFRESH,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fetcher = fetcher
        self.ttl = ttl
        self.min_refresh = min_refresh
        self.clock = clock
        self._kept: dict[str, _Kept] = {}
        self._fetching: dict[str, asyncio.Task[_Kept]] = {}

    async def key_set(self, url: str, key_id: str | None) -> dict[str, Any]:
        """The key set of ``url`` to verify a token signed with ``key_id`` (None: the
        token names none): the kept one while it is fresh and lists the key,
        otherwise fetched again where the module allows, the kept one if the fetch
        fails. KeysUnavailable when there is none."""
        kept = self._kept.get(url)
        now = self.clock()
        if kept is not None:
            fresh = now - kept.fetched_at < self.ttl
            listed = key_id is None or key_id in kept.key_ids
            if fresh and listed:
                return kept.document
            if fresh and now - kept.fetched_at < self.min_refresh:
                return kept.document  # fetched moments ago: the key is not there
        try:
            return (await self._fetch(url)).document
        except KeysUnavailable:
            if kept is not None:
                return kept.document
            raise

    async def _fetch(self, url: str) -> _Kept:
        """One fetch of ``url`` at a time, run as a task of its own: every caller waits
        for it, and one caller cancelled (its deadline) cancels no one else's."""
        running = self._fetching.get(url)
        if running is None:
            running = asyncio.get_running_loop().create_task(self._fetch_now(url))
            self._fetching[url] = running
            running.add_done_callback(lambda task: self._fetched(url, task))
        return await asyncio.shield(running)

    def _fetched(self, url: str, task: asyncio.Task[_Kept]) -> None:
        self._fetching.pop(url, None)
        if not task.cancelled():
            task.exception()  # retrieved: a fetch all of whose callers left logs nothing

    async def _fetch_now(self, url: str) -> _Kept:
        document = await self.fetcher.fetch(url)
        ids = frozenset(str(k["kid"]) for k in document["keys"] if "kid" in k)
        kept = _Kept(document, ids, self.clock())
        self._kept[url] = kept
        return kept


__all__ = [
    "Answered",
    "HttpKeyFetcher",
    "KeyFetcher",
    "KeySets",
    "KeysUnavailable",
    "Requester",
    "parsed_key_set",
]
