"""Scenario tests for preset ``tranca-003``, the Spanish online room's Tranca:
players, deck and deal, melds, the discard pile and red threes.

Each test rests on a passage of the rule document 003_9ae53d0671553559.txt ("003"), quoted in its
docstring, or on a numbered entry of docs/RULES.md §4 where the document is silent.
"""

from __future__ import annotations

import pytest

from tests.rules.preset_003_helpers import (
    CLEAN_RUN,
    DIRTY_RUN,
    MORTO_1,
    RULES,
    cards,
    fixed_deck,
    moves_text,
    rejected,
    same_cards,
    score_after_batida,
)
from tranca_rules.cards import JOKER, full_deck, parse_card
from tranca_rules.engine import new_deal, play
from tranca_rules.errors import Reason
from tranca_rules.melds import Problem, classify
from tranca_rules.position import build_position
from tranca_rules.scoring import score_deal
from tranca_rules.state import END_STOCK_OUT, DealState
from tranca_rules.views import meld_view

# ----- players, deck and deal --------------------------------------------------------


def test_two_players_or_two_pairs() -> None:
    """003: "La Tranca es un juego de cartas para 2 jugadores o por parejas." """
    assert len(new_deal(RULES, 2, seed=1).hands) == 2
    four = new_deal(RULES, 4, seed=1)
    assert len(four.hands) == 4
    assert four.n_sides == 2 and four.side_of(0) == four.side_of(2) != four.side_of(1)
    with pytest.raises(ValueError):
        new_deal(RULES, 3, seed=1)


@pytest.mark.parametrize("n_players", [2, 4])
def test_two_decks_without_jokers(n_players: int) -> None:
    """003: "Se juega con 2 barajas inglesas sin comodines." """
    s = new_deal(RULES, n_players, seed=5)
    every = s.all_cards()
    assert len(every) == 104
    assert JOKER not in every
    assert sorted(every) == sorted(full_deck(jokers=False))


@pytest.mark.parametrize("n_players", [2, 4])
def test_eleven_cards_each_and_two_mortos_of_eleven(n_players: int) -> None:
    """003: "Se reparten 11 cartas a cada jugador y se apartan a un lado dos grupos de 11
    cartas cada uno, llamados “muertos”. Las cartas restantes pasarán a formar parte del
    montón para robar." """
    deck = fixed_deck(
        ["AC KC QC JC TC 9C 8C 7C 6C 5C 4C"] * 2 + ["AD KD QD JD TD 9D 8D 7D 6D 5D 4D"] * 2
        if n_players == 4
        else ["AC KC QC JC TC 9C 8C 7C 6C 5C 4C", "AD KD QD JD TD 9D 8D 7D 6D 5D 4D"]
    )
    s = new_deal(RULES, n_players, deck=deck, dealer=n_players - 1)
    assert [len(h) for h in s.hands] == [11] * n_players
    assert s.mortos[0] is not None and s.mortos[1] is not None
    assert [len(m) for m in s.mortos if m is not None] == [11, 11]
    assert len(s.stock) == 104 - 11 * n_players - 22


def test_first_player_draws_from_the_stock() -> None:
    """003: "El primer jugador debe robar carta del mazo" (decision 25: no card is turned)."""
    s = new_deal(RULES, 2, seed=3)
    assert s.pile == []
    assert moves_text(s) == ["draw"]
    assert rejected(s, s.turn, "take @0") == Reason.DISCARD_PILE_EMPTY


def test_a_turn_melds_as_often_as_wished_and_ends_with_a_discard() -> None:
    """003: "Podrá colocar tantas combinaciones como desee. Al terminar, debe descartar
    obligatoriamente una carta de su mano" """
    s = build_position(RULES, 2, hands=["4H 5H 6H KC KD KS 9C", "QD QH"], stock="8S 7S JC")
    play(s, 0, "draw")
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "meld KC KD KS")
    assert s.turn == 0 and s.phase == "play"
    play(s, 0, "discard 9C")
    assert len(s.melds) == 2
    assert s.pile == cards("9C")
    assert s.turn == 1 and s.phase == "draw"


# ----- melds ---------------------------------------------------------------------------


