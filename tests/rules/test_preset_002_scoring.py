"""Scenario tests for the canasta-style Tranca of 002 and its five variations:
canastras and scoring, the morto and going out, stock exhaustion, the match and what
the players see.

Every test cites its passage of 002, or its entry of docs/RULES.md §4, as in
test_preset_002.py (which names the presets).
"""

from __future__ import annotations

import pytest

from tests.rules.preset_002_helpers import (
    ABERTA,
    ALL_002,
    BASE,
    CARIOCA,
    CLEAN_EIGHTS,
    DIRTY_NINES,
    DOIS,
    MORTO,
    PAULISTA,
    PLAYERS,
    TRES,
    position,
    rejected,
    scores,
    texts,
)
from tranca_rules.cards import card_text, parse_cards
from tranca_rules.engine import legal_moves, new_deal, play
from tranca_rules.errors import Reason
from tranca_rules.match import Match, decide
from tranca_rules.presets import make_rules
from tranca_rules.state import NOBODY
from tranca_rules.views import seat_view

# ----- canastras and scoring -----------------------------------------------------------


def test_clean_canastra_200_and_dirty_canastra_100() -> None:
    """002: "Uma canasta limpa é de sete cartas naturais sem curingas e vale 200 pontos
    bônus. Uma canasta suja é de sete cartas incluindo um ou dois curingas e vale 100
    pontos bônus." """
    s = position(
        hands=["9H", "KC", "KD", "KH"],
        melds=[(0, CLEAN_EIGHTS), (0, DIRTY_NINES), (0, "AC AD AH AS AC AD")],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
        has_melded=[True, False, False, False],
    )
    play(s, 0, "discard 9H")
    side0 = scores(s)[0]
    assert side0.canastras == {"clean": 200, "dirty": 100}
    assert side0.canastra_counts == {"clean": 1, "dirty": 1}


def test_a_wild_added_to_a_clean_canastra_makes_it_dirty() -> None:
    """002: "Canasta: Uma combinação de sete ou mais cartas. ... Uma canasta suja é de sete
    cartas incluindo um ou dois curingas" """
    s = position(
        hands=["JK 9H", "KC", "KD", "KH"],
        melds=[(0, CLEAN_EIGHTS)],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
    )
    play(s, 0, "add @0 JK")
    play(s, 0, "discard 9H")
    assert scores(s)[0].canastras == {"dirty": 100}


def test_every_canastra_scores_its_own_bonus() -> None:
    """002: "Cada canasta conta uma vez por dupla; múltiplos canastas pontuam cada um seu
    próprio bônus." """
    s = position(
        hands=["9H", "KC", "KD", "KH"],
        melds=[(0, CLEAN_EIGHTS), (0, "AC AD AH AS AC AD AH AS"), (0, DIRTY_NINES)],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
    )
    play(s, 0, "discard 9H")
    side0 = scores(s)[0]
    assert side0.canastra_counts == {"clean": 2, "dirty": 1}
    assert side0.canastras == {"clean": 400, "dirty": 100}


def test_tres_halves_the_canastra_bonuses_but_not_the_batida() -> None:
    """002: "Tranca para três: ... bônus de canasta e meta de partida reduzidos à metade."
    (decision 24: batida and other values unchanged)"""
    s = position(
        TRES,
        hands=["9H", "KC", "KD"],
        melds=[(0, CLEAN_EIGHTS), (0, DIRTY_NINES)],
        mortos=[None, MORTO, MORTO],
        red_threes=["3H", "", ""],
        stock="5D",
        phase="play",
        has_melded=[True, False, False],
    )
    play(s, 0, "discard 9H")
    side0 = scores(s)[0]
    assert side0.canastras == {"clean": 100, "dirty": 50}
    assert side0.batida == 100
    assert side0.red_threes == 100
    assert len(scores(s)) == 3


