"""Command lines of the SDK: ``tranca bot`` (a bot playing a seat through the API) and
``tranca play`` (the terminal table, with the server's robots on the other seats).
Also ``python -m tranca_client bot|play``.

As every ``tranca`` command, a mistake or a refusal is one line on stderr, never a
traceback, and the exit status says which: ``2`` for a usage error (the command line
itself is wrong), ``1`` for a refusal at run time (no server at the address, a file
that cannot be read, the service's refusal of a call: its code, reason and message),
``0`` when done; ``130`` after Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from .bots import BOT_LEVELS, Bot, make_bot, play_seat, run_bot
from .client import DEFAULT_ADDRESS, DEFAULT_TIMEOUT, AsyncTrancaClient
from .errors import AlreadyExists, RuleRejected, TrancaError
from .expert import ExpertBot, ExpertUnavailable
from .moves import move_text
from .v1 import game_pb2 as pb

if TYPE_CHECKING:
    from rich.console import Console

# The terminal table needs rich, the extra `table` of the distribution; the rest of
# the SDK, `bot` included, does not, so rich is imported by `play` alone.
TABLE_EXTRA = "pip install 'tranca-client[table]'"

__all__ = ["bot_main", "main", "play_main"]


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line (argparse prints its usage first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _check_connection_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if bool(args.client_cert) != bool(args.client_key):
        p.error("--client-cert and --client-key go together")
    if args.timeout <= 0:
        p.error(f"argument --timeout: a number of seconds above 0, not {args.timeout:g}")


def _refused(prog: str, message: object) -> int:
    """A refusal at run time: one line on stderr, exit status 1."""
    print(f"{prog}: {message}", file=sys.stderr, flush=True)
    return 1


def _connection_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--address", default=DEFAULT_ADDRESS, help="host:port of the server")
    tls = p.add_mutually_exclusive_group()
    tls.add_argument(
        "--insecure", action="store_true", help="plaintext (the default for a loopback address)"
    )
    tls.add_argument("--tls", action="store_true", help="TLS (the default for other addresses)")
    p.add_argument("--root-certs", type=Path, help="PEM file of TLS root certificates")
    p.add_argument("--client-cert", type=Path, help="PEM client certificate (mutual TLS)")
    p.add_argument("--client-key", type=Path, help="PEM private key of --client-cert")
    p.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="deadline of each call, seconds"
    )


def _client(args: argparse.Namespace, **kwargs: Any) -> AsyncTrancaClient:
    insecure: bool | None = True if args.insecure else False if args.tls else None
    roots = args.root_certs.read_bytes() if args.root_certs else None
    pair = None
    if args.client_cert and args.client_key:
        pair = (args.client_cert.read_bytes(), args.client_key.read_bytes())
    return AsyncTrancaClient(
        args.address,
        insecure=insecure,
        root_certificates=roots,
        client_certificate=pair,
        timeout=args.timeout,
        **kwargs,
    )


def _result_line(view: pb.GameView) -> str:
    r = view.match_result
    winner = "a draw" if r.winner_side < 0 else f"side {r.winner_side} wins"
    totals = ", ".join(f"side {i}: {t}" for i, t in enumerate(view.match_totals))
    return f"match over ({r.reason}): {winner}; totals {totals}"


# ----- tranca bot ------------------------------------------------------------------------


def bot_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="tranca bot",
        description="A bot playing one seat of a game through the public API.",
    )
    _connection_args(p)
    p.add_argument("--game", required=True, help="game id")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--token", help="the seat's player token")
    who.add_argument("--api-key", help="the app's API key: the bot takes --seat itself")
    p.add_argument("--seat", type=int, default=-1, help="seat to take with --api-key (-1: any)")
    p.add_argument(
        "--level",
        choices=sorted(BOT_LEVELS),
        default="greedy",
        help="random, greedy, or expert (a search from the seat's view; needs the "
        "rules engine installed: pip install 'tranca-client[expert]')",
    )
    p.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="the expert's playouts a decision, at most (default 400)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="the expert's seconds a decision, at most (default 0.2; 0: playouts only, "
        "reproducible)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the bot's choices")
    p.add_argument("--name", default="", help="display name when taking a seat")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to wait before each move")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    return p


def _make_bot(args: argparse.Namespace) -> Bot:
    """The bot of ``--level``; ``ExpertUnavailable`` without the rules engine."""
    if args.level != "expert":
        return make_bot(args.level, args.seed)
    if args.seconds == 0:
        return ExpertBot(args.seed, iterations=args.iterations, seconds=None)
    seconds = -1.0 if args.seconds is None else args.seconds  # -1: the default
    return ExpertBot(args.seed, iterations=args.iterations, seconds=seconds)


async def _bot(args: argparse.Namespace, bot: Bot) -> int:
    async with _client(args, api_key=args.api_key, token=args.token) as client:
        await client.wait_ready(args.timeout)
        me = client
        if args.token is None:
            name = args.name or f"{args.level} bot"
            me = await client.join(args.game, args.seat, player_name=name)
            print(f"seat {me.seat} taken; token {me.token}", flush=True)

        async def show(update: pb.WatchGameResponse) -> None:
            if args.quiet or not update.HasField("move"):
                return
            m = update.move
            print(f"v{m.version} seat {m.seat}: {move_text(m.move)}", flush=True)

        final = await run_bot(me, args.game, bot, delay=args.delay, on_update=show)
        if final.status == pb.GAME_STATUS_FINISHED:
            print(_result_line(final), flush=True)
        return 0


def bot_main(argv: list[str] | None = None) -> int:
    """``tranca bot``: play a seat with a built-in bot until the match is over."""
    parser = bot_parser()
    args = parser.parse_args(argv)
    _check_connection_args(parser, args)
    if args.delay < 0:
        parser.error(f"argument --delay: seconds, not {args.delay:g}")
    if (args.iterations is not None or args.seconds is not None) and args.level != "expert":
        parser.error("--iterations and --seconds are the expert's budget: give --level expert")
    if args.iterations is not None and args.iterations < 1:
        parser.error(f"argument --iterations: at least 1, not {args.iterations}")
    if args.seconds is not None and args.seconds < 0:
        parser.error(f"argument --seconds: seconds, not {args.seconds:g}")
    if args.iterations is None and args.seconds == 0:
        parser.error("--seconds 0 leaves the playouts alone to bound it: give --iterations")
    try:
        bot = _make_bot(args)
    except ExpertUnavailable as exc:
        return _refused("tranca bot", exc)
    try:
        return asyncio.run(_bot(args, bot))
    except (TrancaError, OSError) as exc:  # OSError: a certificate file not read
        return _refused("tranca bot", exc)
    except KeyboardInterrupt:
        return 130


# ----- tranca play -----------------------------------------------------------------------

# What the server's robots play at a new table (its TableOptions.robot_level): the
# server's level ("server": whatever its operator set), one of the levels, or none.
ROBOT_LEVELS = ("server", "random", "greedy", "expert", "none")
LEVEL_OF_TABLE = {
    "server": pb.ROBOT_LEVEL_UNSPECIFIED,
    "random": pb.ROBOT_LEVEL_RANDOM,
    "greedy": pb.ROBOT_LEVEL_GREEDY,
    "expert": pb.ROBOT_LEVEL_EXPERT,
}
DEFAULT_ROBOT_GRACE = 60  # seconds; with --new


def play_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="tranca play",
        description=(
            "Play Tranca in the terminal: create a game (--new) or join one (--game), "
            "with the server's robots on the other seats. The robots are the server's "
            "own: they play on whatever happens to this terminal."
        ),
    )
    _connection_args(p)
    p.add_argument("--api-key", help="the app's API key (to create, join and seat robots)")
    p.add_argument("--token", help="a player token already held (instead of joining)")
    p.add_argument("--new", action="store_true", help="create a new game")
    p.add_argument("--game", help="the id of a game to join")
    p.add_argument("--seat", type=int, help="seat to take (default: 0 with --new, else any)")
    p.add_argument("--name", default="you", help="your display name")
    p.add_argument("--preset", default="tranca-000", help="rules preset, with --new")
    p.add_argument("--players", type=int, default=4, help="number of seats, with --new")
    p.add_argument(
        "--bots",
        choices=ROBOT_LEVELS,
        help=(
            "the server's robots for the free seats, and with --new the level they play "
            "at the new table: random, greedy, expert (the search), or server (the "
            "level its operator set); none seats no robot (default: server with --new, "
            "none with --game, where the robots play the table's level; needs "
            "--api-key and a table with robots)"
        ),
    )
    p.add_argument(
        "--humans",
        type=int,
        default=1,
        help="with --new: seats kept for people (you included); robots take the rest",
    )
    p.add_argument(
        "--robot-grace",
        type=int,
        default=DEFAULT_ROBOT_GRACE,
        metavar="SECONDS",
        help=(
            "with --new: the table's robot grace period; a robot plays a seat whose "
            "player has been silent that long on their turn, until they come back "
            f"(default: {DEFAULT_ROBOT_GRACE}; 0: a table without robots, with --bots none)"
        ),
    )
    p.add_argument("--single-deal", action="store_true", help="with --new: the match is one deal")
    p.add_argument("--seed", type=int, default=0, help="with --new: the shuffle seed (0: random)")
    return p


def _away_line(view: pb.GameView, game_id: str, token: str, address: str) -> str:
    """What happens to the seat while its player is away, and how to come back."""
    grace = view.table.robot_grace_seconds
    turn = view.table.turn_seconds
    if grace:
        meanwhile = (
            f"while you are away, a robot takes it over once you have been silent for "
            f"{grace} s on your turn, and plays it until you come back"
        )
    elif turn:
        meanwhile = f"while you are away, the server plays each of your turns after {turn} s"
    else:
        meanwhile = "nobody plays it while you are away: the table waits for you"
    return (
        f"You left the table; the seat is still yours: {meanwhile}. To come back: "
        f"tranca play --address {address} --game {game_id} --token {token}"
    )


def _robots_level(table: pb.TableOptions) -> str:
    """What the server's robots play at a table, in words."""
    if table.robot_level == pb.ROBOT_LEVEL_UNSPECIFIED:
        return "at the server's level"
    return "the " + pb.RobotLevel.Name(table.robot_level).removeprefix("ROBOT_LEVEL_").lower()


