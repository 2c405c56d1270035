"""What one seat, or a spectator, may see of a deal: the one place that decides it.

A seat sees its own hand; the sizes of the other hands; every meld; the red
threes laid down; the discard pile's top card (or the whole pile where the preset
lays it open) and whether it is locked; the counts of the stock and of each morto
(and a morto's cards where the preset deals them face up); whose turn and which
phase. A spectator sees the same without any hand. Nothing else: no other hand, no
stock card, no face-down morto card, no buried pile card.

``view_of`` builds that view (a ``SeatView``, cards in the text notation); the
API's converter only translates it to protobuf, and ``seat_view`` gives it as plain
data (for tests, the CLI and bug reports).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .cards import ACE, TWO, card_text, is_wild, rank_of, suit_of
from .engine import pile_locked
from .melds import HIGH, KIND_NAMES, RUN, SET, Meld, run_layout
from .presets import PileView, Rules
from .state import DealState, EndReason, Phase

SPECTATOR = -1


class MeldView(NamedTuple):
    """A meld as everyone sees it. ``cards`` are in the order shown: a run's in rank
    order, each wild where it stands; a set's sorted."""

    id: int
    side: int
    kind: str  # melds.KIND_NAMES: "set", "run", "black_threes"
    cards: tuple[str, ...]
    wilds: int
    canastra: str | None  # the canastra kind (melds.CLEAN, ...), None if not one
    # Positions in ``cards`` of the cards that stand in as wilds, ascending (as many
    # as ``wilds``): a joker, or a 2 that is not natural where it stands.
    wild_indexes: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "side": self.side,
            "kind": self.kind,
            "cards": list(self.cards),
            "wilds": self.wilds,
            "canastra": self.canastra,
            "wild_indexes": list(self.wild_indexes),
        }


@dataclass(slots=True)
class SeatView:
    """The deal as one seat (or a spectator, ``SPECTATOR``) may see it."""

    preset: str
    seat: int
    n_players: int
    dealer: int
    turn: int
    phase: Phase
    hand: list[str] | None  # sorted; None unless ``seat`` holds a hand
    hand_sizes: list[int]
    melds: list[MeldView]
    red_threes: list[list[str]]  # by side
    pile_top: str | None  # None when the pile is empty
    pile_size: int
    pile: list[str] | None  # bottom to top, only where the preset lays the pile open
    pile_frozen: bool
    pile_locked: bool  # a black three on top locks it (``engine.pile_locked``)
    stock_size: int
    morto_sizes: list[int]  # by side; 0 once taken (or gone to the stock)
    mortos: list[list[str] | None] | None  # by side, only where dealt face up
    morto_taken: list[bool]
    went_out: int
    end_reason: EndReason

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what ``seat_view`` returns)."""
        return {
            "preset": self.preset,
            "seat": self.seat,
            "n_players": self.n_players,
            "turn": self.turn,
            "phase": self.phase,
            "dealer": self.dealer,
            "hand": self.hand,
            "hand_sizes": self.hand_sizes,
            "melds": [m.to_dict() for m in self.melds],
            "red_threes": self.red_threes,
            "pile_top": self.pile_top,
            "pile_size": self.pile_size,
            "pile": self.pile,
            "pile_frozen": self.pile_frozen,
            "pile_locked": self.pile_locked,
            "stock_size": self.stock_size,
            "morto_sizes": self.morto_sizes,
            "mortos": self.mortos,
            "morto_taken": self.morto_taken,
            "went_out": self.went_out,
            "end_reason": self.end_reason,
        }


def view_of(s: DealState, seat: int) -> SeatView:
    """The deal as ``seat`` may see it; ``SPECTATOR`` (or any seat that holds no hand)
    sees no hand."""
    rules = s.rules
    pile = s.pile
    mortos = s.mortos
    # Positional: on every move's answer, and keywords cost three times as much here.
    return SeatView(
        rules.name,
        seat,
        s.n_players,
        s.dealer,
        s.turn,
        s.phase,
        hand_of(s, seat),
        [len(h) for h in s.hands],
        meld_views(s),
        [[card_text(c) for c in r] for r in s.red_threes],
        card_text(pile[-1]) if pile else None,
        len(pile),
        [card_text(c) for c in pile] if rules.pile_view == PileView.ALL else None,
        s.pile_frozen,
        pile_locked(s),
        len(s.stock),
        [0 if m is None else len(m) for m in mortos],
        (
            [None if m is None else [card_text(c) for c in m] for m in mortos]
            if rules.mortos_face_up
            else None
        ),
        list(s.morto_taken),
        s.went_out,
        s.end_reason,
    )


@dataclass(slots=True)
class BoardView:
    """A deal's table with nothing hidden, as everyone may see it once the deal is
    over (or the match ended in it): every hand that is left, both sides' melds,
    red threes, mortos (their cards, taken or not) and the whole discard pile."""

    dealer: int
    hands: list[list[str]]  # by seat, sorted
    melds: list[MeldView]
    red_threes: list[list[str]]  # by side
    mortos: list[list[str]]  # by side: the cards still in it (none once taken)
    morto_taken: list[bool]
    pile: list[str]  # bottom to top
    stock_size: int
    went_out: int
    end_reason: EndReason

    def to_dict(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "hands": self.hands,
            "melds": [m.to_dict() for m in self.melds],
            "red_threes": self.red_threes,
            "mortos": self.mortos,
            "morto_taken": self.morto_taken,
            "pile": self.pile,
            "stock_size": self.stock_size,
            "went_out": self.went_out,
            "end_reason": self.end_reason,
        }


def board_of(s: DealState) -> BoardView:
    """``s``'s table with nothing hidden. For a deal that is over, or one its match
    ended in: while it is played, ``view_of`` is what a seat sees."""
    return BoardView(
        s.dealer,
        [sorted([card_text(c) for c in hand]) for hand in s.hands],
        meld_views(s),
        [[card_text(c) for c in r] for r in s.red_threes],
        [[] if m is None else [card_text(c) for c in m] for m in s.mortos],
        list(s.morto_taken),
        [card_text(c) for c in s.pile],
        len(s.stock),
        s.went_out,
        s.end_reason,
    )


def hand_of(s: DealState, seat: int) -> list[str] | None:
    """The one thing a seat sees that a spectator does not: its own hand, sorted.
    None for ``SPECTATOR`` (or any seat that holds no hand). Every other field of
    ``view_of(s, seat)`` is the same for every seat and for a spectator, which lets
    the API encode that part once for all of a game's viewers at a version
    (``api/shared_views.py``)."""
    return sorted([card_text(c) for c in s.hands[seat]]) if 0 <= seat < s.n_players else None


def seat_view(s: DealState, seat: int) -> dict[str, Any]:
    """``view_of`` as plain data; ``SPECTATOR`` gives a spectator's view."""
    return view_of(s, seat).to_dict()