def test_card_values_left_in_hand_count_against_the_side() -> None:
    """002: "Valor das cartas: Ás = 20, K/Q/J/10/9/8 = 10, 7/6/5/4 = 5, 3 preto = 5, 2
    natural = 20, ... coringa = 50." and "cada dupla subtrai o valor em pontos das cartas
    que ainda estão em suas mãos" """
    s = position(
        hands=["9H", "AS KC QC JC TC 9C 8C", "KD", "7C 6C 5C 4C 3C 2C JK"],
        melds=[(0, CLEAN_EIGHTS)],
        mortos=[None, None],
        stock="5D",
        phase="play",
    )
    play(s, 0, "discard 9H")
    side0, side1 = scores(s)
    assert side1.hand_cards == -(20 + 6 * 10 + 4 * 5 + 5 + 20 + 50)
    assert side0.hand_cards == -10  # the partner's KD counts too


def test_melded_cards_count_for_the_side() -> None:
    """002: "Em cada mão você marca pontos positivos pelas suas combinações" with "Ás = 20,
    ... 7/6/5/4 = 5, ... 2 natural = 20, ... coringa = 50." """
    s = position(
        hands=["9H", "KC", "KD", "KH"],
        melds=[(0, CLEAN_EIGHTS), (0, "AH AS AD JK"), (0, "4H 4S 2C")],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
    )
    play(s, 0, "discard 9H")
    assert scores(s)[0].table_cards == 70 + (60 + 50) + (10 + 20)


def test_batida_is_100_for_a_player_who_had_melded_before() -> None:
    """002: "Bônus por sair: 100 pontos para a dupla que sai normalmente" """
    s = position(
        hands=["KH KS KC 9H", "QC", "QD", "QH"],
        melds=[(0, CLEAN_EIGHTS)],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
        has_melded=[True, False, False, False],
    )
    play(s, 0, "meld KC KH KS")
    play(s, 0, "discard 9H")
    assert scores(s)[0].batida == 100
    assert scores(s)[1].batida == 0


def test_batida_is_200_when_the_player_had_melded_nothing_before() -> None:
    """002: "ou 200 se o jogador que sai não havia ainda combinado nenhuma carta nessa mão
    antes de sair (um raro encerramento «em cima»)." (decision 20)"""
    s = position(
        hands=["KH KS KC 9H", "QC", "QD", "QH"],
        melds=[(0, CLEAN_EIGHTS)],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
        has_melded=[False, False, True, False],  # the partner laid the canastra
    )
    play(s, 0, "meld KC KH KS")
    play(s, 0, "discard 9H")
    assert scores(s)[0].batida == 200


def test_taking_the_pile_in_an_earlier_turn_counts_as_having_melded() -> None:
    """002: "200 se o jogador que sai não havia ainda combinado nenhuma carta nessa mão
    antes de sair": taking the pile lays its top card in a meld (decision 8)."""
    s = position(
        hands=["8S 6C", "QC 4C", "QD 4D", "QH 4H"],
        melds=[(0, CLEAN_EIGHTS)],
        mortos=[None, MORTO],
        pile="8C",
        stock="5S 5D 5H 5C",
    )
    play(s, 0, "take @0")
    play(s, 0, "discard 6C")
    for seat in (1, 2, 3):
        play(s, seat, "draw")
        play(s, seat, f"discard 4{'CDH'[seat - 1]}")
    play(s, 0, "draw")
    play(s, 0, "add @0 8S")
    play(s, 0, "discard 5S")
    assert s.went_out == 0
    assert scores(s)[0].batida == 100


def test_a_morto_never_taken_costs_100_and_its_cards() -> None:
    """002: "Se uma dupla encerrar a mão sem nunca ter pego seu morto, subtraia 100" and
    "cada dupla subtrai o valor em pontos das cartas que ainda estão em suas mãos
    (incluindo o morto não reclamado, se aplicável)." (decisions 12, 13: a red three in it
    counts -100)"""
    s = position(
        hands=["9H", "KC", "KD", "KH"],
        melds=[(0, CLEAN_EIGHTS)],
        mortos=[None, "3H 5C 6C 7C 8C 9C TC JC QC KC AC"],
        stock="5D",
        phase="play",
    )
    play(s, 0, "discard 9H")
    side0, side1 = scores(s)
    assert side1.morto_penalty == -100
    assert side1.untaken_morto_cards == -(15 + 60 + 20) - 100
    assert side1.hand_cards == -20
    assert side0.morto_penalty == 0 and side0.untaken_morto_cards == 0


