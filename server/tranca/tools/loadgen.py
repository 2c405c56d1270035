"""The load generator: ``tranca loadtest``.

N concurrent games, each played by bot clients through the public API, against one
or several server addresses (loopback by default), over several independent
channels so that connections spread over server processes. A warm-up, then a
fixed duration; every loop is bounded in count and time and stops by itself.

It reports moves per second, latency percentiles per RPC, errors by code
(conflicts apart), and then verifies every game it played from the server's own
answers: the replay's log holds every move acknowledged to a client exactly once,
at the version it was acknowledged with, and nothing else; with ``--database-url``
it also rebuilds every game from the stored log and compares it with the stored
snapshot.

A server that goes away under the load (killed, restarted, unreachable for a while)
does not stop the run: every failed call is counted by its status code and retried
(a move with the same request id, which the service applies exactly once) until the
run's time is up, and the report is printed all the same. The verification then
waits up to ``--verify-wait`` seconds for a server to answer; the moves it could not
check are listed in the report (``verification.unverified``, game by game) and the
exit status is 1.

As every ``tranca`` command (``tranca.cli``), a mistake is one line on stderr: exit
status 2 for a usage error, 1 for a refusal (no server at the address, an API key
or a preset it refuses, a move lost or doubled, moves left unverified).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from .load_generator import (
    CHANNEL_OPTIONS,
    RETRYABLE,
    LoadGenerator,
    OutOfTime,
    Pacer,
    Refused,
    Stats,
    _rebuild_check,
)
from .loadgen_turns import move_bytes, plan_turn

# The command, and (re-exported) the generator it runs: tests and benchmarks import
# them from here.
__all__ = [
    "CHANNEL_OPTIONS",
    "RETRYABLE",
    "LoadGenerator",
    "OutOfTime",
    "Pacer",
    "Refused",
    "Stats",
    "_rebuild_check",
    "main",
    "main_async",
    "move_bytes",
    "plan_turn",
]


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    gen = LoadGenerator(
        args.address,
        args.api_key,
        preset=args.preset,
        players=args.players,
        channels=args.channels,
        seed=args.seed,
        think=args.think_ms / 1000,
        draw_at_turn_start=not args.list_moves_first,
        watch=args.watch,
        rate=args.rate,
        turns=args.turns,
        planned=args.planned,
    )
    try:
        await gen.preflight(args.preset, args.players)
        result = await gen.run(args.games, args.seconds, args.warmup)
        result["verification"] = await gen.verify(args.verify_wait)
        if args.database_url:
            from ..command_line import Refusal, database_errors

            bad: int | None = None  # not checked
            try:
                with database_errors(args.database_url):
                    bad = await _rebuild_check(args.database_url, list(gen.stats.acked))
            except Refusal as exc:
                print(f"tranca loadtest: {exc}", file=sys.stderr, flush=True)
            result["verification"]["not_rebuilt"] = bad
    finally:
        await gen.close()
    return result


def main(argv: list[str] | None = None) -> int:
    """``tranca loadtest``: 0 when every acknowledged move was verified, 1 otherwise
    or for a refusal, 2 for a usage error (each in one line on stderr)."""
    from tranca_rules.presets import make_rules, preset_names

    from ..command_line import Parser, Refusal, database_errors, database_url, require_schema

    p = Parser(prog="tranca loadtest", description=__doc__)
    p.add_argument("--address", action="append", default=None, help="server address (repeatable)")
    p.add_argument("--api-key", default="", help="required, except with --echo")
    p.add_argument("--games", type=int, default=8, help="concurrent games")
    p.add_argument("--seconds", type=float, default=10.0, help="measured duration")
    p.add_argument("--warmup", type=float, default=2.0, help="warm-up, not measured")
    p.add_argument("--channels", type=int, default=4, help="independent gRPC channels")
    p.add_argument("--preset", default="tranca-000", choices=preset_names())
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--database-url", default="", help="also rebuild every game from its log")
    p.add_argument(
        "--verify-wait",
        type=float,
        default=30.0,
        help="seconds the verification waits for a server to answer (one went away)",
    )
    p.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="mean pause before each move (0: every game moves as fast as it can)",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="moves offered a second in all, evenly spaced (0: unpaced; not with --think-ms)",
    )
    p.add_argument(
        "--list-moves-first",
        action="store_true",
        help="open every turn with ListLegalMoves instead of a draw",
    )
    p.add_argument(
        "--watch",
        action="store_true",
        help="each seat also keeps a WatchGame stream open while its game is played",
    )
    p.add_argument(
        "--turns",
        action="store_true",
        help="after a turn's draw, send the rest of the turn in one SubmitTurn call",
    )
    p.add_argument(
        "--planned",
        action="store_true",
        help="play the turns --turns plans, one SubmitMove a move (its single-move twin)",
    )
    p.add_argument(
        "--echo",
        action="store_true",
        help="the transport ceiling: echo calls to bench/echo_server.py instead of games",
    )
    p.add_argument("--payload-bytes", type=int, default=200, help="echo request size")
    args = p.parse_args(argv)
    args.address = args.address or ["127.0.0.1:50051"]
    if args.seconds > 3600 or args.games > 10_000:
        p.error("runs are bounded: at most an hour and 10,000 games")
    for flag, value, least in (
        ("--games", args.games, 1),
        ("--channels", args.channels, 1),
        ("--warmup", args.warmup, 0),
        ("--think-ms", args.think_ms, 0),
        ("--rate", args.rate, 0),
        ("--verify-wait", args.verify_wait, 0),
        ("--payload-bytes", args.payload_bytes, 0),
    ):
        if value < least:
            p.error(f"argument {flag}: at least {least}, not {value:g}")
    if args.seconds <= 0:
        p.error(f"argument --seconds: above 0, not {args.seconds:g}")
    if args.rate and args.think_ms:
        p.error("--rate and --think-ms each set the load: give one")
    if args.echo:
        from .loadgen_echo import run_cli

        return run_cli(args)
    if not args.api_key:
        p.error("the following arguments are required: --api-key")
    counts = make_rules(args.preset).player_counts
    if args.players not in counts:
        p.error(
            f"argument --players: {args.preset} is played by {list(counts)}, not {args.players}"
        )
    try:
        if args.database_url:
            args.database_url = database_url(p, args.database_url)
            with database_errors(args.database_url):
                asyncio.run(require_schema(args.database_url))
        result = asyncio.run(main_async(args))
    except (Refusal, Refused) as exc:
        print(f"tranca loadtest: {exc}", file=sys.stderr, flush=True)
        return 1
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    sys.stdout.flush()
    v = result["verification"]
    if v["moves_unverified"]:
        where = ", ".join(args.address)
        print(
            f"tranca loadtest: {v['moves_unverified']} acknowledged moves of "
            f"{len(v['unverified'])} games could not be verified: no server at {where} "
            f"answered for {args.verify_wait:g} s (verification.unverified lists them)",
            file=sys.stderr,
            flush=True,
        )
    ok = v["lost"] == 0 and v["doubled"] == 0 and v.get("not_rebuilt", 0) == 0
    return 0 if ok and not v["moves_unverified"] else 1
