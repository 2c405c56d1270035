"""The domain's refusals in the use cases' terms: a rules error, a move that cannot be
read, a move the position forbids and a request the game's state refuses each become
the ``Refused`` (kind, reason, message, particulars) every transport maps to its own
codes, so that no transport needs to know the domain's exceptions."""

from __future__ import annotations

from tranca_rules.errors import InvalidMove, RulesError, RuleViolation, quoted

from ..reasons import Reason
from ..table.errors import GameError
from .errors import MoveRefused, Refusal, Refused

__all__ = ["as_refused", "invalid_rules", "quoted", "rule_violated"]


def as_refused(exc: BaseException) -> Refused | None:
    """The refusal a domain exception stands for; None for any other exception."""
    if isinstance(exc, InvalidMove):
        return Refused(Refusal.MALFORMED, Reason.MALFORMED_MOVE, exc.message)
    if isinstance(exc, RulesError):
        return Refused(Refusal.MALFORMED, Reason.INVALID_RULES, str(exc))
    if isinstance(exc, RuleViolation):
        return Refused(Refusal.PRECONDITION, exc.reason.value, exc.message, dict(exc.params))
    if isinstance(exc, GameError):
        kind = Refusal.EXISTS if exc.reason == Reason.SEAT_TAKEN else Refusal.PRECONDITION
        return Refused(kind, exc.reason, exc.message)
    return None


def rule_violated(exc: BaseException) -> str | None:
    """The rule a refused move broke (its reason, counted in the metrics), a turn's
    move's included; None for any other refusal."""
    cause = exc.cause if isinstance(exc, MoveRefused) else exc
    if isinstance(cause, RuleViolation):
        return cause.reason.value
    return None


def invalid_rules(message: str) -> RulesError:
    """Rules a request cannot set (INVALID_RULES), as the engine refuses them."""
    return RulesError(message)
