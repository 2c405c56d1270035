"""Scenario tests for the preset ``tranca-000``:
the rules of the rule document 000_48984b1301ba120f.txt
(Brazilian Tranca for 2 or 4 players, a blog's rules), and the decisions of
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

RULES = make_rules("tranca-000")

CLEAN_RUN = "4S 5S 6S 7S 8S 9S TS"  # seven naturals of one suit: a clean canastra
DIRTY_RUN = "4D 5D 6D 7D 8D 9D 2C"  # six naturals and a wild: a dirty canastra
MORTO_A = "4H 5H 6H 7H 8H 9H TH JH QH KH AH"
MORTO_B = "4C 5C 6C 7C 8C 9C TC JC QC KC AC"


def position(n_players: int = 2, **kwargs: Any) -> DealState:
    return build_position(RULES, n_players, **kwargs)


def kinds_of_canastras(s: DealState) -> list[str | None]:
    return [m.canastra_kind(RULES) for m in s.melds]


# ----- players and partnerships ---------------------------------------------------------


def test_two_or_four_players_and_no_other_number() -> None:
    """000: "Número de Jogadores: 2 ou 4 jogadores (4 - parceria de 2 duplas)." """
    assert new_deal(RULES, 2, seed=1).n_players == 2
    assert new_deal(RULES, 4, seed=1).n_players == 4
    with pytest.raises(ValueError):
        new_deal(RULES, 3, seed=1)


def test_two_players_each_have_their_own_melds() -> None:
    """000: "No jogo de 2 jogadores cada um têm suas próprias cartas, possuem seus
    próprios jogos na mesa e joga-se um contra o outro." """
    s = position(hands=["4H 5H 6H 9C", "7H KC QD"], stock="8S 8C")
    play(s, 0, "draw")
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "discard 9C")
    play(s, 1, "draw")
    assert rejected(s, 1, "add @0 7H") == Reason.NOT_YOUR_MELD


def test_four_players_partners_sit_opposite_and_share_their_melds() -> None:
    """000: "No jogo de 4 jogadores cada jogador de cada dupla têm suas próprias cartas
    mas compartilham os jogos do parceiro" and "( jogador 1, jogador 2, parceiro do
    jogador 1, parceiro do jogador 2)"."""
    s = position(4, hands=["4H 5H 6H 9C", "7H KC QD", "7H 9D 9S", "KD KS"], stock="QC JD 8S 8C")
    assert s.side_of(0) == s.side_of(2) != s.side_of(1) == s.side_of(3)
    play(s, 0, "draw")
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "discard 9C")
    play(s, 1, "draw")
    assert rejected(s, 1, "add @0 7H") == Reason.NOT_YOUR_MELD  # an opponent
    play(s, 1, "discard KC")
    play(s, 2, "draw")
    play(s, 2, "add @0 7H")  # the partner
    assert texts(s.melds[0].cards) == ["4H", "5H", "6H", "7H"]
    assert s.melds[0].side == 0


