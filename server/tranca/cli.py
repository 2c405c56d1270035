"""The ``tranca`` command: the server, migrations, apps, simulations and a demo match."""

from __future__ import annotations

import argparse
import json
import sys

from .rules.bots import make_bot
from .rules.engine import apply, legal_moves
from .rules.match import Match
from .rules.moves import move_text
from .rules.presets import make_rules, preset_names
from .rules.scoring import score_deal
from .rules.simulate import simulate
from .rules.views import meld_view


def _cmd_simulate(args: argparse.Namespace) -> int:
    rules = make_rules(args.preset)
    summary = simulate(rules, args.players, args.deals, args.seed, args.bots, check=args.check)
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if summary["invariants_ok"] in (True, None) else 1


def _cmd_demo(args: argparse.Namespace) -> int:
    rules = make_rules(args.preset)
    match = Match(rules, args.players, args.seed)
    bots = [make_bot(args.bots, args.seed + k) for k in range(args.players)]
    out = sys.stdout
    while not match.is_over:
        s = match.deal
        out.write(f"\n=== deal {len(match.deal_scores) + 1} ({rules.description}) ===\n")
        while not s.is_over:
            seat = s.turn
            move = bots[seat].choose(s, legal_moves(s))
            apply(s, seat, move)
            if not args.quiet:
                out.write(f"seat {seat}: {move_text(move)}\n")
        out.write(
            f"deal over: {s.end_reason}"
            + (f", seat {s.went_out} went out" if s.went_out >= 0 else "")
            + "\n"
        )
        for i in range(len(s.melds)):
            v = meld_view(s, i)
            out.write(
                f"  side {v['side']} @{v['id']} {v['kind']}: {' '.join(v['cards'])}"
                + (f"  [{v['canastra']} canastra]" if v["canastra"] else "")
                + "\n"
            )
        for sc in score_deal(s):
            d = sc.to_dict()
            out.write(f"  side {sc.side}: {d}\n")
        match.finish_deal()
        out.write(f"totals: {match.totals}\n")
        if args.one_deal:
            break
    if match.is_over:
        out.write(f"match over, winner: side {match.winner}\n")
    return 0


def _cmd_migrate(args: argparse.Namespace) -> int:
    from .store import migrate
    from .store.database import normalise_url

    migrate.upgrade(normalise_url(args.database_url))
    print(f"schema at {migrate.head_revision()}")
    return 0


def _cmd_create_app(args: argparse.Namespace) -> int:
    import asyncio

    from .store.database import make_engine, normalise_url
    from .store.repository import Store

    async def create() -> tuple[str, str]:
        engine = make_engine(normalise_url(args.database_url))
        try:
            return await Store(engine).create_app(args.name, frozenset(args.permission))
        finally:
            await engine.dispose()

    app_id, key = asyncio.run(create())
    print(json.dumps({"app_id": app_id, "api_key": key}))
    return 0


def _cmd_revoke_app(args: argparse.Namespace) -> int:
    import asyncio

    from .store.database import make_engine, normalise_url
    from .store.repository import Store

    async def revoke() -> bool:
        engine = make_engine(normalise_url(args.database_url))
        try:
            return await Store(engine).revoke_app(args.app_id)
        finally:
            await engine.dispose()

    found = asyncio.run(revoke())
    print("revoked" if found else "no such app")
    return 0 if found else 1


def main(argv: list[str] | None = None) -> int:
    import os

    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["serve"]:
        from .server import serve

        return serve(argv[1:])
    if argv[:1] == ["loadtest"]:
        from .loadgen import main as loadtest_main

        return loadtest_main(argv[1:])
    if argv[:1] == ["bot"]:
        from tranca_client.cli import bot_main

        return bot_main(argv[1:])
    if argv[:1] == ["play"]:
        from tranca_client.cli import play_main

        return play_main(argv[1:])
    db_default = os.environ.get("TRANCA_DATABASE_URL", "sqlite:///tranca.db")
    parser = argparse.ArgumentParser(prog="tranca", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play whole deals with bots; print a JSON summary")
    sim.add_argument("--preset", default="tranca-000", choices=preset_names())
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--deals", type=int, default=100)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--bots", default="random", choices=["random", "greedy"])
    sim.add_argument("--check", action="store_true", help="check invariants after every move")
    sim.set_defaults(func=_cmd_simulate)
    demo = sub.add_parser("demo", help="watch bots play a match in the terminal")
    demo.add_argument("--preset", default="tranca-000", choices=preset_names())
    demo.add_argument("--players", type=int, default=4)
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--bots", default="greedy", choices=["random", "greedy"])
    demo.add_argument("--quiet", action="store_true", help="print only the results")
    demo.add_argument("--one-deal", action="store_true", help="stop after one deal")
    demo.set_defaults(func=_cmd_demo)
    sub.add_parser("serve", help="run the game server (see tranca serve --help)")
    sub.add_parser("loadtest", help="concurrent bot games against a server (--help)")
    sub.add_parser("bot", help="a bot playing a seat through the API (see tranca bot --help)")
    sub.add_parser("play", help="play at a terminal table (see tranca play --help)")
    mig = sub.add_parser("migrate", help="apply the database schema migrations")
    mig.add_argument("--database-url", default=db_default)
    mig.set_defaults(func=_cmd_migrate)
    app = sub.add_parser("create-app", help="register an app and print its API key once")
    app.add_argument("name")
    app.add_argument("--permission", action="append", default=[], choices=["fixed_deck"])
    app.add_argument("--database-url", default=db_default)
    app.set_defaults(func=_cmd_create_app)
    rev = sub.add_parser("revoke-app", help="revoke an app's API key")
    rev.add_argument("app_id")
    rev.add_argument("--database-url", default=db_default)
    rev.set_defaults(func=_cmd_revoke_app)
    sub.add_parser("presets", help="list the rule presets").set_defaults(
        func=lambda a: print("\n".join(preset_names())) or 0
    )
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
