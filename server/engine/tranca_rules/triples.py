"""Which three cards of a hand make a new meld: every multiset of three that forms a
meld under a preset's rules (``meld_triples``), for the rules engine's legal moves.

Built from the shapes a three-card meld can take rather than by trying every
triple, because this runs for every move; a test checks it against brute force.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from .cards import ACE, JOKER, TWO, is_black_three, is_wild, make_card, rank_of, suit_of
from .melds import HIGH, Shape, classify
from .presets import Rules


def meld_triples(counts: Counter[int], rules: Rules, focus: int = -1) -> set[tuple[int, int, int]]:
    """Every multiset of three cards available in ``counts`` that forms a meld under
    ``rules`` (sorted tuples); with ``focus``, only those holding that card.

    Built from the shapes a three-card meld can take rather than by trying every
    triple, because this runs for every move; a test checks it against brute force.
    """
    if rules.aces_wild:
        return _triples_by_classify(counts, rules, focus)
    if rules.run_low > TWO and not rules.twos_set:
        return _triples_without_low_ace(counts, rules, focus)
    if focus >= 0 and not is_wild(focus):
        # Only cards of the focus card's rank or suit, and wilds, can share its meld.
        fr, fs = rank_of(focus), suit_of(focus)
        counts = Counter(
            {c: n for c, n in counts.items() if rank_of(c) == fr or suit_of(c) == fs or is_wild(c)}
        )
    low = rules.run_low
    sequences = rules.sequences
    wilds: list[int] = []
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, dict[int, int]] = {}
    for c in counts:
        if is_wild(c):
            wilds.append(c)
            if c == JOKER:
                continue  # a 2 may also be natural here: it goes on to its rank
        r = rank_of(c)
        vals = by_rank.get(r)
        if vals is None:
            by_rank[r] = [c]
        else:
            vals.append(c)
        if sequences:
            suit = suit_of(c)
            pos = by_suit.get(suit)
            if pos is None:
                pos = by_suit[suit] = {}
            if r == ACE:
                pos[HIGH] = c
                if low == 1:
                    pos[1] = c
            elif r == TWO:
                if low <= TWO:
                    pos[TWO] = c
            elif r >= low and (r != 3 or rules.threes_in_runs):
                pos[r] = c
    wilds.sort()
    focus_wild = focus >= 0 and is_wild(focus)
    if focus >= 0 and not focus_wild:
        fr = rank_of(focus)
        by_rank = {fr: by_rank[fr]} if fr in by_rank else {}
        fs = suit_of(focus)
        by_suit = {fs: by_suit[fs]} if fs in by_suit else {}
    max_w = min(rules.max_wilds_per_meld, 3 - rules.min_naturals)
    need = 3 - max_w  # naturals a set needs at the least
    n_wilds = sum(counts[w] for w in wilds)
    out: set[tuple[int, int, int]] = set()
    add = out.add
    for r, vals in by_rank.items():
        if r == TWO:
            if rules.twos_set:
                vals.sort()
                _add_triples(vals, counts, add)
            continue
        if r == 3:
            if rules.black_threes_when_going_out:
                _add_triples(sorted(v for v in vals if is_black_three(v)), counts, add)
            continue
        if not rules.sets:
            continue
        if len(vals) == 1:
            total = counts[vals[0]]
            if total < need or total + n_wilds < 3:
                continue
        vals.sort()
        _add_set_triples(vals, wilds, counts, max_w, len(vals) > 1 or counts[vals[0]] >= 3, add)
    if sequences:
        use_wilds = max_w >= 1 and wilds
        for pos in by_suit.values():
            if len(pos) < 2:
                continue
            ps = sorted(pos)
            k = len(ps)
            for i in range(k - 1):
                a = ps[i]
                ca = pos[a]
                for j in range(i + 1, min(i + 3, k)):
                    b = ps[j]
                    if b - a > 2:
                        break
                    cb = pos[b]
                    if use_wilds:
                        for w in wilds:
                            add(_sorted3(ca, cb, w))
                    if b - a == 1 and j + 1 < k and ps[j + 1] - a == 2:
                        add(_sorted3(ca, cb, pos[ps[j + 1]]))
    if focus < 0 and low > TWO:
        return out  # no card can appear twice unchecked: every count was checked above
    result = set()
    for t in out:
        a, b, c = t
        if (a == b or b == c) and counts[b] < (2 if a != c else 3):
            continue
        if focus >= 0 and focus not in t:
            continue
        result.add(t)
    return result


def _triples_by_classify(
    counts: Counter[int], rules: Rules, focus: int
) -> set[tuple[int, int, int]]:
    """``meld_triples`` by trying every multiset of three: for rules where an ace may
    be natural or wild (``aces_wild``), which the shapes above do not model. Slower,
    and only these rules pay for it."""
    out: set[tuple[int, int, int]] = set()

    def keep(triple: tuple[int, int, int]) -> None:
        if (focus < 0 or focus in triple) and isinstance(classify(list(triple), rules), Shape):
            out.add(triple)

    _add_triples(sorted(counts), counts, keep)
    return out


def _triples_without_low_ace(
    counts: Counter[int], rules: Rules, focus: int
) -> set[tuple[int, int, int]]:
    """``meld_triples`` for rules where every 2 is a wild and every ace is high: runs
    are found with bit masks of the rank positions each suit holds."""
    wilds: list[int] = []
    low_rank = rules.run_low
    masks = [0, 0, 0, 0]
    rank_total = [0] * 15
    by_rank: list[list[int]] = [[] for _ in range(15)]
    for c, n in counts.items():
        if is_wild(c):
            wilds.append(c)
            continue
        r = rank_of(c)
        rank_total[r] += n
        by_rank[r].append(c)
        if r == ACE:
            masks[suit_of(c)] |= 1 << HIGH
        elif r >= low_rank:
            masks[suit_of(c)] |= 1 << r
    wilds.sort()
    if focus >= 0:
        focus_wild = is_wild(focus)
        fr, fs = rank_of(focus), suit_of(focus)
    else:
        focus_wild = True
        fr = fs = -1
    max_w = min(rules.max_wilds_per_meld, 3 - rules.min_naturals)
    need = 3 - max_w
    n_wilds = sum(counts[w] for w in wilds)
    out: set[tuple[int, int, int]] = set()
    add = out.add
    if rules.sets or rules.black_threes_when_going_out:
        for r in range(1, 14) if focus_wild else (fr,):
            total = rank_total[r]
            if total < need or total + n_wilds < 3:
                continue
            vals = by_rank[r]
            if r == 3:
                if rules.black_threes_when_going_out:
                    _add_triples(sorted(v for v in vals if is_black_three(v)), counts, add)
                continue
            if not rules.sets:
                continue
            vals.sort()
            _add_set_triples(vals, wilds, counts, max_w, total >= 3, add)
    if rules.sequences:
        use_wilds = max_w >= 1 and bool(wilds)
        for suit in range(4) if focus_wild else (fs,):
            mask = masks[suit]
            t = mask & (mask >> 1) & (mask >> 2)
            while t:
                low = t & -t
                p = low.bit_length() - 1
                t ^= low
                if p == 12:  # Q K A: the ace's card value is the lowest
                    add((make_card(ACE, suit), make_card(12, suit), make_card(13, suit)))
                else:
                    add((make_card(p, suit), make_card(p + 1, suit), make_card(p + 2, suit)))
            if use_wilds:
                for gap in (1, 2):
                    t = mask & (mask >> gap)
                    while t:
                        low = t & -t
                        p = low.bit_length() - 1
                        t ^= low
                        a = make_card(p, suit)
                        b = make_card(ACE if p + gap == HIGH else p + gap, suit)
                        for w in wilds:
                            add(_sorted3(a, b, w))
    if focus < 0:
        return out
    return {t for t in out if focus in t}


def _add_set_triples(
    vals: list[int],
    wilds: list[int],
    counts: Counter[int],
    max_w: int,
    three_naturals: bool,
    add: Callable[[tuple[int, int, int]], None],
) -> None:
    """Add the three-card sets of one rank: three of its naturals (``vals``, sorted),
    two and a wild, or one and two wilds, as ``max_w`` allows."""
    if three_naturals:
        _add_triples(vals, counts, add)
    if max_w >= 1 and wilds:
        for i, a in enumerate(vals):
            for b in vals[i:]:
                if a == b and counts[a] < 2:
                    continue
                for w in wilds:
                    add((a, b, w) if w > b else _sorted3(a, b, w))
    if max_w >= 2:
        for a in vals:
            for i, w1 in enumerate(wilds):
                for w2 in wilds[i:]:
                    if w1 == w2 and counts[w1] < 2:
                        continue
                    add(_sorted3(a, w1, w2))


def _sorted3(a: int, b: int, c: int) -> tuple[int, int, int]:
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
        if a > b:
            a, b = b, a
    return (a, b, c)


def _add_triples(
    vals: list[int], counts: Counter[int], add: Callable[[tuple[int, int, int]], None]
) -> None:
    """Add every multiset of three of ``vals`` (sorted, with their counts)."""
    k = len(vals)
    for i in range(k):
        a = vals[i]
        for j in range(i, k):
            b = vals[j]
            if j == i and counts[a] < 2:
                continue
            for m in range(j, k):
                c = vals[m]
                if m == j and counts[b] < (3 if i == j else 2):
                    continue
                add((a, b, c))
