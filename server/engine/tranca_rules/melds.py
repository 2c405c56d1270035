"""Melds: what a group of cards is (a set, a run, a meld of black threes), where
its wilds stand, and which cards it can take.

A wild's position in a run is derived from the natural cards rather than chosen
by the player: with a gap between naturals the wild fills it (5-2-7: the 2 is a
6); with no gap it sits at an end and floats to whichever end the next card
needs. Placing the natural card of a gap a wild fills is a *replacement*, legal
only where the preset allows it; the freed wild moves to the high end if there
is room, else to the low end (003, "Los comodines").
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import (
    ACE,
    JOKER,
    THREE,
    TWO,
    is_black_three,
    is_wild,
    make_card,
    rank_of,
    suit_of,
)
from .errors import Reason
from .presets import Rules

SET, RUN, BLACK_THREES = 0, 1, 2
KIND_NAMES = ("set", "run", "black_threes")

# Canastra kinds, for scoring and for views.
CLEAN, DIRTY, REAL, ALL_WILDS, ACE_TO_ACE = "clean", "dirty", "real", "all_wilds", "ace_to_ace"

HIGH = 14  # the high ace's position in a run


class Shape(NamedTuple):
    """What a group of cards is. ``key`` is the rank of a set or the suit of a run;
    ``naturals`` are a run's natural rank positions, ascending (1 and 14 are aces)."""

    kind: int
    key: int
    naturals: tuple[int, ...]
    wilds: int


class Problem(NamedTuple):
    reason: Reason
    message: str


def classify(
    cards: list[int], rules: Rules, min_wilds: int = 0, max_wilds: int = 99
) -> Shape | Problem:
    """What ``cards`` form under ``rules``, or why they form nothing.

    A 2 of a run's suit may be natural (where runs reach the low ace) or wild; the
    reading with the fewest wilds is taken, within ``min_wilds``..``max_wilds``: a
    card that has served as a wild in a meld goes on serving as one (003: the moved
    wild "seguirá funcionando como comodín"), and a 2 laid natural in its place stays
    natural (``Meld.grown`` sets both bounds).
    """
    if len(cards) < 3:
        return Problem(Reason.INVALID_MELD, "a meld needs at least three cards")
    naturals = [c for c in cards if not is_wild(c)]
    if not naturals:
        if rules.twos_set and all(c != JOKER for c in cards):
            return Shape(SET, TWO, (), 0)
        return Problem(Reason.INVALID_MELD, "a meld needs natural cards, not only wilds")
    if all(is_black_three(c) for c in cards):
        if rules.black_threes_when_going_out:
            return Shape(BLACK_THREES, THREE, (), 0)
        return Problem(Reason.THREES_CANNOT_BE_MELDED, "threes cannot be melded")
    first = rank_of(naturals[0])
    if all(rank_of(c) == first for c in naturals):
        as_set = _set_shape(cards, len(naturals), first, rules)
        if isinstance(as_set, Problem) and rules.sequences and rules.run_low <= TWO:
            # With the low ace a 2 of the suit can be natural: A-2-2 is a run A-2-(3).
            as_run = _run_shape(cards, rules, min_wilds, max_wilds)
            if not isinstance(as_run, Problem):
                return as_run
        return as_set
    if rules.aces_wild:
        # 002's letter: "Áses e 2s podem ser usados como curingas": an ace outside a
        # set of aces, or outside its place in a run, serves as a wild.
        plain = [c for c in naturals if rank_of(c) != ACE]
        rank = rank_of(plain[0])
        if all(rank_of(c) == rank for c in plain):
            as_set = _set_shape(cards, len(plain), rank, rules)
            if isinstance(as_set, Shape) or not rules.sequences:
                return as_set
            as_run = _run_shape(cards, rules, min_wilds, max_wilds)
            return as_set if isinstance(as_run, Problem) else as_run
    if not rules.sequences:
        return Problem(
            Reason.MELD_KIND_NOT_ALLOWED, "only sets of one rank are allowed in these rules"
        )
    return _run_shape(cards, rules, min_wilds, max_wilds)


