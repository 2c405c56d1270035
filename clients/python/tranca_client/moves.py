"""Cards and moves in the project's text notation, to and from ``tranca.v1.Move``.

Cards are a rank ``A 2 3 4 5 6 7 8 9 T J Q K`` and a suit ``C D H S`` (``4H``, ``TD``),
or ``JK`` for a joker. Moves:

==========================  ============================================================
text                        move
==========================  ============================================================
``draw``                    draw the top card of the stock
``take @3``                 take the discard pile, its top card going onto meld 3
``take 5H 6H``              take the pile, its top card making a new meld with 5H 6H
``meld 4H 5H 6H``           lay down a new meld of exactly three cards
``add @2 7H``               add a card to meld 2 of one's side
``replace @2 6H``           put the natural card a wild stands for into run 2
``discard 9C``              discard a card, ending the turn
==========================  ============================================================

``parse_move("meld 4h 5h 6h")`` builds the message, ``move_text(move)`` shows one, and
``same_move(a, b)`` compares two moves regardless of card order. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .v1 import game_pb2 as pb

__all__ = [
    "KINDS",
    "RANKS",
    "SUITS",
    "MoveSyntaxError",
    "add",
    "card_rank",
    "card_suit",
    "discard",
    "draw",
    "find_move",
    "is_black_three",
    "is_red_three",
    "is_wild",
    "meld",
    "move_key",
    "move_kind",
    "move_text",
    "parse_card",
    "parse_move",
    "replace",
    "same_move",
    "take",
]

RANKS = "A23456789TJQK"
SUITS = "CDHS"
KINDS = ("draw", "take", "meld", "add", "replace", "discard")
JOKER = "JK"
_CARD = re.compile(r"^(?:[A2-9TJQK][CDHS]|JK)$")
# The Move oneof field of each notation word.
_FIELD = {
    "draw": "draw",
    "take": "take_pile",
    "meld": "create_meld",
    "add": "add_to_meld",
    "replace": "replace_wild",
    "discard": "discard",
}
_WORD = {v: k for k, v in _FIELD.items()}


class MoveSyntaxError(ValueError):
    """A move or card that does not follow the notation (raised before any call)."""


# ----- cards -----------------------------------------------------------------------------


def parse_card(text: str) -> str:
    """The card in canonical form (``"4h"`` -> ``"4H"``, ``"10d"`` -> ``"TD"``);
    raises ``MoveSyntaxError`` if it is not a card."""
    c = text.strip().upper()
    if c.startswith("10"):
        c = "T" + c[2:]
    if not _CARD.match(c):
        raise MoveSyntaxError(f"{text!r} is not a card (4H, TD, AS, 2C, JK)")
    return c


def card_rank(card: str) -> str:
    """The rank letter of a card (``"4H"`` -> ``"4"``); ``"JK"`` for a joker."""
    return JOKER if card == JOKER else card[0]


def card_suit(card: str) -> str:
    """The suit letter of a card (``"4H"`` -> ``"H"``); ``""`` for a joker."""
    return "" if card == JOKER else card[1]


def is_wild(card: str) -> bool:
    """Jokers and 2s are wild in every preset."""
    return card == JOKER or card[0] == "2"


def is_black_three(card: str) -> bool:
    return card in ("3C", "3S")


def is_red_three(card: str) -> bool:
    return card in ("3D", "3H")


# ----- building moves --------------------------------------------------------------------


def draw() -> pb.Move:
    """``draw``."""
    return pb.Move(draw=pb.DrawMove())


def take(meld_id: int | None = None, cards: Sequence[str] = ()) -> pb.Move:
    """``take @meld_id`` or ``take C1 C2``: exactly one of the two."""
    if (meld_id is None) == (not cards):
        raise MoveSyntaxError("take names a meld (take @2) or two cards (take 5H 6H)")
    if meld_id is not None:
        return pb.Move(take_pile=pb.TakePileMove(meld_id=meld_id))
    if len(cards) != 2:
        raise MoveSyntaxError("take with cards names exactly two cards from the hand")
    return pb.Move(take_pile=pb.TakePileMove(cards=[parse_card(c) for c in cards]))


def meld(*cards: str) -> pb.Move:
    """``meld C1 C2 C3``: exactly three cards."""
    if len(cards) != 3:
        raise MoveSyntaxError("meld lays down exactly three cards; add more with add")
    return pb.Move(create_meld=pb.CreateMeldMove(cards=[parse_card(c) for c in cards]))


def add(meld_id: int, card: str) -> pb.Move:
    """``add @meld_id CARD``."""
    return pb.Move(add_to_meld=pb.AddToMeldMove(meld_id=meld_id, card=parse_card(card)))


def replace(meld_id: int, card: str) -> pb.Move:
    """``replace @meld_id CARD``."""
    return pb.Move(replace_wild=pb.ReplaceWildMove(meld_id=meld_id, card=parse_card(card)))


def discard(card: str) -> pb.Move:
    """``discard CARD``."""
    return pb.Move(discard=pb.DiscardMove(card=parse_card(card)))


def parse_move(text: str) -> pb.Move:
    """The ``tranca.v1.Move`` for a move in the notation (case-insensitive:
    ``"meld 4h 5h 6h"``); raises ``MoveSyntaxError`` on bad input. Whether the move is
    legal is the server's to say."""
    words = text.split()
    if not words:
        raise MoveSyntaxError("empty move")
    name = words[0].lower()
    if name not in _FIELD:
        raise MoveSyntaxError(f"unknown move {words[0]!r}; expected one of {', '.join(KINDS)}")
    rest = words[1:]
    meld_id: int | None = None
    if rest and rest[0].startswith("@"):
        try:
            meld_id = int(rest[0][1:])
        except ValueError:
            raise MoveSyntaxError(f"bad meld reference {rest[0]!r} (write @2)") from None
        if meld_id < 0:
            raise MoveSyntaxError("meld ids are 0 or more")
        rest = rest[1:]
    cards = [parse_card(w) for w in rest]
    if name == "draw":
        if meld_id is not None or cards:
            raise MoveSyntaxError("draw takes no meld and no cards")
        return draw()
    if name == "take":
        return take(meld_id, cards)
    if name == "meld":
        if meld_id is not None:
            raise MoveSyntaxError("meld names no meld: meld 4H 5H 6H")
        return meld(*cards)
    if name in ("add", "replace"):
        if meld_id is None or len(cards) != 1:
            raise MoveSyntaxError(f"{name} names a meld and one card ({name} @2 7H)")
        return add(meld_id, cards[0]) if name == "add" else replace(meld_id, cards[0])
    if meld_id is not None or len(cards) != 1:
        raise MoveSyntaxError("discard names one card: discard 9C")
    return discard(cards[0])


