"""Scenario tests for the Brazilian presets ``tranca-000``, ``tranca-001`` and ``tranca-004``
(docs/RULES.md §1, the documents 000, 001 and 004; §4's decisions): the table itself,
players and partnerships, the deal, melds and canastras.
The table of the rules and their passages: tests/rules/brazilian_presets_table.py."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.rules.brazilian_presets_helpers import (
    _CHECKED,
    CLEAN_RUN,
    MORTO_A,
    MORTO_B,
    deck_with,
    kinds_of_canastras,
    legal,
    position,
    rejected,
    rule,
    rule_at_each_table_size,
    texts,
)
from tests.rules.brazilian_presets_table import DECISION, PRESETS, QUOTE, Preset
from tranca_rules.cards import card_text, full_deck, parse_cards
from tranca_rules.engine import new_deal, play
from tranca_rules.errors import Reason
from tranca_rules.match import Match
from tranca_rules.scoring import score_deal
from tranca_rules.views import seat_view

# ----- the table itself -----------------------------------------------------------------


def test_every_rule_of_the_table_is_checked_by_a_test() -> None:
    # (a test whose rule no preset has fails at import, in _presets_with) The rules'
    # tests stand in two modules: both are imported, whichever of them a run collects.
    importlib.import_module("tests.rules.test_brazilian_presets_play")
    in_table = {rule for preset in PRESETS for rule in preset.rules}
    assert in_table - _CHECKED == set()


def test_the_presets_differ_only_in_the_rules_their_documents_differ_on() -> None:
    # Every rule not all three presets have, with the presets that have it: a rule
    # dropped from one preset's entry by mistake shows here.
    every_rule = {rule for preset in PRESETS for rule in preset.rules}
    some = {
        rule: [p.name for p in PRESETS if rule in p.rules]
        for rule in every_rule
        if not all(rule in p.rules for p in PRESETS)
    }
    assert some == {
        # 001 is played by two only
        "with four players partners sit opposite and share their melds": [
            "tranca-000",
            "tranca-004",
        ],
        "with four players each pair shares one morto": ["tranca-000", "tranca-004"],
        "with four players partners lay red threes for the pair": ["tranca-000", "tranca-004"],
        "with four players two pairs score with both hands deducted": ["tranca-000", "tranca-004"],
        # only runs are canastras in 000 and 004, any meld of seven in 001 (decision 7)
        "a set never becomes a canastra": ["tranca-000", "tranca-004"],
        "red threes count minus beside a set of seven which is no canastra": [
            "tranca-000",
            "tranca-004",
        ],
        "a set of seven is a canastra too": ["tranca-001"],
        "a clean set canastra lets the player go out": ["tranca-001"],
        "red threes count plus with a set canastra": ["tranca-001"],
        # 000's passage on a 2 between an ace and a three, and its "pontos de batida"
        "a two of the runs suit is still a wild": ["tranca-000"],
        "a match to a target score by override": ["tranca-000"],
    }


DECISIONS = {
    int(n)
    for n in re.findall(
        r"^### Decision (\d+) — ",
        (Path(__file__).resolve().parents[2] / "docs" / "RULES.md").read_text(),
        re.M,
    )
}


@pytest.mark.parametrize("preset", PRESETS, ids=[p.name for p in PRESETS])
def test_every_citation_quotes_a_document_by_name_or_names_a_decision(preset: Preset) -> None:
    for what, cite in preset.citations():
        quotes = QUOTE.findall(cite)
        decisions = [int(n) for n in DECISION.findall(cite)]
        # every «…» is preceded by the short name of its document
        assert cite.count("«") == cite.count("»") == len(quotes), (what, cite)
        assert {short for short, _ in quotes} <= {"000", "001", "004"}, (what, cite)
        # the preset's own document, or a decision where it is silent
        assert preset.document in {short for short, _ in quotes} or decisions, (what, cite)
        assert set(decisions) <= DECISIONS, (what, cite)


@pytest.mark.parametrize("preset", PRESETS, ids=[p.name for p in PRESETS])
def test_the_tables_values_are_the_presets_knobs(preset: Preset) -> None:
    knobs = preset.knobs
    assert knobs.player_counts == preset.player_counts.value
    assert set(knobs.card_values) == {preset.card_value.value}
    assert knobs.canastra_bonus.clean == preset.clean_canastra_bonus.value
    assert knobs.canastra_bonus.dirty == preset.dirty_canastra_bonus.value
    assert knobs.batida_bonus == preset.batida_bonus.value
    assert knobs.red_three_value == preset.red_three_value.value
    assert knobs.morto_penalty == preset.morto_penalty.value


# ----- players and partnerships ---------------------------------------------------------


@rule
def test_only_as_many_players_as_the_document_says_may_play(preset: Preset) -> None:
    counts = preset.player_counts.value
    assert counts
    for n in range(1, 6):
        if n in counts:
            s = new_deal(preset.knobs, n, seed=1)
            assert (s.n_players, s.n_sides) == (n, 2)
            assert Match(preset.knobs, n, seed=1).deal.n_players == n
        else:
            with pytest.raises(ValueError, match="played by"):
                new_deal(preset.knobs, n, seed=1)
            with pytest.raises(ValueError, match="played by"):
                Match(preset.knobs, n, seed=1)


@rule
def test_with_two_players_each_melds_for_themselves(preset: Preset) -> None:
    s = position(preset, hands=["4H 5H 6H 9C", "7H KC QD"], stock="8S 8C")
    play(s, 0, "draw")
    play(s, 0, "meld 4H 5H 6H")
    play(s, 0, "discard 9C")
    play(s, 1, "draw")
    assert rejected(s, 1, "add @0 7H") == Reason.NOT_YOUR_MELD
    assert rejected(s, 1, "take @0") == Reason.ALREADY_DREW


@rule
def test_with_two_players_each_has_a_morto_of_their_own(preset: Preset) -> None:
    s = position(
        preset,
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


@rule
def test_with_four_players_partners_sit_opposite_and_share_their_melds(preset: Preset) -> None:
    s = position(
        preset,
        4,
        hands=["4H 5H 6H 9C", "7H KC QD", "7H 9D 9S", "KD KS"],
        stock="QC JD 8S 8C",
    )
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


@rule
def test_with_four_players_each_pair_shares_one_morto(preset: Preset) -> None:
    assert len(new_deal(preset.knobs, 4, seed=3).mortos) == 2
    s = position(
        preset,
        4,
        hands=["9C", "KD KS QD", "JH QH", "KC 5D 6D"],
        melds=[(0, CLEAN_RUN)],
        stock="8C 8S KH 4D",
        mortos=[MORTO_A, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard 9C")  # the first of the pair to empty a hand takes its morto
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


@rule
def test_with_four_players_partners_lay_red_threes_for_the_pair(preset: Preset) -> None:
    s = position(preset, 4, hands=["9C KD", "QS QD", "5C 6C", "8S 8D"], stock="5D 5S 3H 8C 4D")
    play(s, 0, "draw")
    play(s, 0, "discard 9C")
    play(s, 1, "draw")
    play(s, 1, "discard QS")
    play(s, 2, "draw")  # the partner draws the red three
    assert [texts(r) for r in s.red_threes] == [["3H"], []]
    assert texts(s.hands[2]) == ["5C", "5S", "6C"]


@rule
def test_with_four_players_two_pairs_score_with_both_hands_deducted(preset: Preset) -> None:
    card = preset.card_value.value
    s = position(
        preset,
        4,
        hands=["QC", "KD KS", "9H 9D 9S", "4C"],
        melds=[(0, CLEAN_RUN), (1, "JH QH KH")],
        red_threes=["3H", ""],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard QC")
    assert len(score_deal(s)) == 2
    side0, side1 = score_deal(s)
    assert side0.hand_cards == -3 * card  # the partner's three cards
    assert side0.total == (
        7 * card
        + preset.clean_canastra_bonus.value
        + preset.batida_bonus.value
        + preset.red_three_value.value
        - 3 * card
    )
    assert side1.hand_cards == -3 * card  # both opponents' cards
    assert side1.total == 3 * card - preset.morto_penalty.value - 3 * card


# ----- the deal -------------------------------------------------------------------------


@rule_at_each_table_size
def test_the_deal_is_104_cards_11_to_each_player_and_two_mortos_of_11(
    preset: Preset, n_players: int
) -> None:
    s = new_deal(preset.knobs, n_players, deck=deck_with(""), dealer=0)
    assert [len(h) for h in s.hands] == [11] * n_players
    assert [len(m) for m in s.mortos if m is not None] == [11, 11]
    assert len(s.stock) == 104 - 11 * n_players - 22
    assert sorted(s.all_cards()) == sorted(full_deck(jokers=False))
    assert not any(s.morto_taken)


@rule
def test_the_pile_starts_empty_and_the_first_player_draws(preset: Preset) -> None:
    s = new_deal(preset.knobs, 2, seed=7, dealer=0)
    assert s.pile == []
    assert s.turn == 1  # the player to the dealer's left
    assert legal(s) == ["draw"]
    assert rejected(s, 1, "take 4H 5H") == Reason.DISCARD_PILE_EMPTY
    play(s, 1, "draw")
    assert len(s.hands[1]) == 12
    card = card_text(s.hands[1][0])
    play(s, 1, f"discard {card}")  # the first discard starts the pile
    assert [card_text(c) for c in s.pile] == [card]
    assert legal(s)[0] == "draw"


# ----- melds ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Melding:
    """Melds laid from a hand (cards, kind), and melds refused as invalid."""

    hand: str
    melds: tuple[tuple[str, str], ...]
    invalid: tuple[str, ...]


MELDINGS = {
    "runs-of-hearts-and-sets": Melding(
        "4H 5H 6H 9C 9D 9S 7C 8D 9H KS QS",
        (("4H 5H 6H", "run"), ("9C 9D 9S", "set")),
        ("7C 8D 9H", "9H KS QS"),  # mixed suits; neither a run nor a set
    ),
    "runs-of-clubs-and-sets": Melding(  # 001's and 004's examples
        "4C 5C 6C 9C 9D 9S 7H 8D 9H KS QS",
        (("4C 5C 6C", "run"), ("9C 9D 9S", "set")),
        ("7H 8D 9H", "9H KS QS"),
    ),
    "ten-jack-queen-of-hearts": Melding(  # 004's third example
        "4C 5C 6C 9C 9D 9S TH JH QH 7H 8D KS",
        (("4C 5C 6C", "run"), ("9C 9D 9S", "set"), ("TH JH QH", "run")),
        ("7H 8D KS",),
    ),
}


@rule
@pytest.mark.parametrize("case", MELDINGS.values(), ids=MELDINGS.keys())
def test_melds_are_runs_of_one_suit_or_sets_of_one_rank(preset: Preset, case: Melding) -> None:
    s = position(preset, hands=[case.hand, "KD"], phase="play")
    for cards, _ in case.melds:
        play(s, 0, f"meld {cards}")
    assert [m["kind"] for m in seat_view(s, 0)["melds"]] == [kind for _, kind in case.melds]
    for cards in case.invalid:
        assert rejected(s, 0, f"meld {cards}") == Reason.INVALID_MELD


@rule
def test_a_meld_of_three_grows_card_by_card(preset: Preset) -> None:
    s = position(preset, hands=["4C 5C 6C 7C 8C KS QS", "KD"], phase="play")
    play(s, 0, "meld 4C 5C 6C")
    play(s, 0, "add @0 7C")
    play(s, 0, "add @0 8C")
    assert texts(s.melds[0].cards) == ["4C", "5C", "6C", "7C", "8C"]
    assert (s.turn, s.phase) == (0, "play")


@rule
def test_runs_go_from_four_to_ace_with_the_ace_high_only(preset: Preset) -> None:
    s = position(preset, hands=["QH KH AH AS 4S 5S KS 6S JH", "KD"], phase="play")
    assert rejected(s, 0, "meld AS 4S 5S") == Reason.INVALID_MELD  # no low ace
    assert rejected(s, 0, "meld KS AS 4S") == Reason.INVALID_MELD  # no wrapping round
    play(s, 0, "meld QH KH AH")
    play(s, 0, "add @0 JH")
    play(s, 0, "meld 4S 5S 6S")
    assert rejected(s, 0, "add @1 AS") == Reason.CARD_DOES_NOT_FIT


@rule
def test_threes_are_never_melded(preset: Preset) -> None:
    s = position(preset, hands=["3S 3C 3C 2H 4S 5S 6S 9D", "KD"], phase="play")
    assert rejected(s, 0, "meld 3C 3C 3S") == Reason.THREES_CANNOT_BE_MELDED
    assert rejected(s, 0, "meld 2H 3C 3S") == Reason.THREES_CANNOT_BE_MELDED
    assert rejected(s, 0, "meld 3S 4S 5S") == Reason.THREES_CANNOT_BE_MELDED
    play(s, 0, "meld 4S 5S 6S")
    assert rejected(s, 0, "add @0 3S") == Reason.THREES_CANNOT_BE_MELDED


@dataclass(frozen=True)
class Wilds:
    """Melds of one wild each, the first as another seat sees it, and moves that
    would put a second wild in a meld."""

    hand: str
    melds: tuple[str, ...]
    first_shown: tuple[str, ...]
    too_many: tuple[str, ...]


WILDS = {
    "in-a-run-and-a-set": Wilds(
        "5C 2S 7C 7D 7H 2H 2D 2C 9D KS",
        ("2S 5C 7C", "2H 7D 7H"),
        ("5C", "2S", "7C"),  # the 2 stands for the 6 of clubs
        ("add @0 2D", "add @1 2D", "meld 2C 2D 9D"),
    ),
    "001s-examples": Wilds(
        "QD 2D AD 7D 7H 2S 2H 2C 9C KS",
        ("QD 2D AD", "7D 7H 2S"),
        ("QD", "2D", "AD"),  # the 2 is the king
        ("add @0 2H", "add @1 2H", "meld 2C 2H 9C"),
    ),
    "004s-examples": Wilds(
        "QD 2D AD 7D 7H 2S 5C 5H 2H 2C 9C KS",
        ("QD 2D AD", "7D 7H 2S", "5C 5H 2H"),
        ("QD", "2D", "AD"),
        ("add @0 2C", "add @1 2C", "add @2 2C"),
    ),
    "two-wilds-and-a-natural": Wilds("2C 2D 9D 9S KS", (), (), ("meld 2C 2D 9D",)),
}


@rule
@pytest.mark.parametrize("case", WILDS.values(), ids=WILDS.keys())
def test_twos_are_wild_one_per_meld(preset: Preset, case: Wilds) -> None:
    s = position(preset, hands=[case.hand, "KD"], phase="play")
    for cards in case.melds:
        play(s, 0, f"meld {cards}")
    assert [m.shape.wilds for m in s.melds] == [1] * len(case.melds)
    if case.melds:
        assert tuple(seat_view(s, 1)["melds"][0]["cards"]) == case.first_shown
    for move in case.too_many:
        assert rejected(s, 0, move) == Reason.TOO_MANY_WILDS


@rule
def test_a_meld_of_wilds_alone_is_not_a_meld(preset: Preset) -> None:
    s = position(preset, hands=["2C 2D 2H 9D KS", "KD"], phase="play")
    assert rejected(s, 0, "meld 2C 2D 2H") == Reason.INVALID_MELD


@rule
def test_a_two_of_the_runs_suit_is_still_a_wild(preset: Preset) -> None:
    s = position(preset, hands=["4H 5H 2H 2C 9D KS", "KD"], phase="play")
    play(s, 0, "meld 2H 4H 5H")
    assert s.melds[0].shape.wilds == 1
    assert rejected(s, 0, "add @0 2C") == Reason.TOO_MANY_WILDS


@rule
def test_a_natural_may_not_take_a_wilds_place(preset: Preset) -> None:
    s = position(preset, hands=["5C 2S 7C 6C 9D KS", "KD"], phase="play")
    play(s, 0, "meld 2S 5C 7C")
    assert rejected(s, 0, "replace @0 6C") == Reason.WILD_REPLACEMENT_NOT_ALLOWED
    assert rejected(s, 0, "add @0 6C") == Reason.WILD_REPLACEMENT_NOT_ALLOWED
    assert "add @0 6C" not in legal(s)
    assert texts(s.melds[0].cards) == ["2S", "5C", "7C"]


# ----- canastras ------------------------------------------------------------------------


@rule
def test_a_run_of_seven_is_a_canastra_clean_without_a_wild_dirty_with_one(
    preset: Preset,
) -> None:
    s = position(
        preset, hands=["4H 5H 6H 7H 8H 9H TH 4D 5D 6D 7D 8D 9D 2C QS KS", "KD"], phase="play"
    )
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


@rule
def test_a_set_never_becomes_a_canastra(preset: Preset) -> None:
    s = position(preset, hands=["9C 9C 9D 9D 9H 9H 9S 9S 4H 5H", "KD"], phase="play")
    play(s, 0, "meld 9C 9C 9D")
    for card in ("9D", "9H", "9H", "9S", "9S"):
        play(s, 0, f"add @0 {card}")
    assert len(s.melds[0].cards) == 8
    assert kinds_of_canastras(s) == [None]
    going_out = position(
        preset,
        hands=["KH", "KD"],
        melds=[(0, "9C 9C 9D 9D 9H 9H 9S")],
        mortos=[None, MORTO_B],
        phase="play",
    )
    assert rejected(going_out, 0, "discard KH") == Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA


@rule
def test_a_set_of_seven_is_a_canastra_too(preset: Preset) -> None:
    s = position(preset, hands=["9C 9C 9D 9D 9H 9H 9S KS 4H 5H", "KD"], phase="play")
    play(s, 0, "meld 9C 9C 9D")
    for card in ("9D", "9H", "9H"):
        play(s, 0, f"add @0 {card}")
    assert kinds_of_canastras(s) == [None]
    play(s, 0, "add @0 9S")
    assert kinds_of_canastras(s) == ["clean"]
    dirty = position(
        preset, hands=["KH", "KD"], melds=[(0, "9C 9C 9D 9D 9H 9H 2S")], mortos=[None, MORTO_B]
    )
    assert kinds_of_canastras(dirty) == ["dirty"]


@rule
def test_a_clean_set_canastra_lets_the_player_go_out(preset: Preset) -> None:
    s = position(
        preset,
        hands=["KH", "KD QS"],
        melds=[(0, "9C 9C 9D 9D 9H 9H 9S")],
        mortos=[None, MORTO_B],
        phase="play",
    )
    play(s, 0, "discard KH")
    assert s.is_over and s.end_reason == "batida" and s.went_out == 0
    assert score_deal(s)[0].canastras == {"clean": preset.clean_canastra_bonus.value}