def test_runs_of_one_suit_and_sets() -> None:
    """003: "El objetivo es crear escaleras del mismo palo o tríos" """
    s = build_position(RULES, 2, hands=["4H 5H 6H KC KD KS 9C 9S TS JD", "QD"], phase="play")
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "meld KC KD KS")
    assert [meld_view(s, i)["kind"] for i in range(2)] == ["run", "set"]
    assert rejected(s, 0, "meld 9S TS JD") == Reason.INVALID_MELD
    assert rejected(s, 0, "meld 9C 9S TS") == Reason.INVALID_MELD


def test_a_meld_has_at_least_three_cards() -> None:
    """003: "para depositarlas sobre su zona de juego (mínimo 3 cartas)" """
    two = classify(cards("4H 5H"), RULES)
    assert isinstance(two, Problem) and two.reason == Reason.INVALID_MELD
    assert not isinstance(classify(cards("4H 5H 6H"), RULES), Problem)


def test_cards_are_added_to_ones_own_melds() -> None:
    """003: "también podrá incorporar cartas a las combinaciones que ya tiene en juego." """
    s = build_position(
        RULES,
        2,
        hands=["7H KH 9C", "QD"],
        melds=[(0, "4H 5H 6H"), (1, "KC KD KS")],
        phase="play",
    )
    play(s, 0, "add @0 7H")
    assert same_cards(s.melds[0].cards, "4H 5H 6H 7H")
    assert rejected(s, 0, "add @1 KH") == Reason.NOT_YOUR_MELD


def test_twos_are_wild_in_sets_and_in_runs_of_any_suit() -> None:
    """003: "Los doses hacen la función de comodín y se pueden utilizar tanto en tríos como en
    escaleras aunque no sean del mismo palo." """
    s = build_position(RULES, 2, hands=["KC KD 2H 4S 5S 2D 9C", "QD"], phase="play")
    play(s, 0, "meld KC KD 2H")
    play(s, 0, "meld 4S 5S 2D")
    assert meld_view(s, 0)["kind"] == "set" and meld_view(s, 0)["wilds"] == 1
    assert meld_view(s, 1)["kind"] == "run" and meld_view(s, 1)["wilds"] == 1
    assert meld_view(s, 1)["cards"] == ["4S", "5S", "2D"]


def test_only_one_wild_in_a_meld() -> None:
    """003: "En una combinación sólo puede haber un comodín." """
    s = build_position(
        RULES,
        2,
        hands=["KC 2H 2S 2D 9C 9D", "QD"],
        melds=[(0, "4H 5H 2C"), (0, "QS QH 2C")],
        phase="play",
    )
    assert rejected(s, 0, "meld KC 2H 2S") == Reason.TOO_MANY_WILDS
    assert rejected(s, 0, "add @0 2S") == Reason.TOO_MANY_WILDS
    assert rejected(s, 0, "add @1 2D") == Reason.TOO_MANY_WILDS
    assert "add @0 2S" not in moves_text(s)


def test_a_replaced_wild_moves_to_the_high_end() -> None:
    """003: "Es posible reemplazar un comodín en juego por la carta a la que sustituye. [...]
    Seguirá funcionando como comodín en el extremo derecho de la escalera (donde están las
    cartas más altas)." """
    s = build_position(
        RULES, 2, hands=["6H 8H 9C 9D", "QD"], melds=[(0, "4H 5H 2C 7H")], phase="play"
    )
    assert meld_view(s, 0)["cards"] == ["4H", "5H", "2C", "7H"]
    assert "replace @0 6H" in moves_text(s)
    play(s, 0, "replace @0 6H")
    view = meld_view(s, 0)
    assert view["cards"] == ["4H", "5H", "6H", "7H", "2C"]
    assert view["wilds"] == 1
    # The wild now stands for the 8: when the 8 comes, the wild moves up again.
    play(s, 0, "add @0 8H")
    assert meld_view(s, 0)["cards"] == ["4H", "5H", "6H", "7H", "8H", "2C"]


def test_a_replaced_wild_moves_to_the_low_end_when_the_high_end_is_full() -> None:
    """003: "Si no es posible, seguirá funcionando como comodín en el extremo izquierdo (con
    las cartas más bajas)." """
    s = build_position(
        RULES, 2, hands=["JH 9C 9D", "QD"], melds=[(0, "TH 2C QH KH AH")], phase="play"
    )
    play(s, 0, "replace @0 JH")
    view = meld_view(s, 0)
    assert view["cards"] == ["2C", "TH", "JH", "QH", "KH", "AH"]
    assert view["wilds"] == 1


