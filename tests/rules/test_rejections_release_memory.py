"""Every rejected move builds an exception with attributes (its reason, its message).
A server validates thousands of moves, so a rejection must leave nothing behind once
it is handled. mypyc's compiled ``Exception`` subclasses never freed their attributes
(mypy issue 21716, fixed after the mypy this project pins), so the engine's error
classes stay interpreted (server/compile_engine.py): these tests hold the engine,
compiled or not, to that."""

from __future__ import annotations

import sys
from collections.abc import Callable

from tranca.table.game import GameError
from tranca_rules.engine import new_deal, validate
from tranca_rules.errors import InvalidMove, Reason, RuleViolation
from tranca_rules.moves import DISCARD, NO_MELD, Move, parse_move
from tranca_rules.presets import PRESETS

ROUNDS = 1000
# A handful of references may come and go with interpreter caches; a leak keeps one
# per rejection.
SLACK = 10


def _refused_often(attempt: Callable[[], object], error: type[Exception], reason: Reason) -> None:
    """``attempt`` refused ROUNDS times with ``reason``, then no more references to
    ``reason`` than before, give or take the slack."""
    before = sys.getrefcount(reason)
    for _ in range(ROUNDS):
        try:
            attempt()
        except error as refused:
            assert getattr(refused, "reason", None) is reason
        else:
            raise AssertionError(f"{attempt} was not refused")
    assert sys.getrefcount(reason) < before + SLACK


def test_a_rejected_move_keeps_no_reference_to_its_reason() -> None:
    deal = new_deal(PRESETS["tranca-000"], 2, seed=1, dealer=0)
    # A turn opens with a draw: discarding first is refused.
    move = Move(DISCARD, NO_MELD, (deal.hands[deal.turn][0],))
    _refused_often(lambda: validate(deal, deal.turn, move), RuleViolation, Reason.MUST_DRAW_FIRST)


def test_an_unreadable_move_keeps_no_reference_to_its_reason() -> None:
    _refused_often(lambda: parse_move("juggle 3H"), InvalidMove, Reason.MALFORMED_MOVE)


def test_a_refused_game_request_keeps_no_reference_to_its_message() -> None:
    message = "".join(["the game ", "refuses"])  # an object of this test's own
    before = sys.getrefcount(message)
    for _ in range(ROUNDS):
        error = GameError("not_your_turn", message)
        assert error.message is message
        del error
    assert sys.getrefcount(message) < before + SLACK
