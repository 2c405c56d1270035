"""The knobs that let a club play the rule documents' letter where the presets read
them otherwise (docs/RULES.md §4 "Literal readings"): one scenario per knob.

Each scenario is a fixed position built as the other rule tests build theirs, and
checks what the document's passage, quoted word for word, says. Each is run twice:
under the preset with the knob it must pass, and under the preset as shipped it must
fail (the preset chose against the letter, for the reasons RULES.md gives), so that
the knob is shown to be what makes the difference.

Documents: 000_48984b1301ba120f.txt ("000"), 002_02970e3a635ab140.txt ("002"),
003_9ae53d0671553559.txt ("003"), 004_d005cf3122f3726a.txt ("004").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tranca_rules.engine import apply, legal_moves, new_deal, play
from tranca_rules.errors import Reason, RuleViolation
from tranca_rules.information import UNKNOWN, information_of
from tranca_rules.levels import LEVELS, make_bot
from tranca_rules.moves import parse_move
from tranca_rules.position import build_position
from tranca_rules.presets import Rules, make_rules
from tranca_rules.scoring import score_deal
from tranca_rules.state import DealState
from tranca_rules.views import SPECTATOR, view_of

CLEAN_RUN = "4C 5C 6C 7C 8C 9C TC"  # a clean canastra of seven


def legal(s: DealState, move: str) -> bool:
    return parse_move(move) in legal_moves(s)


def refused(s: DealState, seat: int, move: str, reason: Reason) -> None:
    """``move`` is not among the legal moves, is refused with ``reason``, and leaves the
    deal as it was."""
    before = s.to_dict()
    assert not legal(s, move), f"{move} is legal"
    with pytest.raises(RuleViolation) as err:
        play(s, seat, move)
    assert err.value.reason == reason, err.value.message
    assert s.to_dict() == before


# ----- 002: aces as wild cards -------------------------------------------------------


def aces_are_wild(rules: Rules) -> None:
    """002: "Áses e 2s podem ser usados como curingas ao lado dos coringas reais (veja
    Jogabilidade para as regras exatas sobre curingas)" (the exact rules: up to two
    wilds a meld, at least two naturals: "até dois curingas (coringas e 2s
    combinados), mas devem sempre conter pelo menos duas cartas naturais")."""
    s = build_position(
        rules,
        4,
        hands=["5C 5H AS AD 2C 9D 9C 9H KH", "4D", "4H", "4S"],
        stock="7D 7D 7D",
        phase="play",
    )
    assert legal(s, "meld 5C 5H AS"), "an ace serves as a wild in a set of fives"
    play(s, 0, "meld 5C 5H AS")
    five = s.melds[0]
    assert five.shape.wilds == 1
    shown = view_of(s, 1).melds[0]
    assert [shown.cards[i] for i in shown.wild_indexes] == ["AS"]  # shown as the wild
    play(s, 0, "add @0 AD")  # a second wild, as 002 allows
    assert s.melds[0].shape.wilds == 2
    # The exact rules still hold: no third wild.
    refused(s, 0, "add @0 2C", Reason.TOO_MANY_WILDS)
    play(s, 0, "meld 9D 9C 9H")
    assert s.melds[1].shape.wilds == 0  # no ace in it: clean


def test_aces_wild_on_002() -> None:
    aces_are_wild(make_rules("canasta-002", {"aces_wild": True}))


def test_aces_wild_a_set_of_aces_stays_natural() -> None:
    """002's «Ás = 20» values the ace as a natural card of its own set: three aces
    are a clean set, not a meld of wilds."""
    rules = make_rules("canasta-002", {"aces_wild": True})
    s = build_position(
        rules, 4, hands=["AC AH AS AD KD KH 9C", "4D", "4H", "4S"], stock="7D", phase="play"
    )
    play(s, 0, "meld AC AH AS")
    assert s.melds[0].shape.wilds == 0
    play(s, 0, "meld KD KH AD")
    assert s.melds[1].shape.wilds == 1


