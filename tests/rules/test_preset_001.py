"""Scenario tests for the preset ``tranca-001``:
the rules of the rule document 001_f213623bbd6c5754.txt
(Tranca "mano a mano", 2 players, with its point table), and the decisions of
docs/RULES.md §4 where that document is silent.

Every test quotes the passage it rests on. Positions are built from text with
``build_position``: hands, melds ``(side, cards)``, pile and stock bottom to top.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.rules.brazilian import deck_with, legal, rejected, texts
from tranca.rules.cards import card_text, full_deck, parse_card, parse_cards
from tranca.rules.engine import new_deal, play
from tranca.rules.errors import Reason
from tranca.rules.match import DRAWN, Match, decide
from tranca.rules.position import build_position
from tranca.rules.presets import make_rules
from tranca.rules.scoring import score_deal
from tranca.rules.state import NOBODY, DealState
from tranca.rules.views import seat_view, visible_cards

RULES = make_rules("tranca-001")

CLEAN_RUN = "4S 5S 6S 7S 8S 9S TS"  # seven naturals of one suit: a clean canastra
DIRTY_RUN = "4D 5D 6D 7D 8D 9D 2C"  # six naturals and a wild: a dirty canastra
MORTO_A = "4H 5H 6H 7H 8H 9H TH JH QH KH AH"
MORTO_B = "4C 5C 6C 7C 8C 9C TC JC QC KC AC"


def position(**kwargs: Any) -> DealState:
    return build_position(RULES, 2, **kwargs)


def kinds_of_canastras(s: DealState) -> list[str | None]:
    return [m.canastra_kind(RULES) for m in s.melds]


# ----- players ------------------------------------------------------------------------


def test_mano_a_mano_is_played_by_two_players_only() -> None:
    """001: "O jogo tem dois participantes, devendo se sentar em posições opostas." and
    "Jogadores - 2." """
    s = new_deal(RULES, 2, seed=1)
    assert s.n_players == 2 and s.n_sides == 2
    for n_players in (3, 4):
        with pytest.raises(ValueError):
            new_deal(RULES, n_players, seed=1)
    with pytest.raises(ValueError):
        Match(RULES, 4, seed=1)


def test_each_player_has_their_own_melds() -> None:
    """001: "Objetivo - Fazer mais pontos que o adversário." Each player melds for
    themselves: the opponent's melds are not theirs to add to."""
    s = position(hands=["4H 5H 6H 9C", "7H KC QD"], stock="8S 8C")
    play(s, 0, "draw")
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "discard 9C")
    play(s, 1, "draw")
    assert rejected(s, 1, "add @0 7H") == Reason.NOT_YOUR_MELD
    assert rejected(s, 1, "take @0") == Reason.ALREADY_DREW


def test_each_player_has_a_morto_of_their_own() -> None:
    """001: "Distribuição - 11 cartas para cada participante e dois mortos (montes
    separados) com 11 cartas." and "O morto vai para a mão do primeiro jogador que
    bater." """
    s = position(
        hands=["5H 6H 7H", "9D TD"],
        stock="8C 9C JD",
        mortos=[MORTO_A, MORTO_B],
        phase="play",
    )
    play(s, 0, "meld 5H 6H 7H")
    assert s.morto_taken == [True, False]
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    play(s, 0, "discard 4H")
    play(s, 1, "draw")
    play(s, 1, "meld 9D TD JD")
    assert s.morto_taken == [True, True]
    assert texts(s.hands[1]) == texts(parse_cards(MORTO_B))


# ----- the deal -----------------------------------------------------------------------


def test_deal_two_decks_11_cards_each_and_two_mortos_of_11() -> None:
    """001: "Baralhos - dois de 52 cartas." and "Distribuição - 11 cartas para cada
    participante e dois mortos (montes separados) com 11 cartas." """
    s = new_deal(RULES, 2, deck=deck_with(""), dealer=0)
    assert [len(h) for h in s.hands] == [11, 11]
    assert [len(m) for m in s.mortos if m is not None] == [11, 11]
    assert len(s.stock) == 104 - 22 - 22
    assert sorted(s.all_cards()) == sorted(full_deck(jokers=False))


