"""Defects found in review, each pinned by the rule it broke."""

import pytest

from tranca_rules.cards import parse_cards
from tranca_rules.engine import legal_moves, play
from tranca_rules.errors import InvalidMove, Reason, RulesError, RuleViolation
from tranca_rules.moves import MELD, NO_MELD, Move, parse_move
from tranca_rules.position import build_position
from tranca_rules.presets import make_rules
from tranca_rules.scoring import score_deal
from tranca_rules.views import meld_view

R003 = make_rules("tranca-003")


def test_a_natural_two_stays_natural_so_an_add_cannot_dirty_a_clean_canastra() -> None:
    """003: "en la tranca no se pueden “limpiar” canastas" and RULES.md decision 26: a 2 laid
    in its own place is natural; adding the TS would need it to turn wild (to stand for
    the 9), which is refused rather than making the clean canastra dirty."""
    s = build_position(
        R003,
        2,
        hands=["TS 9C 9C 9C", "KD KD QD"],
        melds=[(0, "2S 3S 4S 5S 6S 7S 8S")],
        stock="9D 9D",
        phase="play",
    )
    assert meld_view(s, 0)["canastra"] == "clean"
    assert parse_move("add @0 TS") not in legal_moves(s)
    with pytest.raises(RuleViolation) as err:
        play(s, 0, "add @0 TS")
    assert err.value.reason == Reason.CARD_DOES_NOT_FIT
    assert meld_view(s, 0)["canastra"] == "clean"


def test_the_low_run_with_a_natural_two_takes_the_next_natural_only() -> None:
    """003 decision 6: 2S 3S 4S holds a natural 2; a 6S would turn it into a wild for the 5."""
    s = build_position(
        R003, 2, hands=["6S 5S 9C 9C", "KD"], melds=[(0, "2S 3S 4S")], stock="9D", phase="play"
    )
    moves = [str(m) for m in legal_moves(s)]
    assert "add @0 5S" in moves and "add @0 6S" not in moves


def test_a_meld_move_must_list_its_cards_in_ascending_order() -> None:
    """The canonical form: every move in the legal set has its cards sorted, and a move is
    accepted exactly when it is in that set."""
    s = build_position(make_rules("tranca-000"), 2, hands=["7C 8C 9C KD", "QD"], phase="play")
    seven, eight, nine = parse_cards("7C 8C 9C")
    with pytest.raises(InvalidMove):
        play_move = Move(MELD, NO_MELD, (nine, seven, eight))
        from tranca_rules.engine import apply

        apply(s, 0, play_move)
    play(s, 0, "meld 9C 7C 8C")  # the text notation sorts for the caller


@pytest.mark.parametrize(
    "overrides",
    [
        {"canastra_bonus": {"clean": "x"}},
        {"canastra_bonus": {"clean": 1.5}},
        {"card_values": [10.9] * 14},
        {"card_values": "10" * 14},
        {"hand_size": True},
    ],
)
def test_knob_values_of_the_wrong_type_are_refused(overrides: dict[str, object]) -> None:
    """RULES.md §1: an override of the wrong type is refused with RulesError."""
    with pytest.raises(RulesError):
        make_rules("tranca-000", overrides)


def test_stock_running_out_at_the_start_of_a_turn_ends_the_deal_as_stock_out() -> None:
    """000: "Se nenhum jogador bateu e as cartas do monte acabarem, então o jogo será
    finalizado"; the red three's replacement took the last card, so the player cannot
    draw and the morto taken by the discard was never used (paid as not taken)."""
    r = make_rules("tranca-000")
    s = build_position(
        r,
        2,
        hands=["QD", "7C 8C 9C KS"],
        melds=[(1, "4S 5S 6S")],
        mortos=["5D 5D 5D 5D 5D 5D 5D 5D 5D 5D 3H", None],
        stock="KH KC",
        phase="play",
    )
    play(s, 0, "discard QD")
    play(s, 1, "draw")
    play(s, 1, "discard KS")
    assert s.is_over and s.end_reason == "stock_out"
    assert score_deal(s)[0].morto_penalty == -100