async def _seat_robots(
    app: AsyncTrancaClient,
    game_id: str,
    seats: list[int],
    console: Console,
    table: pb.TableOptions,
) -> None:
    """The server's robots on ``seats`` (a seat someone took meanwhile is skipped)."""
    seated = []
    for seat in seats:
        try:
            await app.join_game(game_id, seat, robot=True)
        except AlreadyExists as exc:
            if exc.reason != "SEAT_TAKEN":
                raise
            continue
        seated.append(seat)
    if seated:
        listed = ", ".join(str(s) for s in seated)
        console.print(
            f"The server's robots ({_robots_level(table)}) play "
            f"seat{'s' * (len(seated) > 1)} {listed}."
        )


async def _play(args: argparse.Namespace, console: Console) -> int:
    from rich.text import Text

    from .table import LineReader, Table, render_match_end

    level = args.bots or ("server" if args.new else "none")
    async with _client(args, api_key=args.api_key) as app:
        await app.wait_ready(args.timeout)
        if args.new:
            overrides = {"target_score": 0} if args.single_deal else {}
            table = pb.TableOptions(
                robot_grace_seconds=args.robot_grace,
                robot_level=LEVEL_OF_TABLE.get(level, pb.ROBOT_LEVEL_UNSPECIFIED),
            )
            game = await app.create_game(
                args.preset,
                args.players,
                overrides=overrides,
                seed=args.seed,
                label="tranca play",
                table=table,
            )
            game_id = game.game_id
            console.print(
                Text.assemble("New game ", (game_id, "bold"), f" ({args.preset}, "),
                f"{args.players} players)",
            )
        else:
            game_id = args.game
            if level != "none":
                # Checked before taking a seat: robots sit only at practice tables with robots.
                options = (await app.get_view(game_id)).table
                if not options.robot_grace_seconds:
                    return _refused(
                        "tranca play",
                        f"game {game_id} has no robots (its table's robot_grace_seconds is 0):"
                        f" --bots {level} cannot seat any; use --bots none",
                    )
                if options.competitive:
                    return _refused(
                        "tranca play",
                        f"game {game_id} is competitive: robots sit only at practice tables;"
                        " use --bots none",
                    )
                asked = LEVEL_OF_TABLE.get(level)
                if asked not in (None, pb.ROBOT_LEVEL_UNSPECIFIED, options.robot_level):
                    console.print(
                        f"The robots of game {game_id} play {_robots_level(options)}: a "
                        "table's robot level is chosen when it is created (--new)."
                    )
        if args.token:
            me = app.with_token(args.token)
        else:
            seat = args.seat if args.seat is not None else (0 if args.new else -1)
            me = await app.join(game_id, seat, player_name=args.name)
            console.print(
                f"You sit at seat {me.seat}. To come back to this seat later: "
                f"--game {game_id} --token {me.token}"
            )
        view = await me.get_view(game_id)
        if view.seat >= 0 and view.seats[view.seat].robot:
            # Back after a robot took the seat: it is the player's again.
            try:
                view = await me.reclaim_seat(game_id)
            except RuleRejected as exc:
                if exc.reason != "SEAT_NOT_HELD":  # another device of theirs took it back
                    raise
            console.print("A robot played your seat while you were away; it is yours again.")
        if view.status == pb.GAME_STATUS_WAITING:
            free = [s.seat for s in view.seats if not s.taken]
            people = free[: max(0, args.humans - 1)] if args.new else []
            if level != "none":
                await _seat_robots(app, game_id, free[len(people) :], console, view.table)
            for seat in people:
                console.print(
                    f"Seat {seat} waits for a person: tranca play --address {args.address} "
                    f"--api-key KEY --game {game_id} --seat {seat}"
                )
            if any(not s.taken for s in (await me.get_view(game_id)).seats):
                console.print("Waiting for every seat to be taken...")
        table_ui = Table(console, me, game_id, LineReader())
        final = await play_seat(
            me,
            game_id,
            table_ui.choose,
            on_update=table_ui.on_update,
            on_rejected=table_ui.on_rejected,
        )
        if final.status != pb.GAME_STATUS_FINISHED and table_ui.resigned:
            final = await me.get_view(game_id)
        table_ui.note(final)
        if final.status == pb.GAME_STATUS_FINISHED:
            if not table_ui.shown_end:
                console.print(render_match_end(final))
        else:
            console.print(_away_line(final, game_id, me.token or "", args.address))
    return 0