def test_a_replaced_two_of_the_runs_suit_keeps_working_as_a_wild() -> None:
    """003: "Es posible reemplazar un comodín en juego por la carta a la que sustituye. En
    este caso, el comodín se desplazará [...] Seguirá funcionando como comodín en el extremo
    derecho de la escalera". The 2S filling the 5S's gap is a wild; once the 5S takes its
    place it goes on as a wild at the high end, so the run of seven is a dirty canastra."""
    s = build_position(
        RULES, 2, hands=["5S 9C 9D", "QD"], melds=[(0, "3S 4S 2S 6S 7S 8S")], phase="play"
    )
    assert meld_view(s, 0)["wilds"] == 1
    play(s, 0, "replace @0 5S")
    view = meld_view(s, 0)
    assert view["cards"] == ["3S", "4S", "5S", "6S", "7S", "8S", "2S"]
    assert view["wilds"] == 1
    assert view["canastra"] == "dirty"


def test_runs_start_at_the_low_ace_with_a_two_of_the_suit_in_its_place() -> None:
    """Decision 6 (003's "Canasta de as a as" needs the low ace): A-2-3 is a run, its 2 of
    the suit natural, so the run may still take a wild."""
    s = build_position(RULES, 2, hands=["AS 2S 3S 2H QH KH AH 9C 9D", "QD"], phase="play")
    play(s, 0, "meld AS 2S 3S")
    assert meld_view(s, 0)["wilds"] == 0
    play(s, 0, "add @0 2H")
    assert meld_view(s, 0)["cards"] == ["AS", "2S", "3S", "2H"]
    play(s, 0, "meld QH KH AH")
    assert meld_view(s, 1)["cards"] == ["QH", "KH", "AH"]


def test_a_canastra_is_a_run_of_seven_or_more() -> None:
    """003: "Se forma una canasta cuando se consigue agrupar una escalera de 7 cartas o
    más." """
    s = build_position(
        RULES, 2, hands=["TC JC 9H", "QD"], melds=[(0, "4C 5C 6C 7C 8C 9C")], phase="play"
    )
    assert meld_view(s, 0)["canastra"] is None
    play(s, 0, "add @0 TC")
    assert meld_view(s, 0)["canastra"] == "clean"
    play(s, 0, "add @0 JC")
    assert meld_view(s, 0)["canastra"] == "clean"


def test_a_set_of_seven_or_more_is_not_a_canastra() -> None:
    """Decision 7 (003: "Se forma una canasta cuando se consigue agrupar una escalera de 7
    cartas o más.")"""
    s = build_position(
        RULES, 2, hands=["KS KS 9H 9D", "QD"], melds=[(0, "KC KC KD KD KH KH")], phase="play"
    )
    play(s, 0, "add @0 KS")
    play(s, 0, "add @0 KS")
    assert len(s.melds[0].cards) == 8
    assert meld_view(s, 0)["canastra"] is None
    # Eight kings do not let the side go out.
    out = build_position(
        RULES,
        2,
        hands=["9H", "QD"],
        melds=[(0, "KC KC KD KD KH KH KS KS")],
        mortos=[None, None],
        phase="play",
    )
    assert rejected(out, 0, "discard 9H") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA


