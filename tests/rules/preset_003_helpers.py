"""The rules of ``tranca-003``, the hands and positions its scenario tests build, and
the checks they share (tests/rules/test_preset_003*.py)."""

from __future__ import annotations

import pytest

from tranca_rules.cards import full_deck, parse_card, parse_cards
from tranca_rules.engine import legal_moves, play
from tranca_rules.errors import Reason, RuleViolation
from tranca_rules.moves import move_text
from tranca_rules.position import build_position
from tranca_rules.presets import make_rules
from tranca_rules.scoring import SideScore, score_deal
from tranca_rules.state import END_BATIDA, DealState

RULES = make_rules("tranca-003")

CLEAN_RUN = "4C 5C 6C 7C 8C 9C TC"  # a clean canastra of seven
DIRTY_RUN = "4D 5D 6D 2S 8D 9D TD"  # a dirty canastra of seven (2S stands for 7D)
MORTO_0 = "5C 5C 5C 5C 5C 5C 5C 5C 5C 5C 5C"
MORTO_1 = "6D 6D 6D 6D 6D 6D 6D 6D 6D 6D 6D"


# ----- helpers -----------------------------------------------------------------------


def cards(text: str) -> list[int]:
    return parse_cards(text)


def same_cards(got: list[int], text: str) -> bool:
    return sorted(got) == sorted(cards(text))


def moves_text(s: DealState) -> list[str]:
    return [move_text(m) for m in legal_moves(s)]


def rejected(s: DealState, seat: int, move: str) -> Reason:
    """Play ``move``, expect a RuleViolation, check the state did not change, and
    return the reason."""
    before = s.to_dict()
    with pytest.raises(RuleViolation) as err:
        play(s, seat, move)
    assert s.to_dict() == before
    return err.value.reason


def fixed_deck(hands: list[str], stock_top: str = "") -> list[int]:
    """A 104-card deck order that deals ``hands`` (in playing order, the first player
    first) and puts ``stock_top`` on top of the stock (first card on top). The red
    threes not named go to the bottom of the stock."""
    rest = full_deck(jokers=False)
    hand_cards = [cards(h) for h in hands]
    top = cards(stock_top)
    for c in [c for h in hand_cards for c in h] + top:
        rest.remove(c)
    red_threes = {parse_card("3H"), parse_card("3D")}
    rest.sort(key=lambda c: c in red_threes)
    order = [hand_cards[k][i] for i in range(len(hand_cards[0])) for k in range(len(hands))]
    n_morto_cards = 2 * RULES.morto_size
    return order + rest[:n_morto_cards] + top + rest[n_morto_cards:]


def score_after_batida(
    *,
    melds: list[tuple[int, str]],
    other_hand: str = "KD",
    red_threes: list[str] | None = None,
) -> tuple[SideScore, SideScore]:
    """Seat 0 goes out by discarding its last card (no morto left, a clean canastra
    among ``melds``); the two sides' scores."""
    s = build_position(
        RULES,
        2,
        hands=["9H", other_hand],
        melds=melds,
        mortos=[None, None],
        stock="7C 7C 7C",
        phase="play",
        red_threes=red_threes,
    )
    play(s, 0, "discard 9H")
    assert s.is_over and s.end_reason == END_BATIDA and s.went_out == 0
    first, second = score_deal(s)
    return first, second