def test_a_side_total_is_the_sum_of_its_parts() -> None:
    """002: "Uma mão é vencida pela dupla com a maior pontuação líquida após a aplicação de
    todos os bônus e penalidades." """
    s = position(
        hands=["9H", "KC", "KD", "KH"],
        melds=[(0, CLEAN_EIGHTS), (1, "QC QD QH")],
        mortos=[None, MORTO],
        red_threes=["3H", "3D"],
        stock="5D",
        phase="play",
    )
    play(s, 0, "discard 9H")
    side0, side1 = scores(s)
    assert side0.total == 70 + 200 + 200 + 100 - 10
    assert side1.total == 30 - 100 - 100 - 20 - 100


# ----- the morto and going out ---------------------------------------------------------


def test_emptying_the_hand_by_melding_takes_the_morto_and_the_turn_goes_on() -> None:
    """002: "Uma dupla pega seu morto na primeira vez que um de seus jogadores esvazia a
    mão ... O jogador compra as 11 cartas do morto e continua seu turno (sem comprar mais
    do monte naquele turno)." """
    s = position(
        hands=["5H 5S 5C", "KC", "KD", "KH"],
        melds=[(0, CLEAN_EIGHTS)],
        mortos=[MORTO, MORTO],
        stock="9D 9H",
        phase="play",
    )
    play(s, 0, "meld 5C 5H 5S")
    assert not s.is_over  # the side has a canastra, but its morto was still to take
    assert s.morto_taken == [True, False] and s.mortos[0] is None
    assert texts(s.hands[0]) == texts(parse_cards(MORTO))
    assert s.turn == 0 and s.phase == "play"
    rejected(s, 0, "draw", Reason.ALREADY_DREW)


def test_discarding_the_last_card_takes_the_morto_and_the_turn_goes_on() -> None:
    """002: "seja combinando todas as cartas ou descartando a última carta (sem ter fechado
    antes). O jogador compra as 11 cartas do morto e continua seu turno" (decision 10): the
    discard stays on the pile, and the player plays on from the morto until a new discard."""
    s = position(
        hands=["5H", "KC", "KD", "KH"],
        mortos=[MORTO, MORTO],
        stock="9D 9H",
        phase="play",
    )
    play(s, 0, "discard 5H")
    assert not s.is_over
    assert s.morto_taken == [True, False]
    assert texts(s.hands[0]) == texts(parse_cards(MORTO))
    assert s.turn == 0 and s.phase == "play"
    assert card_text(s.pile[-1]) == "5H"
    assert all(m.kind != 0 for m in legal_moves(s))  # no draw: the turn is under way
    play(s, 0, "discard 4D")
    assert s.turn == 1 and s.phase == "draw"


def test_a_side_takes_its_morto_only_once() -> None:
    """002: "Cada dupla recebe seu morto exatamente uma vez por mão." """
    s = position(
        hands=["KC", "QD", "5H 5S 5C", "KH"],
        melds=[(0, "9C 9D 9S")],
        mortos=[None, MORTO],
        stock="9D 9H",
        turn=2,
        phase="play",
    )
    rejected(s, 2, "meld 5C 5H 5S", Reason.CANNOT_GO_OUT_WITHOUT_CANASTRA)


def test_going_out_needs_a_canastra() -> None:
    """002: "Sair: ... Isso só é permitido depois que a dupla completou pelo menos um
    canasta E já pegou seu morto." """
    s = position(
        hands=["5H 5S 5C", "KC", "KD", "KH"],
        melds=[(0, "9C 9D 9S 9H 9C 9D")],
        mortos=[None, MORTO],
        stock="9D 9H",
        phase="play",
    )
    rejected(s, 0, "meld 5C 5H 5S", Reason.CANNOT_GO_OUT_WITHOUT_CANASTRA)
    s = position(
        hands=["5H", "KC", "KD", "KH"],
        melds=[(0, "9C 9D 9S 9H 9C 9D")],
        mortos=[None, MORTO],
        stock="9D 9H",
        phase="play",
    )
    rejected(s, 0, "discard 5H", Reason.CANNOT_GO_OUT_WITHOUT_CANASTRA)


