"""Helpers shared by the scenario tests of the Brazilian presets (000, 001, 004)."""

from __future__ import annotations

import pytest

from tranca.rules.cards import card_text, full_deck, parse_cards
from tranca.rules.engine import legal_moves, play
from tranca.rules.errors import Reason, RuleViolation
from tranca.rules.moves import move_text
from tranca.rules.state import DealState


def rejected(s: DealState, seat: int, move: str) -> Reason:
    """Play a move that must be refused; check that nothing changed; return the reason."""
    before = s.to_dict()
    with pytest.raises(RuleViolation) as refused:
        play(s, seat, move)
    assert s.to_dict() == before
    return refused.value.reason


def texts(cards: list[int]) -> list[str]:
    return sorted(card_text(c) for c in cards)


def legal(s: DealState) -> list[str]:
    return [move_text(m) for m in legal_moves(s)]


def deck_with(front: str) -> list[int]:
    """A full 104-card deck in a fixed order: ``front`` first (dealt one card at a time
    from the left of the dealer), the red threes not named there last (the bottom
    of the stock)."""
    first = parse_cards(front)
    rest = full_deck(jokers=False)
    for c in first:
        rest.remove(c)
    reds = [c for c in rest if card_text(c) in ("3H", "3D")]
    return first + [c for c in rest if card_text(c) not in ("3H", "3D")] + reds
