"""Computation too heavy for the event loop, done elsewhere.

A server process serves every call on one event loop: a computation that holds it
for a second (a thousand-entrant Swiss pairing's backtracking search) holds every
other call of the process for that second. So:

- a Swiss round is paired in a worker process (``Compute.pair_round``; spawned, as
  gRPC's C core is not fork-safe, when the first round needs it, and kept): the
  loop waits for it as for a database call;
- a tournament's rebuild from its events and its standings (linear in the tables
  played, tens of milliseconds for a thousand entrants) run in a worker thread
  (``off_loop``): the loop still gets the interpreter at every switch interval;
- but the same work for a small tournament (``off_loop_if_large``: up to
  ``INLINE_EVENTS`` events, a 64-entrant Swiss with its play-off) is done on the
  loop, where it takes well under a millisecond (rebuild 0.4 ms, standings 0.4 ms,
  its JSON 0.1 ms). A trip to a worker thread costs more than that on a loaded
  machine: the worker has to be scheduled, then the loop has to get the
  interpreter back (up to a switch interval, 5 ms, from any thread computing),
  and a read made of four such trips was the slowest call of a 64-entrant event.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ..platform.tournament_events import PairEvent, TournamentConfig, pair_round

T = TypeVar("T")


# The size (events, tables or kilobytes of JSON) up to which ``off_loop_if_large``
# computes on the loop: about a millisecond of work at most (a 64-entrant Swiss of
# six rounds and a top-8 play-off is about 200 events, 200 tables, 30 kB).
INLINE_EVENTS = 400


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker thread: a pure computation of some milliseconds."""
    return await asyncio.to_thread(fn, *args)


async def off_loop_if_large(size: int, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` here if ``size`` (the events, tables or kilobytes it works on)
    is at most ``INLINE_EVENTS``, otherwise in a worker thread (``off_loop``)."""
    if size <= INLINE_EVENTS:
        return fn(*args)
    return await off_loop(fn, *args)


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
    ) -> PairEvent:
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


__all__ = ["INLINE_EVENTS", "Compute", "off_loop", "off_loop_if_large"]
