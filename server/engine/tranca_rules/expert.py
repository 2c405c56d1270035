"""The expert bot: determinized Monte Carlo search over the seat's information set.

For each decision it has a budget (playouts, and seconds on a clock it is given).
It draws deals consistent with everything the seat knows ("worlds":
``information.sample_state`` shuffles the unseen cards into the other hands, the
stock, the face-down mortos and the pile's unseen part). In each world it plays
every candidate move (``candidates``: the greedy bot's choice first, every move but
the discards the greedy bot would keep most), lets greedy bots play every seat on
for ``horizon`` atomic moves (or to the end of the deal) with the same seeds for
every candidate, and scores the position reached: the seat's side's score minus the
best other side's, as ``score_deal`` counts it (cards on the table, canastras, red
threes, minus the hands and the mortos not taken). Comparing the candidates on the
same worlds cancels the luck of each sample out of their differences. The candidate
with the best total wins; a tie goes to the greedy bot's choice.

Its input is an ``Information`` only (``information.py``): it cannot see a card the
seat cannot. With a budget in playouts alone it is a pure function of the
information and its seed, so the same position and seed give the same move. A
time budget stops at the first playout that ends past it (a world cut short is
dropped; within the first, the greedy choice stands), so a decision overruns its
budget by one playout at most; it then depends on the machine's speed.

Pure: no I/O. The clock for a time budget is passed in (``time.perf_counter`` from
the layers above).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from .bots import GreedyBot
from .engine import apply_unchecked, legal_moves
from .information import (
    Information,
    Memory,
    PublicEvent,
    information_of,
    sample_state,
    unseen_cards,
)
from .moves import DISCARD, Move
from .scoring import score_deal
from .state import DealState

# The default budget of the expert, per decision. 200 ms of one core is what a
# player waits for a robot without noticing, and within it the compiled engine
# runs about 100 to 300 rollouts (docs/BOTS.md); the iteration cap keeps
# short decisions (two or three legal moves) shorter still.
DEFAULT_SECONDS = 0.2
DEFAULT_ITERATIONS = 400
DEFAULT_HORIZON = 40  # atomic moves played by the rollout before scoring
MAX_DISCARDS = 4  # the discards searched: those the greedy bot would keep least
MAX_CANDIDATES = 10
VALUE_SCALE = 500.0
MAX_PLAYERS = 4  # points: a canastra's bonus and some cards


@dataclass(frozen=True, slots=True)
class Budget:
    """Per decision: at most ``iterations`` playouts and at most ``seconds`` (None:
    no limit of that kind; at least one must be set)."""

    iterations: int | None = DEFAULT_ITERATIONS
    seconds: float | None = DEFAULT_SECONDS

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a budget needs iterations or seconds")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("iterations must be at least 1")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError("seconds must be positive")


def evaluate(s: DealState, side: int) -> float:
    """The position's worth to ``side``: its score minus the best other side's."""
    scores = [sc.total for sc in score_deal(s)]
    mine = scores[side]
    other = max(v for k, v in enumerate(scores) if k != side)
    return (mine - other) / VALUE_SCALE


def decision_seed(seed: int, info: Information) -> int:
    """The search's seed for one decision: the bot's seed and the decision's place
    in the deal, so that a decision does not depend on the ones before it."""
    return (seed * 1_000_003 + info.move_count * 8191 + info.seat) & ((1 << 62) - 1)


def candidates(s: DealState, moves: list[Move], greedy: GreedyBot) -> list[Move]:
    """The moves worth searching, the greedy bot's choice first: every move but the
    discards the greedy bot would keep most, at most ``MAX_CANDIDATES``."""
    first = greedy.choose(s, moves)
    discards = [m for m in moves if m.kind == DISCARD and m != first]
    others = [m for m in moves if m.kind != DISCARD and m != first]
    if len(discards) > MAX_DISCARDS:
        hand = s.hands[s.turn]
        discards.sort(key=lambda m: greedy.keep_value(hand, m.cards[0], s))
        discards = discards[:MAX_DISCARDS]
    return [first, *others, *discards][:MAX_CANDIDATES]


def search(
    info: Information,
    moves: list[Move],
    seed: int,
    budget: Budget,
    *,
    horizon: int = DEFAULT_HORIZON,
    clock: Callable[[], float] | None = None,
) -> tuple[Move, int]:
    """The best of ``moves`` (the seat's legal moves, never empty) by the search, and
    the number of playouts it ran.

    Each sampled deal (a "world") is played out once from every candidate move, with
    the same rollout seeds: the candidates are compared on the same cards, so the
    luck of the sample cancels out of their differences. The budget counts playouts
    (a world costs one per candidate; the first world is always played)."""
    if len(moves) == 1:
        return moves[0], 0
    rng = random.Random(decision_seed(seed, info))
    unseen = list(unseen_cards(info).elements())
    side = info.seat % info.n_sides
    limit = budget.iterations
    if limit is None and clock is None:
        limit = DEFAULT_ITERATIONS  # a time budget without a clock: the default count
    deadline = None
    if budget.seconds is not None and clock is not None:
        deadline = clock() + budget.seconds
    pool = unseen[:]
    rng.shuffle(pool)
    world = sample_state(info, pool)
    cands = candidates(world, moves, GreedyBot(rng.getrandbits(32)))
    n = len(cands)
    if n == 1:
        return cands[0], 0
    totals = [0.0] * n
    done = 0
    worlds = 0
    while True:
        if worlds:
            if limit is not None and done + n > limit:
                break
            if deadline is not None and clock is not None and clock() >= deadline:
                break
            pool = unseen[:]
            rng.shuffle(pool)
            world = sample_state(info, pool)
        rollout_seed = rng.getrandbits(32)
        values: list[float] = []
        for i in range(n):
            if deadline is not None and clock is not None and clock() >= deadline:
                break  # a world cut short is dropped: the candidates stay paired
            s = world.copy()
            apply_unchecked(s, info.seat, cands[i])
            rollout = [GreedyBot(rollout_seed + k) for k in range(info.n_players)]
            steps = 0
            late = False
            while not s.is_over and steps < horizon:
                if (
                    steps % 8 == 7
                    and deadline is not None
                    and clock is not None
                    and clock() >= deadline
                ):
                    late = True  # out of time within a playout: the world is dropped
                    break
                legal = legal_moves(s)
                if not legal:
                    break
                seat = s.turn
                apply_unchecked(s, seat, rollout[seat].choose(s, legal))
                steps += 1
            if late:
                break
            values.append(evaluate(s, side))
        done += len(values)
        if len(values) < n:
            break
        for i in range(n):
            totals[i] += values[i]
        worlds += 1
    if not worlds:
        return cands[0], done  # out of time within the first world: the greedy choice
    # The best mean; a tie goes to the earlier candidate (the greedy bot's first).
    best = max(range(n), key=lambda k: (totals[k], -k))
    return cands[best], done


class ExpertBot:
    """The expert as a ``bots.Bot`` for loops that hold the whole deal (simulations,
    the arena, the server's robots): it hands the search only what its seat knows,
    ``information_of`` the deal with what its ``Memory`` saw of the public events
    (``observe``, called by the loop after every move of every seat)."""

    name = "expert"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        *,
        horizon: int = DEFAULT_HORIZON,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.search = ExpertSearch(seed, budget, horizon=horizon, clock=clock)
        self.memory: Memory | None = None

    def observe(self, event: PublicEvent) -> None:
        if self.memory is None:
            self.memory = Memory(MAX_PLAYERS)
        self.memory.see(event)

    def choose(self, s: DealState, moves: list[Move]) -> Move:
        return self.search.choose(information_of(s, s.turn, self.memory), moves)


class ExpertSearch:
    """The expert's decisions from information alone: ``choose(info, moves)``."""

    name = "expert"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        *,
        horizon: int = DEFAULT_HORIZON,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.seed = seed
        self.budget = budget or Budget()
        self.horizon = horizon
        self.clock = clock
        self.playouts = 0  # over every decision, for the arena's figures

    def choose(self, info: Information, moves: list[Move]) -> Move:
        move, done = search(
            info, moves, self.seed, self.budget, horizon=self.horizon, clock=self.clock
        )
        self.playouts += done
        return move


__all__ = [
    "DEFAULT_HORIZON",
    "DEFAULT_ITERATIONS",
    "DEFAULT_SECONDS",
    "Budget",
    "ExpertBot",
    "ExpertSearch",
    "decision_seed",
    "evaluate",
    "search",
]
