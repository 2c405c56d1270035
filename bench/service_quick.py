"""A short benchmark of the service: concurrent bot games submitting moves through
the real gRPC API to an in-process server, on SQLite and on PostgreSQL.

Reports moves per second and SubmitMove latency percentiles, written to
``OUT/service_quick.json`` and ``.md`` with the machine's description. The full
load generator is a later piece of work; this is the quick figure.

    python bench/service_quick.py --out bench/results [--games 8] [--seconds 10]
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
from typing import TYPE_CHECKING

import grpc

from tranca.server import Config, configure_logging, start
from tranca.store import migrate
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine

PG = "postgresql://postgres@127.0.0.1:5432/test"


async def _pg_fresh() -> str:
    import asyncpg

    name = f"tranca_bench_{uuid.uuid4().hex[:8]}"
    conn = await asyncpg.connect(PG)
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    return PG.rsplit("/", 1)[0] + "/" + name


async def _pg_drop(url: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG)
    await conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')
    await conn.close()


async def run(url: str, games: int, seconds: float) -> dict[str, float | dict[str, int]]:
    await asyncio.to_thread(migrate.upgrade, url)
    server = await start(Config(port=0, metrics_port=0, database_url=url))
    _, key = await server.store.create_app("bench")
    app = (("x-api-key", key),)
    latencies: list[float] = []
    errors: dict[str, int] = {}
    deadline = 0.0

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
                discards = [m for m in moves if m.WhichOneof("kind") in ("discard", "draw")]
                move = rng.choice(discards if discards and rng.random() < 0.7 else moves)
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
                except grpc.aio.AioRpcError as e:
                    errors[e.code().name] = errors.get(e.code().name, 0) + 1
                    view = (
                        await stub.GetView(pb.GetViewRequest(game_id=game.game_id), metadata=md)
                    ).view

    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = pb_grpc.GameServiceStub(channel)
        deadline = time.perf_counter() + 1.0  # warm-up
        await asyncio.gather(*(one_game(stub, random.Random(i)) for i in range(games)))
        latencies.clear()
        errors.clear()
        started = time.perf_counter()
        deadline = started + seconds
        await asyncio.gather(*(one_game(stub, random.Random(100 + i)) for i in range(games)))
        elapsed = time.perf_counter() - started
    await server.stop(1)
    q = statistics.quantiles(latencies, n=100)
    return {
        "moves": len(latencies),
        "seconds": round(elapsed, 2),
        "moves_per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": round(q[49] * 1000, 2),
        "p90_ms": round(q[89] * 1000, 2),
        "p99_ms": round(q[98] * 1000, 2),
        "max_ms": round(max(latencies) * 1000, 2),
        "errors": errors,
    }


async def main_async(args: argparse.Namespace) -> dict[str, object]:
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["sqlite"] = await run(f"sqlite:///{tmp}/bench.db", args.games, args.seconds)
    url = await _pg_fresh()
    try:
        results["postgresql"] = await run(url, args.games, args.seconds)
    finally:
        await _pg_drop(url)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--games", type=int, default=8, help="concurrent games")
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    # As `tranca serve` logs by default: a line per move at debug would be timed too.
    configure_logging("json", "info")
    results = asyncio.run(main_async(args))
    report = {
        "machine": machine(),
        "games": args.games,
        "seconds": args.seconds,
        "results": results,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "service_quick.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        "# Service quick benchmark",
        "",
        f"{args.games} concurrent 2-player games (tranca-000), bots submitting through the "
        f"gRPC API to one in-process server, {args.seconds:g} s after a 1 s warm-up; client "
        "and server share the machine. SubmitMove latency as seen by the client.",
        "",
        f"Machine: {report['machine']['cpu']}, {report['machine']['cores']} cores, "
        f"Python {report['machine']['python']}; commit {report['machine']['commit']}; "
        f"{report['machine']['date']}.",
        "",
        "| database | moves | moves/s | p50 ms | p90 ms | p99 ms | max ms | errors |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for db, r in results.items():
        assert isinstance(r, dict)
        lines.append(
            f"| {db} | {r['moves']} | {r['moves_per_second']} | {r['p50_ms']} | {r['p90_ms']} | "
            f"{r['p99_ms']} | {r['max_ms']} | {r['errors']} |"
        )
    (out / "service_quick.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
