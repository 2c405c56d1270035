"""Test rig for fault injection: a private PostgreSQL cluster (so that restarting or
stopping it disturbs nothing else on the machine), server processes, TCP proxies
that cut or delay connections, and a bot load that records every acknowledged move.

Everything listens on loopback only, and every loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, overload

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tranca.store.database import make_engine
from tranca.store.repository import Store
from tranca.table.game import rebuild
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

Metadata = tuple[tuple[str, str], ...]
RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.INTERNAL,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pg_bin(name: str) -> str:
    for base in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (base / name).exists():
            return str(base / name)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"PostgreSQL's {name} is not installed")
    return found


class PrivatePostgres:
    """A throw-away PostgreSQL cluster in a temporary directory, run as the postgres
    user when we are root (PostgreSQL refuses to run as root)."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "pgdata"
        self.port = free_port()
        self.log = root / "pg.log"
        self.as_root = os.geteuid() == 0

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = list(args)
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=60)

    def init(self) -> None:
        self.dir.parent.mkdir(parents=True, exist_ok=True)
        if self.as_root:
            shutil.chown(self.dir.parent, "postgres", "postgres")
            self.log = self.dir.parent / "pg.log"
        self._run(pg_bin("initdb"), "-D", str(self.dir), "-A", "trust", "-U", "postgres")
        self.start()

    def _ctl(self, action: str, *extra: str) -> None:
        opts = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir}"
        self._run(
            pg_bin("pg_ctl"),
            "-D",
            str(self.dir),
            "-l",
            str(self.log),
            "-o",
            opts,
            "-w",
            "-t",
            "30",
            action,
            *extra,
        )

    def start(self) -> None:
        self._ctl("start")

    def stop(self) -> None:
        self._ctl("stop", "-m", "fast")

    def restart(self) -> None:
        self._ctl("restart", "-m", "fast")

    def destroy(self) -> None:
        with contextlib.suppress(Exception):
            self._run(pg_bin("pg_ctl"), "-D", str(self.dir), "stop", "-m", "immediate", check=False)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"


