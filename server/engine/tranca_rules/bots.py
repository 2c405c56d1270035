"""Built-in bots. They choose among ``legal_moves`` only, so they can never play an
illegal move, and each is deterministic given its own seed."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Protocol

from .cards import is_black_three, is_wild, rank_of, suit_of
from .engine import legal_moves
from .melds import BLACK_THREES
from .moves import ADD, DISCARD, DRAW, MELD, REPLACE, TAKE, Move
from .state import DealState


class Bot(Protocol):
    name: str

    def choose(self, s: DealState, moves: list[Move]) -> Move: ...


class RandomBot:
    """Plays a uniformly random legal move."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, s: DealState, moves: list[Move]) -> Move:
        return moves[self.rng.randrange(len(moves))]


class GreedyBot:
    """Melds what it can, builds canastras, takes the pile when it pays, goes out
    when it can, and discards the card it needs least."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, s: DealState, moves: list[Move]) -> Move:
        by_kind: dict[int, list[Move]] = {}
        for m in moves:
            by_kind.setdefault(m.kind, []).append(m)
        if DRAW in by_kind or TAKE in by_kind:
            takes = by_kind.get(TAKE, [])
            if takes and (len(s.pile) >= 3 or DRAW not in by_kind):
                # Prefer putting the top card on an existing meld: it keeps the hand whole.
                onto = [m for m in takes if m.meld >= 0]
                return (onto or takes)[0]
            return by_kind[DRAW][0] if DRAW in by_kind else moves[0]
        hand = s.hands[s.turn]
        # Going out or taking the morto: any move that empties the hand.
        if len(hand) == 1 and DISCARD in by_kind:
            return by_kind[DISCARD][0]
        grow = by_kind.get(REPLACE, []) + by_kind.get(ADD, [])
        natural_grow = [m for m in grow if not is_wild(m.cards[0])]
        if natural_grow:
            # Grow the longest meld first: canastras are where the points are.
            return max(natural_grow, key=lambda m: (len(s.melds[m.meld].cards), -m.meld))
        melds = by_kind.get(MELD, [])
        natural_melds = [m for m in melds if not any(is_wild(c) for c in m.cards)]
        if natural_melds:
            return natural_melds[0]
        # A wild completes a canastra, or goes out.
        for m in grow:
            meld = s.melds[m.meld]
            if meld.shape.kind != BLACK_THREES and len(meld.cards) + 1 >= s.rules.canastra_size:
                return m
        for m in melds:
            if len(hand) <= 4:
                return m
        discards = by_kind.get(DISCARD, [])
        if discards:
            return min(discards, key=lambda m: self.keep_value(hand, m.cards[0], s))
        return moves[0]

    def keep_value(self, hand: list[int], card: int, s: DealState) -> tuple[int, float]:
        if is_black_three(card):
            return (0, self.rng.random())
        if is_wild(card):
            return (100, self.rng.random())
        counts = Counter(hand)
        rank, suit = rank_of(card), suit_of(card)
        same_rank = sum(n for c, n in counts.items() if rank_of(c) == rank) - 1
        neighbours = sum(
            1 for c in counts if suit_of(c) == suit and c != card and abs(rank_of(c) - rank) <= 2
        )
        on_table = any(m.side == s.side_of(s.turn) and card in m.accepts(s.rules) for m in s.melds)
        score = 3 * same_rank + (2 * neighbours if s.rules.sequences else 0) + 5 * on_table
        return (score, self.rng.random())


BOT_LEVELS: dict[str, Callable[[int], Bot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(level: str, seed: int = 0) -> Bot:
    """A random or greedy bot (``levels.make_bot`` makes the expert too)."""
    try:
        return BOT_LEVELS[level](seed)
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(BOT_LEVELS)}") from None


def bot_move(bot: Bot, s: DealState) -> Move:
    return bot.choose(s, legal_moves(s))