# ----- reading moves ---------------------------------------------------------------------


def move_kind(move: pb.Move) -> str:
    """The notation word of a move (``"draw"``, ``"take"``, ...), or ``""`` when no
    kind is set (a logged resignation, for example)."""
    which = move.WhichOneof("kind")
    return _WORD.get(which, "") if which else ""


def _parts(move: pb.Move) -> tuple[str, int | None, list[str]]:
    which = move.WhichOneof("kind")
    if which == "take_pile":
        t = move.take_pile
        return "take", (t.meld_id if t.HasField("meld_id") else None), list(t.cards)
    if which == "create_meld":
        return "meld", None, list(move.create_meld.cards)
    if which == "add_to_meld":
        return "add", move.add_to_meld.meld_id, [move.add_to_meld.card]
    if which == "replace_wild":
        return "replace", move.replace_wild.meld_id, [move.replace_wild.card]
    if which == "discard":
        return "discard", None, [move.discard.card]
    if which == "draw":
        return "draw", None, []
    return "", None, []


def move_text(move: pb.Move) -> str:
    """A move in the notation (``"add @2 7H"``). A move with no kind set shows its
    ``text`` field (the log writes ``"resign"`` that way)."""
    kind, meld_id, cards = _parts(move)
    if not kind:
        return move.text
    words = [kind]
    if meld_id is not None:
        words.append(f"@{meld_id}")
    words.extend(cards)
    return " ".join(words)


def move_key(move: pb.Move) -> tuple[str, int, tuple[str, ...]]:
    """A hashable key equal for the same move whatever the order of its cards."""
    kind, meld_id, cards = _parts(move)
    return kind, -1 if meld_id is None else meld_id, tuple(sorted(cards))


def same_move(a: pb.Move, b: pb.Move) -> bool:
    """Whether two moves are the same move (card order aside)."""
    return move_key(a) == move_key(b)


def find_move(moves: Iterable[pb.Move], wanted: pb.Move) -> pb.Move | None:
    """The move of ``moves`` that is ``wanted``, or ``None``."""
    key = move_key(wanted)
    return next((m for m in moves if move_key(m) == key), None)
