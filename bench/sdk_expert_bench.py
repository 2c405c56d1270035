"""The SDK's expert bot (``tranca_client.expert``): what reading the seat's
``GameView`` costs beside the search, and a few duplicate pairs against the SDK's
greedy bot through a real server.

1. Over ``--positions`` positions of random play of ``--preset`` (``--players``),
   each seat's ``GameView`` as the API sends it is turned into the seat's
   information (``information_from_game_view``) and the search run on it
   (``--iterations`` playouts, no time budget): the mean time of each, and the
   translation's as a ratio to the search's, in the same run.
2. ``--pairs`` duplicate pairs through one in-process server on SQLite: each seed
   played twice, the expert on seat 0 then on seat 1, the greedy bot on the other
   (``run_bot`` for both, move by move); the expert's points minus the greedy bot's, per deal.
   A check that the path plays, not a measure of strength (docs/BOTS.md's arena is).

Results: ``OUT/sdk_expert.json`` and ``OUT/sdk_expert.md``.

    python bench/sdk_expert_bench.py --out bench/results [--preset tranca-003]
        [--players 4] [--positions 20] [--iterations 40] [--pairs 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tranca.api.convert import view_to_pb
from tranca.server import Config, configure_logging, start
from tranca.store import migrate
from tranca.table.game import Action, Setup, apply_action, new_game
from tranca_client import AsyncTrancaClient, ExpertBot, GreedyBot, run_bot
from tranca_client import pb as cpb
from tranca_client.expert import information_from_game_view
from tranca_rules.bots import RandomBot
from tranca_rules.engine import apply, legal_moves
from tranca_rules.expert import Budget, search
from tranca_rules.presets import make_rules

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine


def translation(args: argparse.Namespace) -> dict[str, Any]:
    """Mean seconds of the view's translation and of the search, per decision."""
    rng = random.Random(1)
    reads: list[float] = []
    searches: list[float] = []
    seed = 0
    while len(reads) < args.positions:
        seed += 1
        setup = Setup(make_rules(args.preset), args.players, seed)
        g = new_game(setup)
        for k in range(args.players):
            apply_action(g, Action("join", k, name=f"p{k}"), k + 1)
        apply_action(g, Action("start"), args.players + 1)
        deal = g.deal
        assert deal is not None
        bot = RandomBot(seed)
        for _ in range(rng.randrange(10, 80)):
            moves = legal_moves(deal)
            if deal.is_over or not moves:
                break
            apply(deal, deal.turn, bot.choose(deal, moves))
        moves = legal_moves(deal)
        if deal.is_over or len(moves) < 2:
            continue
        # The seat's view as the service sends it, read back as the SDK's message.
        view = cpb.GameView.FromString(view_to_pb("bench", 0, g, deal.turn).SerializeToString())
        began = time.perf_counter()
        info = information_from_game_view(view)
        reads.append(time.perf_counter() - began)
        began = time.perf_counter()
        search(info, moves, seed, Budget(args.iterations, None))
        searches.append(time.perf_counter() - began)
    read, think = statistics.fmean(reads), statistics.fmean(searches)
    return {
        "positions": len(reads),
        "translation_ms": round(read * 1000, 3),
        "search_ms": round(think * 1000, 2),
        "translation_ratio": round(read / think, 4),
    }


async def pairs(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        await asyncio.to_thread(migrate.upgrade, url)
        server = await start(
            Config(port=0, metrics_port=0, database_url=url, rate_per_token=0, rate_per_app=0)
        )
        try:
            _, key = await server.store.create_app("bench")
            address = f"127.0.0.1:{server.port}"
            diffs: list[int] = []
            async with AsyncTrancaClient(address, api_key=key) as app:
                for pair in range(args.pairs):
                    for expert_seat in (0, 1):
                        game = await app.create_game(
                            "tranca-000", 2, overrides={"target_score": 0}, seed=1000 + pair
                        )
                        gid = game.game_id
                        seats = [await app.join(gid, k, player_name=f"p{k}") for k in (0, 1)]
                        bots = [
                            ExpertBot(seed=pair, iterations=args.iterations, seconds=None)
                            if k == expert_seat
                            else GreedyBot(seed=pair)
                            for k in (0, 1)
                        ]
                        finals = await asyncio.gather(
                            # Move by move for both: the greedy bot's planned turns
                            # may be refused (a plan the rules stop midway), and a
                            # refused plan ends run_bot, which has no on_rejected.
                            *(
                                run_bot(s, gid, b, whole_turns=False)
                                for s, b in zip(seats, bots, strict=True)
                            )
                        )
                        totals = {s.side: s.total for s in finals[0].last_deal.scores}
                        diffs.append(int(totals[expert_seat] - totals[1 - expert_seat]))
        finally:
            await server.stop(0.5)
    return {
        "preset": "tranca-000",
        "players": 2,
        "pairs": args.pairs,
        "deals": len(diffs),
        "expert_minus_greedy": diffs,
        "mean": round(statistics.fmean(diffs), 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("bench/results"))
    p.add_argument("--preset", default="tranca-003")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--positions", type=int, default=20)
    p.add_argument("--iterations", type=int, default=40)
    p.add_argument("--pairs", type=int, default=2)
    args = p.parse_args()
    configure_logging("console", "warning")
    began = time.monotonic()
    result = {
        "machine": machine(),
        "iterations": args.iterations,
        "translation": {"preset": args.preset, "players": args.players, **translation(args)},
        "pairs": asyncio.run(pairs(args)),
        "seconds": round(time.monotonic() - began, 1),
    }
    result["load_average_after"] = list(machine()["load_average"])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sdk_expert.json").write_text(json.dumps(result, indent=2) + "\n")
    m, t, pr = result["machine"], result["translation"], result["pairs"]
    load = ", ".join(f"{x:.2f}" for x in m["load_average"])
    lines = [
        "# The SDK's expert bot: reading the view, and a few pairs through a server",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores (shared with other work), Python "
        f"{m['python']}; commit {m['commit']}; {m['date']}; load average {load} at the "
        "start. Interpreted engine, run under `nice -n 19`.",
        "",
        f"Command: `python bench/sdk_expert_bench.py --preset {args.preset} --players "
        f"{args.players} --positions {args.positions} --iterations {args.iterations} "
        f"--pairs {args.pairs}`",
        "",
        f"1. {t['preset']} ({t['players']} players), {t['positions']} positions of random "
        f"play: turning the seat's `GameView` into its information took "
        f"{t['translation_ms']} ms a decision, the search ({args.iterations} playouts) "
        f"{t['search_ms']} ms: the translation is {t['translation_ratio']:.2%} of the "
        "search's time in the same run.",
        f"2. {pr['pairs']} duplicate pair(s) of {pr['preset']} ({pr['players']} players) "
        f"through an in-process server, the SDK's expert ({args.iterations} playouts) "
        f"against the SDK's greedy bot: every deal played to its end; the expert's "
        f"points minus the greedy bot's by deal {pr['expert_minus_greedy']} (mean "
        f"{pr['mean']}). Too few deals to say anything of strength (docs/BOTS.md's arena "
        "measures that).",
        "",
    ]
    (args.out / "sdk_expert.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
