"""The ``tranca`` command: the server, migrations, apps, simulations and a demo match.

Every mistake and every refusal is one line on stderr, ``tranca COMMAND: what went
wrong and what to do``, never a traceback (a traceback is a bug in tranca), and the
exit status says which it was:

- ``2``, a usage error: the command line itself is wrong, whatever the machine holds
  (an unknown option or preset, a player count the preset is not played by, a
  database URL that is neither SQLite nor PostgreSQL): argparse's ``parser.error``,
  in one line;
- ``1``, a refusal at run time: the command line is well formed but what it names
  cannot be used (no database at that path, a schema not at this release's head, a
  database or server that cannot be reached, a port in use, an unknown app id);
- ``0``: done.

The same holds for ``tranca loadtest`` (``tranca.tools.loadgen``), ``tranca admin``
(``tranca.tools.admin_cli``) and for ``tranca bot`` and ``tranca play``
(``tranca_client.cli``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import io
import json
import os
import socket
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tranca_rules.engine import apply, legal_moves
from tranca_rules.levels import LEVELS, make_bot
from tranca_rules.match import Match
from tranca_rules.moves import move_text
from tranca_rules.presets import make_rules, preset_names
from tranca_rules.scoring import score_deal
from tranca_rules.simulate import simulate
from tranca_rules.views import meld_view

from .command_line import (
    DEFAULT_DATABASE_URL,
    REFUSED,
    Parser,
    Refusal,
    database_errors,
    database_url,
    require_schema,
    shown,
    sqlite_file,
    usage_error,
)
from .tools.arena import ARENA_LEVELS, OPENSPIEL_ISMCTS

if TYPE_CHECKING:
    from .server import Config


def _or(values: Sequence[int]) -> str:
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _check_players(parser: argparse.ArgumentParser, preset: str, players: int) -> None:
    counts = make_rules(preset).player_counts
    if players not in counts:
        parser.error(
            f"argument --players: {preset} is played by {_or(counts)} players, not {players}"
        )


# ----- commands --------------------------------------------------------------------------


def _cmd_simulate(args: argparse.Namespace) -> int:
    _check_players(args.parser, args.preset, args.players)
    if args.deals < 1:
        args.parser.error(f"argument --deals: at least 1, not {args.deals}")
    _check_budget(args.parser, args)
    rules = make_rules(args.preset)
    summary = simulate(
        rules,
        args.players,
        args.deals,
        args.seed,
        args.bots,
        check=args.check,
        iterations=args.iterations,
        seconds=args.seconds,
        clock=time.perf_counter,
    )
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if summary["invariants_ok"] in (True, None) else 1


def _check_budget(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.iterations is not None and args.iterations < 1:
        parser.error(f"argument --iterations: at least 1, not {args.iterations}")
    if args.seconds is not None and not args.seconds > 0:
        parser.error(f"argument --seconds: a positive number, not {args.seconds}")


def _cmd_arena(args: argparse.Namespace) -> int:
    from .tools.arena import LevelConfig, arena

    _check_players(args.parser, args.preset, args.players)
    if args.players not in (2, 4):
        args.parser.error("argument --players: the arena plays two sides, 2 or 4 players")
    if args.pairs < 1:
        args.parser.error(f"argument --pairs: at least 1, not {args.pairs}")
    _check_budget(args.parser, args)
    if args.a == OPENSPIEL_ISMCTS or args.b == OPENSPIEL_ISMCTS:
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            raise Refusal("the open_spiel package is not installed") from None
    config = LevelConfig(args.iterations, args.seconds)
    summary = arena(
        make_rules(args.preset),
        args.players,
        args.a,
        args.b,
        args.pairs,
        seed=args.seed,
        config_a=config,
        config_b=config,
    )
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def _budget_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="the expert's playouts a decision (default 400, with --seconds 0.2)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="the expert's seconds a decision (default 0.2; with --iterations alone, none)",
    )


def _cmd_demo(args: argparse.Namespace) -> int:
    _check_players(args.parser, args.preset, args.players)
    rules = make_rules(args.preset)
    match = Match(rules, args.players, args.seed)
    bots = [
        make_bot(args.bots, args.seed + k, clock=time.perf_counter) for k in range(args.players)
    ]
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

    url = database_url(args.parser, args.database_url)
    path = sqlite_file(url)
    if path is not None and not path.absolute().parent.is_dir():
        raise Refusal(f"there is no folder {path.absolute().parent} for the database file")
    with database_errors(url):
        migrate.upgrade(url)
    print(f"schema at {migrate.head_revision()}: {path.absolute() if path else shown(url)}")
    return 0


def _cmd_create_app(args: argparse.Namespace) -> int:
    from .store.database import make_engine
    from .store.repository import Store

    url = database_url(args.parser, args.database_url)
    if not args.name.strip():
        args.parser.error("argument name: an app needs a name")

    async def create() -> tuple[str, str]:
        await require_schema(url)
        engine = make_engine(url)
        try:
            return await Store(engine).create_app(args.name, frozenset(args.permission))
        finally:
            await engine.dispose()

    with database_errors(url):
        app_id, key = asyncio.run(create())
    print(json.dumps({"app_id": app_id, "api_key": key}))
    return 0


def _cmd_revoke_app(args: argparse.Namespace) -> int:
    from .store.database import make_engine
    from .store.repository import Store

    url = database_url(args.parser, args.database_url)

    async def revoke() -> bool:
        await require_schema(url)
        engine = make_engine(url)
        try:
            return await Store(engine).revoke_app(args.app_id)
        finally:
            await engine.dispose()

    with database_errors(url):
        found = asyncio.run(revoke())
    if not found:
        raise Refusal(f"there is no app {args.app_id!r} in the database at {shown(url)}")
    print("revoked")
    return 0


def _serve_config(argv: list[str]) -> Config:
    """``tranca serve``'s flags, its usage errors in one line (its parser is plain
    argparse, which prints the usage first)."""
    from .server import Config

    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            return Config.from_args(argv)
    except SystemExit as exc:
        if exc.code not in (0, None):
            lines = captured.getvalue().strip().splitlines()
            message = lines[-1].split(": error: ", 1)[-1] if lines else "bad arguments"
            usage_error("tranca serve", message)
        raise


def _check_listen(host: str, port: int, flags: str, *, reuse_port: bool = False) -> None:
    """Refuse an address the server could not listen on (in use, or not this machine's),
    before the server tries: gRPC would log its own lines first, and a worker process
    its traceback. Bound as the server binds, with SO_REUSEADDR (and SO_REUSEPORT for
    workers): ports in TIME_WAIT, or still serving a draining connection, are free."""
    where = f"{host}:{port}"
    try:
        found = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except OSError as exc:
        raise Refusal(f"cannot listen on {where}: {exc.strerror or exc} ({flags})") from exc
    failure: OSError | None = None
    for family, kind, proto, _, address in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            try:
                probe.bind(address)
                return
            except OSError as exc:
                failure = exc
    reason = failure.strerror if failure is not None else "no address"
    raise Refusal(f"cannot listen on {where}: {reason} ({flags})")


def _cmd_serve(argv: list[str]) -> int:
    """``tranca serve``, after the checks that keep its mistakes to one line: the
    database exists and is at the schema head (unless --auto-migrate), the TLS files
    can be read, the ports are free."""
    from .processes import serve

    cfg = _serve_config(argv)
    prog = "tranca serve"
    for flag, port in (("--port", cfg.port), ("--metrics-port", cfg.metrics_port)):
        if not 0 <= port <= 65535:
            usage_error(prog, f"argument {flag}: {port} is not a port (0 to 65535)")
    if cfg.workers < 1:
        usage_error(prog, f"argument --workers: at least 1, not {cfg.workers}")
    if cfg.log_format not in ("json", "console"):
        usage_error(prog, f"argument --log-format: json or console, not {cfg.log_format!r}")
    url = database_url(Parser(prog=prog), cfg.database_url)
    if cfg.auto_migrate:
        path = sqlite_file(url)
        if path is not None and not path.absolute().parent.is_dir():
            raise Refusal(f"there is no folder {path.absolute().parent} for the database file")
    else:
        with database_errors(url):
            asyncio.run(require_schema(url, pgbouncer=cfg.db_pgbouncer))
    for flag, name in (
        ("--tls-cert", cfg.tls_cert),
        ("--tls-key", cfg.tls_key),
        ("--tls-client-ca", cfg.tls_client_ca),
    ):
        if name and not os.access(name, os.R_OK):
            raise Refusal(f"cannot read {flag} {name}: no such file, or not readable")
    _check_listen(cfg.host, cfg.port, "--host, --port", reuse_port=cfg.workers > 1)
    if cfg.metrics_port:
        for index in range(cfg.workers):
            _check_listen(cfg.host, cfg.metrics_port + index, "--metrics-port; 0 serves none")
    try:
        return serve(argv)
    except RuntimeError as exc:
        if not str(exc).startswith("Failed to bind"):
            raise
        raise Refusal(
            f"cannot listen on {cfg.host}:{cfg.port}: the port is in use, or the address "
            "is not one of this machine's (--host, --port)"
        ) from exc
    except OSError as exc:
        if exc.errno not in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):
            raise
        raise Refusal(
            f"cannot listen on {cfg.host}:{cfg.metrics_port} for metrics: {exc.strerror} "
            "(--metrics-port; 0 serves no metrics)"
        ) from exc


def _parser() -> Parser:
    env_url = os.environ.get("TRANCA_DATABASE_URL")
    db_default = env_url or DEFAULT_DATABASE_URL
    db_help = (
        f"default {db_default} (TRANCA_DATABASE_URL)"
        if env_url
        else f"default {db_default}, in the current folder, or TRANCA_DATABASE_URL"
    )
    parser = Parser(prog="tranca", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play whole deals with bots; print a JSON summary")
    sim.add_argument("--preset", default="tranca-000", choices=preset_names())
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--deals", type=int, default=100)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--bots", default="random", choices=LEVELS)
    _budget_options(sim)
    sim.add_argument("--check", action="store_true", help="check invariants after every move")
    sim.set_defaults(func=_cmd_simulate, parser=sim)
    demo = sub.add_parser("demo", help="watch bots play a match in the terminal")
    demo.add_argument("--preset", default="tranca-000", choices=preset_names())
    demo.add_argument("--players", type=int, default=4)
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--bots", default="greedy", choices=LEVELS)
    demo.add_argument("--quiet", action="store_true", help="print only the results")
    demo.add_argument("--one-deal", action="store_true", help="stop after one deal")
    demo.set_defaults(func=_cmd_demo, parser=demo)
    are = sub.add_parser(
        "arena",
        help="two bot levels over duplicate pairs of deals; print a JSON summary",
        description=(
            "Each pair is one deck played twice with the sides swapped. Prints A's win "
            "rate over the pairs and its mean point difference per deal, with 95 % "
            "intervals, and each level's decision time p50 and p99."
        ),
    )
    are.add_argument("--preset", default="tranca-000", choices=preset_names())
    are.add_argument("--players", type=int, default=2)
    are.add_argument("--a", default="expert", choices=ARENA_LEVELS)
    are.add_argument("--b", default="greedy", choices=ARENA_LEVELS)
    are.add_argument("--pairs", type=int, default=20)
    are.add_argument("--seed", type=int, default=1)
    _budget_options(are)
    are.set_defaults(func=_cmd_arena, parser=are)
    sub.add_parser("serve", help="run the game server (see tranca serve --help)")
    sub.add_parser("loadtest", help="concurrent bot games against a server (--help)")
    sub.add_parser("bot", help="a bot playing a seat through the API (see tranca bot --help)")
    sub.add_parser("play", help="play at a terminal table (see tranca play --help)")
    sub.add_parser("admin", help="the app owner's view of its games (see tranca admin --help)")
    mig = sub.add_parser("migrate", help="apply the database schema migrations")
    mig.add_argument("--database-url", default=db_default, help=db_help)
    mig.set_defaults(func=_cmd_migrate, parser=mig)
    app = sub.add_parser("create-app", help="register an app and print its API key once")
    app.add_argument("name")
    app.add_argument("--permission", action="append", default=[], choices=["fixed_deck"])
    app.add_argument("--database-url", default=db_default, help=db_help)
    app.set_defaults(func=_cmd_create_app, parser=app)
    rev = sub.add_parser("revoke-app", help="revoke an app's API key")
    rev.add_argument("app_id")
    rev.add_argument("--database-url", default=db_default, help=db_help)
    rev.set_defaults(func=_cmd_revoke_app, parser=rev)
    sub.add_parser("presets", help="list the rule presets").set_defaults(
        func=lambda a: print("\n".join(preset_names())) or 0
    )
    return parser


def _dispatch(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        return _cmd_serve(argv[1:])
    if argv[:1] == ["loadtest"]:
        from .tools.loadgen import main as loadtest_main

        return loadtest_main(argv[1:])
    if argv[:1] in (["bot"], ["play"]):
        # The Python SDK is a distribution of its own (clients/python), which an
        # installation of the server alone does not have.
        try:
            from tranca_client import cli as sdk_cli
        except ModuleNotFoundError as exc:
            if exc.name != "tranca_client":
                raise
            raise Refusal(
                "the Python SDK (tranca-client) is not installed: "
                "pip install './clients/python[table]'"
            ) from None
        return sdk_cli.bot_main(argv[1:]) if argv[0] == "bot" else sdk_cli.play_main(argv[1:])
    if argv[:1] == ["admin"]:
        from .tools.admin_cli import main as admin_main

        return admin_main(argv[1:])
    args = _parser().parse_args(argv)
    return int(args.func(args))


def main(argv: list[str] | None = None) -> int:
    """``tranca``: exit status 0 when done, 1 for a refusal, 2 for a usage error, each
    mistake in one line on stderr (see the module's docstring)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    prog = "tranca" + (f" {argv[0]}" if argv and not argv[0].startswith("-") else "")
    try:
        return _dispatch(argv)
    except Refusal as exc:
        message = str(exc)
    except SystemExit as exc:
        if not isinstance(exc.code, str):
            raise
        # A refusal raised as SystemExit("...") on the way (`tranca serve`'s start-up).
        message = exc.code
    if not message.startswith("tranca"):
        message = f"{prog}: {message}"
    print(message, file=sys.stderr, flush=True)
    return REFUSED


if __name__ == "__main__":
    raise SystemExit(main())