def _set_shape(cards: list[int], n_naturals: int, rank: int, rules: Rules) -> Shape | Problem:
    if not rules.sets:
        return Problem(Reason.MELD_KIND_NOT_ALLOWED, "only runs of one suit are allowed here")
    if rank == THREE:
        return Problem(Reason.THREES_CANNOT_BE_MELDED, "threes cannot be melded in a set")
    wilds = len(cards) - n_naturals
    if wilds > rules.max_wilds_per_meld:
        return Problem(
            Reason.TOO_MANY_WILDS, f"at most {rules.max_wilds_per_meld} wild(s) per meld"
        )
    if n_naturals < rules.min_naturals:
        return Problem(
            Reason.TOO_FEW_NATURALS, f"a meld needs at least {rules.min_naturals} natural cards"
        )
    return Shape(SET, rank, (), wilds)


def _run_shape(
    cards: list[int], rules: Rules, min_wilds: int = 0, max_wilds: int = 99
) -> Shape | Problem:
    low = rules.run_low
    suit = -1
    fixed: list[int] = []
    aces = 0
    suited_twos = 0
    wilds = 0
    twos: list[int] = []
    ace_suits: list[int] = []  # with aces_wild: each ace, natural in its place or wild
    for c in cards:
        if c == JOKER:
            wilds += 1
            continue
        r = rank_of(c)
        if r == TWO:
            twos.append(suit_of(c))
            continue
        s = suit_of(c)
        if r == ACE and rules.aces_wild:
            ace_suits.append(s)
            continue
        if suit < 0:
            suit = s
        elif s != suit:
            return Problem(Reason.INVALID_MELD, "a run is of one suit and a set of one rank")
        if r == ACE:
            aces += 1
        else:
            fixed.append(r)
    if ace_suits:
        if suit < 0:
            suit = ace_suits[0]
        aces = ace_suits.count(suit)
        wilds += len(ace_suits) - aces
    for s in twos:
        if low <= TWO and s == suit:
            suited_twos += 1
        else:
            wilds += 1
    ace_options: tuple[tuple[int, ...], ...]
    if ace_suits:
        # Each ace of the suit natural in a place of its own, or wild.
        places = ((), (HIGH,), (ACE,), (ACE, HIGH)) if low == ACE else ((), (HIGH,))
        ace_options = tuple(p for p in places if len(p) <= aces)
    elif aces > 2:
        return Problem(Reason.INVALID_MELD, "a run holds at most two aces")
    elif aces == 0:
        ace_options = ((),)
    elif aces == 1:
        ace_options = ((HIGH,), (ACE,)) if low == ACE else ((HIGH,),)
    else:
        ace_options = ((ACE, HIGH),) if low == ACE else ()
    two_options = (1, 0) if suited_twos else (0,)
    best: Shape | None = None
    problem = Problem(Reason.INVALID_MELD, "the cards are not in sequence")
    for ace_ranks in ace_options:
        for natural_twos in two_options:
            ranks = fixed + list(ace_ranks) + [TWO] * natural_twos
            w = wilds + suited_twos - natural_twos + aces - len(ace_ranks)
            if not min_wilds <= w <= max_wilds:
                continue
            found = _check_run(ranks, w, low, rules)
            if isinstance(found, Problem):
                problem = found
                continue
            if best is None or w < best.wilds:
                best = Shape(RUN, suit, found, w)
    return best if best is not None else problem