def test_aces_wild_a_frozen_pile_still_wants_its_rank() -> None:
    """002: "a carta do topo deve corresponder exatamente a uma combinação já existente do
    seu lado, formada apenas por cartas naturais": an ace on a frozen pile goes onto a
    natural set of aces, not as a wild onto another rank's set."""
    rules = make_rules("canasta-002", {"aces_wild": True})
    fives = build_position(
        rules,
        4,
        hands=["KD KH 9C", "4D", "4H", "4S"],
        melds=[(0, "5C 5H 5S")],
        pile="7D 2C AS",
        pile_frozen=True,
        stock="7D",
    )
    refused(fives, 0, "take @0", Reason.DISCARD_PILE_FROZEN)
    aces = build_position(
        rules,
        4,
        hands=["KD KH 9C", "4D", "4H", "4S"],
        melds=[(0, "AC AH AD")],
        pile="7D 2C AS",
        pile_frozen=True,
        stock="7D",
    )
    play(aces, 0, "take @0")
    assert not aces.pile_frozen and len(aces.melds[0].cards) == 4


def test_aces_wild_not_on_the_preset() -> None:
    """Decision 32: canasta-002 keeps aces natural (Jogabilidade names "um curinga
    (coringa ou 2)")."""
    with pytest.raises(AssertionError):
        aces_are_wild(make_rules("canasta-002"))


# ----- 002: the pile thaws when the wild is covered ------------------------------


def pile_thaws_when_covered(rules: Rules) -> None:
    """002: "A pilha de descarte é trancada sempre que um curinga (coringa ou 2) ou um 3
    preto está no topo." Once another card covers the wild, the pile is open again."""
    s = build_position(
        rules,
        4,
        hands=["2C KD KH", "9H 4D 5D", "9C 9S 6H 7H", "4S"],
        pile="7D",
        stock="8D 8D 8D 8D",
        phase="play",
    )
    play(s, 0, "discard 2C")
    assert s.pile_frozen  # a wild on top: frozen for everyone
    play(s, 1, "draw")
    play(s, 1, "discard 9H")
    assert not s.pile_frozen, "the wild is covered"
    assert not view_of(s, 2).pile_frozen
    assert legal(s, "take 9C 9S")  # a new meld from the hand: only an open pile allows it
    play(s, 2, "take 9C 9S")
    assert s.melds[0].side == 0 and len(s.hands[2]) == 4  # 6H 7H, the pile's 7D and 2C


def test_pile_unfreezes_when_covered_on_002() -> None:
    pile_thaws_when_covered(make_rules("canasta-002", {"pile_unfreezes_when_covered": True}))


def test_pile_unfreezes_when_covered_not_on_the_preset() -> None:
    """Decision 3: canasta-002 keeps the pile frozen until it is taken."""
    with pytest.raises(AssertionError):
        pile_thaws_when_covered(make_rules("canasta-002"))


def test_pile_unfreezes_when_covered_needs_a_freezing_wild() -> None:
    from tranca_rules.errors import RulesError

    with pytest.raises(RulesError, match="needs wild_freezes_pile"):
        make_rules("tranca-000", {"pile_unfreezes_when_covered": True})


# ----- 000: A-2-3, the 2 a natural card ----------------------------------------------


def ace_two_three(rules: Rules) -> None:
    """000: "Se o coringa estiver localizado entre um As e um três este não é considerado"
    / "um coringa e sim uma carta normal da seqüência." (000 is hard-wrapped)."""
    s = build_position(rules, 2, hands=["AS 2S 3S 4S 9D 9H KD", "KC"], stock="7D 7D", phase="play")
    assert legal(s, "meld AS 2S 3S")
    play(s, 0, "meld AS 2S 3S")
    run = s.melds[0]
    assert run.shape.wilds == 0, "the 2 between the ace and the three is a normal card"
    play(s, 0, "add @0 4S")
    assert view_of(s, 1).melds[0].cards == ("AS", "2S", "3S", "4S")
    assert view_of(s, 1).melds[0].wild_indexes == ()


def test_ace_low_on_000() -> None:
    ace_two_three(make_rules("tranca-000", {"ace_low": True}))


def test_ace_low_not_on_the_preset() -> None:
    """Decision 5: tranca-000 runs from the 4 to the ace (000 «4,5,6,7,8,9,10,J,Q,K,A»)."""
    with pytest.raises(AssertionError):
        ace_two_three(make_rules("tranca-000"))


# ----- 000: the whole pile in view ---------------------------------------------------


