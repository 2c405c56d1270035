"""Every refusal as gRPC intends: a status code, a message without secrets or hidden
cards, and a google.rpc.ErrorInfo (domain "tranca.v1") with a stable reason."""

from __future__ import annotations

from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from ..app.game import GameError
from ..rules.errors import InvalidMove, RulesError, RuleViolation, quoted
from ..store.repository import NotFound, RequestIdReused, Unavailable, VersionConflict

DOMAIN = "tranca.v1"
# The longest message an error carries. Messages quote a caller's text in short
# prefixes (``quoted``); this bounds whatever else could grow, so that an error always
# fits in the status trailer (past about 16 KiB a client gets a transport error with
# no reason at all).
MAX_MESSAGE_CHARS = 1024

__all__ = ["ApiError", "abort", "malformed", "quoted", "rate_limited", "to_api_error"]


class ApiError(Exception):
    """A refusal decided in the API layer (auth, limits, malformed requests)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata or {}


def malformed(message: str) -> ApiError:
    """INVALID_ARGUMENT, reason MALFORMED_REQUEST: a request field out of its shape."""
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", message)


def rate_limited(wait_seconds: float) -> ApiError:
    """RESOURCE_EXHAUSTED, reason RATE_LIMITED, with the ``retry_after_ms`` hint (at
    least 1 ms) a client waits before retrying."""
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "RATE_LIMITED",
        "too many calls: slow down",
        {"retry_after_ms": str(max(1, int(wait_seconds * 1000)))},
    )


def to_api_error(exc: BaseException) -> ApiError | None:
    """The API error for a known exception, or None for a bug."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, InvalidMove):
        return ApiError(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_MOVE", exc.message)
    if isinstance(exc, RulesError):
        return ApiError(grpc.StatusCode.INVALID_ARGUMENT, "INVALID_RULES", str(exc))
    if isinstance(exc, RuleViolation):
        return ApiError(grpc.StatusCode.FAILED_PRECONDITION, exc.reason.value, exc.message)
    if isinstance(exc, GameError):
        code = (
            grpc.StatusCode.ALREADY_EXISTS
            if exc.reason == "SEAT_TAKEN"
            else grpc.StatusCode.FAILED_PRECONDITION
        )
        return ApiError(code, exc.reason, exc.message)
    if isinstance(exc, VersionConflict):
        return ApiError(
            grpc.StatusCode.ABORTED,
            "VERSION_CONFLICT",
            f"the game moved on: it is at version {exc.current}",
            {"current_version": str(exc.current)},
        )
    if isinstance(exc, RequestIdReused):
        return ApiError(grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED", str(exc))
    if isinstance(exc, NotFound):
        return ApiError(grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND", "no such game")
    if isinstance(exc, Unavailable):
        return ApiError(
            grpc.StatusCode.UNAVAILABLE, "DATABASE_UNAVAILABLE", "the database is unavailable"
        )
    return None


def rich_status(err: ApiError) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN, metadata=err.metadata)
    message = err.message
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[: MAX_MESSAGE_CHARS - 3] + "..."
    status = status_pb2.Status(code=err.code.value[0], message=message)
    status.details.add().Pack(info)
    result: grpc.Status = rpc_status.to_status(status)
    return result


async def abort(context: grpc.aio.ServicerContext[Any, Any], err: ApiError) -> None:
    await context.abort_with_status(rich_status(err))
