"""Scenario tests for the canasta-style Tranca of 002 and its five variations:
the deck, players and the deal, melds, black threes, the discard pile, turns and red threes.

Every test cites the document the rule document 002_02970e3a635ab140.txt (as "002") with the
passage it rests on, or the numbered entry of docs/RULES.md §4 it checks where the
document is silent or ambiguous.

Presets: canasta-002 (the base game), canasta-002-aberta, canasta-002-paulista,
canasta-002-dois, canasta-002-tres and canasta-002-carioca.
"""

from __future__ import annotations

from collections import Counter

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
    SETS_ONLY,
    TRES,
    first_turned_index,
    position,
    rejected,
    scores,
    stacked_deck,
    texts,
)
from tranca_rules.cards import JOKER, card_text, full_deck, is_red_three, parse_card, parse_cards
from tranca_rules.engine import legal_moves, new_deal, play
from tranca_rules.errors import Reason
from tranca_rules.match import Match
from tranca_rules.presets import make_rules
from tranca_rules.state import deal_cards

# ----- deck, players and the deal ------------------------------------------------------


@pytest.mark.parametrize("preset", ALL_002)
def test_deck_is_two_decks_and_four_jokers(preset: str) -> None:
    """002: "Use dois baralhos padrão de 52 cartas mais quatro coringas (108 cartas no
    total)." """
    s = deal_cards(make_rules(preset), PLAYERS[preset], seed=7)
    cards = s.all_cards()
    assert len(cards) == 108
    assert cards.count(JOKER) == 4
    assert Counter(cards) == Counter(full_deck(jokers=True))


def test_base_game_is_four_players_in_fixed_partnerships() -> None:
    """002: "Tranca é jogado por 4 jogadores em duas duplas fixas de dois, sentados um em
    frente ao outro" (decision 31: seats 0 and 2, 1 and 3)."""
    rules = make_rules(BASE)
    for n in (2, 3):
        with pytest.raises(ValueError):
            new_deal(rules, n, seed=1)
    s = new_deal(rules, 4, seed=1)
    assert s.n_sides == 2
    assert [s.side_of(seat) for seat in range(4)] == [0, 1, 0, 1]


@pytest.mark.parametrize("preset", [BASE, ABERTA, PAULISTA, CARIOCA])
def test_eleven_cards_each_and_two_mortos_of_eleven(preset: str) -> None:
    """002: "Distribua 11 cartas para cada jogador" and "Distribua duas mãos reserva
    viradas para baixo com 11 cartas cada, uma para cada dupla." """
    s = deal_cards(make_rules(preset), 4, seed=11)
    assert [len(h) for h in s.hands] == [11, 11, 11, 11]
    assert [len(m or []) for m in s.mortos] == [11, 11]
    assert len(s.pile) == 1
    assert len(s.stock) == 108 - 44 - 22 - 1


def test_dois_is_two_players_each_with_a_morto_and_hands_of_ten() -> None:
    """002: "Tranca para dois: Cada jogador joga sozinho com um morto pessoal de 11 cartas.
    As mãos são frequentemente reduzidas a 9 ou 10 cartas" (decision 23: 10)."""
    rules = make_rules(DOIS)
    with pytest.raises(ValueError):
        deal_cards(rules, 4, seed=2)
    s = deal_cards(rules, 2, seed=2)
    assert s.n_sides == 2
    assert [len(h) for h in s.hands] == [10, 10]
    assert [len(m or []) for m in s.mortos] == [11, 11]
    assert len(s.stock) == 108 - 20 - 22 - 1


def test_tres_is_three_players_each_with_a_morto() -> None:
    """002: "Tranca para três: Três jogadores individuais, cada um com seu próprio
    morto" """
    rules = make_rules(TRES)
    for n in (2, 4):
        with pytest.raises(ValueError):
            deal_cards(rules, n, seed=3)
    s = deal_cards(rules, 3, seed=3)
    assert s.n_sides == 3
    assert [s.side_of(seat) for seat in range(3)] == [0, 1, 2]
    assert [len(h) for h in s.hands] == [11, 11, 11]
    assert [len(m or []) for m in s.mortos] == [11, 11, 11]
    assert len(s.stock) == 108 - 33 - 33 - 1