def whole_pile_visible(rules: Rules) -> None:
    """000: "Lixo – São as cartas que ficam ao lado direito do monte com a face virada
    para" / "cima, visíveis a todos os jogadores." (000 is hard-wrapped)."""
    s = build_position(rules, 2, hands=["4H 5H 6H 9C", "KD KS"], pile="7D 8C QH", stock="2C 9D")
    for seat in (0, 1, SPECTATOR):
        assert view_of(s, seat).pile == ["7D", "8C", "QH"]
    info = information_of(s, 1)
    assert UNKNOWN not in info.pile


def test_whole_pile_visible_on_000() -> None:
    whole_pile_visible(make_rules("tranca-000", {"pile_view": "all"}))


def test_whole_pile_visible_not_on_the_preset() -> None:
    """Decision 9: tranca-000 shows only the top card (000 «somente a 1º carta do morto
    é» / «visível, as outras ficam escondidas debaixo da primeira.», read as the pile)."""
    with pytest.raises(AssertionError):
        whole_pile_visible(make_rules("tranca-000"))


# ----- 004: one meld a turn ----------------------------------------------------------


def one_meld_a_turn(rules: Rules) -> None:
    """004: "Após cada compra o jogador poderá baixar uma combinação de cartas - jogo -
    antes de descartar (jogar fora) uma carta da sua mão." Adding to melds is not a new
    combination: 004 lets cards be fitted to a meld ("encaixando-a diretamente em um
    jogo na mesa")."""
    s = build_position(
        rules,
        2,
        hands=["4H 5H 6H 7H 7C 8C 9C KD", "QD QS JD"],
        stock="JC JC JC JC",
        phase="play",
    )
    play(s, 0, "meld 4H 5H 6H")
    refused(s, 0, "meld 7C 8C 9C", Reason.ONE_MELD_PER_TURN)
    assert legal(s, "add @0 7H")
    play(s, 0, "add @0 7H")
    play(s, 0, "discard KD")
    play(s, 1, "draw")
    play(s, 1, "discard JC")
    play(s, 0, "draw")
    assert legal(s, "meld 7C 8C 9C"), "a new turn, a new meld"
    play(s, 0, "meld 7C 8C 9C")


def test_one_meld_per_turn_on_004() -> None:
    one_meld_a_turn(make_rules("tranca-004", {"one_meld_per_turn": True}))


def test_one_meld_per_turn_counts_a_take_into_a_new_meld() -> None:
    """Taking the pile with two cards of the hand lays the turn's new meld (004 «juntando
    com duas cartas ou mais da mão e baixando como um novo jogo»)."""
    rules = make_rules("tranca-004", {"one_meld_per_turn": True})
    s = build_position(rules, 2, hands=["9C 9S 4H 5H 6H KD", "QD"], pile="9H", stock="JC JC")
    play(s, 0, "take 9C 9S")
    refused(s, 0, "meld 4H 5H 6H", Reason.ONE_MELD_PER_TURN)
    restored = DealState.from_dict(s.to_dict())
    assert legal_moves(restored) == legal_moves(s)


def test_one_meld_per_turn_not_on_the_preset() -> None:
    """A12: tranca-004 reads «uma combinação» as a figure of speech (003 «Podrá colocar
    tantas combinaciones como desee.»)."""
    with pytest.raises(AssertionError):
        one_meld_a_turn(make_rules("tranca-004"))


# ----- 003: no threes in melds -------------------------------------------------------


def no_threes_in_melds(rules: Rules) -> None:
    """003 gives threes two uses and a cost, and no place in a combination: "Si un jugador
    descarta un tres negro, el siguiente jugador estará obligado a robar del mazo (se
    bloquea el montón de descartes)." and "Cada 3 negro o rojo que se quede en la mano
    al final de la ronda resta 100 puntos de la puntuación total." """
    s = build_position(
        rules,
        2,
        hands=["3S 4S 5S 6S AS 2S 3C 9D KD", "KC"],
        melds=[(0, "4C 5C 6C")],
        stock="7D 7D",
        phase="play",
    )
    refused(s, 0, "meld 3S 4S 5S", Reason.THREES_CANNOT_BE_MELDED)
    refused(s, 0, "meld AS 2S 3S", Reason.THREES_CANNOT_BE_MELDED)
    refused(s, 0, "add @0 3C", Reason.THREES_CANNOT_BE_MELDED)
    play(s, 0, "meld 4S 5S 6S")
    refused(s, 0, "add @1 3S", Reason.THREES_CANNOT_BE_MELDED)


def test_no_threes_in_melds_on_003() -> None:
    no_threes_in_melds(make_rules("tranca-003", {"threes_in_runs": False}))


