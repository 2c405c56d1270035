"""Atomic moves and their text notation.

A move is a small tuple ``(kind, meld, cards)`` so that the legal-move set is
cheap to build, hash and sort; the canonical order of moves is the tuple order.

=========  ==========================  ==========================================
kind       text                        meaning
=========  ==========================  ==========================================
DRAW       ``draw``                    draw the top card of the stock
TAKE       ``take @3`` / ``take 5H 6H``  take the discard pile, using its top card
                                       on meld 3, or in a new meld with two cards
MELD       ``meld 4H 5H 6H``           lay down a new meld of exactly three cards
ADD        ``add @2 7H``               add one card to meld 2 of one's side
REPLACE    ``replace @2 6H``           put the natural card a wild stands for in
                                       meld 2; the wild moves to an end
DISCARD    ``discard 9C``              discard a card, ending the turn
=========  ==========================  ==========================================

A longer meld is laid down as ``meld`` followed by ``add`` moves in the same
turn: every meld of four or more cards can be built that way, so the atomic set
stays small and complete.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import card_text, parse_card
from .errors import InvalidMove, quoted

DRAW, TAKE, MELD, ADD, REPLACE, DISCARD = 0, 1, 2, 3, 4, 5
KIND_NAMES = ("draw", "take", "meld", "add", "replace", "discard")
NO_MELD = -1


class Move(NamedTuple):
    kind: int
    meld: int = NO_MELD
    cards: tuple[int, ...] = ()

    def __str__(self) -> str:
        return move_text(self)


def draw() -> Move:
    return Move(DRAW)


def take(meld: int = NO_MELD, cards: tuple[int, ...] = ()) -> Move:
    return Move(TAKE, meld, tuple(sorted(cards)))


def meld(cards: tuple[int, ...] | list[int]) -> Move:
    return Move(MELD, NO_MELD, tuple(sorted(cards)))


def add(meld_id: int, card: int) -> Move:
    return Move(ADD, meld_id, (card,))


def replace(meld_id: int, card: int) -> Move:
    return Move(REPLACE, meld_id, (card,))


def discard(card: int) -> Move:
    return Move(DISCARD, NO_MELD, (card,))


def move_text(move: Move) -> str:
    parts = [KIND_NAMES[move.kind]]
    if move.meld != NO_MELD:
        parts.append(f"@{move.meld}")
    parts.extend(card_text(c) for c in move.cards)
    return " ".join(parts)


def parse_move(text: str) -> Move:
    """Read a move in the text notation; raises ``InvalidMove`` on bad input."""
    words = text.split()
    if not words:
        raise InvalidMove("empty move")
    name = words[0].lower()
    if name not in KIND_NAMES:
        raise InvalidMove(f"unknown move {quoted(name)}; expected one of {', '.join(KIND_NAMES)}")
    kind = KIND_NAMES.index(name)
    meld_id = NO_MELD
    rest = words[1:]
    if rest and rest[0].startswith("@"):
        try:
            meld_id = int(rest[0][1:])
        except ValueError:
            raise InvalidMove(f"bad meld reference {quoted(rest[0])}") from None
        rest = rest[1:]
    try:
        cards = tuple(parse_card(w) for w in rest)
    except ValueError as exc:
        raise InvalidMove(str(exc)) from None
    return check_shape(Move(kind, meld_id, tuple(sorted(cards)) if kind in (TAKE, MELD) else cards))


def check_shape(move: Move) -> Move:
    """Refuse a move whose fields do not fit its kind (before any rule is looked at)."""
    kind, meld_id, cards = move
    if kind == DRAW:
        ok = meld_id == NO_MELD and not cards
        what = "draw takes no meld and no cards"
    elif kind == TAKE:
        ok = (meld_id >= 0 and not cards) or (
            meld_id == NO_MELD and len(cards) == 2 and cards[0] <= cards[1]
        )
        what = (
            "take names a meld (take @M) or two cards from the hand (take C1 C2), "
            "in ascending order"
        )
    elif kind == MELD:
        ok = meld_id == NO_MELD and len(cards) == 3 and cards[0] <= cards[1] <= cards[2]
        what = "meld lays down exactly three cards, in ascending order; add more with add"
    elif kind in (ADD, REPLACE):
        ok = meld_id >= 0 and len(cards) == 1
        what = f"{KIND_NAMES[kind]} names a meld and one card ({KIND_NAMES[kind]} @M C)"
    elif kind == DISCARD:
        ok = meld_id == NO_MELD and len(cards) == 1
        what = "discard names one card"
    else:
        raise InvalidMove(f"unknown move kind {kind}")
    if not ok:
        raise InvalidMove(what)
    return move
