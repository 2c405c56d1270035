"""The server's robots: which bot plays their seats, and where it thinks.

The operator picks the level (``tranca serve --robot-level``): ``greedy``, cheap
enough to run on the event loop, or ``expert``, the search bot (rules/expert.py),
which runs in a pool of worker processes (``--robot-workers``, started with the
``spawn`` method: gRPC's core is not fork-safe) with a budget per decision
(``--robot-ms`` and ``--robot-iterations``), so that the event loop never waits on
it. A decision that has one legal move is not searched.

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

from ..rules.bots import GreedyBot
from ..rules.engine import legal_moves
from ..rules.expert import Budget, search
from ..rules.information import Information, information_of
from ..rules.moves import Move
from ..rules.state import DealState

ROBOT_LEVELS = ("greedy", "expert")


@dataclass(frozen=True)
class RobotSettings:
    level: str = "greedy"
    budget_ms: int = 200  # per decision, on a worker's clock
    iterations: int = 400  # per decision, at most
    workers: int = 1  # processes the expert thinks in

    def __post_init__(self) -> None:
        if self.level not in ROBOT_LEVELS:
            raise ValueError(f"robot level is one of {', '.join(ROBOT_LEVELS)}")
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
        """How many robots' turns may be played at once (one per worker)."""
        return self.settings.workers if self.settings.level == "expert" else 1

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.settings.workers,
                mp_context=multiprocessing.get_context("spawn"),
            )
        return self._pool

    async def warm(self) -> None:
        """Start the expert's worker processes now (a spawned worker takes seconds to
        import the engine), rather than on the first robot's decision."""
        if self.settings.level != "expert":
            return
        loop = asyncio.get_running_loop()
        pool = self._executor()
        await asyncio.gather(
            *(loop.run_in_executor(pool, ready) for _ in range(self.settings.workers))
        )

    async def move(self, deal: DealState, seed: int) -> Move | None:
        """The robot's move for the seat to act, one of ``legal_moves``; None when
        there is none."""
        moves = legal_moves(deal)
        if not moves:
            return None
        if self.settings.level == "greedy" or len(moves) == 1:
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


__all__ = ["ROBOT_LEVELS", "RobotSettings", "Robots", "ready", "think"]