def test_a_dirty_canastra_is_enough_to_go_out() -> None:
    """002: "depois que a dupla completou pelo menos um canasta" (decision 14: any
    canastra in 002)."""
    s = position(
        hands=["5H", "KC", "KD", "KH"],
        melds=[(0, DIRTY_NINES)],
        mortos=[None, MORTO],
        stock="9D 9H",
        phase="play",
    )
    play(s, 0, "discard 5H")
    assert s.is_over and s.went_out == 0 and s.end_reason == "batida"


def test_the_last_card_may_be_melded_to_go_out() -> None:
    """002: "A última carta pode ser combinada ou descartada." (here it completes the
    canastra that lets the side go out)"""
    s = position(
        hands=["9H", "KC", "KD", "KH"],
        melds=[(0, "9C 9D 9S 9H 9C 9D")],
        mortos=[None, MORTO],
        stock="9D 9H",
        phase="play",
    )
    play(s, 0, "add @0 9H")
    assert s.is_over and s.went_out == 0
    assert scores(s)[0].canastras == {"clean": 200}
    rejected(s, 1, "draw", Reason.DEAL_OVER)


def test_a_meld_may_not_leave_a_last_card_that_could_not_be_discarded() -> None:
    """002: "Sair ... só é permitido depois que a dupla completou pelo menos um canasta"
    (decision 15: no meld that leaves one card when the side cannot go out)."""
    s = position(
        hands=["5H 5S 5C 7D", "KC", "KD", "KH"],
        melds=[(0, "9C 9D 9S")],
        mortos=[None, MORTO],
        stock="9D 9H",
        phase="play",
    )
    rejected(s, 0, "meld 5C 5H 5S", Reason.MUST_KEEP_A_CARD_TO_DISCARD)


# ----- stock exhaustion ----------------------------------------------------------------


def test_with_the_stock_gone_play_goes_on_by_taking_the_pile() -> None:
    """002: "Se o monte acabar, o jogo continua sem comprar até que um jogador saia ou não
    possa jogar legalmente" (decision 16)."""
    s = position(hands=["QH 9C", "9H 9S 5D", "KD", "KH"], pile="4D", stock="7C")
    play(s, 0, "draw")
    play(s, 0, "discard 9C")
    assert s.stock == [] and not s.is_over
    rejected(s, 1, "draw", Reason.STOCK_EMPTY)
    assert [str(m) for m in legal_moves(s)] == ["take 9H 9S"]
    play(s, 1, "take 9H 9S")
    assert texts(s.hands[1]) == ["4D", "5D"]


def test_with_the_stock_gone_the_deal_ends_when_a_player_cannot_play() -> None:
    """002: "momento em que a mão termina e todas as cartas na mão contam como penalidade
    para quem as segura." (decision 16: a player who cannot take the pile ends it)"""
    s = position(
        hands=["QH 9C", "5D 6D", "KD", "KH 2C"],
        mortos=[MORTO, MORTO],
        pile="4D",
        stock="",
        phase="play",
    )
    play(s, 0, "discard 9C")
    assert s.is_over and s.went_out == NOBODY
    assert s.end_reason == "no_legal_move"
    side0, side1 = scores(s)
    assert side0.batida == 0 and side1.batida == 0
    assert side0.hand_cards == -20 and side1.hand_cards == -(5 + 5 + 10 + 20)


def test_with_the_stock_gone_a_locked_pile_ends_the_deal() -> None:
    """002: "o jogo continua sem comprar até que um jogador saia ou não possa jogar
    legalmente" with "descarte um 3 preto para trancar a pilha" """
    s = position(
        hands=["3S 9C", "9H 9S 5D", "KD", "KH"],
        melds=[(1, "9C 9D 9S")],
        pile="4D",
        phase="play",
    )
    play(s, 0, "discard 3S")
    assert s.is_over and s.end_reason == "no_legal_move"