def test_four_players_partners_share_one_morto() -> None:
    """000: "Jogo de duplas apenas um jogador de cada dupla pode comprar o morto." and
    "Batida – é quando o jogador (ou seu parceiro) já comprou o morto e as cartas de um
    dos jogadores acabaram." """
    assert len(new_deal(RULES, 4, seed=3).mortos) == 2
    s = position(
        4,
        hands=["9C", "KD KS QD", "JH QH", "KC 5D 6D"],
        melds=[(0, CLEAN_RUN)],
        stock="8C 8S KH 4D",
        mortos=[MORTO_A, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard 9C")  # seat 0's hand empties: the pair's morto goes to seat 0
    assert s.morto_taken == [True, False]
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    play(s, 1, "draw")
    play(s, 1, "discard QD")
    play(s, 2, "draw")
    play(s, 2, "meld JH QH KH")  # the partner empties a hand: no second morto, a batida
    assert s.is_over
    assert s.end_reason == "batida"
    assert s.went_out == 2
    assert s.morto_taken == [True, False]
    assert s.mortos[1] is not None and len(s.mortos[1]) == 11


# ----- the deal -----------------------------------------------------------------------


@pytest.mark.parametrize("n_players", [2, 4])
def test_deal_104_cards_11_to_each_player_and_two_mortos_of_11(n_players: int) -> None:
    """000: "dois baralhos com 52 cartas, totalizando 104 cartas", "são distribuídas 11
    cartas para cada jogador" and "Morto – São dois montes de cartas ( 11 em cada
    monte )"."""
    s = new_deal(RULES, n_players, deck=deck_with(""), dealer=0)
    assert [len(h) for h in s.hands] == [11] * n_players
    assert [len(m) for m in s.mortos if m is not None] == [11, 11]
    assert len(s.stock) == 104 - 11 * n_players - 22
    assert sorted(s.all_cards()) == sorted(full_deck(jokers=False))
    assert not any(s.morto_taken)


def test_the_pile_starts_empty_and_the_first_player_must_draw() -> None:
    """000: "O primeiro jogador deverá obrigatoriamente comprar do monte"."""
    s = new_deal(RULES, 2, seed=7, dealer=0)
    assert s.pile == []
    assert s.turn == 1  # the player to the dealer's left (decision 22)
    assert legal(s) == ["draw"]
    assert rejected(s, 1, "take 4H 5H") == Reason.DISCARD_PILE_EMPTY
    play(s, 1, "draw")
    assert len(s.hands[1]) == 12


# ----- melds --------------------------------------------------------------------------


def test_melds_are_runs_of_one_suit_or_sets_of_one_rank() -> None:
    """000: "as cartas deverão ser do mesmo nipe e estar na seqüência ou se as cartas
    forem iguais, do tipo charuto. ( exemplo 4,4,4 )." """
    s = position(hands=["4H 5H 6H 9C 9D 9S 7C 8D 9H KS QS", "KD"], phase="play")
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "meld 9C 9D 9S")
    assert [m["kind"] for m in seat_view(s, 0)["melds"]] == ["run", "set"]
    assert rejected(s, 0, "meld 7C 8D 9H") == Reason.INVALID_MELD  # mixed suits
    assert rejected(s, 0, "meld 9H KS QS") == Reason.INVALID_MELD


def test_runs_go_from_four_to_ace_with_the_ace_high_only() -> None:
    """000: "Sequência da Tranca – é a ordem das cartas para se criar um jogo de tranca
    é: 4,5,6,7,8,9,10,J,Q,K,A" (decision 5)."""
    s = position(hands=["QH KH AH AS 4S 5S KS 6S JH", "KD"], phase="play")
    assert rejected(s, 0, "meld AS 4S 5S") == Reason.INVALID_MELD  # no low ace
    assert rejected(s, 0, "meld KS AS 4S") == Reason.INVALID_MELD  # no wrapping round
    play(s, 0, "meld QH KH AH")
    play(s, 0, "add @0 JH")
    play(s, 0, "meld 4S 5S 6S")
    assert rejected(s, 0, "add @1 AS") == Reason.CARD_DOES_NOT_FIT


def test_threes_are_never_melded() -> None:
    """000: "Ao contrário do buraco o jogo de tranca não permite usar os 3 como fazendo
    partes de um jogo." """
    s = position(hands=["3S 3C 3C 2H 4S 5S 6S 9D", "KD"], phase="play")
    assert rejected(s, 0, "meld 3C 3C 3S") == Reason.THREES_CANNOT_BE_MELDED
    assert rejected(s, 0, "meld 2H 3C 3S") == Reason.THREES_CANNOT_BE_MELDED
    assert rejected(s, 0, "meld 3S 4S 5S") == Reason.THREES_CANNOT_BE_MELDED
    play(s, 0, "meld 4S 5S 6S")
    assert rejected(s, 0, "add @0 3S") == Reason.THREES_CANNOT_BE_MELDED


def test_twos_are_wild_one_per_meld() -> None:
    """000: "Toda e qualquer carta com o número 2 é um coringa e serve para substituir
    uma outra carta do jogo." and "Canastra suja – ... têm um coringa" (decision 4)."""
    s = position(hands=["5C 2S 7C 7D 7H 2H 2D 2C 9D KS", "KD"], phase="play")
    play(s, 0, "meld 2S 5C 7C")  # the 2 stands for the 6 of clubs
    play(s, 0, "meld 2H 7D 7H")  # a set with a wild
    assert [m.shape.wilds for m in s.melds] == [1, 1]
    assert rejected(s, 0, "add @0 2D") == Reason.TOO_MANY_WILDS
    assert rejected(s, 0, "add @1 2D") == Reason.TOO_MANY_WILDS
    assert rejected(s, 0, "meld 2C 2D 9D") == Reason.TOO_MANY_WILDS


def test_a_meld_of_wilds_alone_is_not_a_meld() -> None:
    """000: the 2 "serve para substituir uma outra carta do jogo": it stands for some
    natural card, so three 2s are no meld (decision 4)."""
    s = position(hands=["2C 2D 2H 9D KS", "KD"], phase="play")
    assert rejected(s, 0, "meld 2C 2D 2H") == Reason.INVALID_MELD


def test_a_two_of_the_runs_suit_is_still_a_wild() -> None:
    """000: "Se o coringa estiver localizado entre um As e um três este não é considerado
    um coringa", which has no effect since runs go 4..A and 3s are never melded
    (decision 5): a 2 of hearts in a heart run is its one wild."""
    s = position(hands=["4H 5H 2H 2C 9D KS", "KD"], phase="play")
    play(s, 0, "meld 2H 4H 5H")
    assert s.melds[0].shape.wilds == 1
    assert rejected(s, 0, "add @0 2C") == Reason.TOO_MANY_WILDS


def test_a_natural_may_not_take_a_wilds_place() -> None:
    """Decision 26 (000 is silent on replacing a wild): a natural that would take the
    place a wild fills is refused; the wild stays."""
    s = position(hands=["5C 2S 7C 6C 9D KS", "KD"], phase="play")
    play(s, 0, "meld 2S 5C 7C")
    assert rejected(s, 0, "replace @0 6C") == Reason.WILD_REPLACEMENT_NOT_ALLOWED
    assert rejected(s, 0, "add @0 6C") == Reason.WILD_REPLACEMENT_NOT_ALLOWED
    assert "add @0 6C" not in legal(s)
    assert texts(s.melds[0].cards) == ["2S", "5C", "7C"]


# ----- canastras ----------------------------------------------------------------------


def test_a_run_of_seven_is_a_canastra_clean_without_a_wild_dirty_with_one() -> None:
    """000: "Canastra limpa – é um Jogo que contêm 7 ou mais cartas na sequência, do
    mesmo naipe e sem curingas" and "Canastra suja – ... têm um coringa substituindo uma
    carta da seqüência." """
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
    assert [m["canastra"] for m in seat_view(s, 1)["melds"]] == ["clean", "dirty"]


def test_a_set_never_becomes_a_canastra() -> None:
    """000: a canastra is "um Jogo que contêm 7 ou mais cartas na sequência, do mesmo
    naipe" (decision 7: only runs)."""
    s = position(hands=["9C 9C 9D 9D 9H 9H 9S 9S 4H 5H", "KD"], phase="play")
    play(s, 0, "meld 9C 9C 9D")
    for card in ("9D", "9H", "9H", "9S", "9S"):
        play(s, 0, f"add @0 {card}")
    assert len(s.melds[0].cards) == 8
    assert kinds_of_canastras(s) == [None]
    going_out = position(
        hands=["KH", "KD"],
        melds=[(0, "9C 9C 9D 9D 9H 9H 9S")],
        mortos=[None, MORTO_B],
        phase="play",
    )
    assert rejected(going_out, 0, "discard KH") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA


# ----- taking the discard pile ----------------------------------------------------------


def test_taking_the_pile_puts_its_top_card_on_an_own_meld_and_the_rest_in_the_hand() -> None:
    """000: "Caso compre do lixo deverá obrigatoriamente usar a 1º carto do lixo para
    fazer um jogo somente depois disso ele poderá recuperar as outras cartas que estão na
    lixeira." (decision 8)"""
    s = position(hands=["9C KD", "QS QD"], melds=[(0, "4H 5H 6H")], pile="JC 3S 8D 7H", stock="9S")
    play(s, 0, "take @0")
    assert texts(s.melds[0].cards) == ["4H", "5H", "6H", "7H"]
    assert texts(s.hands[0]) == ["3S", "8D", "9C", "JC", "KD"]
    assert s.pile == []
    assert s.phase == "play"
    assert len(s.stock) == 1


def test_taking_the_pile_makes_a_new_meld_of_its_top_card_and_two_hand_cards() -> None:
    """000: "deverá obrigatoriamente usar a 1º carto do lixo para fazer um jogo" (decision
    8: with two cards of the hand, in the same move)."""
    s = position(hands=["7C 7D 9S KD", "QS QD"], pile="QC 7H", stock="9S")
    play(s, 0, "take 7C 7D")
    assert texts(s.melds[0].cards) == ["7C", "7D", "7H"]
    assert texts(s.hands[0]) == ["9S", "KD", "QC"]
    assert s.pile == []


def test_the_pile_cannot_be_taken_unless_its_top_card_is_used() -> None:
    """000: "Na tranca o jogador somente pode comprar o lixo se usar a 1º carta do monte
    para realizar um jogo." The two other cards come from the hand, not the pile."""
    s = position(
        hands=["5H 6H 9S KD", "QS QD"], melds=[(0, "9C TC JC")], pile="9D TD 8D", stock="4C"
    )
    assert rejected(s, 0, "take @0") == Reason.TOP_CARD_NOT_USED
    assert rejected(s, 0, "take 5H 6H") == Reason.TOP_CARD_NOT_USED
    assert rejected(s, 0, "take 9D TD") == Reason.CARD_NOT_IN_HAND
    assert rejected(s, 0, "take @1") == Reason.UNKNOWN_MELD
    assert legal(s) == ["draw"]


def test_a_black_three_on_top_locks_the_pile_for_the_next_player_only() -> None:
    """000: "quem descartar um 3 preto no lixo significa que o próximo jogador a jogar
    não poderá comprar do lixo." (decision 2)"""
    s = position(hands=["3S 8H 9H KD", "7H QC JS"], stock="4C 5C TH", phase="play")
    play(s, 0, "discard 3S")
    assert rejected(s, 1, "take QC JS") == Reason.DISCARD_PILE_LOCKED
    assert legal(s) == ["draw"]
    play(s, 1, "draw")
    play(s, 1, "discard 7H")
    play(s, 0, "take 8H 9H")  # the three is buried now: the pile is open again
    assert texts(s.melds[0].cards) == ["7H", "8H", "9H"]
    assert texts(s.hands[0]) == ["3S", "KD"]


def test_black_threes_left_in_hand_count_against_the_side() -> None:
    """000: a black three may not be melded ("não permite usar os 3"), so one left in
    the hand is deducted like any card: "10 pontos por carta"."""
    s = position(
        hands=["KH", "3S 3C 9D"], melds=[(0, CLEAN_RUN)], mortos=[None, None], phase="play"
    )
    play(s, 0, "discard KH")
    assert score_deal(s)[1].hand_cards == -30


# ----- red threes ---------------------------------------------------------------------


def test_a_red_three_drawn_is_laid_down_at_once_and_replaced() -> None:
    """000: "quem possuir um destes deve coloca-lo na mesa (individualmente)" (decision 1:
    laid automatically and replaced by a draw from the stock)."""
    s = position(hands=["9C KD", "QS QD"], stock="5S 8C 3H")
    play(s, 0, "draw")
    assert [texts(r) for r in s.red_threes] == [["3H"], []]
    assert texts(s.hands[0]) == ["8C", "9C", "KD"]
    assert texts(s.stock) == ["5S"]
    assert s.phase == "play"
    assert seat_view(s, 1)["red_threes"] == [["3H"], []]


def test_dealt_red_threes_are_laid_at_the_start_of_their_holders_first_turn() -> None:
    """000: "quem possuir um destes deve coloca-lo na mesa (individualmente)" (decision 1:
    dealt ones at the start of the holder's first turn, each replaced)."""
    s = new_deal(RULES, 2, deck=deck_with("3H 3D"), dealer=0)  # 3H to seat 1, 3D to seat 0
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


def test_a_red_three_in_a_morto_taken_by_a_direct_batida_is_laid_and_replaced() -> None:
    """000: "quem possuir um destes deve coloca-lo na mesa" (decision 1: in a morto taken
    by a direct batida, at once)."""
    morto = "3D 4S 5S 6S 7S 8S 9S TS JS QS KS"
    s = position(hands=["5H 6H 7H", "KD QS"], stock="8C 9C", mortos=[morto, MORTO_B], phase="play")
    play(s, 0, "meld 5H 6H 7H")
    assert [texts(r) for r in s.red_threes] == [["3D"], []]
    assert len(s.hands[0]) == 11
    assert parse_card("9C") in s.hands[0]
    assert texts(s.stock) == ["8C"]


def test_red_threes_score_100_each_with_any_canastra() -> None:
    """000: "a cada 3 vermelho que o jogador tiver na mesa ganhará mais 100 pontos se
    possuir uma canastra." (decision 19: a dirty one is enough)"""
    s = position(
        hands=["KH", "KD QS"],
        melds=[(0, CLEAN_RUN), (1, DIRTY_RUN)],
        red_threes=["3H", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert [sc.red_threes for sc in score_deal(s)] == [100, 200]


def test_red_threes_cost_100_each_without_a_canastra() -> None:
    """000: "Caso não possua nenhuma canastra será deduzido 100 pontos por 3 vermelho." """
    s = position(
        hands=["KH", "KD QS"],
        melds=[(0, CLEAN_RUN), (1, "9C 9D 9H 9S 9C 9D 9H")],  # a set is no canastra here
        red_threes=["", "3D 3H"],
        mortos=[None, None],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert [sc.red_threes for sc in score_deal(s)] == [0, -200]


# ----- the morto and the batida ---------------------------------------------------------


def test_a_hand_emptied_by_melding_takes_the_morto_and_plays_on_without_drawing() -> None:
    """000: "O jogo segue este fluxo até que um jogador fique sem cartas na mão, quando
    isso ocorrer ele deverá comprar um dos mortos disponíveis." (decision 10: the direct
    batida plays on without drawing)"""
    s = position(
        hands=["5H 6H 7H", "KD QS"], stock="8C 9C", mortos=[MORTO_A, MORTO_B], phase="play"
    )
    play(s, 0, "meld 5H 6H 7H")
    assert not s.is_over
    assert (s.turn, s.phase) == (0, "play")
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    assert s.morto_taken == [True, False]
    assert s.mortos[0] is None
    assert rejected(s, 0, "draw") == Reason.ALREADY_DREW
    assert len(s.stock) == 2


def test_a_hand_emptied_by_taking_the_pile_takes_the_morto_and_plays_on() -> None:
    """000: "O morto deverá ser comprado por um jogador caso as cartas da mão acabem, e
    houver morto disponível para ele." A take that melds the last two cards of the hand
    with the pile's only card is such a case (decision 10: direct batida, play on)."""
    s = position(hands=["5H 6H", "KD QS"], pile="7H", stock="8C 9C", mortos=[MORTO_A, MORTO_B])
    assert "take 5H 6H" in legal(s)
    play(s, 0, "take 5H 6H")
    assert not s.is_over
    assert s.end_reason == ""
    assert (s.turn, s.phase) == (0, "play")
    assert texts(s.hands[0]) == texts(parse_cards(MORTO_A))
    assert s.morto_taken == [True, False]


def test_a_hand_emptied_by_discarding_takes_the_morto_for_the_next_turn() -> None:
    """000: "Se um jogador comprou um morto mas não teve chance de utiliza-lo (pois alguém
    bateu antes)" (decision 10: an indirect batida's morto is used next turn; decision 1:
    its red threes are laid at the start of that turn)."""
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


def test_a_morto_taken_and_not_used_before_the_batida_is_paid_as_not_taken() -> None:
    """000: "Se um jogador comprou um morto mas não teve chance de utiliza-lo (pois alguém
    bateu antes ) então este também deverá ser deduzido." (decision 11: -100, its cards
    not counted)"""
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
    """000: "Para bater é necessário ter pelo menos uma canastra limpa, se o jogador não
    possuir então não poderá bater até que consiga criar." """
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


def test_the_canastra_made_by_the_last_cards_lets_the_player_go_out() -> None:
    """000: "não poderá bater até que consiga criar" the clean canastra: creating it with
    the last card is going out."""
    s = position(
        hands=["TS", "KD QS"],
        melds=[(0, "4S 5S 6S 7S 8S 9S")],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "add @0 TS")
    assert s.is_over and s.went_out == 0


def test_a_player_who_cannot_go_out_must_keep_a_card_to_discard() -> None:
    """000: "Para bater é necessário ter pelo menos uma canastra limpa" (decision 15: a
    meld may not leave one card that could only be discarded by going out)."""
    s = position(
        hands=["JH QH KH 9C", "KD QS"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
    )
    assert rejected(s, 0, "meld JH QH KH") == Reason.MUST_KEEP_A_CARD_TO_DISCARD
    with_morto = position(hands=["JH QH KH 9C", "KD QS"], mortos=[MORTO_A, MORTO_B], phase="play")
    play(with_morto, 0, "meld JH QH KH")  # the discard will take the morto
    play(with_morto, 0, "discard 9C")
    assert with_morto.morto_taken == [True, False]


# ----- scoring ------------------------------------------------------------------------


def test_scoring_breakdown_of_a_deal_with_a_batida() -> None:
    """000: "somar primeiramente todas as canastras existentes, e na seqüência somar cada
    carta individualmente", "o jogador ou dupla que bateu recebe 100 pontos pela batida",
    "caso um jogador ou dupla não tenha comprado o morto então deverá deduzir 100 pontos"
    and the hand cards "deverão ser deduzidos do total". 000 names no canastra values:
    the engine uses 001/004's +200 clean and +100 dirty."""
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


def test_four_players_score_as_two_pairs_with_both_hands_deducted() -> None:
    """000: "cada jogador ou dupla deverá somar primeiramente todas as canastras" and
    "Dedução das cartas da mão: cada carta restante na mão de dos jogadores"."""
    s = position(
        4,
        hands=["QC", "KD KS", "9H 9D 9S", "4C"],
        melds=[(0, CLEAN_RUN), (1, "JH QH KH")],
        red_threes=["3H", ""],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard QC")
    side0, side1 = score_deal(s)
    assert len(score_deal(s)) == 2
    assert side0.hand_cards == -30  # the partner's three cards
    assert side0.total == 70 + 200 + 100 + 100 - 30
    assert side1.hand_cards == -30  # both opponents' cards
    assert side1.total == 30 - 100 - 30


def test_every_card_is_worth_ten_points() -> None:
    """000: "Tabela de pontos 10 pontos por carta." """
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
    """000: "Se nenhum jogador bateu e as cartas do monte acabarem, então o jogo será
    finalizado e os pontos serão contados." (decision 16: the player who drew the last
    card finishes that turn)"""
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
    assert side0.hand_cards == -20
    assert side0.total == -120
    assert side1.total == 70 + 200 - 100 - 20


# ----- the match ----------------------------------------------------------------------


def _play_out(s: DealState) -> None:
    for _ in range(5000):
        if s.is_over:
            return
        play(s, s.turn, legal(s)[0])
    raise AssertionError("the deal did not end")


def test_a_match_is_one_deal_by_default() -> None:
    """000: "Se o jogo for por partida, ao final da partida checa-se quem têm o maior
    número de pontos e este vence" (decision 21: one deal by default)."""
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


def test_a_single_deal_tie_is_a_draw() -> None:
    """000: "checa-se quem têm o maior número de pontos e este vence" (decision 21: a tie
    in a one-deal preset is a draw)."""
    assert decide(RULES, [150, 150], 1, 0) == DRAWN
    assert decide(RULES, [150, 90], 1, 1) == 0
    assert decide(RULES, [-90, -20], 1, 0) == 1


def test_a_match_to_a_target_score() -> None:
    """000: "os jogadores deverão jogar tantas vezes forem necessárias para alcançar ou
    superar os pontos de batida, o primeiro jogador ou dupla a alcançar vence. Caso todos
    os jogadores ultrapassem os pontos de batida, o jogador ou dupla que tiver a maior
    pontuação acumulada vence." (decision 21: a target by override)"""
    rules = make_rules("tranca-000", {"target_score": 3000})
    assert decide(rules, [2900, 1000], 1, 0) == NOBODY
    assert decide(rules, [3000, 1000], 2, 0) == 0
    assert decide(rules, [3100, 3200], 3, 0) == 1


# ----- what a seat sees -----------------------------------------------------------------


def test_only_the_top_of_the_face_up_pile_is_visible() -> None:
    """000: "Lixo – São as cartas que ficam ao lado direito do monte com a face virada para
    cima" and "somente a 1º carta do morto é visível, as outras ficam escondidas debaixo da
    primeira" (decision 9: the morto lies face down, so that sentence is about the pile)."""
    s = position(hands=["4H 5H", "KD KS"], pile="9C JD 8H")
    for seat in (0, 1):
        view = seat_view(s, seat)
        assert view["pile"] is None
        assert view["pile_top"] == "8H"
        assert view["pile_size"] == 3
        assert parse_card("8H") in visible_cards(s, seat)
        assert parse_card("JD") not in visible_cards(s, seat)  # buried under the top
    view = seat_view(s, 1)
    assert view["hand"] == ["KD", "KS"]
    assert view["hand_sizes"] == [2, 2]
    assert parse_card("4H") not in visible_cards(s, 1)  # the other hand stays hidden
    assert view["mortos"] is None  # "o morto também é posicionado de cabeça para baixo"


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
        hands=["JH QH KH 9C", "KD QS"],
        melds=[(0, DIRTY_RUN)],
        mortos=[None, MORTO_B],
        phase="play",
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
    """000: "o próprio jogo" runs the table: a move its rules forbid is refused with a
    stable reason code, and the deal is left exactly as it was."""
    s = make()
    assert rejected(s, seat, move) == reason
