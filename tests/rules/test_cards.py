"""Cards, notation, decks and the seeded shuffle (the issue's card notation)."""

import pytest

from tranca_rules.cards import (
    JOKER,
    card_text,
    full_deck,
    parse_card,
    parse_cards,
    shuffled_deck,
)


def test_notation_round_trips_for_every_card() -> None:
    for card in set(full_deck(jokers=True)):
        assert parse_card(card_text(card)) == card


def test_examples_of_the_notation() -> None:
    assert [card_text(c) for c in parse_cards("4H TD AS 2C JK")] == ["4H", "TD", "AS", "2C", "JK"]
    assert parse_card("10h") == parse_card("TH")
    assert parse_card("JK") == JOKER


@pytest.mark.parametrize("bad", ["", "1H", "4X", "JKK", "ZZ", "4"])
def test_bad_cards_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_card(bad)


def test_decks_have_104_or_108_cards() -> None:
    assert len(full_deck(jokers=False)) == 104
    deck = full_deck(jokers=True)
    assert len(deck) == 108 and deck.count(JOKER) == 4
    assert deck.count(parse_card("7S")) == 2


def test_shuffle_depends_only_on_the_seed() -> None:
    assert shuffled_deck(False, 42) == shuffled_deck(False, 42)
    assert shuffled_deck(False, 42) != shuffled_deck(False, 43)
    assert sorted(shuffled_deck(True, 5)) == sorted(full_deck(True))
