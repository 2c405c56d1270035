"""Quick play's matchmaker: how fast it seats a queue, and how long a player waits.

For each database (a fresh SQLite file, a fresh PostgreSQL database), a server is
started in this process with its matchmaker off, and:

1. **Draining a queue**: PLAYERS players (rated from a spread of skills: mu drawn
   around 25) ask for a table through the API (2- and 4-player practice tables,
   parties of partners, 2-player rated tables), then the matchmaker's passes run
   back to back until no table is made: tickets matched per second of passes, and
   tables per second.
2. **The same tables through the API**, in the same run: a table created, joined
   seat by seat and started with the app's key (CreateGame, JoinGame per seat,
   StartGame), one after another: tables per second. The ratio of the two says
   what a matched table costs beside one an app builds itself.
3. **Waiting in a steady stream**: the matchmaker runs every PASS_INTERVAL seconds
   while players arrive at ARRIVALS a second for SECONDS seconds (the queue never
   empties: rated players wait for a close enough rating): the time from asking to
   being matched, p50 and p99, as a ratio to the pass interval.

Writes ``OUT/matchmaking.json`` and ``.md`` with the machine's description.

    python bench/matchmaking_bench.py --out bench/results [--players 1000]
        [--arrivals 50] [--seconds 20] [--pass-interval 0.5]
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

import asyncpg
import grpc
from sqlalchemy import insert

from tranca.server import Config, Running, configure_logging, start
from tranca.store import migrate
from tranca.store.models import PlayerRating
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine

PG = "postgresql://postgres@127.0.0.1:5432/test"
# The mix of a queue: (players at the table, rated, party size, share of tickets).
MIX = [(2, False, 1, 0.4), (4, False, 1, 0.3), (4, False, 2, 0.1), (2, True, 1, 0.2)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


class Bench:
    def __init__(self, running: Running, key: str, rng: random.Random) -> None:
        self.running = running
        self.md = (("x-api-key", key),)
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
        self.quick = qpb_grpc.QuickPlayServiceStub(self.channel)
        self.games = pb_grpc.GameServiceStub(self.channel)
        self.rng = rng
        self.next_player = 0

    async def seed_ratings(self, app_id: str, players: int) -> None:
        rows = [
            {
                "app_id": app_id,
                "player_id": f"p{i}",
                "mu": self.rng.gauss(25.0, 4.0),
                "sigma": 3.0,
                "games": 10,
                "wins": 5,
            }
            for i in range(players)
        ]
        async with self.running.store.writing() as conn:
            await conn.execute(insert(PlayerRating), rows)

    def kind(self) -> tuple[int, bool, int]:
        """A ticket's (players, rated, party size), drawn from MIX."""
        r = self.rng.random()
        for players, rated, party, share in MIX:
            if r < share:
                return players, rated, party
            r -= share
        return MIX[-1][:3]

    async def ask(self) -> str:
        players, rated, party = self.kind()
        ids = [f"p{self.next_player + i}" for i in range(party)]
        self.next_player += party
        done = await self.quick.AskQuickPlay(
            qpb.AskQuickPlayRequest(
                preset="tranca-000", players=players, competitive=rated, player_ids=ids
            ),
            metadata=self.md,
        )
        return str(done.ticket.ticket_id)

    async def drain(self, players: int) -> dict[str, float]:
        asked = 0
        while self.next_player < players:
            await self.ask()
            asked += 1
        matchmaker = self.running.matchmaker
        assert matchmaker is not None
        started = time.perf_counter()
        tables = passes = 0
        while True:
            made = await matchmaker.match_once()
            passes += 1
            if not made:
                break
            tables += made
        seconds = time.perf_counter() - started
        matched = await self.count_matched()
        return {
            "tickets_asked": asked,
            "players": self.next_player,
            "tickets_matched": matched,
            "tables": tables,
            "passes": passes,
            "seconds": round(seconds, 3),
            "tickets_per_second": round(matched / seconds, 1),
            "tables_per_second": round(tables / seconds, 1),
        }

    async def count_matched(self) -> int:
        from sqlalchemy import func, select

        from tranca.store.models import MatchTicket

        async with self.running.store.reading() as conn:
            q = select(func.count()).where(MatchTicket.status == "matched")
            return int((await conn.execute(q)).scalar_one())

    async def api_tables(self, count: int) -> dict[str, float]:
        started = time.perf_counter()
        for _ in range(count):
            created = await self.games.CreateGame(
                pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
                metadata=self.md,
            )
            gid = created.game.game_id
            for seat in range(2):
                await self.games.JoinGame(
                    pb.JoinGameRequest(game_id=gid, seat=seat, player_id=uuid.uuid4().hex),
                    metadata=self.md,
                )
            await self.games.StartGame(pb.StartGameRequest(game_id=gid), metadata=self.md)
        seconds = time.perf_counter() - started
        return {
            "tables": count,
            "seconds": round(seconds, 3),
            "tables_per_second": round(count / seconds, 1),
        }

    async def steady(self, arrivals: float, seconds: float, interval: float) -> dict[str, float]:
        matchmaker = self.running.matchmaker
        assert matchmaker is not None
        runner = asyncio.create_task(matchmaker.run(interval))
        asked: list[str] = []
        started = time.perf_counter()
        try:
            while time.perf_counter() - started < seconds:
                asked.append(await self.ask())
                await asyncio.sleep(self.rng.expovariate(arrivals))
            await asyncio.sleep(3 * interval)  # the last arrivals' passes
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
        waits: list[float] = []
        waiting = 0
        for ticket_id in asked:
            got = await self.quick.GetTicket(
                qpb.GetTicketRequest(ticket_id=ticket_id), metadata=self.md
            )
            t = got.ticket
            if t.status == qpb.TICKET_STATUS_MATCHED:
                waits.append((t.ended_at_ms - t.created_at_ms) / 1000)
            else:
                waiting += 1
        p50, p99 = percentile(waits, 0.5), percentile(waits, 0.99)
        return {
            "arrivals_per_second": arrivals,
            # What arrived: each arrival waits for its AskQuickPlay's answer too.
            "arrived_per_second": round(len(asked) / seconds, 1),
            "seconds": seconds,
            "pass_interval": interval,
            "tickets": len(asked),
            "matched": len(waits),
            "still_waiting": waiting,
            "wait_p50_s": round(p50, 3),
            "wait_p99_s": round(p99, 3),
            "wait_mean_s": round(statistics.fmean(waits), 3) if waits else 0.0,
            "p50_per_interval": round(p50 / interval, 2),
            "p99_per_interval": round(p99 / interval, 2),
        }


