"""Everything the compiled modules decide, for a fixed set of seeds, as one JSON
document: run once on the sources and once on build/compiled/ by
``test_compiled_engine.py``, which compares the two.

For every preset and player count: greedy and random bots (and the expert, one deal)
play whole deals with the invariants checked after every move (rules: engine, bots,
simulate, scoring, information, expert), every seat's view of the final position
(views), and a whole match played through the game the service keeps (table/game.py,
tranca_rules/match.py) with its snapshot at the end. Prints the document and, on stderr,
the file each compiled module came from.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

from tranca.table.game import Action, GameStatus, Setup, apply_action, new_game, play_action
from tranca_rules import bots, engine, match, simulate, views
from tranca_rules.bots import make_bot
from tranca_rules.engine import legal_moves
from tranca_rules.levels import make_bot as expert_bot
from tranca_rules.presets import PRESETS
from tranca_rules.simulate import play_deal
from tranca_rules.views import seat_view

SEEDS = (1, 2, 3, 4, 5)


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def deals(preset: str, players: int) -> dict[str, Any]:
    rules = PRESETS[preset]
    out: dict[str, Any] = {}
    for level in ("random", "greedy"):
        for seed in SEEDS:
            players_bots = [make_bot(level, seed * 10 + k) for k in range(players)]
            state, result = play_deal(rules, players, seed, players_bots, check=True)
            out[f"{level}/{seed}"] = {
                "moves": result.moves,
                "scores": result.scores,
                "end_reason": str(result.end_reason),
                "invariant_failures": result.invariant_failures,
                "final": _digest(state.to_dict()),
                "views": _digest([seat_view(state, seat) for seat in range(-1, players)]),
            }
    # The expert (one sampled world a decision, short playouts: its search and its
    # information compiled), against greedy bots, one deal.
    players_bots = [
        expert_bot("expert", 7 + k, iterations=1, horizon=6)
        if k % 2 == 0
        else make_bot("greedy", k)
        for k in range(players)
    ]
    state, result = play_deal(rules, players, SEEDS[0], players_bots, check=True)
    out["expert"] = {
        "moves": result.moves,
        "scores": result.scores,
        "invariant_failures": result.invariant_failures,
        "final": _digest(state.to_dict()),
    }
    return out


def a_match(preset: str, players: int) -> dict[str, Any]:
    """A match to its end through the game the service keeps, greedy bots choosing."""
    g = new_game(Setup(PRESETS[preset], players, seed=3))
    version = 0
    for seat in range(players):
        version += 1
        apply_action(g, Action("join", seat), version)
    version += 1
    apply_action(g, Action("start", 0), version)
    chooser = [make_bot("greedy", 40 + k) for k in range(players)]
    moves = 0
    while g.status == GameStatus.PLAYING and moves < 20_000:
        deal = g.deal
        assert deal is not None
        move = chooser[deal.turn].choose(deal, legal_moves(deal))
        version += 1
        apply_action(g, play_action(deal.turn, move), version)
        moves += 1
    return {"moves": moves, "status": str(g.status), "snapshot": _digest(g.to_dict())}


def main() -> int:
    for module in (engine, bots, simulate, views, match):
        print(f"{module.__name__}: {module.__file__}", file=sys.stderr)
    document = {
        f"{name}/{players}": {"deals": deals(name, players), "match": a_match(name, players)}
        for name, rules in sorted(PRESETS.items())
        for players in rules.player_counts
    }
    print(json.dumps(document, sort_keys=True, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