def test_no_threes_in_melds_not_on_the_preset() -> None:
    """Decision 6: tranca-003 lets a black 3 stand natural in its place in a run."""
    with pytest.raises(AssertionError):
        no_threes_in_melds(make_rules("tranca-003"))


# ----- 003: no penalty for a morto never taken ---------------------------------------


def only_an_unused_morto_costs(rules: Rules) -> None:
    """003 charges a morto only when taken and not used: "Además coger el muerto y no
    poder usarlo resta 100 puntos." It says nothing of a morto never taken."""
    never = build_position(
        rules,
        2,
        hands=["9C", "KD"],
        melds=[(0, CLEAN_RUN)],
        mortos=[None, "6D 6D 6D 6D 6D 6D 6D 6D 6D 6D 6D"],
        stock="7C",
        phase="play",
    )
    play(never, 0, "discard 9C")  # seat 0 goes out; seat 1 never took its morto
    assert never.is_over and never.went_out == 0
    _, theirs = score_deal(never)
    assert theirs.morto_penalty == 0, "a morto never taken costs nothing"
    unused = build_position(
        rules,
        2,
        hands=["9C", "KD KH KS"],
        melds=[(1, CLEAN_RUN.replace("C", "S"))],
        mortos=["5C 5C 5C 5C 5C 5C 5C 5C 5C 5C 5C", None],
        stock="7C 7C 7C",
        phase="play",
    )
    play(unused, 0, "discard 9C")  # indirect batida: the morto waits for the next turn
    play(unused, 1, "draw")
    play(unused, 1, "meld KD KH KS")
    play(unused, 1, "discard 7C")  # seat 1 goes out before seat 0 plays again
    mine, _ = score_deal(unused)
    assert mine.morto_penalty == -100, "a morto taken and not used still costs 100"


def test_no_penalty_for_a_morto_never_taken_on_003() -> None:
    only_an_unused_morto_costs(make_rules("tranca-003", {"untaken_morto_is_penalised": False}))


def test_no_penalty_for_a_morto_never_taken_not_on_the_preset() -> None:
    """Decision 12: tranca-003 charges a morto never taken 100, as the family does."""
    with pytest.raises(AssertionError):
        only_an_unused_morto_costs(make_rules("tranca-003"))


# ----- every knob: its scenario fails on the preset and passes with the knob ---------

LITERAL_READINGS: list[tuple[str, dict[str, Any], Callable[[Rules], None]]] = [
    ("canasta-002", {"aces_wild": True}, aces_are_wild),
    ("canasta-002", {"pile_unfreezes_when_covered": True}, pile_thaws_when_covered),
    ("tranca-000", {"ace_low": True}, ace_two_three),
    ("tranca-000", {"pile_view": "all"}, whole_pile_visible),
    ("tranca-004", {"one_meld_per_turn": True}, one_meld_a_turn),
    ("tranca-003", {"threes_in_runs": False}, no_threes_in_melds),
    ("tranca-003", {"untaken_morto_is_penalised": False}, only_an_unused_morto_costs),
]


@pytest.mark.parametrize(("preset", "knob", "scenario"), LITERAL_READINGS)
def test_each_literal_reading_is_one_knob_away_from_its_preset(
    preset: str, knob: dict[str, Any], scenario: Callable[[Rules], None]
) -> None:
    scenario(make_rules(preset, knob))
    with pytest.raises(AssertionError):
        scenario(make_rules(preset))
    # The knob's default is the preset's own value: presets stay as they are.
    name, value = next(iter(knob.items()))
    assert make_rules(preset).to_dict()[name] != value


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("preset", "knob"), [(p, k) for p, k, _ in LITERAL_READINGS])
def test_every_bot_level_plays_a_deal_under_each_literal_reading(
    level: str, preset: str, knob: dict[str, Any]
) -> None:
    """The robots (random, greedy, the expert searching sampled worlds) play whole deals
    under each knob, every move they choose legal under it (``apply`` validates)."""
    rules = make_rules(preset, knob)
    players = rules.player_counts[0]
    s = new_deal(rules, players, seed=5)
    bots = [make_bot(level, k, iterations=8, horizon=40) for k in range(players)]
    for _ in range(3000):
        if s.is_over:
            break
        move = bots[s.turn].choose(s, legal_moves(s))
        apply(s, s.turn, move)
    assert s.is_over
