"""Why a PostgreSQL server process keeps two connection pools: the move path's own
(``store/postgres.py``'s ``ConnectionPool``) beside SQLAlchemy's, which serves every
other call. One read of a game's row, the move path's kind of query, timed through
each way of getting a connection, in the same run, on a throwaway database.

Writes ``OUT/pool.json`` and ``.md`` with the machine's description. PostgreSQL on
127.0.0.1:5432 (database ``test``, trust auth).

    python bench/pool_bench.py --out bench/results [--reads 3000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import asyncpg
from sqlalchemy.ext.asyncio import create_async_engine

from tranca.store import migrate
from tranca.store.database import make_engine
from tranca.store.move_path import GAME_SQL
from tranca.store.postgres import PostgresMovePath

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine

PG = "postgresql://postgres@127.0.0.1:5432/test"


async def measure(reads: int, rounds: int) -> dict[str, dict[str, float]]:
    name = f"tranca_pool_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(PG)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    sql = GAME_SQL.format("$1")
    await asyncio.to_thread(migrate.upgrade, url)
    service = make_engine(url)  # the service's SQLAlchemy engine, as configured
    lean = create_async_engine(url, pool_size=4, pool_pre_ping=False, pool_reset_on_return=None)
    direct = PostgresMovePath(service.url, 4, 5000)

    async def through_direct() -> None:
        await direct._fetchrow(sql, "none")

    async def through_service_engine() -> None:
        async with service.connect() as conn:
            await conn.exec_driver_sql(sql, ("none",))

    async def through_lean_engine() -> None:
        async with lean.connect() as conn:
            await conn.exec_driver_sql(sql, ("none",))

    async def through_raw_connection() -> None:
        fairy = await lean.raw_connection()
        try:
            driver = fairy.driver_connection
            assert driver is not None
            await driver.fetchrow(sql, "none")
        finally:
            fairy.close()

    ways: dict[str, Callable[[], Awaitable[None]]] = {
        "the move path's pool (asyncpg, fetchrow)": through_direct,
        "SQLAlchemy as the service configures it (pre-ping, BEGIN/ROLLBACK)": (
            through_service_engine
        ),
        "SQLAlchemy without pre-ping or reset": through_lean_engine,
        "SQLAlchemy's pool, the driver's connection (raw_connection)": through_raw_connection,
    }
    best: dict[str, dict[str, float]] = {}
    try:
        for way in ways.values():
            for _ in range(200):  # warm: connections opened, statements prepared
                await way()
        for _ in range(rounds):
            for label, way in ways.items():
                cpu0, wall0 = time.process_time(), time.perf_counter()
                for _ in range(reads):
                    await way()
                cpu = (time.process_time() - cpu0) / reads * 1e6
                wall = (time.perf_counter() - wall0) / reads * 1e6
                got = best.setdefault(label, {"cpu_us": cpu, "wall_us": wall})
                got["cpu_us"], got["wall_us"] = min(got["cpu_us"], cpu), min(got["wall_us"], wall)
    finally:
        await direct.close()
        await service.dispose()
        await lean.dispose()
        admin = await asyncpg.connect(PG)
        await admin.execute(f'DROP DATABASE "{name}"')
        await admin.close()
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--reads", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    best = asyncio.run(measure(args.reads, args.rounds))
    report = {"machine": machine(), "reads": args.reads, "rounds": args.rounds, "ways": best}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "pool.json").write_text(json.dumps(report, indent=2) + "\n")
    base = next(iter(best.values()))["cpu_us"]
    m = report["machine"]
    lines = [
        "# One read of a game's row, by way of getting a connection (PostgreSQL)",
        "",
        f"Best of {args.rounds} rounds of {args.reads:,} reads, client CPU and wall time per "
        f"read. Machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}; commit "
        f"{m['commit']}; {m['date']}.",
        "",
        "| way | CPU µs | wall µs | CPU / the move path's |",
        "|---|---|---|---|",
        *(
            f"| {label} | {v['cpu_us']:.0f} | {v['wall_us']:.0f} | {v['cpu_us'] / base:.1f} |"
            for label, v in best.items()
        ),
    ]
    (out / "pool.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
