"""The server's move throughput while its robots think.

One in-process server on SQLite; ``--games`` 2-player games played by clients
through the gRPC API (as ``service_quick.py`` plays them) for ``--seconds``, three
times: with no robots' games; beside ``--robot-games`` games whose four seats are
the server's robots at the greedy level (on the event loop); and beside as many
at the expert level (``--robot-level expert``: the search in ``--robot-workers``
worker processes, ``--robot-ms`` a decision). Reported: the clients' moves per
second and SubmitMove p50/p99 in each run, as a ratio to the run without robots,
and the robots' own moves. Results: ``OUT/robots.json`` and ``OUT/robots.md``.

    python bench/robots_bench.py --out bench/results [--games 4] [--robot-games 4]
        [--seconds 15] [--robot-ms 200] [--robot-workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc

from tranca.server import Config, configure_logging, start
from tranca.store import migrate
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine


async def run(url: str, args: argparse.Namespace, level: str | None) -> dict[str, Any]:
    await asyncio.to_thread(migrate.upgrade, url)
    server = await start(
        Config(
            port=0,
            metrics_port=0,
            database_url=url,
            rate_per_token=0,
            rate_per_app=0,
            sweep_interval=0.05,
            robot_level=level or "greedy",
            robot_ms=args.robot_ms,
            robot_iterations=args.robot_iterations,
            robot_workers=args.robot_workers,
        )
    )
    _, key = await server.store.create_app("bench")
    app = (("x-api-key", key),)
    latencies: list[float] = []
    deadline = 0.0
    robot_games: list[str] = []

    async def robots_game(stub: pb_grpc.GameServiceAsyncStub, seed: int) -> str:
        game = (
            await stub.CreateGame(
                pb.CreateGameRequest(
                    rules=pb.Rules(preset="tranca-000"),
                    players=4,
                    seed=seed,
                    table=pb.TableOptions(robot_grace_seconds=5),
                ),
                metadata=app,
            )
        ).game
        for seat in range(4):
            await stub.JoinGame(
                pb.JoinGameRequest(game_id=game.game_id, seat=seat, robot=True), metadata=app
            )
        await stub.StartGame(pb.StartGameRequest(game_id=game.game_id), metadata=app)
        return str(game.game_id)

    async def one_game(stub: pb_grpc.GameServiceAsyncStub, rng: random.Random) -> None:
        while time.perf_counter() < deadline:
            game = (
                await stub.CreateGame(
                    pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
                    metadata=app,
                )
            ).game
            tokens = [
                (
                    await stub.JoinGame(
                        pb.JoinGameRequest(game_id=game.game_id, seat=s), metadata=app
                    )
                ).player_token
                for s in range(2)
            ]
            view = (
                await stub.StartGame(pb.StartGameRequest(game_id=game.game_id), metadata=app)
            ).view
            while view.status == pb.GAME_STATUS_PLAYING and time.perf_counter() < deadline:
                md = (("authorization", f"Bearer {tokens[view.turn]}"),)
                legal = await stub.ListLegalMoves(
                    pb.ListLegalMovesRequest(game_id=game.game_id), metadata=md
                )
                moves = list(legal.moves)
                plain = [m for m in moves if m.WhichOneof("kind") in ("discard", "draw")]
                move = rng.choice(plain if plain and rng.random() < 0.7 else moves)
                t0 = time.perf_counter()
                try:
                    r = await stub.SubmitMove(
                        pb.SubmitMoveRequest(
                            game_id=game.game_id,
                            expected_version=legal.version,
                            request_id=uuid.uuid4().hex,
                            move=move,
                        ),
                        metadata=md,
                    )
                    latencies.append(time.perf_counter() - t0)
                    view = r.view
                except grpc.aio.AioRpcError:
                    view = (
                        await stub.GetView(pb.GetViewRequest(game_id=game.game_id), metadata=md)
                    ).view

    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = pb_grpc.GameServiceStub(channel)
        if level is not None:
            robot_games += [await robots_game(stub, 10 + i) for i in range(args.robot_games)]
            # Until the robots play (the expert's worker processes take a while to
            # start on a busy machine): the run measures robots that think.
            start_versions = [(await server.store.game(g)).version for g in robot_games]
            waited = time.perf_counter()
            while time.perf_counter() - waited < 120:
                now = [(await server.store.game(g)).version for g in robot_games]
                if sum(now) - sum(start_versions) >= 4 * len(robot_games):
                    break
                await asyncio.sleep(0.5)
        deadline = time.perf_counter() + 2.0  # warm-up (the expert's workers start)
        await asyncio.gather(*(one_game(stub, random.Random(i)) for i in range(args.games)))
        latencies.clear()
        before = [(await server.store.game(g)).version for g in robot_games]
        started = time.perf_counter()
        deadline = started + args.seconds
        await asyncio.gather(*(one_game(stub, random.Random(100 + i)) for i in range(args.games)))
        elapsed = time.perf_counter() - started
        after = [(await server.store.game(g)).version for g in robot_games]
    await server.stop(1)
    q = statistics.quantiles(latencies, n=100)
    return {
        "robots": level or "none",
        "robot_games": len(robot_games),
        "robot_moves": sum(a - b for a, b in zip(after, before, strict=True)),
        "moves": len(latencies),
        "seconds": round(elapsed, 2),
        "moves_per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": round(q[49] * 1000, 2),
        "p99_ms": round(q[98] * 1000, 2),
    }


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    out = []
    for level in (None, "greedy", "expert"):
        with tempfile.TemporaryDirectory() as tmp:
            out.append(await run(f"sqlite:///{tmp}/bench.db", args, level))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--robot-games", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--robot-ms", type=int, default=200)
    parser.add_argument("--robot-iterations", type=int, default=400)
    parser.add_argument("--robot-workers", type=int, default=1)
    args = parser.parse_args()
    configure_logging("json", "warning")
    runs = asyncio.run(main_async(args))
    base = runs[0]
    for r in runs:
        r["moves_per_second_ratio"] = round(r["moves_per_second"] / base["moves_per_second"], 3)
        r["p99_ratio"] = round(r["p99_ms"] / base["p99_ms"], 3)
    m = machine()
    report = {"machine": m, "args": vars(args), "runs": runs}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "robots.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        "# Move throughput while the server's robots think",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores (shared with other work), Python "
        f"{m['python']}; commit {m['commit']}; {m['date']}. One in-process server on "
        f"SQLite; {args.games} two-player games played by clients through the gRPC API "
        f"for {args.seconds:g} s, beside {args.robot_games} four-seat games of the "
        f"server's robots (greedy on the event loop; expert in {args.robot_workers} "
        f"worker process(es), {args.robot_ms} ms / {args.robot_iterations} playouts a "
        "decision). Ratios are to the run without robots, in the same run of this script.",
        "",
        f"Command: `python bench/robots_bench.py --games {args.games} --robot-games "
        f"{args.robot_games} --seconds {args.seconds:g} --robot-ms {args.robot_ms} "
        f"--robot-workers {args.robot_workers}`",
        "",
        "| robots | clients' moves | moves/s | ratio | SubmitMove p50 ms | p99 ms | p99 ratio "
        "| robots' moves |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        lines.append(
            f"| {r['robots']} | {r['moves']} | {r['moves_per_second']} | "
            f"{r['moves_per_second_ratio']} | {r['p50_ms']} | {r['p99_ms']} | {r['p99_ratio']} | "
            f"{r['robot_moves']} |"
        )
    (out / "robots.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
