"""The chat benchmark's load process (bench/chat_bench.py starts one or several):
tables of four players, each player's client on its own replica (the table's
players spread over the replicas), playing its moves and, by phase, watching the
table's chat room and writing in it.

Each player is its seat's token: its moves and its chat go to its replica (a
table's moves are played by the load generator's loop, ``LoadGenerator._play_game``,
each call sent with the mover's token to the mover's replica). A phase is one of

- ``off``: no chat at all (the players only play);
- ``idle``: every player watches the room (``WatchChat``), nobody writes;
- ``on``: every player watches and writes a message every ``--interval`` seconds on
  average (uniform in 0.5x to 1.5x: never faster than the author's limit of one a
  second after a burst, and four players stay far below a room's ten a second). The
  text starts with its send time (epoch seconds), so a reader on any replica
  computes the delivery latency, send to receipt, of each message of another seat.

The process sets up its tables, says ``ready`` on stderr, and waits for ``go
EPOCH`` on stdin: every load process then runs the same schedule from the same
instant (a warm-up, then the phases, each with a settling time left out of its
figures). Its report, one JSON document on stdout, has each phase's moves, sends,
receipts and raw latencies (seconds), for the harness to add up.

    python bench/chat_load.py --address A --address B --api-key KEY --tables 125 \\
        --first-table 0 --phases off,idle,on --phase-seconds 25
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import grpc

from tranca.tools.load_generator import LoadGenerator, OutOfTime, Refused, _Abandoned
from tranca.v1 import chat_pb2 as cpb
from tranca.v1 import chat_pb2_grpc as cpb_grpc

KINDS = ("off", "idle", "on")
PLAYERS = 4
RETIRE_AFTER = 2.0  # seconds a finished table's streams stay open for messages in flight


@dataclass
class Phase:
    kind: str
    start: float  # epoch seconds: the phase begins (streams opened or closed)
    measured_from: float  # its figures count from here (after the settling time)
    end: float
    moves: int = 0
    submit: list[float] = field(default_factory=list)  # SubmitMove latencies, s
    attempted: int = 0  # messages sent within the window, answered or not
    sent: int = 0  # of which acknowledged
    send: list[float] = field(default_factory=list)  # SendChatMessage latencies, s
    # Receipts by another seat of the messages sent within the window: delivery
    # latencies, s (a message sent near the end is counted when it arrives later).
    delivery: list[float] = field(default_factory=list)
    # Receipts with the stream's replica the author's or the other one.
    cross_replica: int = 0
    loop_lag: list[float] = field(default_factory=list)  # the event loop's lateness, s

    def report(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "seconds": round(self.end - self.measured_from, 3),
            "moves": self.moves,
            "submit": [round(v, 5) for v in self.submit],
            "attempted": self.attempted,
            "sent": self.sent,
            "send": [round(v, 5) for v in self.send],
            "delivery": [round(v, 5) for v in self.delivery],
            "cross_replica": self.cross_replica,
            "loop_lag": [round(v, 5) for v in self.loop_lag],
        }


@dataclass
class Table:
    index: int  # across every load process
    gid: str = ""
    tokens: list[str] = field(default_factory=list)
    last: list[int] = field(default_factory=lambda: [0] * PLAYERS)  # last message id read
    readers: list[asyncio.Task[None]] = field(default_factory=list)


def replica_of(table: int, seat: int, replicas: int) -> int:
    """Which replica a player's client talks to: a table's seats alternate, so half
    of each table's readers are on the author's replica and half on the other."""
    return (table + seat) % replicas


class ChatLoad(LoadGenerator):
    def __init__(self, args: argparse.Namespace) -> None:
        replicas = len(args.address)
        super().__init__(
            args.address,
            args.api_key,
            preset=args.preset,
            players=PLAYERS,
            # At least two connections per replica, a whole number per replica.
            channels=max(2, -(-args.channels // replicas)) * replicas,
            seed=args.seed + args.first_table,
            think=args.think_ms / 1000,
        )
        self.replicas = replicas
        self.interval = args.interval
        self.chat_stubs = [cpb_grpc.ChatServiceStub(c) for c in self.channels]
        self.tables = [Table(args.first_table + i) for i in range(args.tables)]
        self.seat_stub: dict[str, Any] = {}  # a player's token -> its replica's game stub
        self.phases: list[Phase] = []
        self.writing = False
        self.streaming = False
        self.chat_errors: Counter[str] = Counter()
        self.out_of_order = 0  # a reader's message id not above the last one it had
        self.games_made = 0

    # ----- where each player's calls go ------------------------------------------------

    def _channel(self, table: int, seat: int) -> int:
        replica = replica_of(table, seat, self.replicas)
        per_replica = len(self.channels) // self.replicas
        return replica + self.replicas * ((table // self.replicas) % per_replica)

    async def _call(self, stub: Any, name: str, request: Any, md: Any) -> Any:
        """A player's call goes to its own replica; the app's to the table's."""
        token = md[0][1].removeprefix("Bearer ") if md and md[0][0] == "authorization" else ""
        started = time.perf_counter()
        reply = await super()._call(self.seat_stub.get(token, stub), name, request, md)
        if name == "SubmitMove":
            phase = self.window(time.time())
            if phase is not None:
                phase.submit.append(time.perf_counter() - started)
        return reply

    def _acknowledged(self, gid: str, request_id: str, version: int, moves: list[Any]) -> None:
        super()._acknowledged(gid, request_id, version, moves)
        phase = self.window(time.time())
        if phase is not None:
            phase.moves += len(moves)

    def window(self, at: float) -> Phase | None:
        """The phase whose measured window holds the instant ``at`` (epoch s)."""
        for phase in self.phases:
            if phase.measured_from <= at < phase.end:
                return phase
        return None

    # ----- tables -------------------------------------------------------------------

    async def new_game(self, table: Table) -> None:
        """A new game at the table (the first, or the next once one is over); the
        players' streams move to its room."""
        stub = self.stubs[self._channel(table.index, 0)]
        gid, tokens = await self._game(stub)
        self.games_made += 1
        old = table.readers
        if old:
            asyncio.get_running_loop().call_later(RETIRE_AFTER, _cancel, old)
        table.gid, table.tokens, table.readers = gid, tokens, []
        table.last = [0] * PLAYERS
        for seat, token in enumerate(tokens):
            self.seat_stub[token] = self.stubs[self._channel(table.index, seat)]
        if self.streaming:
            self.open_streams(table)

    async def play_table(self, table: Table) -> None:
        rng = random.Random(self.rng.random())
        while time.perf_counter() < self.deadline:
            if not table.gid:
                try:
                    await self.new_game(table)
                except _Abandoned:
                    self.stats.games_abandoned += 1
                    await asyncio.sleep(0.05)
                    continue
                except OutOfTime:
                    return
            try:
                await self._play_game(
                    self.stubs[self._channel(table.index, 0)], rng, table.gid, table.tokens
                )
            except OutOfTime:
                return
            except grpc.aio.AioRpcError:
                self.stats.games_abandoned += 1
                await asyncio.sleep(0.05)
            if time.perf_counter() < self.deadline:
                table.gid = ""  # over (or left): the table's next game

    # ----- chat ---------------------------------------------------------------------

    def open_streams(self, table: Table) -> None:
        if not table.readers and table.gid:
            table.readers = [
                asyncio.create_task(self.read(table, seat, table.gid, token))
                for seat, token in enumerate(table.tokens)
            ]

    def close_streams(self, table: Table) -> None:
        _cancel(table.readers)
        table.readers = []

    async def read(self, table: Table, seat: int, gid: str, token: str) -> None:
        """One player's WatchChat stream on its replica, resumed after the last id it
        read; each other seat's message's delivery latency kept by its send time's
        phase."""
        stub = self.chat_stubs[self._channel(table.index, seat)]
        md = (("authorization", f"Bearer {token}"),)
        mine = replica_of(table.index, seat, self.replicas)
        last = table.last[seat]
        for _ in range(10_000):  # bounded by the run's end long before
            request = cpb.WatchChatRequest(
                room=cpb.ChatRoom(kind=cpb.ROOM_KIND_TABLE, id=gid), after_id=last
            )
            stream: Any = stub.WatchChat(request, metadata=md)
            try:
                async for update in stream:
                    received = time.time()
                    m = update.message
                    if m.id <= last:
                        self.out_of_order += 1
                        continue
                    last = m.id
                    if table.gid == gid:
                        table.last[seat] = last
                    if m.kind != "text" or m.seat == seat:
                        continue
                    sent = float(m.text.split(" ", 1)[0])
                    phase = self.window(sent)
                    if phase is not None:
                        phase.delivery.append(received - sent)
                        if replica_of(table.index, m.seat, self.replicas) != mine:
                            phase.cross_replica += 1
            except grpc.aio.AioRpcError as e:
                if e.code() == grpc.StatusCode.CANCELLED:
                    return
                self.chat_errors[f"WatchChat {e.code().name}"] += 1
            await asyncio.sleep(0.2)

    async def write(self, table: Table, seat: int) -> None:
        """One player's messages: every ``interval`` s on average while the phase is
        ``on``, each stamped with its send time."""
        rng = random.Random(table.index * PLAYERS + seat)
        stub = self.chat_stubs[self._channel(table.index, seat)]
        await asyncio.sleep(rng.random() * self.interval)
        n = 0
        while time.perf_counter() < self.deadline:
            if self.writing and table.gid:
                n += 1
                sent = time.time()
                request = cpb.SendChatMessageRequest(
                    room=cpb.ChatRoom(kind=cpb.ROOM_KIND_TABLE, id=table.gid),
                    text=f"{sent:.6f} table {table.index} seat {seat} message {n}",
                    client_message_id=uuid.uuid4().hex,
                )
                md = (("authorization", f"Bearer {table.tokens[seat]}"),)
                phase = self.window(sent)
                if phase is not None:
                    phase.attempted += 1
                try:
                    await stub.SendChatMessage(request, metadata=md, timeout=self.timeout)
                    if phase is not None:
                        phase.sent += 1
                        phase.send.append(time.time() - sent)
                except grpc.aio.AioRpcError as e:
                    self.chat_errors[f"SendChatMessage {e.code().name}"] += 1
            await asyncio.sleep(self.interval * (0.5 + rng.random()))

    async def watch_loop(self) -> None:
        """The event loop's lateness every 50 ms: how far this process falls behind."""
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.05)
            phase = self.window(time.time())
            if phase is not None:
                phase.loop_lag.append(max(0.0, time.perf_counter() - before - 0.05))

    # ----- the run ------------------------------------------------------------------

    async def setup(self, concurrency: int = 16) -> None:
        self.deadline = time.perf_counter() + 600  # the calls' retries, while setting up
        await self.preflight(self.preset, PLAYERS)
        gate = asyncio.Semaphore(concurrency)

        async def one(table: Table) -> None:
            async with gate:
                for _ in range(5):
                    try:
                        await self.new_game(table)
                        return
                    except _Abandoned:
                        self.stats.games_abandoned += 1
                raise Refused(f"table {table.index}: no game after 5 attempts")

        await asyncio.gather(*(one(t) for t in self.tables))

    async def run_schedule(
        self, start: float, warmup: float, phases: list[tuple[str, float]], settle: float
    ) -> None:
        at = start + warmup
        for kind, seconds in phases:
            self.phases.append(Phase(kind, at, at + settle, at + seconds))
            at += seconds
        drain = 3.0  # the last messages' deliveries
        self.deadline = time.perf_counter() + (at + drain - time.time())
        await asyncio.sleep(max(0.0, start - time.time()))
        tasks = [asyncio.create_task(self.play_table(t)) for t in self.tables]
        writers = [
            asyncio.create_task(self.write(t, s)) for t in self.tables for s in range(PLAYERS)
        ]
        lag = asyncio.create_task(self.watch_loop())
        try:
            for phase in self.phases:
                await asyncio.sleep(max(0.0, phase.start - time.time()))
                self.streaming = phase.kind != "off"
                self.writing = phase.kind == "on"
                for table in self.tables:
                    if self.streaming:
                        self.open_streams(table)
                    else:
                        self.close_streams(table)
            await asyncio.sleep(max(0.0, at - time.time()))
            self.writing = False
            await asyncio.sleep(drain)
            await asyncio.gather(*tasks)
        finally:
            for table in self.tables:
                self.close_streams(table)
            _cancel([*tasks, *writers, lag])
            await asyncio.gather(*tasks, *writers, lag, return_exceptions=True)

    def summary(self) -> dict[str, Any]:
        return {
            "tables": len(self.tables),
            "games_made": self.games_made,
            "phases": [p.report() for p in self.phases],
            "errors": dict(self.stats.errors),
            "chat_errors": dict(self.chat_errors),
            "out_of_order": self.out_of_order,
            "conflicts": self.stats.conflicts,
            "retries": self.stats.retries,
            "games_abandoned": self.stats.games_abandoned,
            "deals_finished": self.stats.deals,
        }


