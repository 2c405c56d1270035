"""The fast move generators agree with brute force: every three-card meld of a hand,
and every card a meld accepts, is found exactly as ``classify`` would find it."""

from collections import Counter
from itertools import combinations_with_replacement

from hypothesis import given
from hypothesis import strategies as st

from tests.rules.literal_knobs import literal_rules
from tranca_rules.cards import JOKER, full_deck
from tranca_rules.engine import meld_triples
from tranca_rules.melds import Meld, Problem, _accepts_by_classify, _compute_accepts, classify
from tranca_rules.presets import PRESETS, Rules

PRESET_NAMES = sorted(PRESETS)


def brute_force_triples(counts: Counter[int], rules: Rules) -> set[tuple[int, ...]]:
    out: set[tuple[int, ...]] = set()
    for t in combinations_with_replacement(sorted(counts), 3):
        if any(t.count(c) > counts[c] for c in t):
            continue
        if not isinstance(classify(list(t), rules), Problem):
            out.add(t)
    return out


@st.composite
def hands(draw: st.DrawFn, literal: bool = False) -> tuple[Rules, list[int]]:
    """Hands from the whole deck, or dense ones from a few ranks of two suits with the
    wilds and aces (where runs, duplicates and wild choices crowd together); with
    ``literal``, under a preset with some of the literal-reading knobs."""
    rules = draw(literal_rules()) if literal else PRESETS[draw(st.sampled_from(PRESET_NAMES))]
    deck = full_deck(rules.jokers)
    if draw(st.booleans()):
        low = draw(st.integers(1, 9))
        suits = draw(st.sets(st.integers(0, 3), min_size=1, max_size=2))
        deck = [
            c
            for c in deck
            if c == JOKER or (c & 15) in (1, 2) or ((c >> 4) in suits and low <= (c & 15) < low + 6)
        ]
    idx = draw(st.lists(st.integers(0, len(deck) - 1), min_size=3, max_size=16, unique=True))
    return rules, [deck[i] for i in idx]


@given(st.booleans().flatmap(hands))
def test_meld_triples_equal_brute_force(case: tuple[Rules, list[int]]) -> None:
    rules, hand = case
    counts = Counter(hand)
    assert meld_triples(counts, rules) == brute_force_triples(counts, rules)


@given(st.booleans().flatmap(hands), st.integers(0, 15))
def test_meld_triples_with_a_focus_card_equal_brute_force(
    case: tuple[Rules, list[int]], pick: int
) -> None:
    rules, hand = case
    focus = hand[pick % len(hand)]
    counts = Counter(hand)
    expected = {t for t in brute_force_triples(counts, rules) if focus in t}
    assert meld_triples(counts, rules, focus) == expected


@given(st.booleans().flatmap(hands))
def test_fast_accepts_equal_classify(case: tuple[Rules, list[int]]) -> None:
    """Grow a meld from the hand's first valid triple, card by card, and compare the
    arithmetic accept sets with the classify-based ones at every size."""
    rules, hand = case
    triples = sorted(brute_force_triples(Counter(hand), rules))
    if not triples:
        return
    cards = list(triples[0])
    shape = classify(cards, rules)
    assert not isinstance(shape, Problem)
    meld = Meld(0, 0, cards, shape)
    for _ in range(12):
        fast = _compute_accepts(meld, rules)
        assert fast == _accepts_by_classify(meld, rules)
        if not fast:
            break
        card = sorted(fast)[len(meld.cards) % len(fast)]
        new = classify([*meld.cards, card], rules)
        assert not isinstance(new, Problem)
        meld = Meld(0, 0, [*meld.cards, card], new)


def test_brute_force_finds_melds_at_all() -> None:
    """Guard for the tests above: the brute force is not vacuous."""
    rules = PRESETS["tranca-000"]
    counts = Counter([4 + 16 * 2, 5 + 16 * 2, 6 + 16 * 2, 9, 9 + 16, 9 + 48])
    assert len(brute_force_triples(counts, rules)) == 2
