"""Every refusal as gRPC intends: a status code, a message without secrets or hidden
cards, a google.rpc.ErrorInfo (domain "tranca.v1") with a stable reason and the
refusal's particulars in its metadata, and a google.rpc.LocalizedMessage in the
caller's language (``localized.py``, by its ``accept-language`` metadata).

The use cases refuse in their own terms (``services.errors``, and the domain's
refusals as ``services.domain_refusals`` words them); this module alone says which
status code each is."""

from __future__ import annotations

from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from ..reasons import Reason
from ..services.domain_refusals import as_refused, quoted
from ..services.errors import (
    MoveRefused,
    NotFound,
    Refusal,
    Refused,
    RequestIdReused,
    Unavailable,
    VersionConflict,
)
from .localized import ENGLISH, localized, negotiate

DOMAIN = "tranca.v1"
# The longest message an error carries. Messages quote a caller's text in short
# prefixes (``quoted``); this bounds whatever else could grow, so that an error always
# fits in the status trailer (past about 16 KiB a client gets a transport error with
# no reason at all).
MAX_MESSAGE_CHARS = 1024

CODES = {
    Refusal.MALFORMED: grpc.StatusCode.INVALID_ARGUMENT,
    Refusal.FORBIDDEN: grpc.StatusCode.PERMISSION_DENIED,
    Refusal.PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    Refusal.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    Refusal.EXISTS: grpc.StatusCode.ALREADY_EXISTS,
    Refusal.EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Refusal.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    Refusal.CONFLICT: grpc.StatusCode.ABORTED,
    Refusal.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
}
assert set(CODES) == set(Refusal)

__all__ = ["ApiError", "abort", "quoted", "rich_status", "to_api_error"]


class ApiError(Exception):
    """A refusal as gRPC sends it."""

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


def to_api_error(exc: BaseException) -> ApiError | None:
    """The gRPC refusal for a known exception, or None for a bug."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, MoveRefused):
        # The k-th move of a turn: its own refusal, with its place in the sequence.
        err = to_api_error(exc.cause)
        if err is None:
            return None
        return ApiError(
            err.code,
            err.reason,
            f"move {exc.index} of the turn: {err.message}",
            {**err.metadata, "move_index": str(exc.index)},
        )
    if isinstance(exc, Refused):
        return ApiError(CODES[exc.kind], exc.reason, exc.message, exc.metadata)
    domain = as_refused(exc)
    if domain is not None:
        return ApiError(CODES[domain.kind], domain.reason, domain.message, domain.metadata)
    if isinstance(exc, VersionConflict):
        return ApiError(
            grpc.StatusCode.ABORTED,
            Reason.VERSION_CONFLICT,
            f"the game moved on: it is at version {exc.current}",
            {"current_version": str(exc.current)},
        )
    if isinstance(exc, RequestIdReused):
        return ApiError(grpc.StatusCode.ALREADY_EXISTS, Reason.REQUEST_ID_REUSED, str(exc))
    if isinstance(exc, NotFound):
        return ApiError(grpc.StatusCode.NOT_FOUND, Reason.GAME_NOT_FOUND, "no such game")
    if isinstance(exc, Unavailable):
        return ApiError(
            grpc.StatusCode.UNAVAILABLE, Reason.DATABASE_UNAVAILABLE, "the database is unavailable"
        )
    return None


def rich_status(err: ApiError, locale: str = ENGLISH) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN, metadata=err.metadata)
    message = err.message
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[: MAX_MESSAGE_CHARS - 3] + "..."
    status = status_pb2.Status(code=err.code.value[0], message=message)
    status.details.add().Pack(info)
    # The server's own message is a particular too (``detail``): a template may quote
    # it where the reason's particulars alone would lose what was wrong.
    text = localized(err.reason, locale, {**err.metadata, "detail": err.message})
    if text is not None:
        status.details.add().Pack(error_details_pb2.LocalizedMessage(locale=locale, message=text))
    result: grpc.Status = rpc_status.to_status(status)
    return result


def caller_locale(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The language the call asks for (its ``accept-language`` metadata)."""
    for name, value in context.invocation_metadata() or ():
        if name.lower() == "accept-language" and isinstance(value, str):
            return negotiate(value)
    return ENGLISH


async def abort(context: grpc.aio.ServicerContext[Any, Any], err: ApiError) -> None:
    await context.abort_with_status(rich_status(err, caller_locale(context)))
