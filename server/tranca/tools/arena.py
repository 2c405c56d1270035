"""The arena: two bot levels against each other over duplicate pairs of deals.

Each pair is one deck order (the project's duplicate deals, ``platform.duplicate``)
played twice with the same dealer: once with level A on side 0 (seats 0 and 2 with
four players) and B on side 1, then with the sides swapped. The luck of the cards
cancels out within a pair, so what is left is the play. For each pair the arena
counts A's point difference over its two deals; it reports:

- A's win rate over the pairs (a pair is won when A's difference over its two deals
  is positive; a tie counts half), with a 95 % Wilson interval;
- A's mean point difference per deal, with a 95 % interval (normal, over pairs);
- each level's decision time, p50 and p99 (every ``choose`` call, on this clock).

Levels are the engine's bots (``rules.bots.LEVELS``) and, where the ``open_spiel``
package is installed, ``openspiel-ismcts`` (OpenSpiel's own ISMCTS bot, through the
bridge in ``tranca.tools.openspiel``). Used by ``tranca arena`` and ``bench/bots_bench.py``.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tranca_rules.bots import Bot
from tranca_rules.engine import apply_unchecked, legal_moves, new_deal
from tranca_rules.information import event_after, event_before
from tranca_rules.levels import LEVELS, make_bot
from tranca_rules.presets import Rules
from tranca_rules.scoring import score_deal

from ..platform.duplicate import round_from_seed

Z95 = 1.959963984540054
OPENSPIEL_ISMCTS = "openspiel-ismcts"
ARENA_LEVELS = (*LEVELS, OPENSPIEL_ISMCTS)
MAX_MOVES = 5000


@dataclass(frozen=True)
class LevelConfig:
    """How a level's bots are built: the expert's budget per decision (iterations,
    and seconds on the arena's clock; None: the expert's defaults)."""

    iterations: int | None = None
    seconds: float | None = None
    horizon: int | None = None


def bot_for(level: str, seed: int, config: LevelConfig, rules: Rules, players: int) -> Bot:
    if level == OPENSPIEL_ISMCTS:
        from .openspiel import ismcts_bot

        return ismcts_bot(rules, players, seed, config.iterations or 200)
    return make_bot(
        level,
        seed,
        iterations=config.iterations,
        seconds=config.seconds,
        clock=time.perf_counter,
        horizon=config.horizon,
    )


@dataclass
class Timings:
    seconds: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        xs = sorted(self.seconds)
        if not xs:
            return {"decisions": 0}
        return {
            "decisions": len(xs),
            "p50_ms": round(1000 * _quantile(xs, 0.5), 3),
            "p99_ms": round(1000 * _quantile(xs, 0.99), 3),
            "max_ms": round(1000 * xs[-1], 3),
            "mean_ms": round(1000 * statistics.fmean(xs), 3),
        }


def _quantile(xs: list[float], q: float) -> float:
    k = min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))
    return xs[k]


def wilson(wins: float, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion ``wins / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_one(
    rules: Rules,
    players: int,
    deck: list[int],
    dealer: int,
    bots: list[Bot],
    timings: list[Timings],
) -> list[int]:
    """One deal from ``deck``; every seat's decision timed into ``timings[seat]``;
    returns the sides' scores."""
    s = new_deal(rules, players, deck=list(deck), dealer=dealer)
    observers = [o for o in (getattr(b, "observe", None) for b in bots) if o is not None]
    clock = time.perf_counter
    for _ in range(MAX_MOVES):
        if s.is_over:
            break
        legal = legal_moves(s)
        if not legal:
            break
        seat = s.turn
        started = clock()
        move = bots[seat].choose(s, legal)
        timings[seat].seconds.append(clock() - started)
        if move not in legal:
            raise RuntimeError(f"seat {seat}'s bot played an illegal move {move!r}")
        before = event_before(s, seat, move)
        apply_unchecked(s, seat, move)
        if observers:
            event = event_after(before, s)
            for observe in observers:
                observe(event)
    return [sc.total for sc in score_deal(s)]


def arena(
    rules: Rules,
    players: int,
    level_a: str,
    level_b: str,
    pairs: int,
    *,
    seed: int = 1,
    config_a: LevelConfig | None = None,
    config_b: LevelConfig | None = None,
    progress: Callable[[int, dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play ``pairs`` duplicate pairs of A against B; a JSON-ready summary."""
    config_a = config_a or LevelConfig()
    config_b = config_b or LevelConfig()
    n_sides = 2 if players == 4 else players
    if n_sides != 2:
        raise ValueError("the arena plays two sides: 2 or 4 players")
    times = {level_a: Timings(), level_b: Timings()}
    diffs: list[float] = []  # A's difference over each pair's two deals
    wins = 0.0
    started = time.perf_counter()
    for k in range(pairs):
        rnd = round_from_seed(k, rules.jokers, seed * 1_000_003 + k)
        dealer = k % players
        pair_diff = 0
        for a_side in (0, 1):
            levels = [level_a if s % 2 == a_side else level_b for s in range(players)]
            configs = [config_a if s % 2 == a_side else config_b for s in range(players)]
            bots = [
                bot_for(levels[s], seed * 7919 + k * 16 + s, configs[s], rules, players)
                for s in range(players)
            ]
            seat_times = [Timings() for _ in range(players)]
            scores = play_one(rules, players, list(rnd.deck), dealer, bots, seat_times)
            for s in range(players):
                times[levels[s]].seconds += seat_times[s].seconds
            pair_diff += scores[a_side] - scores[1 - a_side]
        diffs.append(pair_diff)
        wins += 1.0 if pair_diff > 0 else 0.5 if pair_diff == 0 else 0.0
        if progress is not None:
            progress(k + 1, summarise(rules, players, level_a, level_b, diffs, wins, times))
    out = summarise(rules, players, level_a, level_b, diffs, wins, times)
    out["seconds"] = round(time.perf_counter() - started, 1)
    out["seed"] = seed
    out["config_a"] = config_a.__dict__
    out["config_b"] = config_b.__dict__
    return out


def summarise(
    rules: Rules,
    players: int,
    level_a: str,
    level_b: str,
    diffs: list[float],
    wins: float,
    times: dict[str, Timings],
) -> dict[str, Any]:
    n = len(diffs)
    per_deal = [d / 2 for d in diffs]
    mean = statistics.fmean(per_deal) if n else 0.0
    half = Z95 * statistics.stdev(per_deal) / math.sqrt(n) if n > 1 else math.inf
    low, high = wilson(wins, n)
    return {
        "preset": rules.name,
        "players": players,
        "a": level_a,
        "b": level_b,
        "pairs": n,
        "deals": 2 * n,
        "a_win_rate": round(wins / n, 4) if n else None,
        "a_win_rate_ci95": [round(low, 4), round(high, 4)],
        "a_mean_diff_per_deal": round(mean, 2),
        "a_mean_diff_ci95": [round(mean - half, 2), round(mean + half, 2)],
        "move_time": {level: t.summary() for level, t in times.items()},
    }


__all__ = ["ARENA_LEVELS", "OPENSPIEL_ISMCTS", "LevelConfig", "arena", "play_one", "wilson"]
