"""A server stream followed as long as the caller reads: reopened after the last
item received when it breaks, with the retry policy's backoff, until
``retry.max_attempts`` failures in a row (then the error is raised). Player events
and chat rooms are followed so; each item says where it stands (``position``), and
the stream is reopened after it, so nothing is skipped or repeated."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import grpc

from .errors import TrancaError, Unavailable, error_from_rpc

if TYPE_CHECKING:
    from .client import RetryPolicy

T = TypeVar("T")

# A broken stream is reopened after these; other codes are the answer.
RESUMABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
    }
)


async def resumed(
    open_after: Callable[[int], Any],
    position: Callable[[T], int],
    start: int,
    retry: RetryPolicy,
    ended: str,
) -> AsyncGenerator[T, None]:
    """The items of ``open_after(last)``'s stream, ``last`` the position of the item
    received last (``start`` at first), however often the stream breaks; ``ended``
    names a stream the server closed (it is then reopened too)."""
    last, failures = start, 0
    while True:
        call = open_after(last)
        try:
            async for item in call:
                failures = 0
                last = position(item)
                yield item
            error: TrancaError = Unavailable(ended)
        except grpc.aio.AioRpcError as exc:
            error = error_from_rpc(exc)
            if error.code not in RESUMABLE:
                raise error from None
        finally:
            call.cancel()
        failures += 1
        if failures >= retry.max_attempts:
            error.attempts = failures
            raise error
        await asyncio.sleep(retry.delay(failures))