def test_the_pile_starts_empty_and_the_first_player_draws() -> None:
    """001: "Na vez do primeiro jogador a lixeira estará vazia, mas do segundo jogador em
    diante, ele poderá escolher entre a compra de uma carta do monte ou de todas as cartas
    da lixeira" """
    s = new_deal(RULES, 2, seed=7, dealer=0)
    assert s.pile == []
    assert legal(s) == ["draw"]
    assert rejected(s, s.turn, "take 4H 5H") == Reason.DISCARD_PILE_EMPTY
    first = s.turn
    play(s, first, "draw")
    card = card_text(s.hands[first][0])
    play(s, first, f"discard {card}")
    assert [card_text(c) for c in s.pile] == [card]
    assert legal(s)[0] == "draw"


# ----- melds --------------------------------------------------------------------------


def test_melds_are_runs_of_one_suit_or_sets_of_one_value() -> None:
    """001: "Combinação de três ou mais cartas ordenadas, todas com o mesmo naipe
    (sequência) ou todas com o mesmo valor (trinca ou lavadeira). Exemplos: 4,5 e 6 de
    Paus; 9 de paus, 9 de ouros e 9 de espadas." """
    s = position(hands=["4C 5C 6C 9C 9D 9S 7H 8D 9H KS QS", "KD"], phase="play")
    play(s, 0, "meld 4C 5C 6C")
    play(s, 0, "meld 9C 9D 9S")
    assert [m["kind"] for m in seat_view(s, 0)["melds"]] == ["run", "set"]
    assert rejected(s, 0, "meld 7H 8D 9H") == Reason.INVALID_MELD  # mixed suits
    assert rejected(s, 0, "meld 9H KS QS") == Reason.INVALID_MELD


def test_a_meld_of_more_than_three_cards_grows_card_by_card() -> None:
    """001: "O número mínimo de cartas em um jogo é três, mas podem ser baixadas mais
    cartas simultaneamente, ou outras cartas serem acrescentadas no decorrer da partida."
    (decision 29: a meld of three, then adds in the same turn)"""
    s = position(hands=["4C 5C 6C 7C 8C KS QS", "KD"], phase="play")
    play(s, 0, "meld 4C 5C 6C")
    play(s, 0, "add @0 7C")
    play(s, 0, "add @0 8C")
    assert texts(s.melds[0].cards) == ["4C", "5C", "6C", "7C", "8C"]
    assert (s.turn, s.phase) == (0, "play")


def test_the_ace_goes_only_after_the_king() -> None:
    """001: "Numa sequência, o Ás apenas pode ser posicionado após o Rei." """
    s = position(hands=["QH KH AH AS 4S 5S KS 6S JH", "KD"], phase="play")
    assert rejected(s, 0, "meld AS 4S 5S") == Reason.INVALID_MELD
    assert rejected(s, 0, "meld KS AS 4S") == Reason.INVALID_MELD
    play(s, 0, "meld QH KH AH")
    play(s, 0, "add @0 JH")
    play(s, 0, "meld 4S 5S 6S")
    assert rejected(s, 0, "add @1 AS") == Reason.CARD_DOES_NOT_FIT