def _cancel(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()


def parse_phases(text: str) -> list[str]:
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"phases are {', '.join(KINDS)}; not {unknown}")
    return kinds


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--address", action="append", required=True, help="a replica (repeatable)")
    p.add_argument("--api-key", required=True)
    p.add_argument("--tables", type=int, default=250, help="this process's tables")
    p.add_argument("--first-table", type=int, default=0, help="its first table's index")
    p.add_argument("--channels", type=int, default=8, help="gRPC connections in all")
    p.add_argument("--preset", default="tranca-000")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--think-ms", type=float, default=0.0, help="a pause before each move")
    p.add_argument(
        "--interval", type=float, default=3.0, help="mean seconds between a player's messages"
    )
    p.add_argument("--phases", type=parse_phases, default=["off", "idle", "on"])
    p.add_argument("--phase-seconds", type=float, default=25.0)
    p.add_argument("--settle", type=float, default=3.0, help="seconds of each phase not counted")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--verify", action="store_true", help="check every acknowledged move")
    return p.parse_args(argv)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    load = ChatLoad(args)
    try:
        await load.setup()
        print("ready", file=sys.stderr, flush=True)
        line = await asyncio.to_thread(sys.stdin.readline)
        if not line.startswith("go "):
            raise Refused(f"expected 'go EPOCH' on stdin, got {line!r}")
        phases = [(kind, args.phase_seconds) for kind in args.phases]
        await load.run_schedule(float(line.split()[1]), args.warmup, phases, args.settle)
        report = load.summary()
        if args.verify:
            verification = await load.verify(30.0)
            verification.pop("unverified", None)
            report["verification"] = verification
        return report
    finally:
        await load.close()


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    try:
        report = asyncio.run(main_async(args))
    except Refused as exc:
        print(f"chat_load: {exc}", file=sys.stderr, flush=True)
        return 1
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