def _check_run(ranks: list[int], wilds: int, low: int, rules: Rules) -> tuple[int, ...] | Problem:
    ranks.sort()
    n = len(ranks)
    if n < rules.min_naturals:
        return Problem(
            Reason.TOO_FEW_NATURALS, f"a meld needs at least {rules.min_naturals} natural cards"
        )
    if wilds > rules.max_wilds_per_meld:
        return Problem(
            Reason.TOO_MANY_WILDS, f"at most {rules.max_wilds_per_meld} wild(s) per meld"
        )
    lo, hi = ranks[0], ranks[-1]
    if lo < low:
        if lo == THREE or (lo == TWO and low > TWO):
            return Problem(Reason.THREES_CANNOT_BE_MELDED, "runs start at the 4 in these rules")
        return Problem(Reason.INVALID_MELD, "the ace is high only in these rules")
    if lo <= THREE and not rules.threes_in_runs and THREE in ranks:
        return Problem(Reason.THREES_CANNOT_BE_MELDED, "threes cannot be melded in these rules")
    for i in range(1, n):
        if ranks[i] == ranks[i - 1]:
            return Problem(Reason.INVALID_MELD, "a run cannot hold the same card twice")
    gaps = hi - lo + 1 - n
    if gaps > wilds:
        return Problem(Reason.INVALID_MELD, "the cards are not in sequence")
    if hi - lo + 1 + (wilds - gaps) > HIGH - low + 1:
        return Problem(Reason.INVALID_MELD, "the run would be longer than the ranks allow")
    return tuple(ranks)


def run_layout(shape: Shape, n_cards: int, rules: Rules) -> list[int]:
    """The rank position of every slot of a run, low to high; a wild floating at an
    end sits high if there is room, else low (003's rule for a moved wild)."""
    lo, hi = shape.naturals[0], shape.naturals[-1]
    extra = n_cards - (hi - lo + 1)
    up = min(extra, HIGH - hi)
    return list(range(lo - (extra - up), hi + up + 1))


class Meld:
    """A meld on the table. ``id`` is its index in the deal's list of melds."""

    __slots__ = ("_accepts", "cards", "dirty_canastra", "id", "shape", "side")

    def __init__(self, meld_id: int, side: int, cards: list[int], shape: Shape) -> None:
        self.id = meld_id
        self.side = side
        self.cards = cards
        self.shape = shape
        self.dirty_canastra = False  # was once a dirty canastra (it then stays dirty)
        self._accepts: dict[int, bool] | None = None

    def copy(self) -> Meld:
        m = Meld(self.id, self.side, list(self.cards), self.shape)
        m.dirty_canastra = self.dirty_canastra
        m._accepts = self._accepts
        return m

    def accepts(self, rules: Rules) -> dict[int, bool]:
        """Card -> True if adding it replaces a wild, False if it is a plain add."""
        if self._accepts is None:
            self._accepts = _compute_accepts(self, rules)
        return self._accepts

    def set_cards(self, cards: list[int], shape: Shape, rules: Rules) -> None:
        self.cards = cards
        self.shape = shape
        self._accepts = None
        if (
            rules.dirty_stays_dirty
            and shape.wilds
            and len(cards) >= rules.canastra_size
            and can_be_canastra(shape, rules)
        ):
            self.dirty_canastra = True

    def grown(self, card: int, rules: Rules) -> Shape | Problem:
        """The shape this meld would have with ``card`` added: its wilds stay wild and
        its natural cards natural, so only the new card may add a wild."""
        wilds = self.shape.wilds
        new_wild = 1 if is_wild(card) or (rules.aces_wild and rank_of(card) == ACE) else 0
        return classify([*self.cards, card], rules, wilds, wilds + new_wild)

    def canastra_kind(self, rules: Rules) -> str | None:
        return canastra_kind(self.shape, len(self.cards), self.dirty_canastra, rules)


def can_be_canastra(shape: Shape, rules: Rules) -> bool:
    if shape.kind == RUN:
        return True
    if shape.kind == SET:
        return rules.set_canastras or (shape.key == TWO and rules.twos_set)
    return False


def canastra_kind(shape: Shape, n_cards: int, dirty_before: bool, rules: Rules) -> str | None:
    if n_cards < rules.canastra_size or not can_be_canastra(shape, rules):
        return None
    if shape.kind == SET and shape.key == TWO:
        # Seven 2s are all wilds: never a clean canastra, whatever the bonus table says.
        return ALL_WILDS if rules.canastra_bonus.all_wilds else DIRTY
    if shape.wilds or dirty_before:
        return DIRTY
    if shape.kind == RUN:
        bonus = rules.canastra_bonus
        if n_cards == 14 and bonus.ace_to_ace:
            return ACE_TO_ACE
        if n_cards == 13 and bonus.real:
            return REAL
    return CLEAN


