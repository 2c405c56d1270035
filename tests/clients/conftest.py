"""Fixtures for the SDK tests: the service tests' real server (SQLite and PostgreSQL),
an app's API key, and SDK clients with faults injected by gRPC interceptors."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest

from tests.server.conftest import *  # noqa: F403
from tranca.server import Running
from tranca_client import AsyncTrancaClient, RetryPolicy

# Quick retries: the tests wait for nothing.
FAST_RETRY = RetryPolicy(max_attempts=5, initial_backoff=0.01, max_backoff=0.05)


@pytest.fixture
async def registered_app(server: Running) -> tuple[str, str]:
    """A new app's id and API key."""
    app_id, key = await server.store.create_app(
        f"sdk-{uuid.uuid4().hex[:6]}", frozenset({"fixed_deck"})
    )
    return app_id, key


@pytest.fixture
def api_key(registered_app: tuple[str, str]) -> str:
    return registered_app[1]


@pytest.fixture
def app_id(registered_app: tuple[str, str]) -> str:
    return registered_app[0]


@pytest.fixture
def address(server: Running) -> str:
    return f"127.0.0.1:{server.port}"


@pytest.fixture
def make_client(address: str, api_key: str) -> Callable[..., AsyncTrancaClient]:
    """Makes SDK clients of the test server (closed at the end of the test)."""
    made: list[AsyncTrancaClient] = []

    def make(**kwargs: Any) -> AsyncTrancaClient:
        kwargs.setdefault("api_key", api_key)
        kwargs.setdefault("retry", FAST_RETRY)
        c = AsyncTrancaClient(address, **kwargs)
        made.append(c)
        return c

    return make


@pytest.fixture
async def app(make_client: Callable[..., AsyncTrancaClient]) -> AsyncIterator[AsyncTrancaClient]:
    c = make_client()
    yield c
    await c.close()


def rpc_error(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details)


class DropResponses(grpc.aio.UnaryUnaryClientInterceptor):
    """Lets the first ``count`` calls of ``method`` reach the server, then loses their
    answers: the caller gets ``code`` as if the connection had dropped."""

    def __init__(self, method: str, count: int = 1, code: grpc.StatusCode | None = None) -> None:
        self.method = method
        self.count = count
        self.code = code or grpc.StatusCode.UNAVAILABLE
        self.requests: list[Any] = []

    async def intercept_unary_unary(
        self, continuation: Callable[..., Any], details: Any, request: Any
    ) -> Any:
        call = await continuation(details, request)
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        if not method.endswith("/" + self.method):
            return call
        self.requests.append(request)
        response = await call  # the server has answered: the move is applied
        if len(self.requests) <= self.count:
            raise rpc_error(self.code, "answer lost (injected)")
        return response


class BreakStreams(grpc.aio.UnaryStreamClientInterceptor):
    """Breaks the first ``count`` WatchGame streams after ``after`` messages each, as a
    dropped connection would."""

    def __init__(self, after: int, count: int) -> None:
        self.after = after
        self.count = count
        self.opened: list[int] = []  # from_version of every stream opened
        self.broken = 0

    async def intercept_unary_stream(
        self, continuation: Callable[..., Any], details: Any, request: Any
    ) -> Any:
        call = await continuation(details, request)
        self.opened.append(request.from_version)
        if self.broken >= self.count:
            return call
        self.broken += 1
        limit = self.after

        async def broken() -> AsyncIterator[Any]:
            n = 0
            async for message in call:
                yield message
                n += 1
                if n >= limit:
                    call.cancel()
                    raise rpc_error(grpc.StatusCode.UNAVAILABLE, "stream broken (injected)")

        return broken()


class CountErrors(grpc.aio.UnaryUnaryClientInterceptor):
    """Counts the failed unary calls by reason (the SDK's retries included)."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    async def intercept_unary_unary(
        self, continuation: Callable[..., Any], details: Any, request: Any
    ) -> Any:
        from tranca_client import error_from_rpc

        call = await continuation(details, request)
        try:
            return await call
        except grpc.aio.AioRpcError as exc:
            self.reasons.append(error_from_rpc(exc).reason)
            raise


class ScriptedSubmits(grpc.aio.UnaryUnaryClientInterceptor):
    """Plays SubmitMove calls by a script, one step a call, then lets them through:
    "lose" (the server applies the move, the answer is lost: DEADLINE_EXCEEDED) or
    "abort" (an ABORTED answer without reaching the server, as when a retry races
    its own first attempt still running on the server)."""

    def __init__(self, *steps: str) -> None:
        self.steps = list(steps)
        self.seen: list[tuple[str, Any]] = []

    async def intercept_unary_unary(
        self, continuation: Callable[..., Any], details: Any, request: Any
    ) -> Any:
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        if not method.endswith("/SubmitMove"):
            return await continuation(details, request)
        step = self.steps.pop(0) if self.steps else "pass"
        self.seen.append((step, request))
        if step == "abort":
            raise rpc_error(grpc.StatusCode.ABORTED, "the game moved on (injected)")
        call = await continuation(details, request)
        response = await call
        if step == "lose":
            raise rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED, "answer lost (injected)")
        return response
