"""The typed vocabulary: the card predicates of ``cards.py`` (the only place that
looks inside a card's int), and the seat's view built in one place
(``views.view_of``), with the pile lock the engine decides."""

from __future__ import annotations

import random

import pytest

from tranca_rules.cards import (
    ACE,
    ALL_NATURAL_CARDS,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JOKER,
    SPADES,
    SUITS,
    THREE,
    THREE_OF_CLUBS,
    THREE_OF_DIAMONDS,
    THREE_OF_HEARTS,
    THREE_OF_SPADES,
    TWO,
    card_text,
    holds_red_three,
    is_black_three,
    is_joker,
    is_red_three,
    is_three,
    is_two,
    is_wild,
    make_card,
    parse_card,
    rank_of,
    suit_of,
)
from tranca_rules.engine import apply, legal_moves, new_deal, pile_locked
from tranca_rules.position import build_position
from tranca_rules.presets import PRESETS, PileView, make_rules
from tranca_rules.state import EndReason, Phase
from tranca_rules.views import SPECTATOR, seat_view, view_of

EVERY_CARD = (*ALL_NATURAL_CARDS, JOKER)


def test_the_predicates_read_the_notation() -> None:
    """Each predicate against the card's text, not against the int's layout."""
    for card in EVERY_CARD:
        text = card_text(card)
        rank_letter, suit_letter = text[0], text[1]
        joker = text == "JK"
        assert is_joker(card) == joker
        assert is_two(card) == (rank_letter == "2")
        assert is_wild(card) == (joker or rank_letter == "2")
        assert is_three(card) == (rank_letter == "3")
        assert is_red_three(card) == (text in ("3D", "3H"))
        assert is_black_three(card) == (text in ("3C", "3S"))
        assert holds_red_three([card]) == is_red_three(card)
        if joker:
            assert (rank_of(card), suit_of(card)) == (0, 4)
        else:
            assert rank_of(card) == "A23456789TJQK".index(rank_letter) + 1
            assert suit_of(card) == "CDHS".index(suit_letter)
            assert make_card(rank_of(card), suit_of(card)) == card


def test_the_named_cards_are_the_cards_they_name() -> None:
    assert SUITS == (CLUBS, DIAMONDS, HEARTS, SPADES)
    assert [make_card(THREE, s) for s in SUITS] == [
        THREE_OF_CLUBS,
        THREE_OF_DIAMONDS,
        THREE_OF_HEARTS,
        THREE_OF_SPADES,
    ]
    assert parse_card("JK") == JOKER
    assert make_card(ACE, SPADES) == parse_card("AS")
    assert make_card(TWO, CLUBS) == parse_card("2C")
    assert not holds_red_three([parse_card(t) for t in ("3C", "3S", "4D", "JK")])
    assert holds_red_three([parse_card(t) for t in ("3C", "3H")])


@pytest.mark.parametrize("top", ["3C", "3S", "3D", "9H"])
@pytest.mark.parametrize("preset", ["tranca-000", "canasta-002"])
def test_the_view_shows_the_pile_lock_the_engine_applies(top: str, preset: str) -> None:
    rules = make_rules(preset)
    players = rules.player_counts[-1]
    hands = ["9C 9D 9H 4S"] + ["KD KS QC"] * (players - 1)
    s = build_position(rules, players, hands=hands, pile=f"7C {top}", stock="5C 6C")
    locked = pile_locked(s)
    assert locked == (rules.black_three_locks_pile and top in ("3C", "3S"))
    for seat in (*range(players), SPECTATOR):
        assert view_of(s, seat).pile_locked == locked
        assert seat_view(s, seat)["pile_locked"] == locked
    takes = [m for m in legal_moves(s) if m.kind == 1]
    assert not (locked and takes)  # a locked pile is never taken


def test_only_a_seat_that_holds_a_hand_sees_one() -> None:
    s = new_deal(make_rules("tranca-000"), 4, seed=5)
    for seat in range(4):
        assert view_of(s, seat).hand == sorted(card_text(c) for c in s.hands[seat])
    for reader in (SPECTATOR, 4, -7):
        view = view_of(s, reader)
        assert view.hand is None
        assert view.hand_sizes == [len(h) for h in s.hands]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_view_is_typed_and_its_plain_form_is_the_same(preset: str) -> None:
    rules = PRESETS[preset]
    players = rules.player_counts[0]
    rng = random.Random(preset)
    s = new_deal(rules, players, seed=3)
    while not s.is_over:
        for seat in (s.turn, SPECTATOR):
            view = view_of(s, seat)
            assert isinstance(view.phase, Phase) and isinstance(view.end_reason, EndReason)
            plain = seat_view(s, seat)
            assert plain == view.to_dict()
            assert plain["melds"] == [m.to_dict() for m in view.melds]
            assert (view.pile is not None) == (rules.pile_view == PileView.ALL)
            assert (view.mortos is not None) == rules.mortos_face_up
            assert view.pile_top == (card_text(s.pile[-1]) if s.pile else None)
        apply(s, s.turn, rng.choice(legal_moves(s)))
    assert view_of(s, 0).phase is Phase.OVER
    assert view_of(s, 0).end_reason in (
        EndReason.BATIDA,
        EndReason.STOCK_OUT,
        EndReason.NO_MOVE,
    )
