"""A tournament change's refusals, and the conflict that rolls back a settlement."""

from __future__ import annotations

from ...platform.chips import InsufficientChips
from ...reasons import Reason
from ..errors import Refusal, Refused


class TournamentConflict(Exception):
    """The tournament kept changing under a game's result being recorded (inside the
    settlement's transaction, which then rolls back and is tried again)."""


def bad_config(message: str) -> Refused:
    return Refused(Refusal.MALFORMED, Reason.BAD_TOURNAMENT, message)


def not_found() -> Refused:
    return Refused(Refusal.NOT_FOUND, Reason.TOURNAMENT_NOT_FOUND, "no such tournament")


def refused(reason: Reason, message: str) -> Refused:
    return Refused(Refusal.PRECONDITION, reason, message)


def cannot_pay(exc: InsufficientChips) -> Refused:
    # Ids only in the message: never a player's balance.
    return refused(
        Reason.INSUFFICIENT_CHIPS, f"player {exc.player} cannot cover the entry fee of {exc.needed}"
    )


def busy() -> Refused:
    return Refused(
        Refusal.CONFLICT, Reason.TOURNAMENT_CONFLICT, "the tournament kept changing: retry"
    )
