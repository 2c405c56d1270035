"""What one seat, or a spectator, may see of a deal.

A seat sees its own hand; the sizes of the other hands; every meld; the red
threes laid down; the discard pile's top card (or the whole pile where the preset
lays it open); the counts of the stock and of each morto (and a morto's cards
where the preset deals them face up); whose turn and which phase. A spectator
sees the same without any hand. Nothing else: no other hand, no stock card, no
face-down morto card, no buried pile card.
"""

from __future__ import annotations

from typing import Any

from .cards import card_text
from .melds import KIND_NAMES, RUN, run_layout
from .presets import PileView
from .state import DealState

SPECTATOR = -1


def meld_view(s: DealState, meld_id: int) -> dict[str, Any]:
    m = s.melds[meld_id]
    shape = m.shape
    if shape.kind == RUN:
        # Cards in rank order with each wild at the position it stands for.
        slots = run_layout(shape, len(m.cards), s.rules)
        naturals_left = list(shape.naturals)
        by_rank: dict[int, int] = {}
        wilds: list[int] = []
        pool = sorted(m.cards)
        for c in pool:
            r = 14 if (c & 15) == 1 else (c & 15)
            if (c >> 4) == shape.key and c != 64:
                if r in naturals_left and r not in by_rank:
                    by_rank[r] = c
                    naturals_left.remove(r)
                    continue
                if (c & 15) == 1 and 1 in naturals_left and 1 not in by_rank:
                    by_rank[1] = c
                    naturals_left.remove(1)
                    continue
                if (c & 15) == 2 and 2 in naturals_left and 2 not in by_rank:
                    by_rank[2] = c
                    naturals_left.remove(2)
                    continue
            wilds.append(c)
        ordered = []
        for pos in slots:
            if pos in by_rank:
                ordered.append(by_rank[pos])
            elif wilds:
                ordered.append(wilds.pop())
        ordered += wilds  # defensive: every card is shown
        cards = ordered
    else:
        cards = sorted(m.cards)
    return {
        "id": m.id,
        "side": m.side,
        "kind": KIND_NAMES[shape.kind],
        "cards": [card_text(c) for c in cards],
        "wilds": shape.wilds,
        "canastra": m.canastra_kind(s.rules),
    }


def seat_view(s: DealState, seat: int) -> dict[str, Any]:
    """The deal as ``seat`` may see it; ``SPECTATOR`` gives a spectator's view."""
    rules = s.rules
    view: dict[str, Any] = {
        "preset": rules.name,
        "seat": seat,
        "n_players": s.n_players,
        "turn": s.turn,
        "phase": s.phase,
        "dealer": s.dealer,
        "hand": sorted(card_text(c) for c in s.hands[seat]) if seat >= 0 else None,
        "hand_sizes": [len(h) for h in s.hands],
        "melds": [meld_view(s, i) for i in range(len(s.melds))],
        "red_threes": [[card_text(c) for c in r] for r in s.red_threes],
        "pile_top": card_text(s.pile[-1]) if s.pile else None,
        "pile_size": len(s.pile),
        "pile": [card_text(c) for c in s.pile] if rules.pile_view == PileView.ALL else None,
        "pile_frozen": s.pile_frozen,
        "stock_size": len(s.stock),
        "morto_sizes": [0 if m is None else len(m) for m in s.mortos],
        "mortos": (
            [None if m is None else [card_text(c) for c in m] for m in s.mortos]
            if rules.mortos_face_up
            else None
        ),
        "morto_taken": list(s.morto_taken),
        "went_out": s.went_out,
        "end_reason": s.end_reason,
    }
    return view


def visible_cards(s: DealState, seat: int) -> list[int]:
    """The cards ``seat`` may see, as a multiset (what the leak tests compare with)."""
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
