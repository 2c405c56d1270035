"""Scenario tests for preset ``tranca-003``, the Spanish online room's Tranca:
cards left in hand, going out and the morto, the stock running out, the match and rejections.

Each test rests on its passage of 003 or its entry of docs/RULES.md §4, as in
test_preset_003.py.
"""

from __future__ import annotations

import pytest

from tests.rules.preset_003_helpers import (
    CLEAN_RUN,
    DIRTY_RUN,
    MORTO_0,
    MORTO_1,
    RULES,
    moves_text,
    rejected,
    same_cards,
    score_after_batida,
)
from tranca_rules.cards import card_text
from tranca_rules.engine import legal_moves, play
from tranca_rules.errors import Reason
from tranca_rules.match import Match, decide
from tranca_rules.moves import parse_move
from tranca_rules.position import build_position
from tranca_rules.presets import TieBreak, make_rules
from tranca_rules.scoring import score_deal
from tranca_rules.state import END_BATIDA, END_STOCK_OUT, NOBODY, DealState

# ----- cards left in hand ---------------------------------------------------------------


def test_threes_left_in_hand_cost_100_and_other_cards_10() -> None:
    """003: "Tres negro o rojo: resta 100 puntos por cada uno que se queda en la mano al final
    de la ronda." and "Resto de cartas: 10 puntos" """
    _, theirs = score_after_batida(melds=[(0, CLEAN_RUN)], other_hand="3C 3S 3H 9D AS 2H")
    assert theirs.hand_cards == -(3 * 100 + 3 * 10)


def test_every_card_on_the_table_is_worth_10() -> None:
    """003: "Resto de cartas: 10 puntos" (decision 18)."""
    mine, _ = score_after_batida(melds=[(0, CLEAN_RUN), (0, "AS KS QS"), (0, "JH QH 2C")])
    assert mine.table_cards == 130
    assert mine.total == 130 + 200 + 100


# ----- going out and the morto --------------------------------------------------------


def test_direct_batida_takes_the_morto_and_plays_on() -> None:
    """003: "Directa: Cuando un jugador deposita su última carta sobre su zona de juego, puede
    recoger el muerto y continuar depositando combinaciones en la misma jugada." """
    morto = "7C 8C 9C 3D KH KH KS QD QD JS TS"
    s = build_position(
        RULES, 2, hands=["4H 5H 6H", "QS"], mortos=[morto, MORTO_1], stock="AD", phase="play"
    )
    play(s, 0, "meld 4H 5H 6H")
    assert s.turn == 0 and s.phase == "play" and not s.is_over
    assert s.morto_taken[0] and s.mortos[0] is None
    assert same_cards(s.red_threes[0], "3D")  # laid at once, and replaced
    assert same_cards(s.hands[0], "7C 8C 9C KH KH KS QD QD JS TS AD")
    play(s, 0, "meld 7C 8C 9C")
    play(s, 0, "meld KH KH KS")
    assert len(s.melds) == 3


def test_indirect_batida_uses_the_morto_next_turn() -> None:
    """003: "Indirecta: Cuando un jugador deposita su última carta sobre el montón, no puede
    hacer uso del muerto hasta la siguiente ronda." (decision 1: its red threes are laid at
    the start of that turn)."""
    morto = "3H 7C 8C 9C KH KH KS QD QD JS TS"
    s = build_position(
        RULES,
        2,
        hands=["9H", "QS QC"],
        mortos=[morto, MORTO_1],
        stock="5S 4S AD",
        phase="play",
    )
    play(s, 0, "discard 9H")
    assert s.turn == 1 and s.morto_taken[0]
    assert same_cards(s.hands[0], morto)
    assert s.red_threes[0] == []
    play(s, 1, "draw")
    play(s, 1, "discard AD")
    assert s.turn == 0
    assert same_cards(s.red_threes[0], "3H")
    assert same_cards(s.hands[0], "4S 7C 8C 9C KH KH KS QD QD JS TS")
    play(s, 0, "draw")
    play(s, 0, "meld 7C 8C 9C")


