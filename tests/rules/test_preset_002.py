"""Scenario tests for the canasta-style Tranca of 002 and its five variations.

Every test cites the document the rule document 002_02970e3a635ab140.txt (as "002") with the
passage it rests on, or the numbered entry of docs/RULES.md §4 it checks where the
document is silent or ambiguous.

Presets: canasta-002 (the base game), canasta-002-aberta, canasta-002-paulista,
canasta-002-dois, canasta-002-tres and canasta-002-carioca.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tranca.rules.cards import JOKER, card_text, full_deck, is_red_three, parse_card, parse_cards
from tranca.rules.engine import legal_moves, new_deal, play
from tranca.rules.errors import Reason, RuleViolation
from tranca.rules.match import Match, decide
from tranca.rules.moves import parse_move
from tranca.rules.position import build_position
from tranca.rules.presets import make_rules
from tranca.rules.scoring import SideScore, score_deal
from tranca.rules.state import NOBODY, DealState, deal_cards
from tranca.rules.views import seat_view

BASE = "canasta-002"
ABERTA = "canasta-002-aberta"
PAULISTA = "canasta-002-paulista"
DOIS = "canasta-002-dois"
TRES = "canasta-002-tres"
CARIOCA = "canasta-002-carioca"
ALL_002 = (BASE, ABERTA, PAULISTA, DOIS, TRES, CARIOCA)
PLAYERS = {BASE: 4, ABERTA: 4, PAULISTA: 4, DOIS: 2, TRES: 3, CARIOCA: 4}
SETS_ONLY = (BASE, ABERTA, PAULISTA, DOIS, TRES)

CLEAN_EIGHTS = "8C 8D 8H 8S 8C 8D 8H"  # a clean canastra: seven natural 8s (70 points)
DIRTY_NINES = "9C 9D 9H 9S 9C 2D JK"  # a dirty canastra: five 9s and two wilds (120 points)
MORTO = "5C 6C 7C 8C 9C TC JC QC KC AC 4D"  # 11 cards worth 5+5+5+10*6+20+5 = 100


# ----- helpers -------------------------------------------------------------------------


def position(preset: str = BASE, **kwargs: Any) -> DealState:
    """A position under ``preset`` with its usual number of players."""
    return build_position(make_rules(preset), PLAYERS[preset], **kwargs)


def rejected(s: DealState, seat: int, move: str, reason: Reason) -> None:
    """``move`` is refused with ``reason``, is not among the legal moves, and leaves
    the deal exactly as it was."""
    before = s.to_dict()
    legal = legal_moves(s) if seat == s.turn else []
    with pytest.raises(RuleViolation) as info:
        play(s, seat, move)
    assert info.value.reason == reason, info.value.message
    assert s.to_dict() == before
    assert parse_move(move) not in legal


def is_legal(s: DealState, move: str) -> bool:
    return parse_move(move) in legal_moves(s)


def texts(cards: list[int]) -> list[str]:
    return sorted(card_text(c) for c in cards)


def is_special(card: int) -> bool:
    return card == JOKER or (card & 15) == 2 or is_red_three(card)


def stacked_deck(preset: str, placed: dict[int, str]) -> list[int]:
    """A full deck for ``preset`` with the cards of ``placed`` at the given positions
    (position 0 is dealt first). Every other wild and red three goes into the mortos,
    so that hands and stock hold only the special cards a test places there."""
    rules = make_rules(preset)
    deck = full_deck(rules.jokers)
    left = Counter(deck)
    out: list[int | None] = [None] * len(deck)
    for i, text in placed.items():
        card = parse_card(text)
        left[card] -= 1
        out[i] = card
    special = sorted(c for c in left.elements() if is_special(c))
    plain = sorted(c for c in left.elements() if not is_special(c))
    morto_start = rules.hand_size * PLAYERS[preset]
    free = [i for i in range(len(deck)) if out[i] is None]
    special_slots = [i for i in free if i >= morto_start][: len(special)]
    assert len(special_slots) == len(special)
    for i, c in zip(special_slots, special, strict=True):
        out[i] = c
    rest = [i for i in free if out[i] is None]
    for i, c in zip(rest, plain, strict=True):
        out[i] = c
    return [c for c in out if c is not None]


def first_turned_index(preset: str) -> int:
    """The deck position of the first card turned for the discard pile."""
    rules = make_rules(preset)
    n = PLAYERS[preset]
    n_sides = 2 if n == 4 else n
    return n * rules.hand_size + n_sides * rules.morto_size


def scores(s: DealState) -> list[SideScore]:
    assert s.is_over
    return score_deal(s)


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