def test_cards_are_dealt_one_at_a_time_from_the_dealers_left() -> None:
    """002: "Distribua 11 cartas para cada jogador, uma de cada vez no sentido horário"
    and "O jogador à esquerda do distribuidor começa o primeiro turno." """
    deck = stacked_deck(BASE, {0: "KH", 1: "QH", 2: "JH", 3: "TH", 4: "9H"})
    s = deal_cards(make_rules(BASE), 4, dealer=0, deck=deck)
    assert s.turn == 1
    assert s.hands[1][:2] == parse_cards("KH 9H")
    assert s.hands[2][0] == parse_card("QH")
    assert s.hands[3][0] == parse_card("JH")
    assert s.hands[0][0] == parse_card("TH")


def test_first_dealer_is_drawn_by_lot_and_the_player_to_the_left_starts() -> None:
    """002: "Escolha o primeiro distribuidor cortando para a carta mais alta" and "O
    jogador à esquerda do distribuidor começa o primeiro turno." (decision 22: the cut is a
    draw by lot from the match seed)"""
    dealers = set()
    for seed in range(12):
        m = Match(make_rules(BASE), 4, seed=seed)
        assert Match(make_rules(BASE), 4, seed=seed).first_dealer == m.first_dealer
        assert m.deal.dealer == m.first_dealer
        assert m.deal.turn == (m.first_dealer + 1) % 4
        dealers.add(m.first_dealer)
    assert len(dealers) > 1


def test_first_card_of_the_stock_is_turned_for_the_pile() -> None:
    """002: "Vire a carta do topo do monte para cima ao lado dele para iniciar a pilha de
    descarte." """
    deck = stacked_deck(BASE, {66: "9C", 67: "KD"})
    s = new_deal(make_rules(BASE), 4, dealer=0, deck=deck)
    assert s.pile == parse_cards("9C")
    assert s.stock[-1] == parse_card("KD")
    assert not s.pile_frozen


@pytest.mark.parametrize("preset", ALL_002)
def test_turned_wild_or_red_three_is_buried_in_the_middle_of_the_stock(preset: str) -> None:
    """002: "Se a carta virada for um curinga (coringa ou 2) ou um 3 vermelho, enterre-a
    no meio do monte e vire uma nova carta." (decision 25)"""
    i = first_turned_index(preset)
    deck = stacked_deck(preset, {i: "JK", i + 1: "3D", i + 2: "2C", i + 3: "9C"})
    s = deal_cards(make_rules(preset), PLAYERS[preset], dealer=0, deck=deck)
    assert s.pile == parse_cards("9C")
    assert not s.pile_frozen
    n = len(s.stock)
    assert n == 108 - i - 1
    for text in ("JK", "3D", "2C"):
        where = [k for k, c in enumerate(s.stock) if c == parse_card(text)]
        assert len(where) == 1, text
        assert n // 4 <= where[0] <= 3 * n // 4, (text, where, n)


def test_dealt_red_threes_are_laid_and_replaced_when_their_holder_is_to_act() -> None:
    """002: "3s vermelhos: ... coloque-o imediatamente virado para cima à sua frente e
    compre uma reposição." (decision 1: dealt ones at the start of the holder's first
    turn)"""
    deck = stacked_deck(BASE, {0: "3H", 1: "3D"})
    s = new_deal(make_rules(BASE), 4, dealer=0, deck=deck)
    assert s.turn == 1
    assert texts(s.red_threes[1]) == ["3H"]
    assert len(s.hands[1]) == 11 and not any(is_red_three(c) for c in s.hands[1])
    assert s.red_threes[0] == [] and parse_card("3D") in s.hands[2]
    play(s, 1, "draw")
    play(s, 1, f"discard {card_text(s.hands[1][0])}")
    assert s.turn == 2
    assert texts(s.red_threes[0]) == ["3D"]
    assert len(s.hands[2]) == 11 and parse_card("3D") not in s.hands[2]


# ----- melds ---------------------------------------------------------------------------