def test_final_batida_needs_a_clean_canastra_and_scores_100() -> None:
    """003: "Final: Cuando un jugador deposita la última de sus cartas y ya no puede recoger el
    muerto teniendo al menos una canasta limpia en su zona de juego. Con esta jugada se
    termina el juego." and "Batida final: 100 puntos" """
    s = build_position(
        RULES,
        2,
        hands=["4H 5H 6H 9C", "QS"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_1],
        stock="TC",
        phase="play",
    )
    assert rejected(s, 0, "meld 4H 5H 6H") == Reason.MUST_KEEP_A_CARD_TO_DISCARD
    s2 = build_position(
        RULES,
        2,
        hands=["9C", "QS"],
        melds=[(0, DIRTY_RUN), (0, "2C 2C 2D 2D 2H 2H 2S")],
        mortos=[None, MORTO_1],
        stock="TC",
        phase="play",
    )
    assert rejected(s2, 0, "discard 9C") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    s3 = build_position(
        RULES,
        2,
        hands=["4H 5H 6H 9C", "QS"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, MORTO_1],
        stock="TC",
        phase="play",
    )
    play(s3, 0, "meld 4H 5H 6H")
    play(s3, 0, "discard 9C")
    assert s3.is_over and s3.went_out == 0 and s3.end_reason == END_BATIDA
    mine, theirs = score_deal(s3)
    assert mine.batida == 100 and theirs.batida == 0


def test_a_final_batida_by_melding_the_last_cards() -> None:
    """003: "Final: Cuando un jugador deposita la última de sus cartas y ya no puede recoger el
    muerto teniendo al menos una canasta limpia" """
    s = build_position(
        RULES,
        2,
        hands=["JC QC", "QS"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, MORTO_1],
        stock="TC",
        phase="play",
    )
    play(s, 0, "add @0 JC")
    play(s, 0, "add @0 QC")
    assert s.is_over and s.went_out == 0
    assert score_deal(s)[0].batida == 100


def test_morto_taken_and_not_used_costs_100_and_its_cards() -> None:
    """003: "Además coger el muerto y no poder usarlo resta 100 puntos. Los puntos de las
    cartas que te quedan en la mano también se restan." (decision 11)."""
    s = build_position(
        RULES,
        2,
        hands=["9C", "KD KH KS"],
        melds=[(1, DIRTY_RUN.replace("D", "H")), (1, CLEAN_RUN.replace("C", "S"))],
        mortos=["5C 5C 5C 5C 5C 5C 5C 5C 5C 5C 3S", None],
        stock="7C 7C 7C",
        phase="play",
    )
    play(s, 0, "discard 9C")  # indirect batida: the morto waits for the next turn
    play(s, 1, "draw")
    play(s, 1, "meld KD KH KS")
    play(s, 1, "discard 7C")  # seat 1 goes out first
    assert s.is_over and s.went_out == 1
    mine, _ = score_deal(s)
    assert mine.morto_penalty == -100
    assert mine.hand_cards == -(10 * 10 + 100)


def test_morto_taken_and_not_used_costs_100_when_the_stock_runs_out() -> None:
    """003: "Además coger el muerto y no poder usarlo resta 100 puntos." (decision 11: "A
    morto taken by an indirect batida and not yet used when the deal ends is paid as if never
    taken: -100"). Here the deal ends for want of cards before the taker plays again."""
    s = build_position(
        RULES,
        2,
        hands=["9C", "KD KH KS 8D"],
        mortos=["5C 5C 5C 5C 5C 5C 5C 5C 5C 5C 3S", None],
        stock="7C",
        phase="play",
    )
    play(s, 0, "discard 9C")
    play(s, 1, "draw")
    play(s, 1, "discard 7C")
    assert s.is_over and s.end_reason == END_STOCK_OUT
    assert same_cards(s.hands[0], "5C 5C 5C 5C 5C 5C 5C 5C 5C 5C 3S")
    mine, _ = score_deal(s)
    assert mine.morto_penalty == -100
    assert mine.hand_cards == -(10 * 10 + 100)


def test_morto_never_taken_costs_100() -> None:
    """Decision 12 (003 is silent): a morto never taken costs its side 100."""
    s = build_position(
        RULES,
        2,
        hands=["9C", "KD"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, MORTO_1],
        stock="7C",
        phase="play",
    )
    play(s, 0, "discard 9C")
    mine, theirs = score_deal(s)
    assert mine.morto_penalty == 0
    assert theirs.morto_penalty == -100
    assert theirs.hand_cards == -10  # the untaken morto's cards are not counted


