"""The server's robots: which bot plays their seats, and where it thinks.

Three levels, cheapest first (``ROBOT_LEVELS``): ``random`` and ``greedy``, cheap
enough to run on the event loop, and ``expert``, the search bot (tranca_rules/expert.py),
which runs in a pool of worker processes (``--robot-workers``, started with the
``spawn`` method: gRPC's core is not fork-safe) with a budget per decision
(``--robot-ms`` and ``--robot-iterations``), so that the event loop never waits on
it. A decision that has one legal move is not searched.

A table may ask for a level (``TableOptions.robot_level``, an app's "practice against
the expert"); a table that does not plays the operator's (``tranca serve
--robot-level``). The operator bounds the cost: ``--robot-max-level`` is the most
expensive level a table may ask for; CreateGame refuses one asking for more
(``level_not_allowed``), and a table created before the operator lowered the bound
plays the bound (``Robots.level_for``).

The expert sees only its seat's information (``information_of``): the robot takes
a seat at any point of a deal and the sweeper keeps no memory between turns, so it
knows the pile's top (all of it where the preset lays it open) and not the cards
taken from the pile before it sat down.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from tranca_rules.bots import GreedyBot, RandomBot
from tranca_rules.engine import legal_moves
from tranca_rules.expert import Budget, search
from tranca_rules.information import Information, information_of
from tranca_rules.moves import Move
from tranca_rules.state import DealState

# Cheapest first: a level is allowed when it comes no later than the operator's bound.
ROBOT_LEVELS = ("random", "greedy", "expert")
EXPERT = "expert"


def level_within(level: str, max_level: str) -> bool:
    """Whether ``level`` costs no more than ``max_level`` (both in ``ROBOT_LEVELS``)."""
    return ROBOT_LEVELS.index(level) <= ROBOT_LEVELS.index(max_level)


@dataclass(frozen=True)
class RobotSettings:
    level: str = "greedy"  # a table's that asks for none
    budget_ms: int = 200  # per decision, on a worker's clock
    iterations: int = 400  # per decision, at most
    workers: int = 1  # processes the expert thinks in
    max_level: str = EXPERT  # the most expensive level a table may ask for

    def __post_init__(self) -> None:
        if self.level not in ROBOT_LEVELS or self.max_level not in ROBOT_LEVELS:
            raise ValueError(f"robot level is one of {', '.join(ROBOT_LEVELS)}")
        if not level_within(self.level, self.max_level):
            raise ValueError("the robots' level is above their maximum level")
        if self.budget_ms < 1 or self.iterations < 1 or self.workers < 1:
            raise ValueError("the robots' budget and workers must be at least 1")


def ready() -> bool:
    """Nothing: a worker that answers has imported the engine and the search."""
    return True


def think(info: Information, moves: list[Move], seed: int, iterations: int, ms: int) -> Move:
    """The expert's decision, in a worker process: information in, a move out."""
    move, _ = search(info, moves, seed, Budget(iterations, ms / 1000), clock=time.perf_counter)
    return move


class Robots:
    """Chooses the robots' moves (``move``); ``close`` stops the worker processes."""

    def __init__(self, settings: RobotSettings | None = None) -> None:
        self.settings = settings or RobotSettings()
        self._pool: ProcessPoolExecutor | None = None

    @property
    def concurrency(self) -> int:
        """How many robots' turns may be played at once (one per worker, where a table
        may have the expert)."""
        return self.settings.workers if self.settings.max_level == EXPERT else 1

    def level_for(self, asked: str) -> str:
        """The level a table's robots play: the one it asked for ("" for none: the
        operator's), at most the operator's maximum (a table created before the
        operator lowered it plays the maximum)."""
        s = self.settings
        level = asked if asked in ROBOT_LEVELS else s.level
        return level if level_within(level, s.max_level) else s.max_level

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.settings.workers,
                mp_context=multiprocessing.get_context("spawn"),
            )
        return self._pool

    async def warm(self) -> None:
        """Start the expert's worker processes now (a spawned worker takes seconds to
        import the engine), rather than on the first robot's decision. Only where the
        operator's level is the expert: where only some tables ask for it, the workers
        start on the first of their decisions (and cost nothing until then)."""
        if self.settings.level != EXPERT:
            return
        loop = asyncio.get_running_loop()
        pool = self._executor()
        await asyncio.gather(
            *(loop.run_in_executor(pool, ready) for _ in range(self.settings.workers))
        )

    async def move(self, deal: DealState, seed: int, level: str = "") -> Move | None:
        """The robot's move for the seat to act, one of ``legal_moves``; None when
        there is none. ``level``: the table's (``TableOptions.robot_level``), through
        ``level_for``."""
        moves = legal_moves(deal)
        if not moves:
            return None
        level = self.level_for(level)
        if level == "random":
            return RandomBot(seed).choose(deal, moves)
        if level == "greedy" or len(moves) == 1:
            return GreedyBot(seed).choose(deal, moves)
        info = information_of(deal, deal.turn)
        s = self.settings
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor(), think, info, moves, seed, s.iterations, s.budget_ms
        )

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


__all__ = ["EXPERT", "ROBOT_LEVELS", "RobotSettings", "Robots", "level_within", "ready", "think"]