@pytest.mark.parametrize("preset", SETS_ONLY)
def test_runs_are_refused_sets_only(preset: str) -> None:
    """002: "Uma combinação é formada por três ou mais cartas do mesmo valor." """
    hands = ["4H 5H 6H 7H KC"] + ["KD"] * (PLAYERS[preset] - 1)
    s = position(preset, hands=hands, stock="9D", phase="play")
    rejected(s, 0, "meld 4H 5H 6H", Reason.MELD_KIND_NOT_ALLOWED)


def test_a_set_of_three_naturals_is_a_meld() -> None:
    """002: "Uma combinação é formada por três ou mais cartas do mesmo valor." """
    s = position(hands=["KH KS KC 5D", "QD", "QH", "QS"], stock="9D", phase="play")
    play(s, 0, "meld KH KS KC")
    assert len(s.melds) == 1 and texts(s.melds[0].cards) == ["KC", "KH", "KS"]
    assert texts(s.hands[0]) == ["5D"]


def test_carioca_allows_runs_of_one_suit() -> None:
    """002: "Tranca Carioca: ... permite combinações em sequência (três ou mais cartas
    consecutivas do mesmo naipe) além das combinações do mesmo valor" """
    s = position(CARIOCA, hands=["4H 5H 6H 6S KC KD KS 9C", "QD", "QH", "QS"], phase="play")
    rejected(s, 0, "meld 4H 5H 6S", Reason.INVALID_MELD)
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "meld KC KD KS")
    assert [m.shape.kind for m in s.melds] == [1, 0]  # a run and a set
    assert texts(s.hands[0]) == ["6S", "9C"]


def test_carioca_run_of_seven_naturals_is_a_clean_canastra() -> None:
    """002: "Canasta: Uma combinação de sete ou mais cartas. Uma canasta limpa é de sete
    cartas naturais sem curingas e vale 200 pontos bônus." (with Carioca's runs)"""
    s = position(
        CARIOCA,
        hands=["TH 9D", "QD", "QH", "QS"],
        melds=[(0, "4H 5H 6H 7H 8H 9H")],
        mortos=[None, MORTO],
        phase="play",
    )
    play(s, 0, "add @0 TH")
    assert s.melds[0].canastra_kind(s.rules) == "clean"
    play(s, 0, "discard 9D")
    assert s.went_out == 0
    assert scores(s)[0].canastras == {"clean": 200}


def test_carioca_run_takes_up_to_two_wilds() -> None:
    """002: "podem incluir até dois curingas (coringas e 2s combinados)" (for Carioca's runs
    as for sets)."""
    s = position(CARIOCA, hands=["4H 5H JK 2C 2D 9S", "QD", "QH", "QS"], phase="play")
    play(s, 0, "meld 4H 5H JK")
    play(s, 0, "add @0 2C")
    assert s.melds[0].shape.wilds == 2
    rejected(s, 0, "add @0 2D", Reason.TOO_MANY_WILDS)


def test_carioca_runs_hold_no_black_three() -> None:
    """002: "Os 3s pretos não podem ser combinados normalmente." (not in a run either)"""
    s = position(CARIOCA, hands=["3C 4C 5C 6C 9S", "QD", "QH", "QS"], phase="play")
    rejected(s, 0, "meld 3C 4C 5C", Reason.THREES_CANNOT_BE_MELDED)


def test_a_meld_may_hold_up_to_two_wilds() -> None:
    """002: "podem incluir até dois curingas (coringas e 2s combinados), mas devem sempre
    conter pelo menos duas cartas naturais do valor da combinação." """
    s = position(hands=["7H 7S 2C JK 2D 9C", "QD", "QH", "QS"], stock="9D", phase="play")
    play(s, 0, "meld 2C 7H 7S")
    play(s, 0, "add @0 JK")
    assert s.melds[0].shape.wilds == 2
    rejected(s, 0, "add @0 2D", Reason.TOO_MANY_WILDS)


def test_a_meld_needs_at_least_two_naturals() -> None:
    """002: "devem sempre conter pelo menos duas cartas naturais do valor da
    combinação." """
    s = position(hands=["7H 2C JK 9C", "QD", "QH", "QS"], stock="9D", phase="play")
    rejected(s, 0, "meld 7H 2C JK", Reason.TOO_FEW_NATURALS)


