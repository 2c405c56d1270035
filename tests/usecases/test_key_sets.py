"""Fetching an identity provider's keys (services/key_sets.py): whatever stops a
fetch is KeysUnavailable (never an error of its own), an answer that is not a key
set too; and a caller that gives up does not cancel the fetch others wait for."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from tranca.services.destinations import Destinations
from tranca.services.key_sets import HttpKeyFetcher, KeySets, KeysUnavailable

from .fakes import FakeResolver

URL = "https://keys.example.test/jwks"


@dataclass
class Answer:
    status: int
    body: bytes
    truncated: bool = False


class Scripted:
    """An HTTP client answering each request as told: an answer, or an exception."""

    def __init__(self, outcome: Answer | Exception) -> None:
        self.outcome = outcome

    async def request(self, *args: Any) -> Answer:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


class ConnectError(Exception):
    """As an HTTP library's own errors are: no OSError."""


def fetcher(outcome: Answer | Exception) -> HttpKeyFetcher:
    destinations = Destinations(FakeResolver({"keys.example.test": ["93.184.216.34"]}))
    return HttpKeyFetcher(destinations, Scripted(outcome), timeout=1)


async def test_a_key_set_is_read_and_every_failure_is_unavailable() -> None:
    good = await fetcher(Answer(200, b'{"keys": [{"kid": "a", "kty": "RSA"}]}')).fetch(URL)
    assert good == {"keys": [{"kid": "a", "kty": "RSA"}]}
    failures: list[Answer | Exception] = [
        ConnectError("refused"),
        TimeoutError(),
        Answer(503, b"{}"),
        Answer(200, b"not json"),
        Answer(200, b'{"keys": "none"}'),
        Answer(200, b'{"keys": []}' * 10, truncated=True),
    ]
    for outcome in failures:
        with pytest.raises(KeysUnavailable):
            await fetcher(outcome).fetch(URL)
    with pytest.raises(KeysUnavailable):  # not https: refused before any call
        await fetcher(Answer(200, b"{}")).fetch("http://keys.example.test/jwks")


class Slow:
    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.fetches = 0

    async def fetch(self, url: str) -> dict[str, Any]:
        self.fetches += 1
        await self.release.wait()
        return {"keys": [{"kid": "k"}]}


async def test_a_caller_that_gives_up_cancels_no_one_elses_fetch() -> None:
    slow = Slow()
    keys = KeySets(slow)
    impatient = asyncio.create_task(keys.key_set(URL, "k"))
    patient = asyncio.create_task(keys.key_set(URL, "k"))
    await asyncio.sleep(0.01)
    impatient.cancel()
    slow.release.set()
    assert await patient == {"keys": [{"kid": "k"}]}
    assert slow.fetches == 1
