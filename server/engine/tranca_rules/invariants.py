"""Invariants every reachable position keeps; checked after every move by the
simulator's ``--check`` and by the property tests."""

from __future__ import annotations

from .cards import full_deck, is_red_three
from .melds import Problem, classify
from .state import DRAW_PHASE, OVER, PLAY_PHASE, DealState


def check_invariants(s: DealState) -> list[str]:
    """The broken invariants of ``s`` (empty when all hold)."""
    problems: list[str] = []
    if sorted(s.all_cards()) != sorted(full_deck(s.rules.jokers)):
        problems.append("cards are not all accounted for")
    for m in s.melds:
        shape = classify(list(m.cards), s.rules, m.shape.wilds)
        if isinstance(shape, Problem):
            problems.append(f"meld @{m.id} is invalid: {shape.message}")
        elif shape != m.shape:
            problems.append(f"meld @{m.id} has a stale shape")
    for side, reds in enumerate(s.red_threes):
        if any(not is_red_three(c) for c in reds):
            problems.append(f"side {side} has a non-red-three among its red threes")
    if s.phase not in (DRAW_PHASE, PLAY_PHASE, OVER):
        problems.append(f"unknown phase {s.phase!r}")
    if s.phase != OVER:
        seat = s.turn
        if any(is_red_three(c) for c in s.hands[seat]) and s.phase == PLAY_PHASE:
            problems.append("the player to act holds a red three")
        if s.phase == PLAY_PHASE and not s.hands[seat]:
            problems.append("the player to act has an empty hand")
    for side, taken in enumerate(s.morto_taken):
        if taken and s.mortos[side] is not None:
            problems.append(f"side {side}'s morto is both taken and on the table")
    return problems