class ServerProcess:
    """``tranca serve`` in a subprocess."""

    def __init__(
        self,
        database_url: str,
        port: int | None = None,
        db_timeout: float = 2,
        extra: list[str] | None = None,
    ) -> None:
        self.database_url = database_url
        self.extra = extra or []  # more flags of ``tranca serve``
        self.port = port or free_port()
        self.db_timeout = db_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = Path(tempfile.mkstemp(prefix="tranca-server-", suffix=".log")[1])

    def failures(self) -> list[str]:
        """The server's logged failures (bugs), for assertion messages."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return []
        return [line[-6000:] for line in text.splitlines() if "_failed" in line]

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tranca.cli",
                "serve",
                "--port",
                str(self.port),
                "--metrics-port",
                "0",
                "--database-url",
                self.database_url,
                "--health-interval",
                "0.3",
                "--db-timeout",
                "2",
                "--rate-per-token",
                "0",
                "--rate-per-app",
                "0",
                *self.extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log_path.open("ab"),
        )

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


async def health(port: int, timeout: float = 1.0) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=timeout
            )
            return int(reply.status)
        except grpc.aio.AioRpcError:
            return -1


async def wait_until(check: Callable[[], object], seconds: float, what: str) -> float:
    """Poll ``check`` (sync or async) until truthy; the time it took."""
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return time.perf_counter() - started
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


# The health service's statuses, as health() returns them.
SERVING: int = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING: int = health_pb2.HealthCheckResponse.NOT_SERVING


class Proxy:
    """A TCP proxy on loopback. ``delay`` slows every chunk in both directions;
    ``cut_next_reply`` drops the connection as soon as the next bytes come back from
    the upstream (the request got through, its answer never arrives)."""

    def __init__(self, upstream_port: int, delay: float = 0.0) -> None:
        self.upstream_port = upstream_port
        self.port = free_port()
        self.delay = delay
        self.cut_next_reply = False
        self.cuts = 0
        self._server: asyncio.base_events.Server | None = None
        self._conns: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for w in list(self._conns):
                w.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, upstream: bool
    ) -> None:
        try:
            while data := await reader.read(65536):
                if self.delay:
                    await asyncio.sleep(self.delay)
                if not upstream and self.cut_next_reply and len(data) > 64:
                    self.cut_next_reply = False
                    self.cuts += 1
                    for w in list(self._conns):
                        w.transport.abort()
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            client_w.close()
            return
        self._conns.update((client_w, up_w))
        try:
            await asyncio.gather(
                self._pipe(client_r, up_w, upstream=True),
                self._pipe(up_r, client_w, upstream=False),
            )
        finally:
            self._conns.discard(client_w)
            self._conns.discard(up_w)


@dataclass
class Ledger:
    """What the load saw: every acknowledged move by game, with its request id."""

    acked: dict[str, dict[str, int]] = field(default_factory=dict)  # game -> request -> version
    sent: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    retries: int = 0


class Load:
    """Bots playing games through a list of addresses. A move is retried with the same
    request id, against the next address, until acknowledged or refused by the rules."""

    def __init__(
        self, addresses: list[str], api_key: str, ledger: Ledger, timeout: float = 2.0
    ) -> None:
        self.addresses = addresses
        self.timeout = timeout
        self.app = (("x-api-key", api_key),)
        self.ledger = ledger
        self.channels = [
            grpc.aio.insecure_channel(a, options=[("grpc.use_local_subchannel_pool", 1)])
            for a in addresses
        ]
        self.stubs = [pb_grpc.GameServiceStub(c) for c in self.channels]
        self._i = 0
        self.stop = asyncio.Event()

    async def close(self) -> None:
        for c in self.channels:
            await c.close()

    def _stub(self) -> pb_grpc.GameServiceAsyncStub:
        self._i += 1
        return self.stubs[self._i % len(self.stubs)]

    @overload
    async def call(
        self, name: Literal["CreateGame"], request: pb.CreateGameRequest, md: Metadata
    ) -> pb.CreateGameResponse: ...
    @overload
    async def call(
        self, name: Literal["JoinGame"], request: pb.JoinGameRequest, md: Metadata
    ) -> pb.JoinGameResponse: ...
    @overload
    async def call(
        self, name: Literal["StartGame"], request: pb.StartGameRequest, md: Metadata
    ) -> pb.StartGameResponse: ...
    @overload
    async def call(
        self, name: Literal["GetView"], request: pb.GetViewRequest, md: Metadata
    ) -> pb.GetViewResponse: ...
    @overload
    async def call(
        self, name: Literal["ListLegalMoves"], request: pb.ListLegalMovesRequest, md: Metadata
    ) -> pb.ListLegalMovesResponse: ...
    @overload
    async def call(
        self, name: Literal["SubmitMove"], request: pb.SubmitMoveRequest, md: Metadata
    ) -> pb.SubmitMoveResponse: ...
    async def call(self, name: str, request: Message, md: Metadata) -> Message:
        """A call retried on transport and database failures (bounded)."""
        for attempt in range(60):
            self.ledger.sent += 1
            try:
                method: grpc.aio.UnaryUnaryMultiCallable[Message, Message]
                method = getattr(self._stub(), name)
                return await method(request, metadata=md, timeout=self.timeout)
            except grpc.aio.AioRpcError as e:
                self.ledger.errors[e.code().name] += 1
                if e.code() not in RETRYABLE:
                    raise
                self.ledger.retries += 1
                await asyncio.sleep(min(0.05 * (attempt + 1), 0.5))
        raise AssertionError(f"{name} never got through")

    async def new_game(self) -> tuple[str, list[str]]:
        game = await self.call(
            "CreateGame",
            pb.CreateGameRequest(
                rules=pb.Rules(
                    preset="tranca-000",
                    overrides={"target_score": pb.KnobValue(int_value=0)},
                ),
                players=2,
            ),
            self.app,
        )
        gid = game.game.game_id
        tokens = []
        for seat in range(2):
            joined = await self.call(
                "JoinGame", pb.JoinGameRequest(game_id=gid, seat=seat), self.app
            )
            tokens.append(joined.player_token)
        with contextlib.suppress(grpc.aio.AioRpcError):  # a retried start may be refused
            await self.call("StartGame", pb.StartGameRequest(game_id=gid), self.app)
        self.ledger.acked[gid] = {}
        return gid, tokens

    async def play(self, gid: str, tokens: list[str], seed: int, max_moves: int = 400) -> None:
        import random

        rng = random.Random(seed)
        for _ in range(max_moves):
            if self.stop.is_set():
                return
            view = (await self.call("GetView", pb.GetViewRequest(game_id=gid), self.app)).view
            if view.status != pb.GAME_STATUS_PLAYING:
                return
            md = (("authorization", f"Bearer {tokens[view.turn]}"),)
            legal = await self.call("ListLegalMoves", pb.ListLegalMovesRequest(game_id=gid), md)
            moves = list(legal.moves)
            if not moves:
                continue
            quick = [m for m in moves if m.WhichOneof("kind") in ("draw", "discard")]
            move = rng.choice(quick if quick and rng.random() < 0.8 else moves)
            request_id = uuid.uuid4().hex
            try:
                done = await self.call(
                    "SubmitMove",
                    pb.SubmitMoveRequest(
                        game_id=gid,
                        expected_version=legal.version,
                        request_id=request_id,
                        move=move,
                    ),
                    md,
                )
            except grpc.aio.AioRpcError as e:
                if e.code() == grpc.StatusCode.ABORTED:
                    continue  # someone else moved: look again
                raise
            self.ledger.acked[gid][request_id] = done.version


async def verify(database_url: str, ledger: Ledger) -> dict[str, int]:
    """Every acknowledged move is in the log exactly once, at the version it was
    acknowledged with, and every game rebuilds from its log to its snapshot."""
    engine = make_engine(database_url)
    store = Store(engine)
    lost = doubled = games = moves = 0
    try:
        for gid, acked in ledger.acked.items():
            rows = await store.log(gid)
            by_request = Counter(r.request_id for r in rows if r.request_id)
            versions = {r.request_id: r.version for r in rows if r.request_id}
            for request_id, version in acked.items():
                moves += 1
                if by_request[request_id] == 0:
                    lost += 1
                elif by_request[request_id] > 1 or versions[request_id] != version:
                    doubled += 1
            assert [r.version for r in rows] == list(range(1, len(rows) + 1))
            game = await store.game(gid)
            setup = await store.setup_of(gid)
            rebuilt = rebuild(setup, [r.action for r in rows])
            assert json.dumps(rebuilt.to_dict(), sort_keys=True) == json.dumps(
                game.state.to_dict(), sort_keys=True
            ), f"game {gid} does not rebuild to its snapshot"
            assert game.version == len(rows)
            games += 1
    finally:
        await engine.dispose()
    return {"games": games, "moves_acknowledged": moves, "lost": lost, "doubled": doubled}