def _candidates(meld: Meld, rules: Rules) -> list[int]:
    shape = meld.shape
    wild_cards = _wild_cards(rules)
    if shape.kind == BLACK_THREES:
        return [make_card(THREE, 0), make_card(THREE, 3)]
    if shape.kind == SET:
        if shape.key == TWO:
            return [make_card(TWO, s) for s in range(4)]
        return [make_card(shape.key, s) for s in range(4)] + wild_cards
    lo, hi = shape.naturals[0], shape.naturals[-1]
    out = set(wild_cards)
    for r in range(max(lo - 3, rules.run_low), min(hi + 3, HIGH) + 1):
        out.add(make_card(ACE if r == HIGH else r, shape.key))
    return sorted(out)


def _compute_accepts(meld: Meld, rules: Rules) -> dict[int, bool]:
    shape = meld.shape
    if shape.kind == SET and shape.key not in (TWO, THREE):
        return _set_accepts(shape, rules)
    if shape.kind == RUN and not rules.ace_low and not rules.aces_wild:
        return _run_accepts(shape, rules)
    return _accepts_by_classify(meld, rules)


def _wild_cards(rules: Rules) -> list[int]:
    out = ([JOKER] if rules.jokers else []) + [make_card(TWO, s) for s in range(4)]
    if rules.aces_wild:
        out += [make_card(ACE, s) for s in range(4)]
    return out


def _set_accepts(shape: Shape, rules: Rules) -> dict[int, bool]:
    """A set takes any natural of its rank, and a wild while it has room for one."""
    out = dict.fromkeys((make_card(shape.key, s) for s in range(4)), False)
    if shape.wilds < rules.max_wilds_per_meld:
        out.update(dict.fromkeys(_wild_cards(rules), False))
    return out


def _run_accepts(shape: Shape, rules: Rules) -> dict[int, bool]:
    """A run's acceptable cards by arithmetic on its span (runs without the low ace,
    where every 2 is a wild and every ace is high)."""
    naturals = shape.naturals
    lo, hi, w = naturals[0], naturals[-1], shape.wilds
    n = len(naturals)
    span_max = HIGH - rules.run_low + 1
    out: dict[int, bool] = {}
    present = set(naturals)
    for r in range(max(rules.run_low, lo - 1 - w), min(HIGH, hi + 1 + w) + 1):
        if r in present:
            continue
        nlo, nhi = min(lo, r), max(hi, r)
        span = nhi - nlo + 1
        gaps = span - (n + 1)
        if gaps > w or span + (w - gaps) > span_max:
            continue
        out[make_card(ACE if r == HIGH else r, shape.key)] = lo < r < hi
    if w < rules.max_wilds_per_meld:
        span = hi - lo + 1
        gaps = span - n
        if span + (w + 1 - gaps) <= span_max:
            out.update(dict.fromkeys(_wild_cards(rules), False))
    return out


def _accepts_by_classify(meld: Meld, rules: Rules) -> dict[int, bool]:
    out: dict[int, bool] = {}
    shape = meld.shape
    for card in _candidates(meld, rules):
        new = meld.grown(card, rules)
        if isinstance(new, Problem) or new.kind != shape.kind or new.key != shape.key:
            continue
        out[card] = is_replacement(shape, new)
    return out


def is_replacement(old: Shape, new: Shape) -> bool:
    """True when the new card is a natural that lands strictly inside the old run's
    span, taking the place of a wild that filled the gap."""
    if old.kind != RUN or new.wilds < old.wilds or not old.wilds:
        return False
    lo, hi = old.naturals[0], old.naturals[-1]
    old_internal = hi - lo + 1 - len(old.naturals)
    if old_internal == 0:
        return False
    new_inside = sum(1 for r in new.naturals if lo < r < hi)
    old_inside = sum(1 for r in old.naturals if lo < r < hi)
    return new_inside > old_inside