def test_canasta_de_comodines_is_seven_twos_worth_1000() -> None:
    """003: "Canasta de comodines: se forma cuando todas las cartas son comodines (en total 7
    doses)." and "Canasta de comodines: 1000 puntos" (decision 6: a meld of 2s alone)."""
    s = build_position(
        RULES,
        2,
        hands=["2C 2C 2D 2D 2H 2H 2S 9H", "QD"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "meld 2C 2D 2H")
    for card in ("2C", "2D", "2H"):
        play(s, 0, f"add @1 {card}")
    assert len(s.melds[1].cards) == 6
    assert meld_view(s, 1)["canastra"] is None
    play(s, 0, "add @1 2S")
    assert meld_view(s, 1)["canastra"] == "all_wilds"
    play(s, 0, "discard 9H")
    assert s.is_over
    mine, _ = score_deal(s)
    assert mine.canastras == {"clean": 200, "all_wilds": 1000}


def test_clean_and_dirty_canastras_are_worth_200_and_100() -> None:
    """003: "Canasta sucia: 100 puntos" and "Canasta limpia: 200 puntos" """
    mine, _ = score_after_batida(melds=[(0, CLEAN_RUN), (0, DIRTY_RUN)])
    assert mine.canastra_counts == {"clean": 1, "dirty": 1}
    assert mine.canastras == {"clean": 200, "dirty": 100}
    assert mine.table_cards == 140


def test_canasta_real_is_a_clean_run_from_ace_to_king_worth_500() -> None:
    """003: "Canasta real: Se consigue cuando se logra formar una canasta limpia que vaya
    desde el As hasta el Rey" and "Canasta real: 500 puntos" (decision 28)."""
    mine, _ = score_after_batida(melds=[(0, "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")])
    assert mine.canastras == {"real": 500}
    assert mine.batida == 100  # a real canastra is clean: the side may go out


def test_a_run_of_thirteen_with_a_wild_is_dirty_not_real() -> None:
    """003: "Canasta real: [...] una canasta limpia que vaya desde el As hasta el Rey" """
    mine, _ = score_after_batida(
        melds=[(0, CLEAN_RUN), (0, "AS 2S 3S 4S 5S 6S 7S 2H 9S TS JS QS KS")]
    )
    assert mine.canastras == {"clean": 200, "dirty": 100}


def test_canasta_de_as_a_as_is_worth_1000() -> None:
    """003: "Canasta de as a as: se forma una canasta limpia que vaya de as a as." and
    "Canasta de as a as: 1000 puntos" (decision 28: 14 cards)."""
    s = build_position(
        RULES,
        2,
        hands=["AS 9H", "QD"],
        melds=[(0, "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "add @0 AS")
    assert len(s.melds[0].cards) == 14
    assert meld_view(s, 0)["canastra"] == "ace_to_ace"
    play(s, 0, "discard 9H")
    assert s.is_over
    mine, _ = score_deal(s)
    assert mine.canastras == {"ace_to_ace": 1000}


def test_a_wild_makes_a_canastra_dirty() -> None:
    """003: "Canasta sucia: Se forman con la ayuda de un comodín." """
    s = build_position(RULES, 2, hands=["2H 9H KD", "QD"], melds=[(0, CLEAN_RUN)], phase="play")
    assert meld_view(s, 0)["canastra"] == "clean"
    play(s, 0, "add @0 2H")
    assert meld_view(s, 0)["canastra"] == "dirty"


def test_a_dirty_canastra_cannot_be_cleaned() -> None:
    """003: "Nota: en la tranca no se pueden “limpiar” canastas." (decisions 26 and 27): when
    the 3S arrives the 2S that stood for it goes on serving as a wild, at the high end, and the
    canastra stays dirty."""
    s = build_position(
        RULES, 2, hands=["3S 9H KD", "QD"], melds=[(0, "2S 4S 5S 6S 7S 8S 9S")], phase="play"
    )
    assert meld_view(s, 0)["canastra"] == "dirty"
    play(s, 0, "add @0 3S")
    assert meld_view(s, 0)["cards"] == ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "2S"]
    assert meld_view(s, 0)["wilds"] == 1
    assert meld_view(s, 0)["canastra"] == "dirty"
    # Nor does it become the clean canastra that going out needs.
    out = build_position(
        RULES,
        2,
        hands=["3S 9H", "QD"],
        melds=[(0, "2S 4S 5S 6S 7S 8S 9S")],
        mortos=[None, None],
        phase="play",
    )
    assert rejected(out, 0, "add @0 3S") == Reason.MUST_KEEP_A_CARD_TO_DISCARD


# ----- the discard pile ----------------------------------------------------------------


def test_taking_the_pile_plays_its_top_card_at_once_onto_a_meld() -> None:
    """003: "Para poder robar las cartas del montón, es obligatorio jugar la última de ellas
    inmediatamente." """
    s = build_position(
        RULES,
        2,
        hands=["9C 9D KS", "QD"],
        melds=[(0, "4H 5H 6H"), (0, "QC QS QH")],
        pile="8S JD 7H",
        stock="TC",
    )
    assert rejected(s, 0, "take @1") == Reason.TOP_CARD_NOT_USED
    play(s, 0, "take @0")
    assert same_cards(s.melds[0].cards, "4H 5H 6H 7H")
    assert same_cards(s.hands[0], "9C 9D KS 8S JD")
    assert s.pile == [] and s.phase == "play"


def test_taking_the_pile_plays_its_top_card_at_once_in_a_new_meld() -> None:
    """003: "Para poder robar las cartas del montón, es obligatorio jugar la última de ellas
    inmediatamente." """
    s = build_position(RULES, 2, hands=["5H 6H KS KD", "QD"], pile="8S JD 4H", stock="TC")
    assert rejected(s, 0, "take KS KD") == Reason.TOP_CARD_NOT_USED
    play(s, 0, "take 5H 6H")
    assert len(s.melds) == 1 and same_cards(s.melds[0].cards, "4H 5H 6H")
    assert same_cards(s.hands[0], "KS KD 8S JD")


def test_the_pile_top_may_replace_a_wild() -> None:
    """003: "es obligatorio jugar la última de ellas inmediatamente" and "Es posible
    reemplazar un comodín en juego por la carta a la que sustituye." """
    s = build_position(
        RULES, 2, hands=["9C 9D KS", "QD"], melds=[(0, "4H 5H 2C 7H")], pile="8S 6H", stock="TC"
    )
    assert moves_text(s) == ["draw", "take @0"]
    play(s, 0, "take @0")
    assert meld_view(s, 0)["cards"] == ["4H", "5H", "6H", "7H", "2C"]
    assert same_cards(s.hands[0], "9C 9D KS 8S")


def test_a_black_three_locks_the_pile_for_the_next_player() -> None:
    """003: "Si un jugador descarta un tres negro, el siguiente jugador estará obligado a
    robar del mazo (se bloquea el montón de descartes)." """
    s = build_position(
        RULES,
        2,
        hands=["3C 8H 9H 9D", "4C 5C 7D QS"],
        melds=[(0, "4D 5D 6D")],
        stock="JS JC JD",
        phase="play",
    )
    play(s, 0, "discard 3C")
    # The 3C would make a run with 4C 5C: only the lock keeps the pile closed.
    assert moves_text(s) == ["draw"]
    assert rejected(s, 1, "take 4C 5C") == Reason.DISCARD_PILE_LOCKED
    play(s, 1, "draw")
    play(s, 1, "discard 7D")
    # The lock was for the next player only: with the 7D on top the pile is open again.
    assert "take @0" in moves_text(s)
    play(s, 0, "take @0")
    assert same_cards(s.melds[0].cards, "4D 5D 6D 7D")
    assert same_cards(s.hands[0], "8H 9H 9D 3C")


# ----- red threes ------------------------------------------------------------------------


def test_dealt_red_threes_are_laid_at_the_holders_turn_and_replaced() -> None:
    """003: "Cuando un jugador consigue un tres rojo, se coloca directamente en su zona de
    juego cuando sea su turno. Robará tantas cartas como treses rojos haya colocado." """
    deck = fixed_deck(
        ["3H 3D 4C 5C 6C 7C 8C 9C TC JC QC", "3H KS KS QS QS JS JS TS TS 9S 9S"],
        stock_top="AH AD 7H 8S",
    )
    s = new_deal(RULES, 2, deck=deck, dealer=1)
    assert s.turn == 0
    assert same_cards(s.red_threes[0], "3H 3D")
    assert same_cards(s.hands[0], "4C 5C 6C 7C 8C 9C TC JC QC AH AD")
    # Seat 1's red three waits for seat 1's turn.
    assert s.red_threes[1] == [] and parse_card("3H") in s.hands[1]
    play(s, 0, "draw")
    assert parse_card("7H") in s.hands[0]
    play(s, 0, "discard 7H")
    assert same_cards(s.red_threes[1], "3H")
    assert same_cards(s.hands[1], "8S KS KS QS QS JS JS TS TS 9S 9S")


def test_a_drawn_red_three_is_laid_and_replaced() -> None:
    """003: "Cuando un jugador consigue un tres rojo, se coloca directamente en su zona de
    juego [...] Robará tantas cartas como treses rojos haya colocado." """
    s = build_position(RULES, 2, hands=["4C 5C", "QD"], stock="9C 3D 3H")
    play(s, 0, "draw")
    assert same_cards(s.red_threes[0], "3H 3D")
    assert same_cards(s.hands[0], "4C 5C 9C")
    assert s.stock == [] and s.phase == "play"


def test_red_threes_add_100_each_with_a_clean_canastra() -> None:
    """003: "Cada tres rojo suma 100 puntos si se tiene al menos una canasta limpia" """
    mine, _ = score_after_batida(melds=[(0, CLEAN_RUN)], red_threes=["3H 3D", ""])
    assert mine.red_threes == 200


def test_red_threes_subtract_100_each_without_a_clean_canastra() -> None:
    """003: "Cada tres rojo suma 100 puntos si se tiene al menos una canasta limpia, de lo
    contrario resta 100 puntos." A dirty canastra is not enough."""
    _, theirs = score_after_batida(
        melds=[(0, CLEAN_RUN), (1, DIRTY_RUN)], red_threes=["", "3H 3D 3H"]
    )
    assert theirs.canastras == {"dirty": 100}
    assert theirs.red_threes == -300


def test_four_red_threes_and_a_clean_canastra_score_800() -> None:
    """003: "Si se consiguen los 4 treses rojos y una canasta limpia, puntúa el doble (800
    puntos)." """
    mine, _ = score_after_batida(melds=[(0, CLEAN_RUN)], red_threes=["3H 3D 3H 3D", ""])
    assert mine.red_threes == 800


def test_all_twos_canastra_is_not_clean_for_the_red_threes() -> None:
    """003: "Cada tres rojo suma 100 puntos si se tiene al menos una canasta limpia, de lo
    contrario resta 100 puntos." (decision 14: the all-wilds canastra is not clean)"""
    _, theirs = score_after_batida(
        melds=[(0, CLEAN_RUN), (1, "2C 2C 2D 2D 2H 2H 2S")], red_threes=["", "3H 3D"]
    )
    assert theirs.canastras == {"all_wilds": 1000}
    assert theirs.red_threes == -200


def _lay_unreplaceable_red_three(melds: list[tuple[int, str]]) -> DealState:
    """Seat 0 already holds three red threes and draws the fourth as the last card of the
    stock, with no morto left: it cannot be replaced, and the deal then ends."""
    s = build_position(
        RULES,
        2,
        hands=["9C 9D KS", "QD QH"],
        melds=melds,
        mortos=[None, None],
        stock="3D",
        red_threes=["3H 3D 3H", ""],
    )
    play(s, 0, "draw")
    assert len(s.red_threes[0]) == 4
    assert same_cards(s.hands[0], "9C 9D KS")
    play(s, 0, "discard KS")
    assert s.is_over and s.end_reason == END_STOCK_OUT
    return s


def test_an_unreplaced_red_three_counts_10_and_cancels_the_800() -> None:
    """003: "Si se coloca un tres rojo y no se puede robar (no quedan cartas en el mazo), se
    suman o restan 10 puntos por ese tres rojo (en vez de 100). Tampoco habrá puntuación
    especial en caso de tener los cuatro treses rojos." """
    s = _lay_unreplaceable_red_three([(0, CLEAN_RUN)])
    mine, _ = score_deal(s)
    assert mine.red_threes == 3 * 100 + 10


def test_an_unreplaced_red_three_subtracts_10_without_a_clean_canastra() -> None:
    """003: "se suman o restan 10 puntos por ese tres rojo (en vez de 100)." """
    s = _lay_unreplaceable_red_three([(0, DIRTY_RUN)])
    mine, _ = score_deal(s)
    assert mine.red_threes == -(3 * 100 + 10)


def test_a_red_three_drawn_last_is_replaced_from_a_morto_turned_stock() -> None:
    """003: "Cuando se termina el mazo de cartas, si queda en la mesa algún “muerto”, éste
    pasará a formar parte del mazo." and "Si se coloca un tres rojo y no se puede robar (no
    quedan cartas en el mazo)": with a morto left there is a card to draw."""
    s = build_position(RULES, 2, hands=["9C 9D KS", "QD QH"], mortos=[None, MORTO_1], stock="3D")
    play(s, 0, "draw")
    assert same_cards(s.red_threes[0], "3D")
    assert same_cards(s.hands[0], "9C 9D KS 6D")
    assert s.red_unreplaced == [0, 0]
    assert s.mortos[1] is None and len(s.stock) == 10