def test_paulista_allows_one_wild_per_meld() -> None:
    """002: "Tranca Paulista: ... regras mais rígidas sobre mínimos de curingas"
    (decision 4: at most one wild per meld)."""
    s = position(PAULISTA, hands=["7H 7S 2C JK 9C", "QD", "QH", "QS"], phase="play")
    rejected(s, 0, "meld 7H 2C JK", Reason.TOO_MANY_WILDS)
    play(s, 0, "meld 2C 7H 7S")
    rejected(s, 0, "add @0 JK", Reason.TOO_MANY_WILDS)


@pytest.mark.parametrize("wild", ["JK", "2D", "2S"])
def test_jokers_and_twos_are_wilds(wild: str) -> None:
    """002: "curingas (coringas e 2s)" """
    s = position(hands=[f"KH KS {wild} 9C", "QD", "QH", "QS"], stock="9D", phase="play")
    play(s, 0, f"meld KH KS {wild}")
    assert s.melds[0].shape.key == 13 and s.melds[0].shape.wilds == 1


def test_an_ace_is_not_a_wild() -> None:
    """002: "curingas (coringas e 2s)"; "Carta natural: Qualquer valor de 4 a Ás (não um
    curinga, não um 3)" (the Baralho section's "Áses e 2s podem ser usados como curingas"
    is contradicted everywhere else)."""
    s = position(hands=["7H 7S AC AD AH 9C", "QD", "QH", "QS"], stock="9D", phase="play")
    rejected(s, 0, "meld 7H 7S AC", Reason.MELD_KIND_NOT_ALLOWED)
    play(s, 0, "meld AC AD AH")
    assert s.melds[0].shape.wilds == 0


@pytest.mark.parametrize("cards", ["2C 2D JK", "2C 2D 2H", "JK JK 2S"])
def test_never_a_meld_of_wilds_only(cards: str) -> None:
    """002: "Curinga: Coringas e 2s; utilizáveis em combinações até dois por combinação,
    nunca formando um conjunto puro sozinhos." """
    s = position(hands=[f"{cards} 9C 9D", "QD", "QH", "QS"], stock="9D", phase="play")
    rejected(s, 0, f"meld {cards}", Reason.INVALID_MELD)


def test_partners_share_their_melds() -> None:
    """002: "Você e seu parceiro compartilham todas as combinações na mesa. Qualquer um de
    vocês pode adicionar cartas do valor correto a uma combinação existente." """
    s = position(
        hands=["QD", "KS 9D", "KH 9C", "QS"],
        melds=[(0, "KC KD KC")],
        stock="5D 5H",
        turn=1,
        phase="play",
    )
    rejected(s, 1, "add @0 KS", Reason.NOT_YOUR_MELD)
    play(s, 1, "discard 9D")
    play(s, 2, "draw")
    play(s, 2, "add @0 KH")
    assert len(s.melds[0].cards) == 4


@pytest.mark.parametrize("preset", [DOIS, TRES])
def test_each_player_alone_owns_their_melds_in_dois_and_tres(preset: str) -> None:
    """002: "Existem versões para três e dois jogadores em que cada jogador joga por si
    mesmo (cada um com seu próprio morto)" """
    hands = ["KS 9C", "KH 9D", "KD 9H"][: PLAYERS[preset]]
    s = position(preset, hands=hands, melds=[(0, "KC KD KC")], stock="5D", turn=1, phase="play")
    rejected(s, 1, "add @0 KH", Reason.NOT_YOUR_MELD)


# ----- black threes --------------------------------------------------------------------


def test_black_threes_cannot_be_melded_normally() -> None:
    """002: "Os 3s pretos não podem ser combinados normalmente." """
    s = position(hands=["3C 3S 3C 9H 9D", "QD", "QH", "QS"], stock="5D", phase="play")
    rejected(s, 0, "meld 3C 3C 3S", Reason.BLACK_THREES_ONLY_WHEN_GOING_OUT)


def test_black_threes_are_not_melded_before_the_going_out_play() -> None:
    """002: "Uma dupla pode combinar 3s pretos somente no turno em que sair" (decision
    30: only as the play that takes the player out)."""
    s = position(
        hands=["3C 3S 3C 9H 9D 6D", "QD", "QH", "QS"],
        melds=[(0, CLEAN_EIGHTS)],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
    )
    rejected(s, 0, "meld 3C 3C 3S", Reason.BLACK_THREES_ONLY_WHEN_GOING_OUT)


