"""The browser port's cost per call beside native gRPC's, on one server, in one run.

A server process (SQLite, one game of four seats) is called by the same number of
concurrent callers through each protocol in turn, alternating over rounds: native
gRPC (grpcio), the Connect protocol with the binary and the JSON codec, and gRPC-Web, over HTTP/1.1
(connect-python's client). Two calls: ``GetView`` (a seat's
view: a database read and the view built, the most frequent read of a table) and
``ListPresets`` (no database: the transport and the encoding alone). For each, the
server's CPU time per call (from /proc: what a replica pays) and the calls a second
(what the callers saw, on a machine they share with the server), each also as a
ratio to native gRPC's in the same round. The callers ask for no compression.

Writes ``OUT/browser.json`` and ``.md`` with the machine's description.

    python bench/browser_bench.py --out bench/results [--seconds 4] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
from connectrpc.client import ConnectClient
from connectrpc.method import IdempotencyLevel, MethodInfo
from connectrpc.protocol import ProtocolType

from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.engine_bench import machine
else:  # run as a script: bench/ is on sys.path
    from engine_bench import machine

KEY = "bench-browser-key"
GAME = "/tranca.v1.GameService"
PROTOCOLS = ("grpc", "connect-proto", "connect-json", "grpc-web")
RESPONSES: dict[str, Any] = {"GetView": pb.GetViewResponse, "ListPresets": pb.ListPresetsResponse}
CALLS = ("GetView", "ListPresets")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def start_server(tmp: Path) -> tuple[subprocess.Popen[bytes], int, int]:
    db = f"sqlite:///{tmp / 'browser.db'}"
    tranca = str(Path(sys.executable).with_name("tranca"))
    subprocess.run([tranca, "migrate", "--database-url", db], check=True, capture_output=True)
    grpc_port, web_port = free_port(), free_port()
    proc = subprocess.Popen(
        [
            tranca,
            "serve",
            "--database-url",
            db,
            "--port",
            str(grpc_port),
            "--web-port",
            str(web_port),
            "--metrics-port",
            "0",
            "--dev-api-key",
            KEY,
            "--rate-per-token",
            "0",
            "--rate-per-app",
            "0",
            "--sweep-interval",
            "0",
            "--match-interval",
            "0",
            "--webhook-interval",
            "0",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", web_port), timeout=0.2):
                return proc, grpc_port, web_port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


async def seat_token(grpc_port: int) -> tuple[str, str]:
    """A started four-seat game and one seat's token."""
    app = (("x-api-key", KEY),)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        stub = pb_grpc.GameServiceStub(channel)
        made = await stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=4, seed=3),
            metadata=app,
        )
        gid = made.game.game_id
        tokens = [
            (
                await stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=seat), metadata=app)
            ).player_token
            for seat in range(4)
        ]
        await stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=app)
    return gid, tokens[0]


def _requests(gid: str) -> dict[str, Any]:
    return {"GetView": pb.GetViewRequest(game_id=gid), "ListPresets": pb.ListPresetsRequest()}


Caller = Callable[[], Awaitable[None]]