def test_each_pair_may_use_only_one_morto() -> None:
    """003: "Cada pareja sólo podrá hacer uso de uno de los muertos en una partida." """
    s = build_position(
        RULES,
        4,
        hands=["QC", "QS", "9C", "QD"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_1],
        stock="TC",
        turn=2,
        phase="play",
    )
    # Seat 0 took the pair's morto; seat 2 cannot take the other one.
    assert rejected(s, 2, "discard 9C") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    s2 = build_position(
        RULES,
        4,
        hands=["QC", "QS", "9C", "QD"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, MORTO_1],
        stock="TC",
        turn=2,
        phase="play",
    )
    play(s2, 2, "discard 9C")
    assert s2.is_over and s2.went_out == 2
    assert s2.mortos[1] is not None and not s2.morto_taken[1]


def test_two_players_may_not_take_the_opponents_morto() -> None:
    """003: "Cada pareja sólo podrá hacer uso de uno de los muertos en una partida." """
    s = build_position(
        RULES,
        2,
        hands=["9C", "QS"],
        mortos=[None, MORTO_1],
        stock="TC",
        phase="play",
    )
    assert rejected(s, 0, "discard 9C") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    assert "discard 9C" not in moves_text(s)


def test_partners_share_their_melds() -> None:
    """Decision 31 (003: "para 2 jugadores o por parejas"): partners add to each other's
    melds, not to the other pair's."""
    s = build_position(
        RULES,
        4,
        hands=["QC", "QS", "7H KD 9C", "QD"],
        melds=[(0, "4H 5H 6H"), (1, "KC KH KS")],
        stock="TC",
        turn=2,
        phase="play",
    )
    play(s, 2, "add @0 7H")
    assert same_cards(s.melds[0].cards, "4H 5H 6H 7H")
    assert rejected(s, 2, "add @1 KD") == Reason.NOT_YOUR_MELD


# ----- the stock runs out --------------------------------------------------------------


def test_the_mortos_left_become_the_stock() -> None:
    """003: "Cuando se termina el mazo de cartas, si queda en la mesa algún “muerto”, éste
    pasará a formar parte del mazo." """
    s = build_position(RULES, 2, hands=["9C 9D", "KD QD"], mortos=[MORTO_0, MORTO_1], stock="7C")
    play(s, 0, "draw")
    play(s, 0, "discard 7C")
    assert not s.is_over and s.turn == 1
    assert s.mortos == [None, None]
    assert same_cards(s.stock, MORTO_0 + " " + MORTO_1)
    play(s, 1, "draw")
    assert len(s.hands[1]) == 3


def test_after_the_mortos_became_stock_a_side_goes_out_without_one() -> None:
    """Decision 16 (003: "Final: Cuando un jugador deposita la última de sus cartas y ya no
    puede recoger el muerto teniendo al menos una canasta limpia")."""
    s = build_position(
        RULES,
        2,
        hands=["9C 9D", "KD KH KS"],
        melds=[(1, CLEAN_RUN)],
        mortos=[MORTO_0, MORTO_1],
        stock="7C",
    )
    play(s, 0, "draw")
    play(s, 0, "discard 7C")
    play(s, 1, "draw")
    play(s, 1, "meld KD KH KS")
    [card] = s.hands[1]
    play(s, 1, f"discard {card_text(card)}")
    assert s.is_over and s.went_out == 1 and s.end_reason == END_BATIDA


def test_the_deal_ends_when_stock_and_mortos_are_gone() -> None:
    """Decision 16 (003: "Cuando se termina el mazo de cartas, si queda en la mesa algún
    “muerto”, éste pasará a formar parte del mazo.")"""
    s = build_position(RULES, 2, hands=["9C 9D", "KD QD"], mortos=[None, None], stock="7C")
    play(s, 0, "draw")
    play(s, 0, "discard 7C")
    assert s.is_over and s.end_reason == END_STOCK_OUT and s.went_out == NOBODY
    assert rejected(s, 1, "draw") == Reason.DEAL_OVER


# ----- the match -------------------------------------------------------------------------


def test_the_match_is_played_to_2000_points() -> None:
    """003: "El juego termina cuando un jugador o pareja consigue la cantidad de puntos
    necesarios para ganar." (decision 21: 2,000 by default)"""
    assert RULES.target_score == 2000
    assert decide(RULES, [1990, 1500], 3, 0) == NOBODY
    assert decide(RULES, [1500, 2000], 3, 0) == 1
    assert decide(RULES, [2400, 2100], 4, 1) == 0


