"""Whole deals played by bots, for simulations, benchmarks and property tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .bots import Bot
from .engine import apply, apply_unchecked, legal_moves, new_deal, validate
from .information import event_after, event_before
from .invariants import check_invariants
from .levels import make_bot
from .presets import Rules
from .scoring import score_deal
from .state import DealState, EndReason


@dataclass
class DealResult:
    moves: int
    scores: list[int]
    end_reason: EndReason
    went_out: int
    invariant_failures: list[str] = field(default_factory=list)


def play_deal(
    rules: Rules,
    n_players: int,
    seed: int,
    bots: list[Bot],
    *,
    check: bool = False,
    max_moves: int = 5000,
    validate_moves: bool = True,
) -> tuple[DealState, DealResult]:
    """Play one deal to its end. Each move is generated, validated and applied
    (``validate_moves=False`` skips the separate validation, for profiling)."""
    s = new_deal(rules, n_players, seed=seed, dealer=seed % n_players)
    # Bots that remember the public events (the expert) see every move's.
    observers = [o for o in (getattr(b, "observe", None) for b in bots) if o is not None]
    failures: list[str] = []
    moves = 0
    while not s.is_over:
        if moves >= max_moves:
            failures.append(f"deal did not end within {max_moves} moves")
            break
        legal = legal_moves(s)
        if not legal:
            failures.append("no legal move in a live position")
            break
        seat = s.turn
        move = bots[seat].choose(s, legal)
        if validate_moves:
            validate(s, seat, move)
        if observers:
            before = event_before(s, seat, move)
            apply_unchecked(s, seat, move)
            event = event_after(before, s)
            for observe in observers:
                observe(event)
        else:
            apply_unchecked(s, seat, move)
        moves += 1
        if check:
            failures += [f"after move {moves}: {p}" for p in check_invariants(s)]
    scores = [sc.total for sc in score_deal(s)]
    return s, DealResult(moves, scores, s.end_reason, s.went_out, failures)


def simulate(
    rules: Rules,
    n_players: int,
    deals: int,
    seed: int,
    level: str = "random",
    check: bool = False,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    clock: Callable[[], float] | None = None,
) -> dict[str, Any]:
    """Play ``deals`` deals and summarise them as JSON-ready data (``iterations``,
    ``seconds`` and ``clock``: the expert's budget, ``bots.make_bot``)."""
    total_moves = 0
    sums = [0] * (2 if n_players == 4 else n_players)
    reasons: dict[str, int] = {}
    failures: list[str] = []
    started = time.perf_counter()
    for i in range(deals):
        bots = [
            make_bot(
                level,
                seed * 1000 + i * 10 + k,
                iterations=iterations,
                seconds=seconds,
                clock=clock,
            )
            for k in range(n_players)
        ]
        _, result = play_deal(rules, n_players, seed + i, bots, check=check)
        total_moves += result.moves
        for k, v in enumerate(result.scores):
            sums[k] += v
        reason = result.end_reason.value  # a plain str: the summary is JSON-ready
        reasons[reason] = reasons.get(reason, 0) + 1
        failures += [f"deal {i}: {f}" for f in result.invariant_failures]
    elapsed = time.perf_counter() - started
    return {
        "preset": rules.name,
        "players": n_players,
        "bots": level,
        "seed": seed,
        "deals": deals,
        "moves": total_moves,
        "seconds": round(elapsed, 4),
        "moves_per_second": round(total_moves / elapsed, 1) if elapsed else None,
        "deals_per_second": round(deals / elapsed, 2) if elapsed else None,
        "mean_scores": [round(v / deals, 2) for v in sums] if deals else [],
        "end_reasons": reasons,
        "invariants_checked": check,
        "invariant_failures": failures[:20],
        "invariants_ok": not failures if check else None,
    }


__all__ = ["DealResult", "apply", "play_deal", "simulate"]