def test_four_black_threes_are_melded_when_going_out() -> None:
    """002: "Uma dupla pode combinar 3s pretos somente no turno em que sair, e apenas como
    um conjunto puro de 3 ou 4 pretos sem curingas." """
    s = position(
        hands=["3C 3S 3C 3S", "QD", "QH", "QS"],
        melds=[(0, DIRTY_NINES)],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
    )
    play(s, 0, "meld 3C 3C 3S")
    play(s, 0, "add @1 3S")
    assert s.is_over and s.went_out == 0
    assert texts(s.melds[1].cards) == ["3C", "3C", "3S", "3S"]


def test_three_black_threes_and_a_discard_go_out() -> None:
    """002: "apenas como um conjunto puro de 3 ou 4 pretos sem curingas"; "A última carta
    pode ser combinada ou descartada." """
    s = position(
        hands=["3C 3S 3C 9H", "QD", "QH", "QS"],
        melds=[(0, DIRTY_NINES)],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
    )
    play(s, 0, "meld 3C 3C 3S")
    play(s, 0, "discard 9H")
    assert s.is_over and s.went_out == 0
    assert scores(s)[0].table_cards == 120 + 15


def test_black_threes_never_take_a_wild() -> None:
    """002: "apenas como um conjunto puro de 3 ou 4 pretos sem curingas." """
    s = position(
        hands=["3C 3S 2C", "QD", "QH", "QS"],
        melds=[(0, DIRTY_NINES)],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
    )
    rejected(s, 0, "meld 2C 3C 3S", Reason.THREES_CANNOT_BE_MELDED)
    s = position(
        hands=["3S 2C 9H", "QD", "QH", "QS"],
        melds=[(0, DIRTY_NINES), (0, "3C 3S 3C")],
        mortos=[None, MORTO],
        stock="5D",
        phase="play",
    )
    rejected(s, 0, "add @1 2C", Reason.THREES_CANNOT_BE_MELDED)


# ----- the discard pile ----------------------------------------------------------------


def test_black_three_on_top_locks_the_pile() -> None:
    """002: "descarte um 3 preto para trancar a pilha de descarte contra o próximo
    jogador." (decision 2)"""
    s = position(
        hands=["3S 4D", "9H 9S 5D", "QH", "QS"],
        melds=[(1, "9C 9D 9S")],
        pile="7C",
        stock="5D 6D",
        phase="play",
    )
    play(s, 0, "discard 3S")
    assert s.turn == 1
    rejected(s, 1, "take @0", Reason.DISCARD_PILE_LOCKED)
    assert [str(m) for m in legal_moves(s)] == ["draw"]


def test_a_covered_black_three_no_longer_locks_the_pile() -> None:
    """002: "A pilha de descarte é trancada sempre que um curinga (coringa ou 2) ou um 3
    preto está no topo." (decision 2: it locks against the next player)"""
    s = position(hands=["QH", "9H 9S 5D", "QD", "QS"], pile="7C 3C 9C", stock="5D", turn=1)
    play(s, 1, "take 9H 9S")
    assert texts(s.melds[0].cards) == ["9C", "9H", "9S"]
    assert texts(s.hands[1]) == ["3C", "5D", "7C"]
    assert s.pile == []


def test_a_discarded_wild_freezes_the_pile() -> None:
    """002: "A pilha de descarte é trancada sempre que um curinga (coringa ou 2) ... está
    no topo." (decision 3: a discarded wild freezes the pile until it is taken)"""
    s = position(
        hands=["2C 5H 6S", "7H 7S KC", "QH", "QS"],
        melds=[(1, "2H 7C 7D")],
        pile="9D",
        stock="9D 9H",
        phase="play",
    )
    play(s, 0, "discard 2C")
    assert s.pile_frozen
    rejected(s, 1, "take 7H 7S", Reason.DISCARD_PILE_FROZEN)
    rejected(s, 1, "take @0", Reason.DISCARD_PILE_FROZEN)
    assert [str(m) for m in legal_moves(s)] == ["draw"]


