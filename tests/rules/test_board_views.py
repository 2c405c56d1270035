"""What a page is shown of melds and of a deal that is over: each meld marks the
cards that stand in as wilds; a finished deal's table (``board_of``) shows every
card but the stock's; a game keeps the deal that ended (``GameState.deal_board``)
from its end to the next deal's first move, and its last deal once the match is
over, also through its snapshot."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tranca.table.game import Action, GameState, Setup, apply_action, new_game, play_action
from tranca_rules.cards import card_text, full_deck
from tranca_rules.engine import legal_moves, play
from tranca_rules.position import build_position
from tranca_rules.presets import PRESETS, make_rules
from tranca_rules.views import board_of, meld_view


@pytest.mark.parametrize(
    ("preset", "meld", "cards", "wild_indexes"),
    [
        # 003 (runs reach the low ace; a meld of 2s is a set): a 2 of the run's suit
        # in its own place is natural, any other 2 stands in.
        ("tranca-003", "AH 2H 3H", ["AH", "2H", "3H"], []),
        ("tranca-003", "AS 2S 2C", ["AS", "2S", "2C"], [2]),
        ("tranca-003", "2C 2D 2H", ["2C", "2D", "2H"], []),
        ("tranca-003", "KC KD 2H", ["KC", "KD", "2H"], [2]),
        ("tranca-003", "4H 5H 2C 7H", ["4H", "5H", "2C", "7H"], [2]),
        ("tranca-003", "4S 5S 2D", ["4S", "5S", "2D"], [2]),
        # 002's jokers.
        ("canasta-002", "KC KD JK", ["KC", "KD", "JK"], [2]),
        ("canasta-002", "QC QD 2S", ["QC", "QD", "2S"], [2]),
    ],
)
def test_a_meld_marks_the_cards_that_stand_in_as_wilds(
    preset: str, meld: str, cards: list[str], wild_indexes: list[int]
) -> None:
    rules = make_rules(preset)
    players = rules.player_counts[0]
    s = build_position(
        rules, players, hands=["9C"] + ["QD"] * (players - 1), melds=[(0, meld)], phase="play"
    )
    view = meld_view(s, 0)
    assert view["cards"] == cards
    assert view["wild_indexes"] == wild_indexes
    assert view["wilds"] == len(wild_indexes)


def test_a_replaced_wild_is_marked_where_it_moved() -> None:
    rules = make_rules("tranca-003")
    s = build_position(
        rules, 2, hands=["6H 8H 9C 9D", "QD"], melds=[(0, "4H 5H 2C 7H")], phase="play"
    )

    play(s, 0, "replace @0 6H")
    view = meld_view(s, 0)
    assert view["cards"] == ["4H", "5H", "6H", "7H", "2C"]
    assert view["wild_indexes"] == [4]


def _played_out(preset: str, seed: int) -> GameState:
    """A single-deal game played out by random legal moves."""
    rules = PRESETS[preset]
    g = new_game(Setup(make_rules(preset, {"target_score": 0}), rules.player_counts[0], seed))
    version = 0
    for seat in range(g.setup.players):
        version += 1
        apply_action(g, Action("join", seat, name=f"p{seat}"), version)
    version += 1
    apply_action(g, Action("start"), version)
    rng = random.Random(seed)
    while g.status == "playing":
        deal = g.deal
        assert deal is not None
        version += 1
        apply_action(g, play_action(deal.turn, rng.choice(legal_moves(deal))), version)
    return g


@pytest.mark.parametrize("preset", ["tranca-000", "canasta-002", "tranca-003"])
def test_a_finished_deals_board_shows_every_card_but_the_stocks(preset: str) -> None:
    g = _played_out(preset, 5)
    found = g.deal_board()
    assert found is not None
    number, deal = found
    assert number == 1 and deal.is_over
    board = board_of(deal)
    shown: Counter[str] = Counter()
    for hand in board.hands:
        shown.update(hand)
    for meld in board.melds:
        shown.update(meld.cards)
    for reds in board.red_threes:
        shown.update(reds)
    for morto in board.mortos:
        shown.update(morto)
    shown.update(board.pile)
    deck = Counter(card_text(c) for c in full_deck(g.setup.rules.jokers))
    assert not shown - deck
    assert sum(shown.values()) + board.stock_size == sum(deck.values())
    assert board.hands == [sorted(card_text(c) for c in h) for h in deal.hands]


def test_a_game_keeps_the_deal_that_ended_until_the_next_deals_first_move() -> None:
    rules = make_rules("tranca-000", {"target_score": 100_000})  # deals go on
    g = new_game(Setup(rules, 2, 9))
    apply_action(g, Action("join", 0, name="a"), 1)
    apply_action(g, Action("join", 1, name="b"), 2)
    apply_action(g, Action("start"), 3)
    assert g.deal_board() is None
    rng = random.Random(9)
    version = 3
    while g.deal_number == 1:
        assert g.deal_board() is None  # a deal under way hides its cards
        deal = g.deal
        assert deal is not None
        version += 1
        apply_action(g, play_action(deal.turn, rng.choice(legal_moves(deal))), version)
    found = g.deal_board()
    assert found is not None and found[0] == 1 and found[1].is_over
    assert g.last_deal is not None and g.last_deal["deal_number"] == 1
    # Through the snapshot, as a store keeps it.
    again = GameState.from_dict(g.to_dict())
    kept = again.deal_board()
    assert kept is not None and kept[0] == 1
    assert board_of(kept[1]) == board_of(found[1])
    # The next deal's first move drops it.
    deal = g.deal
    assert deal is not None
    version += 1
    apply_action(g, play_action(deal.turn, legal_moves(deal)[0]), version)
    assert g.deal_board() is None
    assert "last_board" not in g.to_dict()
    # Once the match is over, its last deal is shown: here a resignation stops it.
    version += 1
    apply_action(g, Action("resign", 0), version)
    found = g.deal_board()
    assert found is not None and found[0] == 2 and found[1] is g.deal
