"""Cards, their text notation, decks and the seeded shuffle.

A card is a small int, so hands, piles and melds are plain lists of ints and the
hot paths of the engine (legal moves, validation, application) stay cheap::

    card = suit * 16 + rank        rank 1 (ace) .. 13 (king), suit 0..3 (C, D, H, S)
    JOKER = 64

Two decks hold two copies of every card; copies are indistinguishable, so a hand
is a multiset of card values.

Text notation (used in logs, tests, the CLI and the API's debug fields): the rank
``A 2 3 4 5 6 7 8 9 T J Q K`` followed by the suit ``C D H S``, and ``JK`` for a
joker. ``4H`` is the four of hearts, ``TD`` the ten of diamonds.

>>> card_text(parse_card("TD"))
'TD'
>>> [card_text(c) for c in sorted(parse_cards("AS 2C JK"))]
['2C', 'AS', 'JK']
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Final

from .errors import quoted

# Final: mypyc inlines them where the engine tests a card (the hot paths).
CLUBS: Final = 0
DIAMONDS: Final = 1
HEARTS: Final = 2
SPADES: Final = 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
RANK_LETTERS = "A23456789TJQK"
ACE: Final = 1
TWO: Final = 2
THREE: Final = 3
KING: Final = 13
JOKER: Final = 64  # suit 4, rank 0

RED_SUITS = frozenset((DIAMONDS, HEARTS))
BLACK_SUITS = frozenset((CLUBS, SPADES))

# suit * 16 + 3, as literals so that mypyc inlines them.
THREE_OF_CLUBS: Final = 3
THREE_OF_DIAMONDS: Final = 19
THREE_OF_HEARTS: Final = 35
THREE_OF_SPADES: Final = 51


# ----- what a card is: every test of a card's rank, suit or role goes through these ---


def make_card(rank: int, suit: int) -> int:
    """The card of ``rank`` (1 = ace .. 13 = king) and ``suit`` (0..3)."""
    return suit * 16 + rank


def rank_of(card: int) -> int:
    """The rank 1..13, or 0 for a joker."""
    return card & 15  # the joker is 64: suit 4, rank 0


def suit_of(card: int) -> int:
    """The suit 0..3, or 4 for a joker."""
    return card >> 4


def is_joker(card: int) -> bool:
    return card == JOKER


def is_two(card: int) -> bool:
    return card & 15 == TWO


def is_wild(card: int) -> bool:
    """2s and jokers can act as wilds (a 2 may also be natural: see ``melds.classify``)."""
    return card == JOKER or card & 15 == TWO


def is_three(card: int) -> bool:
    return card & 15 == THREE


def is_red_three(card: int) -> bool:
    return card in (THREE_OF_DIAMONDS, THREE_OF_HEARTS)


def is_black_three(card: int) -> bool:
    return card in (THREE_OF_CLUBS, THREE_OF_SPADES)


def holds_red_three(cards: list[int]) -> bool:
    """Whether ``cards`` hold a red three (membership tests: cheaper than a scan)."""
    return THREE_OF_DIAMONDS in cards or THREE_OF_HEARTS in cards


def _card_text(card: int) -> str:
    if card == JOKER:
        return "JK"
    rank, suit = rank_of(card), suit_of(card)
    if not (1 <= rank <= 13 and 0 <= suit <= 3):
        raise ValueError(f"not a card: {card}")
    return RANK_LETTERS[rank - 1] + SUIT_LETTERS[suit]


# Every view names every card it shows: a table lookup instead of string building.
_CARD_TEXTS: dict[int, str] = {}


def card_text(card: int) -> str:
    text = _CARD_TEXTS.get(card)
    if text is None:
        text = _CARD_TEXTS[card] = _card_text(card)  # raises for a non-card
    return text


def parse_card(text: str) -> int:
    """Parse one card in the text notation; raises ``ValueError`` on anything else."""
    t = text.strip().upper()
    if t == "JK":
        return JOKER
    if t.startswith("10") and len(t) == 3:  # be lenient with "10H"
        t = "T" + t[2]
    if len(t) != 2 or t[0] not in RANK_LETTERS or t[1] not in SUIT_LETTERS:
        # The hint names no card: refusals must never name cards the reader may not see.
        raise ValueError(
            f"not a card: {quoted(text, 8)} "
            "(expected a rank A 2-9 T J Q K then a suit C D H S, or J and K for a joker)"
        )
    return make_card(RANK_LETTERS.index(t[0]) + 1, SUIT_LETTERS.index(t[1]))


def parse_cards(text: str) -> list[int]:
    """Parse cards separated by spaces or commas."""
    return [parse_card(t) for t in text.replace(",", " ").split()]


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(card_text(c) for c in cards)


ALL_NATURAL_CARDS: tuple[int, ...] = tuple(
    make_card(rank, suit) for suit in SUITS for rank in range(1, 14)
)


def full_deck(jokers: bool) -> list[int]:
    """Two 52-card decks (104 cards), plus four jokers when ``jokers`` (108)."""
    deck = list(ALL_NATURAL_CARDS) * 2
    if jokers:
        deck += [JOKER] * 4
    return deck


def shuffled_deck(jokers: bool, seed: int) -> list[int]:
    """The deck in a shuffled order that depends only on ``seed``.

    ``random.Random`` (Mersenne Twister, seeded from the integer) gives the same
    order on every platform and Python version that keeps its documented
    ``shuffle`` algorithm, which is what reproducible and duplicate deals need.
    """
    deck = full_deck(jokers)
    random.Random(seed).shuffle(deck)
    return deck
