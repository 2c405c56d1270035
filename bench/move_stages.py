"""Where the time of one move goes: each stage of the move path, timed on its own.

One game at a time, one move at a time (no concurrency, so no queueing in the
figures), on SQLite and on PostgreSQL. The stages are the server's own functions,
called in the order SubmitMove calls them:

    auth      the token's hash and the rate limiter
    load      the one read: seat and snapshot, joined on the token
    decode    snapshot text to GameState
    apply     validate and apply the move (the rules engine)
    encode    GameState and the log entry to text
    save      the one write: conditional update, log row, notification
    view      the caller's view and legal moves, as protobuf, serialised
    log       the structured log line of the move

Then the whole RPC through gRPC on loopback (client and server in this process)
and a trivial echo RPC the same way; the RPC's CPU time less the stages' is what
the transport and the framework cost. CPU time is the process's (both sides for the
RPCs), wall time includes waiting for the database.

    python bench/move_stages.py --out bench/results [--moves 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import grpc
import structlog

from tranca.api.convert import extend_moves, view_to_pb
from tranca.server import Config, configure_logging, start
from tranca.services.credentials import hash_secret
from tranca.services.limits import RateLimiter
from tranca.services.move_values import move_values
from tranca.services.moves import now_ms
from tranca.store import migrate
from tranca.store.codec import action_text, state_from_text, state_text
from tranca.store.move_path import MoveWrite
from tranca.table.game import Action, play_action
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc
from tranca_rules.engine import legal_moves

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.ceilings import pg_database
    from bench.engine_bench import machine
else:  # run as a script: bench/ is on sys.path
    from ceilings import pg_database
    from engine_bench import machine

T = TypeVar("T")
STAGES = ["auth", "load", "decode", "apply", "encode", "save", "view", "log"]


class Timer:
    """Wall and CPU time per stage, in microseconds per call."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = defaultdict(list)
        self.cpu: dict[str, list[float]] = defaultdict(list)

    def sync(self, name: str, fn: Callable[[], T]) -> T:
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        self.cpu[name].append((time.process_time() - c) * 1e6)
        self.wall[name].append((time.perf_counter() - w) * 1e6)
        return out

    async def run(self, name: str, fn: Callable[[], Awaitable[T]]) -> T:
        w, c = time.perf_counter(), time.process_time()
        out = await fn()
        self.cpu[name].append((time.process_time() - c) * 1e6)
        self.wall[name].append((time.perf_counter() - w) * 1e6)
        return out

    def summary(self) -> dict[str, dict[str, float]]:
        return {
            name: {
                "calls": len(self.wall[name]),
                "wall_us_median": round(statistics.median(self.wall[name]), 1),
                "cpu_us_mean": round(statistics.fmean(self.cpu[name]), 1),
            }
            for name in self.wall
        }


async def _new_game(
    stub: pb_grpc.GameServiceAsyncStub, app: tuple[tuple[str, str], ...]
) -> tuple[str, list[str]]:
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(
                preset="tranca-000", overrides={"target_score": pb.KnobValue(int_value=0)}
            ),
            players=2,
        ),
        metadata=app,
    )
    gid = created.game.game_id
    tokens = []
    for seat in range(2):
        joined = await stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=seat), metadata=app)
        tokens.append(joined.player_token)
    await stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=app)
    return gid, tokens