async def run_protocol(
    protocol: str,
    call: str,
    gid: str,
    token: str,
    grpc_port: int,
    web_port: int,
    concurrency: int,
    seconds: float,
    server_pid: int,
) -> dict[str, Any]:
    request = _requests(gid)[call]
    auth = {"authorization": f"Bearer {token}", "x-api-key": KEY}
    metadata = tuple(auth.items()) if call == "GetView" else (("x-api-key", KEY),)
    channel = None
    connect: ConnectClient | None = None
    one: Caller
    if protocol == "grpc":
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}")
        stub = pb_grpc.GameServiceStub(channel)
        method = getattr(stub, call)

        async def one_grpc() -> None:
            await method(request, metadata=metadata)

        one = one_grpc
    else:
        # connect-python's own client (pyqwest beneath): far cheaper per call than a
        # pure-Python HTTP client, so that the callers starve the server less.
        kinds = {
            "connect-proto": (ProtocolType.CONNECT, False),
            "connect-json": (ProtocolType.CONNECT, True),
            "grpc-web": (ProtocolType.GRPC_WEB, False),
        }
        kind, as_json = kinds[protocol]
        connect = ConnectClient(
            f"http://127.0.0.1:{web_port}",
            protocol=kind,
            proto_json=as_json,
            send_compression=None,
            accept_compression=(),
        )
        info: MethodInfo[Any, Any] = MethodInfo(
            name=call,
            service_name="tranca.v1.GameService",
            input=type(request),
            output=RESPONSES[call],
            idempotency_level=IdempotencyLevel.UNKNOWN,
        )
        headers = dict(metadata)

        async def one_connect() -> None:
            await connect.execute_unary(request=request, method=info, headers=headers)

        one = one_connect
    for _ in range(20):  # connections made and warm
        await one()
    calls = 0
    stop_at = 0.0

    async def worker() -> None:
        nonlocal calls
        while time.perf_counter() < stop_at:
            await one()
            calls += 1

    cpu_before = cpu_seconds(server_pid)
    started = time.perf_counter()
    stop_at = started + seconds
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(server_pid) - cpu_before
    if channel is not None:
        await channel.close()
    if connect is not None:
        await connect.close()
    return {
        "protocol": protocol,
        "call": call,
        "calls": calls,
        "calls_per_s": calls / elapsed,
        "server_cpu_us_per_call": cpu / calls * 1e6,
    }


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, grpc_port, web_port = start_server(Path(tmp))
        try:
            gid, token = await seat_token(grpc_port)
            rounds: list[list[dict[str, Any]]] = []
            for index in range(args.rounds):
                # Alternate the order, so drift in the machine falls on each alike.
                order = PROTOCOLS if index % 2 == 0 else tuple(reversed(PROTOCOLS))
                rows = []
                for call in CALLS:
                    for protocol in order:
                        rows.append(
                            await run_protocol(
                                protocol,
                                call,
                                gid,
                                token,
                                grpc_port,
                                web_port,
                                args.concurrency,
                                args.seconds,
                                proc.pid,
                            )
                        )
                rounds.append(rows)
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    return {"runs": rounds, "summary": summarise(rounds)}


def summarise(rounds: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    out = []
    for call in CALLS:
        for protocol in PROTOCOLS:
            cpu_ratios, rate_ratios, cpus, rates = [], [], [], []
            for rows in rounds:
                by = {(r["protocol"], r["call"]): r for r in rows}
                row, base = by[(protocol, call)], by[("grpc", call)]
                cpus.append(row["server_cpu_us_per_call"])
                rates.append(row["calls_per_s"])
                cpu_ratios.append(row["server_cpu_us_per_call"] / base["server_cpu_us_per_call"])
                rate_ratios.append(row["calls_per_s"] / base["calls_per_s"])
            out.append(
                {
                    "call": call,
                    "protocol": protocol,
                    "server_cpu_us_per_call": statistics.median(cpus),
                    "calls_per_s": statistics.median(rates),
                    "cpu_ratio_to_grpc": statistics.median(cpu_ratios),
                    "rate_ratio_to_grpc": statistics.median(rate_ratios),
                }
            )
    return out


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        "# The browser port's cost per call, beside native gRPC",
        "",
        f"Machine: {m.get('cpu', '?')}, {m.get('cores', '?')} cores; Python "
        f"{m.get('python', '?')}; load average at the start {report['load_average']}.",
        f"Command: `{report['command']}`. One server process on SQLite; "
        f"{report['concurrency']} concurrent callers in the bench process, "
        f"{report['seconds']} s per protocol and call, {report['rounds']} rounds in "
        "alternating order; medians over the rounds. Server CPU per call is read from "
        "/proc (user + system) over each run; the ratios are to native gRPC in the same "
        "round.",
        "",
        "| call | protocol | server CPU µs/call | × gRPC | calls/s | × gRPC |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in report["summary"]:
        lines.append(
            f"| {r['call']} | {r['protocol']} | {r['server_cpu_us_per_call']:.0f} | "
            f"{r['cpu_ratio_to_grpc']:.2f} | {r['calls_per_s']:.0f} | "
            f"{r['rate_ratio_to_grpc']:.2f} |"
        )
    lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    load = os.getloadavg()
    measured = asyncio.run(measure(args))
    report = {
        "machine": machine(),
        "load_average": [round(x, 2) for x in load],
        "command": "python bench/browser_bench.py " + " ".join(sys.argv[1:]),
        "seconds": args.seconds,
        "rounds": args.rounds,
        "concurrency": args.concurrency,
        **measured,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "browser.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "browser.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