def test_the_room_offers_one_game_2000_or_3000_points() -> None:
    """003: "Las partidas se pueden jugar a un juego, 2000 puntos o 3000 puntos." """
    three = make_rules("tranca-003", {"target_score": 3000})
    assert decide(three, [2500, 1000], 2, 0) == NOBODY
    assert decide(three, [3000, 1000], 3, 0) == 0
    one = make_rules("tranca-003", {"target_score": 0})
    assert decide(one, [150, -40], 1, 1) == 0


def test_a_tie_goes_to_the_side_that_started_the_match() -> None:
    """003: "En caso de empate, gana el jugador o la pareja que haya empezado la partida." """
    assert RULES.tie_break == TieBreak.FIRST_PLAYER
    assert decide(RULES, [2100, 2100], 5, 1) == 1
    assert decide(RULES, [2100, 2100], 5, 0) == 0
    for seed in range(4):
        m = Match(RULES, 2, seed)
        assert m.first_side == m.deal.side_of(m.deal.turn)
        pairs = Match(RULES, 4, seed)
        assert pairs.first_side == pairs.deal.side_of(pairs.deal.turn)


# ----- rejections leave the state unchanged -------------------------------------------------


def _table(phase: str = "play", pile: str = "QC JH") -> DealState:
    return build_position(
        RULES,
        2,
        hands=["4H 5H 6H 9C 3S KD 7D TS 2C 2D 6D", "KC KS 8D"],
        melds=[(0, "7S 8S 9S"), (1, "4D 5D 6D"), (0, "JC QC 2H")],
        pile=pile,
        stock="TC TD TH",
        phase=phase,
    )


@pytest.mark.parametrize(
    ("phase", "pile", "seat", "move", "reason"),
    [
        ("draw", "QC JH", 1, "draw", Reason.NOT_YOUR_TURN),
        ("draw", "QC JH", 0, "meld 4H 5H 6H", Reason.MUST_DRAW_FIRST),
        ("play", "QC JH", 0, "draw", Reason.ALREADY_DREW),
        ("draw", "", 0, "take @0", Reason.DISCARD_PILE_EMPTY),
        ("draw", "QC 3S", 0, "take @0", Reason.DISCARD_PILE_LOCKED),
        ("draw", "QC JH", 0, "take @0", Reason.TOP_CARD_NOT_USED),
        ("play", "QC JH", 0, "discard AH", Reason.CARD_NOT_IN_HAND),
        ("play", "QC JH", 0, "add @9 TS", Reason.UNKNOWN_MELD),
        ("play", "QC JH", 0, "add @1 7D", Reason.NOT_YOUR_MELD),
        ("play", "QC JH", 0, "meld 4H 5H 9C", Reason.INVALID_MELD),
        ("play", "QC JH", 0, "meld KD 2C 2D", Reason.TOO_MANY_WILDS),
        ("play", "QC JH", 0, "add @0 4H", Reason.CARD_DOES_NOT_FIT),
        ("play", "QC JH", 0, "replace @0 TS", Reason.NOT_A_WILD_REPLACEMENT),
        ("play", "QC JH", 0, "add @2 2C", Reason.TOO_MANY_WILDS),
    ],
)
def test_a_rejected_move_names_its_reason_and_changes_nothing(
    phase: str, pile: str, seat: int, move: str, reason: Reason
) -> None:
    """003 speaks of the moves (robar, combinar, incorporar, descartar); a move against its
    rules is refused with a stable reason and leaves the deal as it was."""
    s = _table(phase, pile)
    assert rejected(s, seat, move) == reason
    if seat == s.turn:
        assert parse_move(move) not in legal_moves(s)


def test_a_natural_in_a_wilds_place_must_be_sent_as_replace() -> None:
    """003: "Es posible reemplazar un comodín en juego por la carta a la que sustituye." The
    replacement is its own move: as a plain add it is refused and nothing changes."""
    s = build_position(RULES, 2, hands=["6H 9C 9D", "QD"], melds=[(0, "4H 5H 2C 7H")], phase="play")
    assert rejected(s, 0, "add @0 6H") == Reason.CARD_DOES_NOT_FIT
    assert rejected(s, 0, "replace @0 9C") == Reason.CARD_DOES_NOT_FIT
