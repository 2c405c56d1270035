"""Webhook deliveries: how many a second one server delivers, and how long an event
waits from its write to its receipt, on SQLite and PostgreSQL, against a local HTTP
receiver that answers 200 at once (the server's side is what is measured).

Two figures per database:

- throughput: ``--backlog`` events written at once, then the time until the
  receiver has every one: deliveries per second;
- delay: events written at a steady ``--rate`` a second for ``--seconds``, each
  one's delay from its write (the row's ``created_at``) to its receipt: p50, p99.

Results go to ``OUT/webhooks.json`` and ``.md`` with the machine's description.

    python bench/webhook_bench.py --out bench/results [--backlog 2000] [--rate 100] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from tranca.server import Config, configure_logging, start
from tranca.store import migrate
from tranca.store.notifications_store import NotificationsStore
from tranca.table.events import Event, EventKind

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
    from bench.service_quick import _pg_drop, _pg_fresh
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine
    from service_quick import _pg_drop, _pg_fresh


class Receiver:
    """A minimal HTTP/1.1 receiver on loopback: 200 to everything, each event's
    receipt time kept (epoch ms) by its id."""

    def __init__(self) -> None:
        self.received: dict[int, tuple[int, int]] = {}  # event id -> (created, received)
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = json.loads(await reader.readexactly(length))
                now = int(time.time() * 1000)
                data = body["data"]
                self.received.setdefault(data["event_id"], (data["created_at_ms"], now))
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def stop(self) -> None:
        self._server.close()


async def wait_for(receiver: Receiver, count: int, limit: float) -> None:
    started = time.monotonic()
    while len(receiver.received) < count:
        if time.monotonic() - started > limit:
            raise SystemExit(f"only {len(receiver.received)} of {count} events arrived")
        await asyncio.sleep(0.01)


async def run(url: str, backlog: int, rate: float, seconds: float) -> dict[str, float]:
    await asyncio.to_thread(migrate.upgrade, url)
    server = await start(
        Config(
            port=0,
            metrics_port=0,
            database_url=url,
            sweep_interval=0,
            webhook_interval=0.02,
            # The receiver is on loopback, over plain http.
            outbound_allow="127.0.0.1/32",
            outbound_allow_http=True,
        )
    )
    receiver = Receiver()
    await receiver.start()
    try:
        app_id, _ = await server.store.create_app("bench")
        notes = NotificationsStore(server.store)
        await notes.set_webhook(
            app_id, f"http://127.0.0.1:{receiver.port}/hook", "whsec_" + "A" * 44
        )

        def events(n: int) -> list[Event]:
            return [
                Event(f"player-{i % 50}", EventKind.YOUR_TURN, uuid.uuid4().hex, {"seat": 0})
                for i in range(n)
            ]

        # Throughput: a backlog written at once, in batches of 100.
        started = time.perf_counter()
        for _ in range(backlog // 100):
            await notes.publish_events(app_id, events(100))
        await wait_for(receiver, backlog, 300)
        elapsed = time.perf_counter() - started
        throughput = backlog / elapsed
        # Delay: a steady rate, one event at a time.
        receiver.received.clear()
        sent = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            await notes.publish_events(app_id, events(1))
            sent += 1
            ahead = sent / rate - (time.perf_counter() - started)
            if ahead > 0:
                await asyncio.sleep(ahead)
        await wait_for(receiver, sent, 120)
        delays = sorted(got - created for created, got in receiver.received.values())
        q = statistics.quantiles(delays, n=100)
        return {
            "backlog": backlog,
            "deliveries_per_second": round(throughput, 1),
            "steady_rate": round(sent / seconds, 1),
            "steady_events": sent,
            "delay_p50_ms": round(q[49], 1),
            "delay_p99_ms": round(q[98], 1),
            "delay_max_ms": float(delays[-1]),
        }
    finally:
        await receiver.stop()
        await server.stop(0.5)


async def main_async(args: argparse.Namespace) -> dict[str, object]:
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        results["sqlite"] = await run(url, args.backlog, args.rate, args.seconds)
    try:
        pg = await _pg_fresh()
    except OSError as exc:
        results["postgresql"] = {"skipped": f"PostgreSQL unreachable: {exc}"}
        return results
    try:
        results["postgresql"] = await run(pg, args.backlog, args.rate, args.seconds)
    finally:
        await _pg_drop(pg)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--backlog", type=int, default=2000, help="events written at once")
    parser.add_argument("--rate", type=float, default=100, help="events a second, steady")
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    configure_logging("json", "warning")
    results = asyncio.run(main_async(args))
    report = {
        "machine": machine(),
        "settings": {"backlog": args.backlog, "rate": args.rate, "seconds": args.seconds},
        "results": results,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "webhooks.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        "# Webhook deliveries",
        "",
        f"Machine: {report['machine']['cpu']}, {report['machine']['cores']} cores, "
        f"Python {report['machine']['python']}, commit {report['machine']['commit']}, "
        f"{report['machine']['date']}.",
        "",
        f"One server, one app, a local receiver answering 200 at once. Throughput: "
        f"{args.backlog} events written at once. Delay (from the event's write to its "
        f"receipt): {args.rate:g} events a second for {args.seconds:g} s.",
        "",
        "| database | deliveries/s | delay p50 ms | delay p99 ms | delay max ms |",
        "|---|---|---|---|---|",
    ]
    for db, r in results.items():
        if isinstance(r, dict) and "deliveries_per_second" in r:
            lines.append(
                f"| {db} | {r['deliveries_per_second']} | {r['delay_p50_ms']} | "
                f"{r['delay_p99_ms']} | {r['delay_max_ms']} |"
            )
        else:
            lines.append(f"| {db} | {r} | | | |")
    (out / "webhooks.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