def test_frozen_pile_top_goes_only_onto_a_natural_set_of_its_rank() -> None:
    """002: "Se a pilha estiver «trancada» (veja abaixo), a carta do topo deve corresponder
    exatamente a uma combinação já existente do seu lado, formada apenas por cartas
    naturais." (decision 3)"""
    s = position(
        hands=["QH", "9H 9S 4D QS", "QD", "KS"],
        melds=[(1, "9C 2S 9D"), (1, "QC QD QS")],
        pile="5C 2C 9D",
        stock="6D",
        pile_frozen=True,
        turn=1,
    )
    rejected(s, 1, "take 9H 9S", Reason.DISCARD_PILE_FROZEN)  # not with hand cards
    rejected(s, 1, "take @0", Reason.DISCARD_PILE_FROZEN)  # not onto a meld with a wild
    rejected(s, 1, "take @1", Reason.TOP_CARD_NOT_USED)  # not onto another rank
    s = position(
        hands=["QH", "9H 9S 4D QS", "QD", "KS"],
        melds=[(1, "9C 2S 9D"), (1, "9C 9D 9S")],
        pile="5C 2C 9D",
        stock="6D",
        pile_frozen=True,
        turn=1,
    )
    play(s, 1, "take @1")
    assert len(s.melds[1].cards) == 4 and s.melds[1].shape.wilds == 0
    assert texts(s.hands[1]) == ["2C", "4D", "5C", "9H", "9S", "QS"]
    assert s.pile == [] and not s.pile_frozen


def test_frozen_pile_top_cannot_go_onto_a_dirty_canastra() -> None:
    """002: "Uma pilha trancada só pode ser pega por um jogador que já tem uma combinação
    daquele valor exato composta inteiramente por cartas naturais." (decision 3)"""
    s = position(
        hands=["QH", "4D 5S", "QD", "KS"],
        melds=[(1, DIRTY_NINES)],
        pile="5C 2C 9D",
        stock="6D",
        pile_frozen=True,
        turn=1,
    )
    rejected(s, 1, "take @0", Reason.DISCARD_PILE_FROZEN)


def test_carioca_frozen_pile_top_does_not_go_onto_a_run() -> None:
    """002: "a carta do topo deve corresponder exatamente a uma combinação já existente do
    seu lado, formada apenas por cartas naturais" — "daquele valor exato": a run is not
    of the top card's rank (decision 3: a set of its rank)."""
    frozen = position(
        CARIOCA,
        hands=["QH", "4D 5S", "QD", "KS"],
        melds=[(1, "4H 5H 6H")],
        pile="5C 2C 7H",
        stock="6D",
        pile_frozen=True,
        turn=1,
    )
    rejected(frozen, 1, "take @0", Reason.DISCARD_PILE_FROZEN)
    open_pile = position(
        CARIOCA,
        hands=["QH", "4D 5S", "QD", "KS"],
        melds=[(1, "4H 5H 6H")],
        pile="5C 9D 7H",
        stock="6D",
        turn=1,
    )
    play(open_pile, 1, "take @0")
    assert len(open_pile.melds[0].cards) == 4


def test_taking_the_pile_with_two_cards_from_the_hand() -> None:
    """002: "A carta do topo deve poder formar imediatamente uma combinação válida com duas
    cartas da sua mão ... Você então pega toda a pilha de descarte para sua mão." """
    s = position(hands=["QH", "JH 2S 4D 5S", "QD", "KS"], pile="5C 6H 7C JD", stock="6D", turn=1)
    play(s, 1, "take 2S JH")
    assert texts(s.melds[0].cards) == ["2S", "JD", "JH"] and s.melds[0].side == 1
    assert texts(s.hands[1]) == ["4D", "5C", "5S", "6H", "7C"]
    assert s.pile == [] and s.phase == "play"


def test_taking_the_pile_onto_a_partners_meld() -> None:
    """002: "(ou ampliar uma combinação existente sua ou do seu parceiro)" """
    s = position(
        hands=["QH", "KS", "4D 5S", "JS"],
        melds=[(0, "9C 9D 9S")],
        pile="5C 9H",
        stock="6D",
        turn=2,
    )
    play(s, 2, "take @0")
    assert len(s.melds[0].cards) == 4
    assert texts(s.hands[2]) == ["4D", "5C", "5S"]