async def measure(url: str, moves: int, seed: int) -> dict[str, Any]:
    await asyncio.to_thread(migrate.upgrade, url)
    server = await start(Config(port=0, metrics_port=0, database_url=url, log_format="json"))
    store = server.store
    _, key = await store.create_app("stages")
    app = (("x-api-key", key),)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    stub = pb_grpc.GameServiceStub(channel)
    rng = random.Random(seed)
    limiter = RateLimiter(1e9, 1e9)
    log = structlog.get_logger("tranca.api")
    stages = Timer()
    try:
        # The stages, called directly, in SubmitMove's order.
        done = 0
        while done < moves:
            gid, tokens = await _new_game(stub, app)
            for _ in range(3000):
                probe = await store.seat_game(tokens[0])
                assert probe is not None
                deal = probe.state.deal
                if probe.state.status != "playing" or deal is None or done >= moves:
                    break
                token = tokens[deal.turn]
                h = stages.sync("auth", partial(_auth, token, limiter))
                row = await stages.run("load", partial(store.move_path.seat_game, h, now_ms()))
                assert row is not None
                state = stages.sync("decode", partial(state_from_text, row.snapshot, row.setup))
                seat = state.deal.turn if state.deal else 0
                move = rng.choice(legal_moves(state.deal)) if state.deal else None
                assert move is not None
                action = play_action(seat, move)
                stages.sync("apply", partial(_apply, state, action, row.version + 1))
                snapshot, logged = stages.sync("encode", partial(_encode, state, action))
                write = MoveWrite(
                    gid,
                    row.version,
                    state.status,
                    snapshot,
                    seat,
                    logged,
                    uuid.uuid4().hex,
                    "bench",
                )
                assert await stages.run("save", partial(store.move_path.write_move, write))
                stages.sync("view", partial(_answer, gid, row.version + 1, state, seat))
                stages.sync(
                    "log",
                    partial(log.info, "move", game_id=gid, version=row.version + 1, seat=seat),
                )
                done += 1
        # The whole RPC, and an echo through the same server's transport.
        rpc = Timer()
        done = 0
        while done < moves:
            gid, tokens = await _new_game(stub, app)
            view = (await stub.GetView(pb.GetViewRequest(game_id=gid), metadata=app)).view
            legal: list[pb.Move] = []
            while view.status == pb.GAME_STATUS_PLAYING and done < moves:
                md = (("authorization", f"Bearer {tokens[view.turn]}"),)
                if not legal:
                    legal = list(
                        (
                            await stub.ListLegalMoves(
                                pb.ListLegalMovesRequest(game_id=gid), metadata=md
                            )
                        ).moves
                    )
                request = pb.SubmitMoveRequest(
                    game_id=gid,
                    expected_version=view.version,
                    request_id=uuid.uuid4().hex,
                    move=rng.choice(legal),
                    include_legal_moves=True,
                )
                answer = await rpc.run("SubmitMove", partial(stub.SubmitMove, request, metadata=md))
                view, legal = answer.view, list(answer.legal_moves)
                done += 1
        health = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        hstub = health_pb2_grpc.HealthStub(health)
        for _ in range(moves):
            await rpc.run(
                "echo (Health.Check)", lambda: hstub.Check(health_pb2.HealthCheckRequest())
            )
        await health.close()
    finally:
        await channel.close()
        await server.stop(0.5)
    return {"stages": stages.summary(), "rpcs": rpc.summary()}


def _encode(state: Any, action: Action) -> tuple[str, str]:
    return state_text(state), action_text(action)


def _answer(game_id: str, version: int, state: Any, seat: int) -> bytes:
    """SubmitMove's answer with include_legal_moves, as the servicer builds it."""
    out = pb.SubmitMoveResponse(version=version, view=view_to_pb(game_id, version, state, seat))
    deal = state.deal
    if state.status == "playing" and deal is not None and deal.turn == seat:
        extend_moves(out.legal_moves, move_values(legal_moves(deal)))
    return out.SerializeToString()


def _auth(token: str, limiter: RateLimiter) -> str:
    h = hash_secret(token)
    limiter.take(h)
    return h


def _apply(state: Any, action: Action, version: int) -> None:
    from tranca.table.game import apply_action

    apply_action(state, action, version)


def _markdown(results: dict[str, Any]) -> str:
    lines = [
        "# Where the time of one move goes",
        "",
        f"Machine: {results['machine']}",
        "",
        f"Command: `{results['command']}`",
        "",
    ]
    for db, r in results["databases"].items():
        lines += [
            f"## {db}",
            "",
            "| stage | CPU µs (mean) | wall µs (median) |",
            "|---|---:|---:|",
        ]
        total_cpu = 0.0
        for name in STAGES:
            s = r["stages"][name]
            total_cpu += s["cpu_us_mean"]
            lines.append(f"| {name} | {s['cpu_us_mean']} | {s['wall_us_median']} |")
        lines.append(f"| **stages, sum** | {total_cpu:.1f} | |")
        for name, s in r["rpcs"].items():
            lines.append(
                f"| whole RPC: {name} (client+server) "
                f"| {s['cpu_us_mean']} | {s['wall_us_median']} |"
            )
        lines.append("")
    return "\n".join(lines) + "\n"


def measure_all(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"machine": machine(), "command": args.command, "databases": {}}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'stages.db'}"
        results["databases"]["SQLite"] = asyncio.run(measure(url, args.moves, args.seed))
    if not args.no_postgres:
        with pg_database(prefix="tranca_stages") as url:
            results["databases"]["PostgreSQL"] = asyncio.run(measure(url, args.moves, args.seed))
    return results


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", default="bench/results")
    p.add_argument("--moves", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-postgres", action="store_true")
    args = p.parse_args()
    args.command = f"python bench/move_stages.py --moves {args.moves}"
    # The move's log line is rendered as the server renders it, then dropped.
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process
    configure_logging("json")
    results = measure_all(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "move_stages.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "move_stages.md").write_text(_markdown(results))
    print(_markdown(results))


if __name__ == "__main__":
    main()
