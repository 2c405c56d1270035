"""Typed errors of the rules engine.

``InvalidMove`` is a move that cannot even be read (syntax, unknown kind, a card
that does not exist); ``RuleViolation`` is a well-formed move that the position
forbids. Each carries a stable machine code (``Reason``) and a human message; the
API maps the first to INVALID_ARGUMENT and the second to FAILED_PRECONDITION.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Stable reason codes. Never renamed once released: apps switch on them."""

    MALFORMED_MOVE = "MALFORMED_MOVE"
    DEAL_OVER = "DEAL_OVER"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    MUST_DRAW_FIRST = "MUST_DRAW_FIRST"
    ALREADY_DREW = "ALREADY_DREW"
    STOCK_EMPTY = "STOCK_EMPTY"
    DISCARD_PILE_EMPTY = "DISCARD_PILE_EMPTY"
    DISCARD_PILE_LOCKED = "DISCARD_PILE_LOCKED"
    DISCARD_PILE_FROZEN = "DISCARD_PILE_FROZEN"
    TOP_CARD_NOT_USED = "TOP_CARD_NOT_USED"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    UNKNOWN_MELD = "UNKNOWN_MELD"
    NOT_YOUR_MELD = "NOT_YOUR_MELD"
    INVALID_MELD = "INVALID_MELD"
    TOO_MANY_WILDS = "TOO_MANY_WILDS"
    TOO_FEW_NATURALS = "TOO_FEW_NATURALS"
    MELD_KIND_NOT_ALLOWED = "MELD_KIND_NOT_ALLOWED"
    THREES_CANNOT_BE_MELDED = "THREES_CANNOT_BE_MELDED"
    BLACK_THREES_ONLY_WHEN_GOING_OUT = "BLACK_THREES_ONLY_WHEN_GOING_OUT"
    CARD_DOES_NOT_FIT = "CARD_DOES_NOT_FIT"
    WILD_REPLACEMENT_NOT_ALLOWED = "WILD_REPLACEMENT_NOT_ALLOWED"
    NOT_A_WILD_REPLACEMENT = "NOT_A_WILD_REPLACEMENT"
    CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA = "CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA"
    CANNOT_GO_OUT_WITHOUT_CANASTRA = "CANNOT_GO_OUT_WITHOUT_CANASTRA"
    MUST_KEEP_A_CARD_TO_DISCARD = "MUST_KEEP_A_CARD_TO_DISCARD"
    ONE_MELD_PER_TURN = "ONE_MELD_PER_TURN"


# The most of a caller's own text an error message repeats: enough to recognise it,
# never enough to make the answer as large as the request.
QUOTED_CHARS = 32


def quoted(text: str, limit: int = QUOTED_CHARS) -> str:
    """``text`` as an error message quotes it: ``repr``, cut to ``limit`` characters."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


class RulesError(ValueError):
    """An unknown preset or an incoherent combination of rule knobs."""


class InvalidMove(ValueError):
    """A move that cannot be read: maps to INVALID_ARGUMENT."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.reason = Reason.MALFORMED_MOVE
        self.message = message


class RuleViolation(Exception):
    """A well-formed move the position forbids: maps to FAILED_PRECONDITION.
    ``params`` are the refusal's particulars (the card, the meld, the seat), which the
    API sends beside the reason so that a front end can word it in its own language."""

    def __init__(self, reason: Reason, message: str, params: dict[str, str] | None = None) -> None:
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason
        self.message = message
        self.params = params or {}