# ----- melds -------------------------------------------------------------------------

# Each meld's view, by the rules it is shown under and by what it shows: a meld changes
# on few moves and every view shows them all, so each distinct meld is laid out once.
# Keyed by the Rules object's identity, which ``_LAID_OUT_RULES`` keeps alive so that
# its id is never another's; bounded, so that the memory stays flat.
_LAID_OUT: dict[tuple[Any, ...], MeldView] = {}
_LAID_OUT_RULES: dict[int, Rules] = {}
_LAID_OUT_KEPT = 16_384


def meld_views(s: DealState) -> list[MeldView]:
    """Every meld on the table, as everyone sees it."""
    rules = s.rules
    if len(_LAID_OUT) >= _LAID_OUT_KEPT:
        _LAID_OUT.clear()
        _LAID_OUT_RULES.clear()
    _LAID_OUT_RULES[id(rules)] = rules
    out = []
    for m in s.melds:
        key = (id(rules), m.id, m.side, m.dirty_canastra, m.shape, tuple(m.cards))
        laid_out = _LAID_OUT.get(key)
        if laid_out is None:
            laid_out = _LAID_OUT[key] = _lay_out(m, rules)
        out.append(laid_out)
    return out


def meld_view(s: DealState, meld_id: int) -> dict[str, Any]:
    """One meld as everyone sees it, as plain data (laid out afresh)."""
    return _lay_out(s.melds[meld_id], s.rules).to_dict()


def _lay_out(m: Meld, rules: Rules) -> MeldView:
    shape = m.shape
    if shape.kind == RUN:
        # Cards in rank order with each wild at the position it stands for.
        slots = run_layout(shape, len(m.cards), rules)
        naturals_left = list(shape.naturals)
        by_rank: dict[int, int] = {}
        wilds: list[int] = []
        for c in sorted(m.cards):
            rank = rank_of(c)
            if suit_of(c) == shape.key:  # a joker's suit (4) is never a run's
                pos = HIGH if rank == ACE else rank
                if pos in naturals_left and pos not in by_rank:
                    by_rank[pos] = c
                    naturals_left.remove(pos)
                    continue
                if rank in (ACE, TWO) and rank in naturals_left and rank not in by_rank:
                    by_rank[rank] = c  # the low ace, or a natural 2
                    naturals_left.remove(rank)
                    continue
            wilds.append(c)
        ordered = []
        wild_at: list[int] = []
        for pos in slots:
            if pos in by_rank:
                ordered.append(by_rank[pos])
            elif wilds:
                wild_at.append(len(ordered))
                ordered.append(wilds.pop())
        # Defensive: every card is shown.
        wild_at += range(len(ordered), len(ordered) + len(wilds))
        ordered += wilds
        cards = ordered
    else:
        cards = sorted(m.cards)
        # In a set every 2 and joker stands in as a wild, but in a set of 2s; with
        # aces_wild so does an ace, but in a set of aces.
        aces_wild = rules.aces_wild and shape.key != ACE
        wild_at = (
            []
            if shape.kind != SET or shape.key == TWO
            else [i for i, c in enumerate(cards) if is_wild(c) or (aces_wild and rank_of(c) == ACE)]
        )
    return MeldView(
        m.id,
        m.side,
        KIND_NAMES[shape.kind],
        tuple([card_text(c) for c in cards]),
        shape.wilds,
        m.canastra_kind(rules),
        tuple(wild_at),
    )


def visible_cards(s: DealState, seat: int) -> list[int]:
    """The cards ``seat`` may see, as a multiset: the leak tests' oracle, written
    apart from ``view_of`` on purpose (they compare the two)."""
    out: list[int] = []
    if seat >= 0:
        out += s.hands[seat]
    for m in s.melds:
        out += m.cards
    for r in s.red_threes:
        out += r
    if s.rules.pile_view == PileView.ALL:
        out += s.pile
    elif s.pile:
        out.append(s.pile[-1])
    if s.rules.mortos_face_up:
        for mo in s.mortos:
            if mo is not None:
                out += mo
    return out
