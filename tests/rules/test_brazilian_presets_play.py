"""Scenario tests for the Brazilian presets ``tranca-000``, ``tranca-001`` and ``tranca-004``
(docs/RULES.md §1, the documents 000, 001 and 004; §4's decisions): taking the pile,
red threes, the morto and the batida, scoring, the match, views and rejections.
The table of the rules and their passages: tests/rules/brazilian_presets_table.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.rules.brazilian_presets_helpers import (
    CLEAN_RUN,
    DIRTY_RUN,
    MORTO_A,
    MORTO_B,
    SET_OF_SEVEN,
    SET_OF_SIX,
    deck_with,
    legal,
    play_out,
    position,
    rejected,
    rule,
    rule_at_each_table_size,
    texts,
)
from tests.rules.brazilian_presets_table import Preset
from tranca_rules.cards import card_text, parse_card, parse_cards
from tranca_rules.engine import new_deal, play
from tranca_rules.errors import Reason
from tranca_rules.match import DRAWN, Match, decide
from tranca_rules.presets import make_rules
from tranca_rules.scoring import score_deal
from tranca_rules.state import NOBODY, DealState
from tranca_rules.views import seat_view, visible_cards

# ----- taking the discard pile ----------------------------------------------------------


@rule
def test_taking_the_pile_puts_its_top_card_on_an_own_meld_and_the_rest_in_the_hand(
    preset: Preset,
) -> None:
    s = position(
        preset,
        hands=["9C KD", "QS QD"],
        melds=[(0, "4H 5H 6H")],
        pile="JC 3S 8D 7H",
        stock="9S",
    )
    play(s, 0, "take @0")
    assert texts(s.melds[0].cards) == ["4H", "5H", "6H", "7H"]
    assert texts(s.hands[0]) == ["3S", "8D", "9C", "JC", "KD"]
    assert s.pile == []
    assert s.phase == "play"
    assert len(s.stock) == 1


@rule
@pytest.mark.parametrize("more", ["", "7S"], ids=["three-cards", "then-a-fourth"])
def test_taking_the_pile_makes_a_new_meld_of_its_top_card_and_two_hand_cards(
    preset: Preset, more: str
) -> None:
    s = position(preset, hands=[f"7C 7D {more} 9S KD", "QS QD"], pile="QC 7H", stock="9S")
    play(s, 0, "take 7C 7D")
    assert texts(s.melds[0].cards) == ["7C", "7D", "7H"]
    assert texts(s.hands[0]) == sorted(["9S", "KD", "QC", *more.split()])
    assert s.pile == []
    for card in more.split():  # more cards by later adds
        play(s, 0, f"add @0 {card}")
    assert len(s.melds[0].cards) == 3 + len(more.split())


@rule
def test_the_pile_cannot_be_taken_unless_its_top_card_is_used(preset: Preset) -> None:
    s = position(
        preset,
        hands=["5H 6H 9S KD", "QS QD"],
        melds=[(0, "9C TC JC")],
        pile="9D TD 8D",
        stock="4C",
    )
    assert rejected(s, 0, "take @0") == Reason.TOP_CARD_NOT_USED
    assert rejected(s, 0, "take 5H 6H") == Reason.TOP_CARD_NOT_USED
    assert rejected(s, 0, "take 9D TD") == Reason.CARD_NOT_IN_HAND  # not the pile's cards
    assert rejected(s, 0, "take @1") == Reason.UNKNOWN_MELD
    assert legal(s) == ["draw"]


@rule
def test_a_black_three_on_top_locks_the_pile_for_the_next_player_only(preset: Preset) -> None:
    s = position(preset, hands=["3S 8H 9H KD", "7H QC JS"], stock="4C 5C TH", phase="play")
    play(s, 0, "discard 3S")
    assert rejected(s, 1, "take QC JS") == Reason.DISCARD_PILE_LOCKED
    assert legal(s) == ["draw"]
    play(s, 1, "draw")
    play(s, 1, "discard 7H")
    play(s, 0, "take 8H 9H")  # the three is buried now: the pile is open again
    assert texts(s.melds[0].cards) == ["7H", "8H", "9H"]
    assert texts(s.hands[0]) == ["3S", "KD"]


@rule
def test_black_threes_left_in_hand_count_against_the_side(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "3S 3C 9D"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert score_deal(s)[1].hand_cards == -3 * preset.card_value.value


# ----- red threes -----------------------------------------------------------------------


@rule
def test_a_red_three_drawn_is_laid_down_at_once_and_replaced(preset: Preset) -> None:
    s = position(preset, hands=["9C KD", "QS QD"], stock="5S 8C 3H")
    play(s, 0, "draw")
    assert [texts(r) for r in s.red_threes] == [["3H"], []]
    assert texts(s.hands[0]) == ["8C", "9C", "KD"]
    assert texts(s.stock) == ["5S"]
    assert s.phase == "play"
    assert seat_view(s, 1)["red_threes"] == [["3H"], []]


@rule
def test_dealt_red_threes_are_laid_at_the_start_of_their_holders_first_turn(
    preset: Preset,
) -> None:
    # 3H is dealt to seat 1, 3D to seat 0
    s = new_deal(preset.knobs, 2, deck=deck_with("3H 3D"), dealer=0)
    assert s.turn == 1
    assert [texts(r) for r in s.red_threes] == [[], ["3H"]]
    assert len(s.hands[1]) == 11 and parse_card("3H") not in s.hands[1]
    assert parse_card("3D") in s.hands[0]  # not yet seat 0's turn
    assert len(s.stock) == 59
    play(s, 1, "draw")
    play(s, 1, f"discard {card_text(s.hands[1][0])}")
    assert s.turn == 0
    assert [texts(r) for r in s.red_threes] == [["3D"], ["3H"]]
    assert len(s.hands[0]) == 11 and parse_card("3D") not in s.hands[0]
    assert len(s.stock) == 57


@rule
def test_a_red_three_in_a_morto_taken_by_a_direct_batida_is_laid_and_replaced(
    preset: Preset,
) -> None:
    morto = "3D 4S 5S 6S 7S 8S 9S TS JS QS KS"
    s = position(
        preset,
        hands=["5H 6H 7H", "KD QS"],
        stock="8C 9C",
        mortos=[morto, MORTO_B],
        phase="play",
    )
    play(s, 0, "meld 5H 6H 7H")
    assert [texts(r) for r in s.red_threes] == [["3D"], []]
    assert len(s.hands[0]) == 11
    assert parse_card("9C") in s.hands[0]
    assert texts(s.stock) == ["8C"]


@rule
def test_red_threes_count_plus_with_any_canastra_even_a_dirty_one(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, CLEAN_RUN), (1, DIRTY_RUN)],
        red_threes=["3H", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    red = preset.red_three_value.value
    assert [sc.red_threes for sc in score_deal(s)] == [red, 2 * red]


@rule
def test_red_threes_count_plus_with_a_set_canastra(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, "9C 9C 9D 9D 9H 9H 9S"), (1, DIRTY_RUN)],
        red_threes=["3H", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    red = preset.red_three_value.value
    assert [sc.red_threes for sc in score_deal(s)] == [red, 2 * red]


@rule
def test_red_threes_count_minus_without_a_canastra(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, CLEAN_RUN), (1, SET_OF_SIX)],  # six cards: no canastra
        red_threes=["", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert [sc.red_threes for sc in score_deal(s)] == [0, -2 * preset.red_three_value.value]


@rule
def test_red_threes_count_minus_beside_a_set_of_seven_which_is_no_canastra(
    preset: Preset,
) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, CLEAN_RUN), (1, SET_OF_SEVEN)],
        red_threes=["", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert [sc.red_threes for sc in score_deal(s)] == [0, -2 * preset.red_three_value.value]


# ----- the morto and the batida ---------------------------------------------------------


@rule
def test_a_direct_batida_by_melding_takes_the_morto_and_plays_on_without_drawing(
    preset: Preset,
) -> None:
    s = position(
        preset,
        hands=["5H 6H 7H", "KD QS"],
        stock="8C 9C",
        mortos=[MORTO_A, MORTO_B],
        phase="play",
    )
    play(s, 0, "meld 5H 6H 7H")
    assert not s.is_over
    assert (s.turn, s.phase) == (0, "play")
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    assert s.morto_taken == [True, False]
    assert s.mortos[0] is None
    assert rejected(s, 0, "draw") == Reason.ALREADY_DREW
    assert len(s.stock) == 2


@rule
def test_a_direct_batida_by_taking_the_pile_takes_the_morto_and_plays_on(
    preset: Preset,
) -> None:
    # the take melds the last two cards of the hand with the pile's only card
    s = position(
        preset, hands=["5H 6H", "KD QS"], pile="7H", stock="8C 9C", mortos=[MORTO_A, MORTO_B]
    )
    assert "take 5H 6H" in legal(s)
    play(s, 0, "take 5H 6H")
    assert not s.is_over
    assert s.end_reason == ""
    assert (s.turn, s.phase) == (0, "play")
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    assert s.morto_taken == [True, False]


@rule
def test_an_indirect_batida_takes_the_morto_to_be_used_next_turn(preset: Preset) -> None:
    morto = "3H 4S 5S 6S 7S 8S 9S TS JS QS KS"
    s = position(
        preset,
        hands=["9H", "KD KS QC"],
        stock="8C 9C JD",
        mortos=[morto, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard 9H")
    assert s.turn == 1
    assert s.morto_taken == [True, False]
    assert texts(s.hands[0]) == texts(parse_cards(morto))
    assert s.red_threes == [[], []]  # its red three is laid on the next turn
    play(s, 1, "draw")
    play(s, 1, "discard QC")
    assert (s.turn, s.phase) == (0, "draw")
    assert [texts(r) for r in s.red_threes] == [["3H"], []]
    assert parse_card("9C") in s.hands[0] and len(s.hands[0]) == 11
    play(s, 0, "draw")
    assert len(s.hands[0]) == 12


@rule
def test_a_morto_taken_by_an_indirect_batida_and_not_used_is_paid_as_not_taken(
    preset: Preset,
) -> None:
    s = position(
        preset,
        hands=["9H", "KD KS"],
        melds=[(1, "4D 5D 6D 7D 8D 9D TD")],
        stock="8C 9C KC",
        mortos=[MORTO_A, None],
        phase="play",
    )
    play(s, 0, "discard 9H")
    play(s, 1, "draw")
    play(s, 1, "meld KC KD KS")
    assert s.is_over and s.went_out == 1
    side0, side1 = score_deal(s)
    assert side0.morto_penalty == -preset.morto_penalty.value
    assert side0.hand_cards == 0  # the morto's cards are not counted
    assert side0.total == -preset.morto_penalty.value
    assert side1.morto_penalty == 0
    assert side1.total == (
        10 * preset.card_value.value + preset.clean_canastra_bonus.value + preset.batida_bonus.value
    )


@rule
def test_going_out_needs_a_clean_canastra(preset: Preset) -> None:
    dirty = position(
        preset, hands=["KH", "KD QS"], melds=[(0, DIRTY_RUN)], mortos=[None, MORTO_B], phase="play"
    )
    assert rejected(dirty, 0, "discard KH") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    dirty = position(
        preset,
        hands=["JH QH KH", "KD QS"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
    )
    assert rejected(dirty, 0, "meld JH QH KH") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    clean = position(
        preset,
        hands=["JH QH KH", "KD QS"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(clean, 0, "meld JH QH KH")
    assert clean.is_over and clean.end_reason == "batida" and clean.went_out == 0


@rule
def test_the_canastra_made_with_the_last_card_lets_the_player_go_out(preset: Preset) -> None:
    s = position(
        preset,
        hands=["TS", "KD QS"],
        melds=[(0, "4S 5S 6S 7S 8S 9S")],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "add @0 TS")
    assert s.is_over and s.went_out == 0


@rule
def test_a_player_who_cannot_go_out_must_keep_a_card_to_discard(preset: Preset) -> None:
    s = position(
        preset,
        hands=["JH QH KH 9C", "KD QS"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
    )
    assert rejected(s, 0, "meld JH QH KH") == Reason.MUST_KEEP_A_CARD_TO_DISCARD
    with_morto = position(
        preset, hands=["JH QH KH 9C", "KD QS"], mortos=[MORTO_A, MORTO_B], phase="play"
    )
    play(with_morto, 0, "meld JH QH KH")  # the discard will take the morto
    play(with_morto, 0, "discard 9C")
    assert with_morto.morto_taken == [True, False]


# ----- scoring --------------------------------------------------------------------------


@rule
def test_the_scoring_breakdown_of_a_deal_with_a_batida(preset: Preset) -> None:
    card = preset.card_value.value
    clean = preset.clean_canastra_bonus.value
    dirty = preset.dirty_canastra_bonus.value
    batida = preset.batida_bonus.value
    red = preset.red_three_value.value
    morto = preset.morto_penalty.value
    s = position(
        preset,
        hands=["QC", "KD KS 9H"],
        melds=[(0, CLEAN_RUN), (0, DIRTY_RUN), (0, "JH QH KH"), (1, "9C TC JC")],
        red_threes=["3H 3D", "3H"],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard QC")
    assert s.is_over and s.went_out == 0
    side0, side1 = score_deal(s)
    assert side0.table_cards == 17 * card
    assert side0.canastras == {"clean": clean, "dirty": dirty}
    assert side0.canastra_counts == {"clean": 1, "dirty": 1}
    assert side0.batida == batida
    assert side0.red_threes == 2 * red
    assert side0.morto_penalty == 0
    assert side0.hand_cards == 0
    assert side0.untaken_morto_cards == 0
    assert side0.total == 17 * card + clean + dirty + batida + 2 * red
    assert side1.table_cards == 3 * card
    assert side1.canastras == {}
    assert side1.batida == 0
    assert side1.red_threes == -red
    assert side1.morto_penalty == -morto
    assert side1.hand_cards == -3 * card
    assert side1.total == 3 * card - red - morto - 3 * card


@rule
@pytest.mark.parametrize("more", ["", "7H"], ids=["ace-king-four-two-three", "and-a-seven"])
def test_every_card_is_worth_the_same(preset: Preset, more: str) -> None:
    card = preset.card_value.value
    left = f"AS KD 4C {more} 2H 3S"
    s = position(
        preset,
        hands=["QC", left],
        melds=[(0, CLEAN_RUN), (0, "QH KH AH 2D")],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard QC")
    side0, side1 = score_deal(s)
    assert side0.table_cards == 11 * card
    assert side1.hand_cards == -len(left.split()) * card


@rule
def test_the_stock_running_out_ends_the_deal_without_a_batida(preset: Preset) -> None:
    card = preset.card_value.value
    morto = preset.morto_penalty.value
    s = position(
        preset,
        hands=["9H 5C", "KD KS"],
        melds=[(1, "4D 5D 6D 7D 8D 9D TD")],
        stock="8C",
        mortos=[MORTO_A, MORTO_B],
    )
    play(s, 0, "draw")
    assert s.stock == [] and not s.is_over
    play(s, 0, "discard 9H")  # the player who drew the last card finishes the turn
    assert s.is_over
    assert s.end_reason == "stock_out"
    assert s.went_out == NOBODY
    assert rejected(s, 1, "draw") == Reason.DEAL_OVER
    side0, side1 = score_deal(s)
    assert (side0.batida, side1.batida) == (0, 0)
    assert (side0.morto_penalty, side1.morto_penalty) == (-morto, -morto)
    assert side0.hand_cards == -2 * card
    assert side0.total == -2 * card - morto
    assert side1.total == 7 * card + preset.clean_canastra_bonus.value - morto - 2 * card


# ----- the match ------------------------------------------------------------------------


@rule_at_each_table_size
def test_a_match_is_one_deal(preset: Preset, n_players: int) -> None:
    m = Match(preset.knobs, n_players, seed=5)
    play_out(m.deal)
    scores = [sc.total for sc in score_deal(m.deal)]
    m.finish_deal()
    assert m.is_over
    assert m.deal_scores == [scores]
    assert m.totals == scores
    if scores[0] == scores[1]:
        assert m.winner == DRAWN
    else:
        assert m.winner == scores.index(max(scores))
    with pytest.raises(ValueError):
        m.finish_deal()


@rule
def test_a_tie_in_the_one_deal_is_a_draw(preset: Preset) -> None:
    knobs = preset.knobs
    assert knobs.target_score == 0
    assert decide(knobs, [150, 150], 1, 0) == DRAWN
    assert decide(knobs, [150, 90], 1, 1) == 0
    assert decide(knobs, [-90, -20], 1, 0) == 1


@rule
def test_a_match_to_a_target_score_by_override(preset: Preset) -> None:
    knobs = make_rules(preset.name, {"target_score": 3000})
    assert decide(knobs, [2900, 1000], 1, 0) == NOBODY
    assert decide(knobs, [3000, 1000], 2, 0) == 0
    assert decide(knobs, [3100, 3200], 3, 0) == 1  # both past it: the highest total wins


# ----- what a seat sees -----------------------------------------------------------------


@rule
def test_only_the_top_card_of_the_pile_is_visible(preset: Preset) -> None:
    s = position(preset, hands=["4H 5H", "KD KS"], pile="9C JD 8H")
    for seat in (0, 1):
        view = seat_view(s, seat)
        assert view["pile"] is None
        assert view["pile_top"] == "8H"
        assert view["pile_size"] == 3
        seen = visible_cards(s, seat)
        assert parse_card("8H") in seen
        assert parse_card("9C") not in seen and parse_card("JD") not in seen  # buried
    view = seat_view(s, 1)
    assert view["hand"] == ["KD", "KS"]
    assert view["hand_sizes"] == [2, 2]
    assert parse_card("4H") not in visible_cards(s, 1)  # the other hand stays hidden
    assert view["mortos"] is None  # face down


# ----- rejections -----------------------------------------------------------------------


def _in_draw_phase(preset: Preset) -> DealState:
    return position(
        preset,
        hands=["4H 5H 6H 9C 3C 3S 3S 2D KS", "KD QS QH"],
        melds=[(0, "5C 2S 7C"), (1, "8D 9D TD")],
        pile="JC 8H",
        stock="4D 6D",
    )


def _in_play_phase(preset: Preset) -> DealState:
    s = _in_draw_phase(preset)
    play(s, 0, "draw")
    return s


def _locked(preset: Preset) -> DealState:
    return position(preset, hands=["4H 5H 6H", "KD QS QH"], pile="8H 3S", stock="4D 6D")


def _cannot_go_out(preset: Preset) -> DealState:
    return position(
        preset,
        hands=["JH QH KH 9C", "KD QS"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
    )


@rule
@pytest.mark.parametrize(
    ("make", "seat", "move", "reason"),
    [
        (_in_draw_phase, 1, "draw", Reason.NOT_YOUR_TURN),
        (_in_play_phase, 1, "discard KD", Reason.NOT_YOUR_TURN),
        (_in_draw_phase, 0, "meld 4H 5H 6H", Reason.MUST_DRAW_FIRST),
        (_in_draw_phase, 0, "discard 9C", Reason.MUST_DRAW_FIRST),
        (_in_play_phase, 0, "draw", Reason.ALREADY_DREW),
        (_in_play_phase, 0, "take @0", Reason.ALREADY_DREW),
        (_locked, 0, "take 4H 5H", Reason.DISCARD_PILE_LOCKED),
        (_in_draw_phase, 0, "take @0", Reason.TOP_CARD_NOT_USED),
        (_in_draw_phase, 0, "take 4H 5H", Reason.TOP_CARD_NOT_USED),
        (_in_play_phase, 0, "meld 4H 5H 9C", Reason.INVALID_MELD),
        (_in_play_phase, 0, "add @0 2D", Reason.TOO_MANY_WILDS),
        (_in_play_phase, 0, "meld 3C 3S 3S", Reason.THREES_CANNOT_BE_MELDED),
        (_in_play_phase, 0, "meld 7H 8H 9H", Reason.CARD_NOT_IN_HAND),
        (_in_play_phase, 0, "discard AS", Reason.CARD_NOT_IN_HAND),
        (_in_play_phase, 0, "add @1 KS", Reason.NOT_YOUR_MELD),
        (_in_draw_phase, 0, "take @1", Reason.NOT_YOUR_MELD),
        (_in_play_phase, 0, "add @5 KS", Reason.UNKNOWN_MELD),
        (_in_play_phase, 0, "add @0 KS", Reason.CARD_DOES_NOT_FIT),
        (_cannot_go_out, 0, "meld JH QH KH", Reason.MUST_KEEP_A_CARD_TO_DISCARD),
    ],
)
def test_a_rejected_move_names_its_reason_and_changes_nothing(
    preset: Preset,
    make: Callable[[Preset], DealState],
    seat: int,
    move: str,
    reason: Reason,
) -> None:
    assert rejected(make(preset), seat, move) == reason
