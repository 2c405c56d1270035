"""Bytes per stored game and per logged move on PostgreSQL, for the capacity model
(docs/OPERATIONS.md): a fresh database, one ``tranca serve``, ``tranca loadtest``
playing new games for a while, then the tables' sizes (heap, TOAST and indexes;
the move log's partitions summed) divided by their rows.

    python bench/storage_bench.py --out bench/results [--seconds 20] [--games 16]

Results: ``OUT/storage.json`` and ``OUT/storage.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.engine_bench import machine  # noqa: E402

# A partitioned table's size is its partitions'; a plain table's its own.
SIZES = """
SELECT coalesce(
    (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree($1::regclass)),
    pg_total_relation_size($1::regclass))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def sizes(url: str) -> dict[str, Any]:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("VACUUM ANALYZE")
        out: dict[str, Any] = {}
        for table in ("games", "move_log", "player_tokens"):
            rows = int(await conn.fetchval(f"SELECT count(*) FROM {table}"))
            total = int(await conn.fetchval(SIZES, table))
            out[table] = {
                "rows": rows,
                "bytes": total,
                "bytes_per_row": round(total / rows) if rows else None,
            }
        return out
    finally:
        await conn.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", default="bench/results")
    p.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:5432/test")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--games", type=int, default=16)
    a = p.parse_args(argv)
    name = f"tranca_storage_{uuid.uuid4().hex[:8]}"
    url = f"{a.admin_url.rsplit('/', 1)[0]}/{name}"
    cli = [sys.executable, "-m", "tranca.cli"]

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(a.admin_url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    server = None
    try:
        subprocess.run([*cli, "migrate", "--database-url", url], check=True, capture_output=True)
        port = free_port()
        key = "storage-bench-key"
        server = subprocess.Popen(
            [
                *cli,
                *("serve", "--port", str(port), "--metrics-port", "0"),
                *("--database-url", url, "--dev-api-key", key),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        load = subprocess.run(
            [
                *cli,
                *("loadtest", "--address", f"127.0.0.1:{port}", "--api-key", key),
                *("--games", str(a.games), "--seconds", str(a.seconds), "--verify-wait", "60"),
            ],
            capture_output=True,
            text=True,
            timeout=a.seconds + 300,
        )
        report = json.loads(load.stdout)
        measured = asyncio.run(sizes(url))
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    result = {
        "machine": machine(),
        "command": shlex.join([sys.executable, *sys.argv]),
        "moves_played": report["moves"],
        "tables": measured,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "storage.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# Bytes per stored game and per logged move (PostgreSQL)",
        "",
        f"`{result['command']}`: {report['moves']} moves played by `tranca loadtest` "
        f"({a.games} games at a time, {a.seconds:g} s) on a fresh database; sizes after "
        "VACUUM ANALYZE, heap + TOAST + indexes, the move log's partitions summed.",
        "",
        "| table | rows | bytes | bytes per row |",
        "|---|---|---|---|",
    ]
    for table, t in measured.items():
        lines.append(f"| {table} | {t['rows']:,} | {t['bytes']:,} | {t['bytes_per_row']} |")
    (out / "storage.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
