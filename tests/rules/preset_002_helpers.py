"""The presets of 002, the hands and positions their scenario tests build, and the
checks they share (tests/rules/test_preset_002*.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tranca_rules.cards import JOKER, card_text, full_deck, is_red_three, parse_card
from tranca_rules.engine import legal_moves, play
from tranca_rules.errors import Reason, RuleViolation
from tranca_rules.moves import parse_move
from tranca_rules.position import build_position
from tranca_rules.presets import make_rules
from tranca_rules.scoring import SideScore, score_deal
from tranca_rules.state import DealState

BASE = "canasta-002"
ABERTA = "canasta-002-aberta"
PAULISTA = "canasta-002-paulista"
DOIS = "canasta-002-dois"
TRES = "canasta-002-tres"
CARIOCA = "canasta-002-carioca"
ALL_002 = (BASE, ABERTA, PAULISTA, DOIS, TRES, CARIOCA)
PLAYERS = {BASE: 4, ABERTA: 4, PAULISTA: 4, DOIS: 2, TRES: 3, CARIOCA: 4}
SETS_ONLY = (BASE, ABERTA, PAULISTA, DOIS, TRES)

CLEAN_EIGHTS = "8C 8D 8H 8S 8C 8D 8H"  # a clean canastra: seven natural 8s (70 points)
DIRTY_NINES = "9C 9D 9H 9S 9C 2D JK"  # a dirty canastra: five 9s and two wilds (120 points)
MORTO = "5C 6C 7C 8C 9C TC JC QC KC AC 4D"  # 11 cards worth 5+5+5+10*6+20+5 = 100


# ----- helpers -------------------------------------------------------------------------


def position(preset: str = BASE, **kwargs: Any) -> DealState:
    """A position under ``preset`` with its usual number of players."""
    return build_position(make_rules(preset), PLAYERS[preset], **kwargs)


def rejected(s: DealState, seat: int, move: str, reason: Reason) -> None:
    """``move`` is refused with ``reason``, is not among the legal moves, and leaves
    the deal exactly as it was."""
    before = s.to_dict()
    legal = legal_moves(s) if seat == s.turn else []
    with pytest.raises(RuleViolation) as info:
        play(s, seat, move)
    assert info.value.reason == reason, info.value.message
    assert s.to_dict() == before
    assert parse_move(move) not in legal


def is_legal(s: DealState, move: str) -> bool:
    return parse_move(move) in legal_moves(s)


def texts(cards: list[int]) -> list[str]:
    return sorted(card_text(c) for c in cards)


def is_special(card: int) -> bool:
    return card == JOKER or (card & 15) == 2 or is_red_three(card)


def stacked_deck(preset: str, placed: dict[int, str]) -> list[int]:
    """A full deck for ``preset`` with the cards of ``placed`` at the given positions
    (position 0 is dealt first). Every other wild and red three goes into the mortos,
    so that hands and stock hold only the special cards a test places there."""
    rules = make_rules(preset)
    deck = full_deck(rules.jokers)
    left = Counter(deck)
    out: list[int | None] = [None] * len(deck)
    for i, text in placed.items():
        card = parse_card(text)
        left[card] -= 1
        out[i] = card
    special = sorted(c for c in left.elements() if is_special(c))
    plain = sorted(c for c in left.elements() if not is_special(c))
    morto_start = rules.hand_size * PLAYERS[preset]
    free = [i for i in range(len(deck)) if out[i] is None]
    special_slots = [i for i in free if i >= morto_start][: len(special)]
    assert len(special_slots) == len(special)
    for i, c in zip(special_slots, special, strict=True):
        out[i] = c
    rest = [i for i in free if out[i] is None]
    for i, c in zip(rest, plain, strict=True):
        out[i] = c
    return [c for c in out if c is not None]


def first_turned_index(preset: str) -> int:
    """The deck position of the first card turned for the discard pile."""
    rules = make_rules(preset)
    n = PLAYERS[preset]
    n_sides = 2 if n == 4 else n
    return n * rules.hand_size + n_sides * rules.morto_size


def scores(s: DealState) -> list[SideScore]:
    assert s.is_over
    return score_deal(s)
