"""Scenario tests for preset ``tranca-003``: the Spanish online room's Tranca.

Each test rests on a passage of the rule document 003_9ae53d0671553559.txt ("003"), quoted in its
docstring, or on a numbered entry of docs/RULES.md §4 where the document is silent.
"""

from __future__ import annotations

import pytest

from tranca.rules.cards import JOKER, card_text, full_deck, parse_card, parse_cards
from tranca.rules.engine import legal_moves, new_deal, play
from tranca.rules.errors import Reason, RuleViolation
from tranca.rules.match import Match, decide
from tranca.rules.melds import Problem, classify
from tranca.rules.moves import move_text, parse_move
from tranca.rules.position import build_position
from tranca.rules.presets import TieBreak, make_rules
from tranca.rules.scoring import SideScore, score_deal
from tranca.rules.state import END_BATIDA, END_STOCK_OUT, NOBODY, DealState
from tranca.rules.views import meld_view

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