async def run_one(url: str, args: argparse.Namespace) -> dict[str, Any]:
    await asyncio.to_thread(migrate.upgrade, url)
    running = await start(
        Config(
            host="127.0.0.1",
            port=0,
            metrics_port=0,
            database_url=url,
            rate_per_token=0,
            rate_per_app=0,
            sweep_interval=0,
            match_interval=0,
        )
    )
    try:
        app_id, key = await running.store.create_app("bench")
        bench = Bench(running, key, random.Random(7))
        await bench.seed_ratings(app_id, args.players * 4)
        drained = await bench.drain(args.players)
        api = await bench.api_tables(args.api_tables)
        steady = await bench.steady(args.arrivals, args.seconds, args.pass_interval)
        await bench.channel.close()
    finally:
        await running.stop(0.5)
    drained["ratio_to_api_tables"] = round(
        drained["tables_per_second"] / api["tables_per_second"], 2
    )
    return {"drain": drained, "api_tables": api, "steady": steady}


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out["sqlite"] = await run_one(f"sqlite:///{tmp}/bench.db", args)
    name = f"tranca_mm_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(PG)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    try:
        out["postgresql"] = await run_one(f"postgresql://postgres@127.0.0.1:5432/{name}", args)
    finally:
        admin = await asyncpg.connect(PG)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--api-tables", type=int, default=100)
    parser.add_argument("--arrivals", type=float, default=50.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--pass-interval", type=float, default=0.5)
    args = parser.parse_args()
    configure_logging("json", "warning")
    results = asyncio.run(measure(args))
    report = {"machine": machine(), "argv": vars(args), "results": results}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "matchmaking.json").write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
    lines = [
        "# Quick play's matchmaker",
        "",
        f"{m['cpu']}, {m['cores']} cores, Python {m['python']}, commit {m['commit']}, {m['date']};"
        f" load average before the run {m['load_average']}.",
        "",
        f"`python bench/matchmaking_bench.py --players {args.players} --arrivals {args.arrivals:g}"
        f" --seconds {args.seconds:g} --pass-interval {args.pass_interval:g}`"
        " (server and client in one process; bench/matchmaking_bench.py says how).",
        "",
        "| database | queue of players | tickets matched/s | tables/s"
        " | vs tables built through the API | arrivals/s | steady wait p50 | p99"
        " | p99 / pass interval |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for db, r in results.items():
        d, s = r["drain"], r["steady"]
        lines.append(
            f"| {db} | {d['players']} | {d['tickets_per_second']:,} | {d['tables_per_second']:,} |"
            f" {d['ratio_to_api_tables']}× ({r['api_tables']['tables_per_second']:,}/s) |"
            f" {s['arrived_per_second']} | {s['wait_p50_s']} s | {s['wait_p99_s']} s |"
            f" {s['p99_per_interval']} |"
        )
    (out / "matchmaking.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
