"""Every bot level by name: random and greedy (bots.py), expert (expert.py)."""

from __future__ import annotations

from collections.abc import Callable

from .bots import BOT_LEVELS, Bot
from .expert import DEFAULT_HORIZON, DEFAULT_ITERATIONS, DEFAULT_SECONDS, Budget, ExpertBot

LEVELS = ("random", "greedy", "expert")


def make_bot(
    level: str,
    seed: int = 0,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    clock: Callable[[], float] | None = None,
    horizon: int | None = None,
) -> Bot:
    """A bot of ``level``. The expert's budget per decision: ``iterations`` and
    ``seconds`` (on ``clock``; without one, iterations only), each defaulting to the
    expert's own default, and the atomic moves its playouts run (``horizon``)."""
    if level == "expert":
        if iterations is None and seconds is None:
            iterations, seconds = DEFAULT_ITERATIONS, DEFAULT_SECONDS
        if clock is None:
            seconds = None  # no clock: the iterations alone (reproducible)
        if iterations is None and seconds is None:
            iterations = DEFAULT_ITERATIONS
        return ExpertBot(
            seed, Budget(iterations, seconds), clock=clock, horizon=horizon or DEFAULT_HORIZON
        )
    try:
        return BOT_LEVELS[level](seed)
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(LEVELS)}") from None


__all__ = ["LEVELS", "make_bot"]
