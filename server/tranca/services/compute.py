"""Computation too heavy for the event loop, done elsewhere.

A server process serves every call on one event loop: a computation that holds it
for a second (a thousand-entrant Swiss pairing's backtracking search) holds every
other call of the process for that second. So:

- a Swiss round is paired in a worker process (``Compute.pair_round``; spawned, as
  gRPC's C core is not fork-safe, when the first round needs it, and kept): the
  loop waits for it as for a database call;
- a tournament's rebuild from its events and its standings (linear in the tables
  played, tens of milliseconds for a thousand entrants) run in a worker thread
  (``off_loop``): the loop still gets the interpreter at every switch interval.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ..platform.tournament_events import Event, TournamentConfig, pair_round

T = TypeVar("T")


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker thread: a pure computation of some milliseconds."""
    return await asyncio.to_thread(fn, *args)


class Compute:
    """One worker process per server process, for the pairings of Swiss rounds."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn")
            )
        return self._pool

    async def pair_round(
        self, config: TournamentConfig, events: Sequence[Mapping[str, Any]]
    ) -> Event:
        """The next round's ``pair`` event (``tournament_events.pair_round``), paired
        in the worker process; its ValueError (no round to pair) is raised here. A
        worker that died is replaced once."""
        loop = asyncio.get_running_loop()
        plain = [dict(e) for e in events]
        for attempt in (1, 2):
            try:
                return await loop.run_in_executor(
                    self._executor(), pair_round, config.to_dict(), plain
                )
            except BrokenProcessPool:
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop the worker process (a pairing under way is abandoned)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


__all__ = ["Compute", "off_loop"]