def test_threes_are_never_melded_so_runs_start_at_the_four() -> None:
    """001: "Três Preto (Tranca) - Não pode ser usado em um jogo na mesa." and "Três
    Vermelho - Deve ser baixado sozinho na mesa" (decision 5: runs go 4..A)."""
    s = position(hands=["3S 3C 3C 2H 4S 5S 6S 9D", "KD"], phase="play")
    assert rejected(s, 0, "meld 3C 3C 3S") == Reason.THREES_CANNOT_BE_MELDED
    assert rejected(s, 0, "meld 2H 3C 3S") == Reason.THREES_CANNOT_BE_MELDED
    assert rejected(s, 0, "meld 3S 4S 5S") == Reason.THREES_CANNOT_BE_MELDED
    play(s, 0, "meld 4S 5S 6S")
    assert rejected(s, 0, "add @0 3S") == Reason.THREES_CANNOT_BE_MELDED


def test_twos_are_wild_as_in_the_documents_examples_one_per_meld() -> None:
    """001: "As cartas de número 2 são utilizadas como curingas, podendo substituir
    qualquer carta. Exemplos: Dama de Ouros, 2 de Ouros (no lugar do Rei) e Ás de Ouros;
    7 de ouros, 7 de copas e 2 de Espadas (substituindo outro 7)." (decision 4)"""
    s = position(hands=["QD 2D AD 7D 7H 2S 2H 2C 9C KS", "KD"], phase="play")
    play(s, 0, "meld QD 2D AD")
    play(s, 0, "meld 7D 7H 2S")
    assert [m.shape.wilds for m in s.melds] == [1, 1]
    assert seat_view(s, 1)["melds"][0]["cards"] == ["QD", "2D", "AD"]  # the 2 is the king
    assert rejected(s, 0, "add @0 2H") == Reason.TOO_MANY_WILDS
    assert rejected(s, 0, "add @1 2H") == Reason.TOO_MANY_WILDS
    assert rejected(s, 0, "meld 2C 2H 9C") == Reason.TOO_MANY_WILDS


def test_a_meld_of_wilds_alone_is_not_a_meld() -> None:
    """001: the 2s "podendo substituir qualquer carta": each stands for a card of a meld
    of naturals, so three 2s make no meld (decision 4)."""
    s = position(hands=["2C 2D 2H 9D KS", "KD"], phase="play")
    assert rejected(s, 0, "meld 2C 2D 2H") == Reason.INVALID_MELD


def test_a_natural_may_not_take_a_wilds_place() -> None:
    """Decision 26 (001 is silent on replacing a wild): a natural that would take the
    place a wild fills is refused; the wild stays."""
    s = position(hands=["5C 2S 7C 6C 9D KS", "KD"], phase="play")
    play(s, 0, "meld 2S 5C 7C")
    assert rejected(s, 0, "replace @0 6C") == Reason.WILD_REPLACEMENT_NOT_ALLOWED
    assert rejected(s, 0, "add @0 6C") == Reason.WILD_REPLACEMENT_NOT_ALLOWED
    assert "add @0 6C" not in legal(s)
    assert texts(s.melds[0].cards) == ["2S", "5C", "7C"]


# ----- canastras ----------------------------------------------------------------------


def test_a_meld_of_seven_is_a_canastra_clean_without_a_wild_dirty_with_one() -> None:
    """001: "Canastra - Jogo composto por 7 cartas ou mais. Existem dois tipos de
    canastra: "Limpa" (sem curinga) e "Suja" (com curinga)." """
    s = position(hands=["4H 5H 6H 7H 8H 9H TH 4D 5D 6D 7D 8D 9D 2C QS KS", "KD"], phase="play")
    play(s, 0, "meld 4H 5H 6H")
    for card in ("7H", "8H", "9H"):
        play(s, 0, f"add @0 {card}")
    assert kinds_of_canastras(s) == [None]  # six cards
    play(s, 0, "add @0 TH")
    assert kinds_of_canastras(s) == ["clean"]
    play(s, 0, "meld 4D 5D 6D")
    for card in ("7D", "8D", "9D"):
        play(s, 0, f"add @1 {card}")
    play(s, 0, "add @1 2C")
    assert kinds_of_canastras(s) == ["clean", "dirty"]