def play_main(argv: list[str] | None = None) -> int:
    """``tranca play``: the terminal table."""
    parser = play_parser()
    args = parser.parse_args(argv)
    _check_connection_args(parser, args)
    if args.new == bool(args.game):
        parser.error("give either --new or --game ID")
    if not args.api_key and not args.token:
        parser.error("give --api-key (or --token to sit at a seat you already hold)")
    if args.new and (not args.api_key or args.token):
        parser.error("--new needs --api-key (and no --token)")
    if args.bots not in (None, "none") and not args.api_key:
        parser.error(f"--bots {args.bots} needs --api-key (robots are seated with the app's key)")
    if args.new and args.robot_grace < 0:
        parser.error(f"argument --robot-grace: seconds, not {args.robot_grace}")
    if args.new and args.robot_grace == 0 and args.bots != "none":
        parser.error("--robot-grace 0 is a table without robots: give --bots none too")
    try:
        from rich.console import Console
    except ImportError:
        return _refused("tranca play", f"the terminal table needs rich: {TABLE_EXTRA}")
    console = Console(highlight=False)
    try:
        return asyncio.run(_play(args, console))
    except (TrancaError, OSError) as exc:  # OSError: a certificate file not read
        return _refused("tranca play", exc)
    except KeyboardInterrupt:
        console.print("\nBye.")
        return 130


def main(argv: list[str] | None = None) -> int:
    """``python -m tranca_client bot|play ...``"""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bot"]:
        return bot_main(argv[1:])
    if argv[:1] == ["play"]:
        return play_main(argv[1:])
    print("usage: python -m tranca_client {bot,play} ... (--help for each)", file=sys.stderr)
    return 2
