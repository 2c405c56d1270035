"""Typed exceptions for the Tranca service's refusals.

Every refusal of the service is a gRPC status code plus a ``google.rpc.ErrorInfo``
(domain ``tranca.v1``) whose ``reason`` is a stable machine code. The SDK raises one
exception class per status code, each carrying:

- ``code``: the ``grpc.StatusCode``;
- ``reason``: the service's reason code (``NOT_YOUR_TURN``, ``VERSION_CONFLICT``, ...;
  empty when the failure did not come from the service, e.g. a broken connection);
- ``message``: the human-readable message;
- ``metadata``: the ErrorInfo's metadata (``{"current_version": "12"}``, ...);
- ``domain``: the ErrorInfo's domain (``tranca.v1``);
- ``localized`` and ``locale``: the refusal worded for a player, in the language the
  client asked for (``language=``: ``pt-BR``, ``es`` or ``en``), from the status's
  ``google.rpc.LocalizedMessage`` (empty when there is none);
- ``attempts``: how many attempts the client made (more than 1 after retries);
- ``move_index``: for a refused ``submit_turn``, the place (from 1) of the move
  refused; nothing of the turn was played.

=====================  ======================  =========================================
exception              status code             typical reasons
=====================  ======================  =========================================
``InvalidRequest``     INVALID_ARGUMENT        MALFORMED_REQUEST, MALFORMED_MOVE, INVALID_RULES
``RuleRejected``       FAILED_PRECONDITION     NOT_YOUR_TURN, MUST_DRAW_FIRST, GAME_OVER, ...
``VersionConflict``    ABORTED                 VERSION_CONFLICT (``current_version``, ``view``)
``AlreadyExists``      ALREADY_EXISTS          REQUEST_ID_REUSED, SEAT_TAKEN
``NotFound``           NOT_FOUND               GAME_NOT_FOUND
``Unauthenticated``    UNAUTHENTICATED         NO_CREDENTIALS, BAD_API_KEY, BAD_TOKEN
``PermissionDenied``   PERMISSION_DENIED       APP_KEY_REQUIRED, PLAYER_TOKEN_REQUIRED, ...
``ResourceExhausted``  RESOURCE_EXHAUSTED      TOO_MANY_WATCHES
``Unavailable``        UNAVAILABLE             DATABASE_UNAVAILABLE, or none (no connection)
``DeadlineExceeded``   DEADLINE_EXCEEDED       none (a subclass of ``Unavailable``)
``TrancaError``        anything else           INTERNAL, ...
=====================  ======================  =========================================

``Unavailable`` and ``DeadlineExceeded`` mean the outcome is unknown: the call may or
may not have been applied. The clients retry them where that is safe (see
``RetryPolicy``), so seeing one means the retries ran out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import grpc

from .v1 import game_pb2 as pb

DOMAIN = "tranca.v1"
DETAILS_KEY = "grpc-status-details-bin"

__all__ = [
    "DOMAIN",
    "AlreadyExists",
    "DeadlineExceeded",
    "InvalidRequest",
    "NotFound",
    "PermissionDenied",
    "ResourceExhausted",
    "RuleRejected",
    "TrancaError",
    "Unauthenticated",
    "Unavailable",
    "VersionConflict",
    "error_from_rpc",
]


class TrancaError(Exception):
    """Base of every error the SDK raises for a failed call.

    Attributes: ``code`` (``grpc.StatusCode``), ``reason`` (the service's machine code,
    or ``""``), ``message``, ``metadata`` (``dict[str, str]`` from the ErrorInfo),
    ``domain``, ``attempts`` (the client's attempts at the call, this one included)
    and ``unanswered`` (how many earlier attempts got no answer and were retried).
    """

    default_code: ClassVar[grpc.StatusCode] = grpc.StatusCode.UNKNOWN

    def __init__(
        self,
        message: str = "",
        *,
        reason: str = "",
        code: grpc.StatusCode | None = None,
        metadata: Mapping[str, str] | None = None,
        domain: str = "",
        localized: str = "",
        locale: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.code = code if code is not None else self.default_code
        self.metadata: dict[str, str] = dict(metadata or {})
        self.domain = domain
        # The refusal in the player's language, as the service worded it.
        self.localized = localized
        self.locale = locale
        self.attempts = 1  # how many attempts the client made before raising this
        # How many earlier attempts got no answer (a code of the retry policy's
        # ``retry_on``: UNAVAILABLE, DEADLINE_EXCEEDED) and were retried: any of them
        # may have been applied on the server.
        self.unanswered = 0

    @property
    def move_index(self) -> int | None:
        """For a refused ``submit_turn``: the place of the refused move in the
        sequence, counted from 1 (ErrorInfo metadata ``move_index``); else None."""
        value = self.metadata.get("move_index", "")
        return int(value) if value.isdigit() else None

    def __str__(self) -> str:
        head = f"{self.code.name}"
        if self.reason:
            head += f" {self.reason}"
        return f"{head}: {self.message}" if self.message else head

    def __repr__(self) -> str:
        return f"{type(self).__name__}(reason={self.reason!r}, message={self.message!r})"


class InvalidRequest(TrancaError):
    """INVALID_ARGUMENT: the request is malformed (MALFORMED_REQUEST, MALFORMED_MOVE,
    INVALID_RULES). Retrying the same request cannot succeed."""

    default_code = grpc.StatusCode.INVALID_ARGUMENT


class RuleRejected(TrancaError):
    """FAILED_PRECONDITION: the rules or the game's state forbid the move; ``reason`` is
    the engine's code (NOT_YOUR_TURN, MUST_DRAW_FIRST, DISCARD_PILE_LOCKED, ...) or the
    game's (GAME_NOT_STARTED, GAME_STARTED, GAME_OVER, GAME_FULL, SEATS_FREE). Nothing
    was changed."""

    default_code = grpc.StatusCode.FAILED_PRECONDITION


class VersionConflict(TrancaError):
    """ABORTED / VERSION_CONFLICT: the game moved on since the version the move was
    made against; nothing was changed.

    ``current_version`` is the game's version when the move was refused (from the
    ErrorInfo's metadata; -1 if the service did not say). ``view`` is a fresh view of
    the game fetched by the client after the refusal (``None`` if it could not be
    fetched): decide again from it, with its ``version`` as the expected version.
    """

    default_code = grpc.StatusCode.ABORTED

    def __init__(
        self,
        message: str = "",
        *,
        reason: str = "VERSION_CONFLICT",
        code: grpc.StatusCode | None = None,
        metadata: Mapping[str, str] | None = None,
        domain: str = DOMAIN,
        current_version: int | None = None,
        view: pb.GameView | None = None,
    ) -> None:
        super().__init__(message, reason=reason, code=code, metadata=metadata, domain=domain)
        if current_version is None:
            try:
                current_version = int(self.metadata.get("current_version", "-1"))
            except ValueError:
                current_version = -1
        self.current_version = current_version
        self.view = view

    def __repr__(self) -> str:
        fresh = None if self.view is None else self.view.version
        return (
            f"VersionConflict(current_version={self.current_version}, "
            f"view=<version {fresh}>, message={self.message!r})"
        )


class AlreadyExists(TrancaError):
    """ALREADY_EXISTS: a request id reused with a different move (REQUEST_ID_REUSED),
    or a seat already taken (SEAT_TAKEN)."""

    default_code = grpc.StatusCode.ALREADY_EXISTS


class NotFound(TrancaError):
    """NOT_FOUND: no such game, or a game of another app (GAME_NOT_FOUND)."""

    default_code = grpc.StatusCode.NOT_FOUND


class Unauthenticated(TrancaError):
    """UNAUTHENTICATED: no credentials, or an unknown or revoked API key or token."""

    default_code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(TrancaError):
    """PERMISSION_DENIED: the credentials are valid but may not make this call
    (APP_KEY_REQUIRED, PLAYER_TOKEN_REQUIRED, WRONG_GAME, SPECTATOR, ...)."""

    default_code = grpc.StatusCode.PERMISSION_DENIED


class ResourceExhausted(TrancaError):
    """RESOURCE_EXHAUSTED: a limit was hit (TOO_MANY_WATCHES, message size, ...)."""

    default_code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unavailable(TrancaError):
    """UNAVAILABLE: the service could not be reached, or its database could not
    (DATABASE_UNAVAILABLE). The outcome of the call is unknown."""

    default_code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceeded(Unavailable):
    """DEADLINE_EXCEEDED: no answer within the deadline. The outcome of the call is
    unknown: a move may have been applied (a retry with the same request id tells)."""

    default_code = grpc.StatusCode.DEADLINE_EXCEEDED


_BY_CODE: dict[grpc.StatusCode, type[TrancaError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidRequest,
    grpc.StatusCode.FAILED_PRECONDITION: RuleRejected,
    grpc.StatusCode.ABORTED: VersionConflict,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
}


@dataclass(frozen=True)
class _Details:
    """What a refusal's status details say: its ErrorInfo and LocalizedMessage."""

    reason: str = ""
    domain: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    localized: str = ""
    locale: str = ""


def _details(trailing: Iterable[Any] | None) -> _Details:
    """The ErrorInfo and the LocalizedMessage of a refusal's status details."""
    from google.rpc import error_details_pb2, status_pb2

    for item in trailing or ():
        key, value = item[0], item[1]
        if key != DETAILS_KEY or not isinstance(value, bytes):
            continue
        try:
            status = status_pb2.Status.FromString(value)
        except Exception:
            return _Details()
        reason = domain = localized = locale = ""
        metadata: dict[str, str] = {}
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, domain = str(info.reason), str(info.domain)
                metadata = {str(k): str(v) for k, v in info.metadata.items()}
            elif detail.Is(error_details_pb2.LocalizedMessage.DESCRIPTOR):
                text = error_details_pb2.LocalizedMessage()
                detail.Unpack(text)
                localized, locale = str(text.message), str(text.locale)
        return _Details(reason, domain, metadata, localized, locale)
    return _Details()


def error_from_rpc(exc: grpc.RpcError) -> TrancaError:
    """The typed error for a failed gRPC call (``grpc.aio.AioRpcError`` or a failed
    ``grpc.Call``), with the reason and metadata of its ErrorInfo."""
    code_fn = getattr(exc, "code", None)
    code: grpc.StatusCode = code_fn() if callable(code_fn) else grpc.StatusCode.UNKNOWN
    details_fn = getattr(exc, "details", None)
    message = (details_fn() if callable(details_fn) else None) or ""
    trailing_fn = getattr(exc, "trailing_metadata", None)
    trailing = trailing_fn() if callable(trailing_fn) else None
    d = _details(trailing)
    cls = _BY_CODE.get(code, TrancaError)
    if cls is VersionConflict:
        error: TrancaError = VersionConflict(
            str(message),
            reason=d.reason or "VERSION_CONFLICT",
            metadata=d.metadata,
            domain=d.domain,
        )
    else:
        error = cls(str(message), reason=d.reason, code=code, metadata=d.metadata, domain=d.domain)
    error.localized, error.locale = d.localized, d.locale
    return error
