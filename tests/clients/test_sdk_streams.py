"""The SDK's followed streams (tranca_client/_streams.py), without a server: a stream
that breaks is reopened after the last item received, so nothing is skipped or
repeated; a refusal ends it at once; too many failures in a row raise the last."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from tranca_client import PermissionDenied, RetryPolicy, Unavailable
from tranca_client._streams import resumed

FAST = RetryPolicy(max_attempts=3, initial_backoff=0.001, max_backoff=0.001)


class Call:
    """A stream of the numbers after ``after`` up to ``upto``, then ``ending``."""

    def __init__(self, after: int, upto: int, ending: grpc.StatusCode | None) -> None:
        self.items = list(range(after + 1, upto + 1))
        self.ending = ending
        self.cancelled = False

    async def _iterate(self) -> AsyncIterator[int]:
        for item in self.items:
            yield item
        if self.ending is not None:
            raise grpc.aio.AioRpcError(self.ending, grpc.aio.Metadata(), grpc.aio.Metadata(), "x")

    def __aiter__(self) -> AsyncIterator[int]:
        return self._iterate()

    def cancel(self) -> None:
        self.cancelled = True


async def test_a_broken_stream_goes_on_after_its_last_item() -> None:
    opened: list[int] = []
    plan = [(3, grpc.StatusCode.UNAVAILABLE), (5, None), (8, grpc.StatusCode.INTERNAL), (9, None)]

    def open_after(last: int) -> Call:
        opened.append(last)
        upto, ending = plan[len(opened) - 1]
        return Call(last, upto, ending)

    got = []
    async for item in resumed(open_after, lambda n: n, 0, FAST, "ended"):
        got.append(item)
        if item == 9:
            break
    assert got == list(range(1, 10))
    assert opened == [0, 3, 5, 8]


async def test_a_refusal_ends_it_and_failures_in_a_row_raise_the_last() -> None:
    with pytest.raises(PermissionDenied):
        async for _ in resumed(
            lambda last: Call(last, last, grpc.StatusCode.PERMISSION_DENIED),
            lambda n: n,
            0,
            FAST,
            "ended",
        ):
            pass
    with pytest.raises(Unavailable) as broken:
        async for _ in resumed(
            lambda last: Call(last, last, grpc.StatusCode.UNAVAILABLE), lambda n: n, 0, FAST, "x"
        ):
            pass
    assert broken.value.attempts == 3
