"""A longer invariant-checked simulation of every preset and player count, with both
bot levels: the engine's own soak test (``make simulate``), not part of ``make test``.

    python bench/soak.py --deals 300 [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys

from tranca_rules.presets import PRESETS
from tranca_rules.simulate import simulate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=300, help="per preset, player count and bot")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    failed = False
    for _name, rules in sorted(PRESETS.items()):
        for players in rules.player_counts:
            for level in ("random", "greedy"):
                summary = simulate(rules, players, args.deals, args.seed, level, check=True)
                failed |= not summary["invariants_ok"]
                print(
                    json.dumps(
                        {
                            k: summary[k]
                            for k in (
                                "preset",
                                "players",
                                "bots",
                                "deals",
                                "moves",
                                "mean_scores",
                                "end_reasons",
                                "invariants_ok",
                                "invariant_failures",
                            )
                        }
                    ),
                    flush=True,
                )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
