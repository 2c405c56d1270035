"""The errors of the service's use cases, beside the domain's own (``GameError``,
``InvalidMove``, ``RuleViolation``). The store raises them for what happens in the
database (its one error map, ``store/errors.py``, turns every driver's errors into
``Unavailable`` or lets a bug surface); the transports map each to a status code."""

from __future__ import annotations

from enum import StrEnum

from ..reasons import Reason


class ServiceError(Exception):
    """Base of the errors below."""


class NotFound(ServiceError):
    """No such game (or none the caller may see)."""


class VersionConflict(ServiceError):
    """The game is no longer at the version the change was made on."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class RequestIdReused(ServiceError):
    """A request id already in the game's log, for another action."""


class DuplicateRequest(ServiceError):
    """A write met the log's unique request id: the caller looks up its first answer."""


class MoveRefused(ServiceError):
    """The move at ``index`` (from 1) of a sequence submitted together (a turn) was
    refused for ``cause`` (a ``GameError``, ``InvalidMove`` or ``RuleViolation``):
    nothing of the sequence was written."""

    def __init__(self, index: int, cause: Exception) -> None:
        super().__init__(f"move {index}: {cause}")
        self.index = index
        self.cause = cause


class Unavailable(ServiceError):
    """The database cannot be reached or answered too slowly."""


class Refusal(StrEnum):
    """The kinds of refusal a use case makes; each transport maps them to its codes
    (gRPC: INVALID_ARGUMENT, PERMISSION_DENIED, FAILED_PRECONDITION, NOT_FOUND,
    ALREADY_EXISTS, RESOURCE_EXHAUSTED, UNAUTHENTICATED, ABORTED, UNAVAILABLE)."""

    MALFORMED = "malformed"  # the request is out of its shape
    FORBIDDEN = "forbidden"  # the credentials may not do this
    PRECONDITION = "precondition"  # not in the state the game (or table) is in now
    NOT_FOUND = "not_found"
    EXISTS = "exists"
    EXHAUSTED = "exhausted"  # a limit: too many calls, streams or failures
    UNAUTHENTICATED = "unauthenticated"  # no credentials, or unknown ones
    # Other changes of the same thing kept winning the race: the caller may retry.
    CONFLICT = "conflict"
    # Something outside the server it needs (an identity provider's keys) cannot be
    # had now: the caller may retry.
    UNAVAILABLE = "unavailable"


class Refused(ServiceError):
    """A request a use case refuses: its kind, a stable reason apps switch on, a
    message for people (no secret, no hidden card), and details (``retry_after_ms``)."""

    def __init__(
        self,
        kind: Refusal,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.reason = reason
        self.message = message
        self.metadata = metadata or {}


def malformed(message: str) -> Refused:
    """A request field out of its shape (reason MALFORMED_REQUEST)."""
    return Refused(Refusal.MALFORMED, Reason.MALFORMED_REQUEST, message)


def rate_limited(wait_seconds: float) -> Refused:
    """Too many calls (reason RATE_LIMITED), with the ``retry_after_ms`` hint (at
    least 1 ms) a client waits before retrying."""
    return Refused(
        Refusal.EXHAUSTED,
        Reason.RATE_LIMITED,
        "too many calls: slow down",
        {"retry_after_ms": str(max(1, int(wait_seconds * 1000)))},
    )


def game_not_found() -> Refused:
    return Refused(Refusal.NOT_FOUND, Reason.GAME_NOT_FOUND, "no such game")