def test_the_pile_cannot_be_taken_without_using_its_top_card() -> None:
    """002: "A carta do topo deve poder formar imediatamente uma combinação válida com duas
    cartas da sua mão (ou ampliar uma combinação existente sua ou do seu parceiro)." """
    s = position(
        hands=["QH", "JH 9S 2C JK", "QD", "KS"],
        melds=[(0, "9C 9D 9S"), (1, "KC KD KH")],
        pile="5C JD",
        stock="6D",
        turn=1,
    )
    rejected(s, 1, "take 9S JH", Reason.TOP_CARD_NOT_USED)
    rejected(s, 1, "take 2C JK", Reason.TOP_CARD_NOT_USED)  # one natural only
    rejected(s, 1, "take @1", Reason.TOP_CARD_NOT_USED)
    rejected(s, 1, "take @0", Reason.NOT_YOUR_MELD)  # an opponent's meld
    s.pile = []
    rejected(s, 1, "take 2C JH", Reason.DISCARD_PILE_EMPTY)


# ----- turns ---------------------------------------------------------------------------


def test_draw_first_and_discard_last() -> None:
    """002: "Seu turno tem três fases: comprar, combinar, descartar. Você deve comprar
    primeiro e descartar por último" """
    s = position(hands=["KH KS KC 5D", "QD", "QH", "QS"], stock="9D 9H")
    rejected(s, 0, "meld KC KH KS", Reason.MUST_DRAW_FIRST)
    rejected(s, 0, "discard 5D", Reason.MUST_DRAW_FIRST)
    rejected(s, 1, "draw", Reason.NOT_YOUR_TURN)
    play(s, 0, "draw")
    rejected(s, 0, "draw", Reason.ALREADY_DREW)
    rejected(s, 0, "meld KH KS KD", Reason.CARD_NOT_IN_HAND)
    play(s, 0, "meld KC KH KS")
    play(s, 0, "discard 5D")
    assert s.turn == 1 and s.phase == "draw"


# ----- red threes ----------------------------------------------------------------------


def test_a_drawn_red_three_is_laid_at_once_and_replaced() -> None:
    """002: "Se você comprar um 3 vermelho, coloque-o imediatamente virado para cima à sua
    frente e compre uma reposição." """
    s = position(hands=["QD", "KS", "QH 5H", "QS"], stock="9D 7C 3D 3H", turn=2)
    play(s, 2, "draw")
    assert texts(s.red_threes[0]) == ["3D", "3H"]  # the partners' side
    assert texts(s.hands[2]) == ["5H", "7C", "QH"]
    assert texts(s.stock) == ["9D"]
    assert s.phase == "play" and s.turn == 2


def test_red_threes_in_a_morto_are_laid_when_it_is_taken() -> None:
    """002: "O jogador compra as 11 cartas do morto e continua seu turno" with "3s
    vermelhos: ... coloque-o imediatamente virado para cima" (decision 1)."""
    s = position(
        hands=["5H 5S 5C", "KC", "KD", "KH"],
        mortos=["3H 6D 6H 7C 7D 7H 8C 9C TC JC QC", MORTO],
        stock="9D 9H",
        phase="play",
    )
    play(s, 0, "meld 5C 5H 5S")
    assert texts(s.red_threes[0]) == ["3H"]
    assert len(s.hands[0]) == 11 and parse_card("9H") in s.hands[0]


def test_red_threes_score_100_each_with_any_canastra_and_minus_100_without() -> None:
    """002: "Cada 3 vermelho vale 100 pontos bônus na pontuação se sua dupla tiver
    completado pelo menos um canasta; caso contrário, vale -100." """
    s = position(
        hands=["9H", "KC", "KD", "KH"],
        melds=[(0, DIRTY_NINES), (1, "QC QD QH QS QC QD")],
        mortos=[None, None],
        red_threes=["3H 3D", "3H"],
        stock="5D",
        phase="play",
    )
    play(s, 0, "discard 9H")
    side0, side1 = scores(s)
    assert side0.red_threes == 200
    assert side1.red_threes == -100