# ----- the match -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "target"), [(BASE, 3000), (ABERTA, 3000), (PAULISTA, 5000), (CARIOCA, 3000)]
)
def test_match_is_won_by_the_first_side_to_reach_the_target(preset: str, target: int) -> None:
    """002: "Uma partida é vencida pela primeira dupla a atingir o total cumulativo acordado
    (geralmente 3.000)"; Paulista: "com uma meta de partida mais alta de 5.000" """
    rules = make_rules(preset)
    assert decide(rules, [target - 10, 0], 3, 0) == NOBODY
    assert decide(rules, [target - 10, target], 3, 0) == 1
    assert decide(rules, [target + 500, 200], 3, 0) == 0


def test_tres_match_target_is_halved() -> None:
    """002: "Tranca para três: ... meta de partida reduzidos à metade." """
    rules = make_rules(TRES)
    assert decide(rules, [1490, 1200, 900], 3, 0) == NOBODY
    assert decide(rules, [1490, 1500, 900], 3, 0) == 1


def test_dois_match_target_is_3000() -> None:
    """002: "Uma partida é vencida pela primeira dupla a atingir o total cumulativo acordado
    (geralmente 3.000)" (decision 21; para dois changes hands only)."""
    rules = make_rules(DOIS)
    assert decide(rules, [2990, 1000], 3, 0) == NOBODY
    assert decide(rules, [1000, 3000], 3, 0) == 1


def test_both_sides_over_the_target_the_higher_wins() -> None:
    """002: "Se ambas as duplas ultrapassarem o limite na mesma mão, a pontuação mais alta
    vence" """
    assert decide(make_rules(BASE), [3100, 3250], 4, 0) == 1


@pytest.mark.parametrize("preset", ALL_002)
def test_an_exact_tie_is_settled_by_an_extra_deal(preset: str) -> None:
    """002: "um empate exato é resolvido com uma mão extra." """
    rules = make_rules(preset)
    target = rules.target_score
    n_sides = 2 if PLAYERS[preset] != 3 else 3
    totals = [target + 100] * 2 + [0] * (n_sides - 2)
    assert decide(rules, totals, 5, 0) == NOBODY
    assert decide(rules, [totals[0] + 5, *totals[1:]], 5, 0) == 0


def test_a_tied_match_deals_again_with_the_next_dealer() -> None:
    """002: "um empate exato é resolvido com uma mão extra" and "a distribuição gira no
    sentido horário após cada mão." """
    m = Match(make_rules(BASE), 4, seed=5)
    first_dealer = m.first_dealer
    s = position(
        hands=["5C 9C", "5D", "6C", "6D"],
        mortos=[MORTO, MORTO],
        stock="",
        phase="play",
    )
    play(s, 0, "discard 9C")  # seat 1 cannot take: the deal ends, both sides alike
    assert s.is_over
    m.deal = s
    m.totals = [3300, 3300]
    m.finish_deal()
    assert m.totals[0] == m.totals[1] >= 3000
    assert not m.is_over and m.winner == NOBODY
    assert len(m.deal_scores) == 1
    assert not m.deal.is_over
    assert m.deal.dealer == (first_dealer + 1) % 4


# ----- what the players see ------------------------------------------------------------


def test_aberta_deals_the_mortos_face_up() -> None:
    """002: "Tranca Aberta: Os mortos são distribuídos com as cartas para cima em vez de
    para baixo; ambos os lados sabem o que os espera." """
    s = new_deal(make_rules(ABERTA), 4, seed=9)
    mortos = [[card_text(c) for c in m or []] for m in s.mortos]
    for seat in range(4):
        view = seat_view(s, seat)
        assert view["mortos"] == mortos
        assert view["morto_sizes"] == [11, 11]


def test_base_mortos_are_face_down() -> None:
    """002: "Distribua duas mãos reserva viradas para baixo com 11 cartas cada" """
    s = new_deal(make_rules(BASE), 4, seed=9)
    for seat in range(4):
        view = seat_view(s, seat)
        assert view["mortos"] is None
        assert view["morto_sizes"] == [11, 11]


def test_only_the_top_of_the_pile_is_shown() -> None:
    """Decision 9: 002 is silent on the pile's visibility; only its top card is shown."""
    s = position(hands=["QH", "KS", "4D 5S", "JS"], pile="5C 7D 9H", stock="6D")
    view = seat_view(s, 1)
    assert view["pile_top"] == "9H" and view["pile_size"] == 3
    assert view["pile"] is None