def test_a_set_of_seven_is_a_canastra_too() -> None:
    """001: "Canastra - Jogo composto por 7 cartas ou mais." and a "Jogo" is a sequence or
    "todas com o mesmo valor (trinca ou lavadeira)" (decision 7: any meld of 7+ in 001)."""
    s = position(hands=["9C 9C 9D 9D 9H 9H 9S KS 4H 5H", "KD"], phase="play")
    play(s, 0, "meld 9C 9C 9D")
    for card in ("9D", "9H", "9H"):
        play(s, 0, f"add @0 {card}")
    assert kinds_of_canastras(s) == [None]
    play(s, 0, "add @0 9S")
    assert kinds_of_canastras(s) == ["clean"]
    dirty = position(
        hands=["KH", "KD"], melds=[(0, "9C 9C 9D 9D 9H 9H 2S")], mortos=[None, MORTO_B]
    )
    assert kinds_of_canastras(dirty) == ["dirty"]


def test_a_clean_set_canastra_lets_the_player_go_out() -> None:
    """001: "Se o jogador que já pegou o morto tornar a bater, terminará a partida, mas
    para isso precisa de pelo menos uma canastra limpa." and "Canastra - Jogo composto por
    7 cartas ou mais" (decision 7)."""
    s = position(
        hands=["KH", "KD QS"],
        melds=[(0, "9C 9C 9D 9D 9H 9H 9S")],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert s.is_over and s.end_reason == "batida" and s.went_out == 0
    assert score_deal(s)[0].canastras == {"clean": 200}


# ----- taking the discard pile ----------------------------------------------------------


def test_taking_the_pile_fits_its_top_card_onto_a_meld_and_the_rest_goes_to_the_hand() -> None:
    """001: "o jogador obrigatoriamente terá que justificar a compra da carta de cima,
    encaixando-a diretamente em um jogo na mesa" and "a compra ... de todas as cartas da
    lixeira" (decision 8)."""
    s = position(hands=["9C KD", "QS QD"], melds=[(0, "4H 5H 6H")], pile="JC 3S 8D 7H", stock="9S")
    play(s, 0, "take @0")
    assert texts(s.melds[0].cards) == ["4H", "5H", "6H", "7H"]
    assert texts(s.hands[0]) == ["3S", "8D", "9C", "JC", "KD"]
    assert s.pile == []
    assert s.phase == "play"
    assert len(s.stock) == 1


def test_taking_the_pile_joins_its_top_card_with_two_hand_cards_in_a_new_meld() -> None:
    """001: "ou juntando com duas cartas (ou mais) da mão e baixando como um novo jogo"
    (decision 8: two cards in the take, more by later adds)."""
    s = position(hands=["7C 7D 7S 9S KD", "QS QD"], pile="QC 7H", stock="9S")
    play(s, 0, "take 7C 7D")
    assert texts(s.melds[0].cards) == ["7C", "7D", "7H"]
    assert texts(s.hands[0]) == ["7S", "9S", "KD", "QC"]
    play(s, 0, "add @0 7S")
    assert len(s.melds[0].cards) == 4


def test_the_pile_cannot_be_taken_unless_its_top_card_is_used() -> None:
    """001: "Para comprar a lixeira, o jogador obrigatoriamente terá que justificar a
    compra da carta de cima" with cards "da mão", not with the pile's own cards."""
    s = position(
        hands=["5H 6H 9S KD", "QS QD"], melds=[(0, "9C TC JC")], pile="9D TD 8D", stock="4C"
    )
    assert rejected(s, 0, "take @0") == Reason.TOP_CARD_NOT_USED
    assert rejected(s, 0, "take 5H 6H") == Reason.TOP_CARD_NOT_USED
    assert rejected(s, 0, "take 9D TD") == Reason.CARD_NOT_IN_HAND
    assert legal(s) == ["draw"]


def test_a_black_three_on_top_locks_the_pile_for_the_next_player() -> None:
    """001: "Três Preto (Tranca) - ... Quando baixado na lixeira, tranca a mesma,
    impossibilitando ao próximo jogador a compra da lixeira." (decision 2)"""
    s = position(hands=["3S 8H 9H KD", "7H QC JS"], stock="4C 5C TH", phase="play")
    play(s, 0, "discard 3S")
    assert rejected(s, 1, "take QC JS") == Reason.DISCARD_PILE_LOCKED
    assert legal(s) == ["draw"]
    play(s, 1, "draw")
    play(s, 1, "discard 7H")
    play(s, 0, "take 8H 9H")  # the three is buried now: the pile is open again
    assert texts(s.melds[0].cards) == ["7H", "8H", "9H"]
    assert texts(s.hands[0]) == ["3S", "KD"]


# ----- red threes ---------------------------------------------------------------------


def test_a_red_three_drawn_is_laid_down_alone_and_replaced() -> None:
    """001: "Três Vermelho - Deve ser baixado sozinho na mesa" (decision 1: laid
    automatically and replaced by a draw from the stock)."""
    s = position(hands=["9C KD", "QS QD"], stock="5S 8C 3H")
    play(s, 0, "draw")
    assert [texts(r) for r in s.red_threes] == [["3H"], []]
    assert texts(s.hands[0]) == ["8C", "9C", "KD"]
    assert texts(s.stock) == ["5S"]
    assert s.phase == "play"
    assert seat_view(s, 1)["red_threes"] == [["3H"], []]


def test_dealt_red_threes_are_laid_at_the_start_of_their_holders_first_turn() -> None:
    """001: "Três Vermelho - Deve ser baixado sozinho na mesa" (decision 1: dealt ones at
    the start of the holder's first turn, each replaced)."""
    s = new_deal(RULES, 2, deck=deck_with("3H 3D"), dealer=0)  # 3H to seat 1, 3D to seat 0
    assert s.turn == 1
    assert [texts(r) for r in s.red_threes] == [[], ["3H"]]
    assert len(s.hands[1]) == 11 and parse_card("3H") not in s.hands[1]
    assert parse_card("3D") in s.hands[0]
    assert len(s.stock) == 59
    play(s, 1, "draw")
    play(s, 1, f"discard {card_text(s.hands[1][0])}")
    assert [texts(r) for r in s.red_threes] == [["3D"], ["3H"]]
    assert len(s.hands[0]) == 11 and parse_card("3D") not in s.hands[0]
    assert len(s.stock) == 57


def test_a_red_three_in_a_morto_taken_by_a_direct_batida_is_laid_and_replaced() -> None:
    """001: "Três Vermelho - Deve ser baixado sozinho na mesa" (decision 1: in a morto
    taken by a direct batida, at once)."""
    morto = "3D 4S 5S 6S 7S 8S 9S TS JS QS KS"
    s = position(hands=["5H 6H 7H", "KD QS"], stock="8C 9C", mortos=[morto, MORTO_B], phase="play")
    play(s, 0, "meld 5H 6H 7H")
    assert [texts(r) for r in s.red_threes] == [["3D"], []]
    assert len(s.hands[0]) == 11
    assert parse_card("9C") in s.hands[0]
    assert texts(s.stock) == ["8C"]


def test_red_threes_score_100_each_with_a_canastra() -> None:
    """001: "Três vermelho baixado, tendo canastra = +100 pontos." (a set canastra counts
    in 001, decision 7; a dirty one too, decision 19)"""
    s = position(
        hands=["KH", "KD QS"],
        melds=[(0, "9C 9C 9D 9D 9H 9H 9S"), (1, DIRTY_RUN)],
        red_threes=["3H", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert [sc.red_threes for sc in score_deal(s)] == [100, 200]


def test_red_threes_cost_100_each_without_a_canastra() -> None:
    """001: "Três vermelho baixado, não tendo canastra = -100 pontos (negativos)." """
    s = position(
        hands=["KH", "KD QS"],
        melds=[(0, CLEAN_RUN), (1, "9C 9D 9H 9S 9C 9D")],  # six cards: no canastra
        red_threes=["", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert [sc.red_threes for sc in score_deal(s)] == [0, -200]


# ----- the morto and the batida ---------------------------------------------------------


def test_direct_batida_by_melding_takes_the_morto_and_plays_on_without_drawing() -> None:
    """001: "Batida direta é aquela em que o jogador fica sem cartas na mão após baixar
    cartas em algum jogo na mesa (sem descartar na lixeira). Pegará o morto e continuará a
    jogar, sem comprar carta." """
    s = position(
        hands=["5H 6H 7H", "KD QS"], stock="8C 9C", mortos=[MORTO_A, MORTO_B], phase="play"
    )
    play(s, 0, "meld 5H 6H 7H")
    assert not s.is_over
    assert (s.turn, s.phase) == (0, "play")
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    assert s.morto_taken == [True, False]
    assert rejected(s, 0, "draw") == Reason.ALREADY_DREW
    assert len(s.stock) == 2


def test_direct_batida_by_taking_the_pile_takes_the_morto_and_plays_on() -> None:
    """001: "Batida direta é aquela em que o jogador fica sem cartas na mão após baixar
    cartas em algum jogo na mesa (sem descartar na lixeira). Pegará o morto e continuará a
    jogar, sem comprar carta." Melding the last two cards with the pile's only card is
    such a batida."""
    s = position(hands=["5H 6H", "KD QS"], pile="7H", stock="8C 9C", mortos=[MORTO_A, MORTO_B])
    assert "take 5H 6H" in legal(s)
    play(s, 0, "take 5H 6H")
    assert not s.is_over
    assert s.end_reason == ""
    assert (s.turn, s.phase) == (0, "play")
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    assert s.morto_taken == [True, False]


def test_indirect_batida_takes_the_morto_to_be_used_next_turn() -> None:
    """001: "Batida indireta é aquela em que o jogador fica sem cartas na mão após
    descartar uma carta na lixeira. Pegará o morto, mas só poderá utilizá-lo na outra
    volta, quando for a sua vez de jogar." (decision 1: its red threes are laid then)"""
    morto = "3H 4S 5S 6S 7S 8S 9S TS JS QS KS"
    s = position(hands=["9H", "KD KS QC"], stock="8C 9C JD", mortos=[morto, MORTO_B], phase="play")
    play(s, 0, "discard 9H")
    assert s.turn == 1
    assert s.morto_taken == [True, False]
    assert texts(s.hands[0]) == texts(parse_cards(morto))
    assert s.red_threes == [[], []]
    play(s, 1, "draw")
    play(s, 1, "discard QC")
    assert (s.turn, s.phase) == (0, "draw")
    assert [texts(r) for r in s.red_threes] == [["3H"], []]
    assert parse_card("9C") in s.hands[0] and len(s.hands[0]) == 11
    play(s, 0, "draw")
    assert len(s.hands[0]) == 12


def test_a_morto_taken_indirectly_and_not_used_is_paid_as_not_taken() -> None:
    """001: "Se um jogador comprar o morto por batida indireta e o adversário terminar a
    partida antes que chegue sua vez de jogar, o morto deverá ser pago, como se não
    tivesse sido comprado." (decision 11: -100, its cards not counted)"""
    s = position(
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
    assert side0.morto_penalty == -100
    assert side0.hand_cards == 0
    assert side0.total == -100
    assert side1.morto_penalty == 0
    assert side1.total == 100 + 200 + 100


def test_going_out_needs_a_clean_canastra() -> None:
    """001: "Se o jogador que já pegou o morto tornar a bater, terminará a partida, mas
    para isso precisa de pelo menos uma canastra limpa." """
    dirty = position(
        hands=["KH", "KD QS"], melds=[(0, DIRTY_RUN)], mortos=[None, MORTO_B], phase="play"
    )
    assert rejected(dirty, 0, "discard KH") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    dirty = position(
        hands=["JH QH KH", "KD QS"], melds=[(0, DIRTY_RUN)], mortos=[None, MORTO_B], phase="play"
    )
    assert rejected(dirty, 0, "meld JH QH KH") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    clean = position(
        hands=["JH QH KH", "KD QS"], melds=[(0, CLEAN_RUN)], mortos=[None, MORTO_B], phase="play"
    )
    play(clean, 0, "meld JH QH KH")
    assert clean.is_over and clean.end_reason == "batida" and clean.went_out == 0


def test_a_player_who_cannot_go_out_must_keep_a_card_to_discard() -> None:
    """001: going out "precisa de pelo menos uma canastra limpa" (decision 15: a meld may
    not leave one card that could only be discarded by going out)."""
    s = position(
        hands=["JH QH KH 9C", "KD QS"], melds=[(0, DIRTY_RUN)], mortos=[None, MORTO_B], phase="play"
    )
    assert rejected(s, 0, "meld JH QH KH") == Reason.MUST_KEEP_A_CARD_TO_DISCARD
    with_morto = position(hands=["JH QH KH 9C", "KD QS"], mortos=[MORTO_A, MORTO_B], phase="play")
    play(with_morto, 0, "meld JH QH KH")  # the discard will take the morto
    play(with_morto, 0, "discard 9C")
    assert with_morto.morto_taken == [True, False]


# ----- scoring ------------------------------------------------------------------------


def test_scoring_breakdown_follows_the_point_table() -> None:
    """001: "somam-se os pontos das cartas na mesa ... mais o valor extra das canastras.
    Deduz-se os valores das cartas que sobraram na mão. Para o jogador que bateu, soma-se
    mais 100 pontos da batida e, caso o outro jogador não tenha pego o morto, diminui-se
    100 pontos como penalidade." and "Canastra Limpa = +200 pontos. Canastra Suja = +100
    pontos." """
    s = position(
        hands=["QC", "KD KS 9H"],
        melds=[(0, CLEAN_RUN), (0, DIRTY_RUN), (0, "JH QH KH"), (1, "9C TC JC")],
        red_threes=["3H 3D", "3H"],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard QC")
    assert s.is_over and s.went_out == 0
    side0, side1 = score_deal(s)
    assert side0.table_cards == 170
    assert side0.canastras == {"clean": 200, "dirty": 100}
    assert side0.canastra_counts == {"clean": 1, "dirty": 1}
    assert side0.batida == 100
    assert side0.red_threes == 200
    assert side0.morto_penalty == 0
    assert side0.hand_cards == 0
    assert side0.untaken_morto_cards == 0
    assert side0.total == 170 + 300 + 100 + 200
    assert side1.table_cards == 30
    assert side1.canastras == {}
    assert side1.batida == 0
    assert side1.red_threes == -100
    assert side1.morto_penalty == -100
    assert side1.hand_cards == -30
    assert side1.total == 30 - 100 - 100 - 30


def test_every_card_is_worth_ten_points() -> None:
    """001: "Todas as cartas = 10 pontos." """
    s = position(
        hands=["QC", "AS KD 4C 2H 3S"],
        melds=[(0, CLEAN_RUN), (0, "QH KH AH 2D")],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard QC")
    side0, side1 = score_deal(s)
    assert side0.table_cards == 11 * 10
    assert side1.hand_cards == -5 * 10


def test_the_stock_running_out_ends_the_deal_without_a_batida() -> None:
    """Decision 16 (001 is silent on the stock running out): the deal ends when the next
    player would have to draw from an empty stock; it is scored with no batida, "Por não
    pegar o morto = -100 pontos" and the hand cards deducted."""
    s = position(
        hands=["9H 5C", "KD KS"],
        melds=[(1, "4D 5D 6D 7D 8D 9D TD")],
        stock="8C",
        mortos=[MORTO_A, MORTO_B],
    )
    play(s, 0, "draw")
    assert s.stock == [] and not s.is_over
    play(s, 0, "discard 9H")
    assert s.is_over
    assert s.end_reason == "stock_out"
    assert s.went_out == NOBODY
    assert rejected(s, 1, "draw") == Reason.DEAL_OVER
    side0, side1 = score_deal(s)
    assert (side0.batida, side1.batida) == (0, 0)
    assert (side0.morto_penalty, side1.morto_penalty) == (-100, -100)
    assert side0.total == -120
    assert side1.total == 70 + 200 - 100 - 20


# ----- the match ----------------------------------------------------------------------


def _play_out(s: DealState) -> None:
    for _ in range(5000):
        if s.is_over:
            return
        play(s, s.turn, legal(s)[0])
    raise AssertionError("the deal did not end")


def test_a_match_is_one_deal() -> None:
    """001: "Objetivo - Fazer mais pontos que o adversário." (decision 21: one deal)"""
    m = Match(RULES, 2, seed=5)
    _play_out(m.deal)
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


def test_a_tie_is_a_draw() -> None:
    """001: "Fazer mais pontos que o adversário" (decision 21: equal points in the one deal
    is a draw)."""
    assert RULES.target_score == 0
    assert decide(RULES, [150, 150], 1, 0) == DRAWN
    assert decide(RULES, [150, 90], 1, 1) == 0
    assert decide(RULES, [-90, -20], 1, 0) == 1


# ----- what a seat sees -----------------------------------------------------------------


def test_only_the_top_card_of_the_pile_is_visible() -> None:
    """001: "As cartas na lixeira são empilhadas com a face para cima, mas os jogadores
    podem ver apenas a carta do topo." (decision 9)"""
    s = position(hands=["4H 5H", "KD KS"], pile="9C JD 8H")
    for seat in (0, 1):
        view = seat_view(s, seat)
        assert view["pile"] is None
        assert view["pile_top"] == "8H"
        assert view["pile_size"] == 3
        seen = visible_cards(s, seat)
        assert parse_card("8H") in seen
        assert parse_card("9C") not in seen and parse_card("JD") not in seen
    view = seat_view(s, 1)
    assert view["hand"] == ["KD", "KS"]
    assert view["hand_sizes"] == [2, 2]
    assert parse_card("4H") not in visible_cards(s, 1)
    assert view["mortos"] is None  # "Monte separado de cartas com a face virada para baixo"


# ----- rejections ---------------------------------------------------------------------


def _in_draw_phase() -> DealState:
    return position(
        hands=["4H 5H 6H 9C 3C 3S 3S 2D KS", "KD QS QH"],
        melds=[(0, "5C 2S 7C"), (1, "8D 9D TD")],
        pile="JC 8H",
        stock="4D 6D",
    )


def _in_play_phase() -> DealState:
    s = _in_draw_phase()
    play(s, 0, "draw")
    return s


def _locked() -> DealState:
    return position(hands=["4H 5H 6H", "KD QS QH"], pile="8H 3S", stock="4D 6D")


def _cannot_go_out() -> DealState:
    return position(
        hands=["JH QH KH 9C", "KD QS"], melds=[(0, DIRTY_RUN)], mortos=[None, MORTO_B], phase="play"
    )


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
    make: Callable[[], DealState], seat: int, move: str, reason: Reason
) -> None:
    """001: "O jogador da vez compra uma carta do monte ou todas as cartas da lixeira,
    baixa jogos na mesa (se possível), e descarta": a move out of that order, or one the
    rules forbid, is refused with a stable reason code and the deal is left as it was."""
    s = make()
    assert rejected(s, seat, move) == reason
