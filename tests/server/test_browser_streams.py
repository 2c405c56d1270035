"""A stream on the browser port ends when its page goes: a Connect or gRPC-Web
WatchGame whose client closes its connection (HTTP/1.1, HTTP/2) or cancels the
stream alone (HTTP/2's RST_STREAM, what a browser sends for a reloaded page on a
connection it keeps) frees its watch slot and stops counting as the player's
presence within seconds, as a gRPC stream does. Spoken with raw sockets (and the
h2 library's framing), as a browser would, so nothing of an HTTP client library's
pooling hides a close."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import h2.config
import h2.connection
import h2.errors
import h2.events
import httpx
import orjson
import pytest
from sqlalchemy import text

from tests.harness.servers import app_client, running_server, server_config
from tranca.server import Running
from tranca.store import migrate
from tranca.v1 import game_pb2 as pb

from .conftest import Client

WATCH = "/tranca.v1.GameService/WatchGame"


@pytest.fixture
async def web(db_url: str) -> AsyncIterator[Running]:
    # One open watch per player token: a stream left holding its slot shows at once.
    async with running_server(
        server_config(db_url, web_port=0, max_watches_per_token=1)
    ) as running:
        yield running


@pytest.fixture
async def client(web: Running) -> AsyncIterator[Client]:
    async with app_client(web) as made:
        yield made


def envelope(payload: bytes) -> bytes:
    return struct.pack(">BI", 0, len(payload)) + payload


def watch_request(protocol: str, gid: str) -> tuple[bytes, str]:
    """A WatchGame request's body and content type, in ``protocol``."""
    if protocol == "connect":
        return envelope(orjson.dumps({"gameId": gid})), "application/connect+json"
    body = envelope(pb.WatchGameRequest(game_id=gid).SerializeToString())
    return body, "application/grpc-web+proto"


@dataclass
class OpenStream:
    """A watch stream that has delivered its first message, and how to drop it."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    h2conn: h2.connection.H2Connection | None = None
    stream_id: int = 0

    def close_connection(self) -> None:
        self.writer.close()

    async def reset_stream(self) -> None:
        """HTTP/2: cancel the stream alone, keeping the connection open."""
        assert self.h2conn is not None
        self.h2conn.reset_stream(self.stream_id, error_code=h2.errors.ErrorCodes.CANCEL)
        self.writer.write(self.h2conn.data_to_send())
        await self.writer.drain()


async def open_http1(port: int, protocol: str, gid: str, token: str) -> OpenStream:
    body, content_type = watch_request(protocol, gid)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        f"POST {WATCH} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n"
        f"content-type: {content_type}\r\ncontent-length: {len(body)}\r\n"
        f"authorization: Bearer {token}\r\n\r\n"
    )
    writer.write(head.encode() + body)
    received = b""
    while True:  # the answer's head and its first message
        chunk = await asyncio.wait_for(reader.read(65536), 10)
        assert chunk, received
        received += chunk
        end = received.find(b"\r\n\r\n")
        if end >= 0 and len(received) > end + 4 + 5:
            break
    assert received.startswith(b"HTTP/1.1 200"), received
    return OpenStream(reader, writer)


async def open_http2(port: int, protocol: str, gid: str, token: str) -> OpenStream:
    body, content_type = watch_request(protocol, gid)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    stream_id = conn.get_next_available_stream_id()
    conn.send_headers(
        stream_id,
        [
            (":method", "POST"),
            (":path", WATCH),
            (":scheme", "http"),
            (":authority", f"127.0.0.1:{port}"),
            ("content-type", content_type),
            ("authorization", f"Bearer {token}"),
        ],
    )
    conn.send_data(stream_id, body, end_stream=True)
    writer.write(conn.data_to_send())
    status = ""
    while True:
        chunk = await asyncio.wait_for(reader.read(65536), 10)
        assert chunk
        for event in conn.receive_data(chunk):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict(event.headers).get(b":status", b"").decode()
            if isinstance(event, h2.events.DataReceived) and event.stream_id == stream_id:
                conn.acknowledge_received_data(event.flow_controlled_length, stream_id)
                assert status == "200"
                writer.write(conn.data_to_send())
                return OpenStream(reader, writer, conn, stream_id)
        writer.write(conn.data_to_send())


async def grpc_watch_opens(client: Client, gid: str, token: str) -> bool:
    """Whether the token may open one more watch now (on the gRPC port): its first
    message comes, or the slot is refused."""
    call = client.stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=client.player(token))
    try:
        await asyncio.wait_for(call.read(), 5)
        return True
    except grpc.aio.AioRpcError as exc:
        assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, exc
        return False
    finally:
        call.cancel()


async def slot_freed_within(client: Client, gid: str, token: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await grpc_watch_opens(client, gid, token):
            return True
        await asyncio.sleep(0.1)
    return False


CASES = [
    ("connect", "http1-close"),
    ("grpc-web", "http1-close"),
    ("connect", "http2-reset"),
    ("grpc-web", "http2-reset"),
    ("connect", "http2-close"),
    ("grpc-web", "http2-close"),
]


@pytest.mark.parametrize(("protocol", "how"), CASES)
async def test_a_dropped_browser_stream_gives_its_watch_slot_back(
    web: Running, client: Client, protocol: str, how: str
) -> None:
    assert web.web is not None
    gid, tokens = await client.new_game()
    opener = open_http1 if how.startswith("http1") else open_http2
    stream = await opener(web.web.port, protocol, gid, tokens[0])
    # The stream holds the token's one slot.
    assert not await grpc_watch_opens(client, gid, tokens[0])
    if how == "http2-reset":
        await stream.reset_stream()
    else:
        stream.close_connection()
    try:
        assert await slot_freed_within(client, gid, tokens[0], 5.0), (protocol, how)
    finally:
        stream.close_connection()


async def last_seen_ms(server: Running, gid: str) -> int:
    async with server.store.engine.connect() as conn:
        row = (
            await conn.execute(
                text("SELECT last_seen_ms FROM seat_presence WHERE game_id = :g AND seat = 0"),
                {"g": gid},
            )
        ).first()
    return 0 if row is None else int(row[0])


@pytest.mark.parametrize(("protocol", "how"), [("connect", "http1-close"), CASES[3]])
async def test_a_dropped_browser_stream_no_longer_counts_as_presence(
    web: Running, client: Client, protocol: str, how: str
) -> None:
    assert web.web is not None
    # Grace of 3 s: an open stream writes the seat's presence every second.
    gid, tokens = await client.new_game(table=pb.TableOptions(robot_grace_seconds=3), players=2)
    opener = open_http1 if how.startswith("http1") else open_http2
    stream = await opener(web.web.port, protocol, gid, tokens[0])
    await asyncio.sleep(2.5)
    while_open = await last_seen_ms(web, gid)
    assert while_open > 0  # the open stream counted
    if how == "http2-reset":
        await stream.reset_stream()
    else:
        stream.close_connection()
    try:
        await asyncio.sleep(1.5)  # a write on its way when the stream closed lands
        after_close = await last_seen_ms(web, gid)
        await asyncio.sleep(2.5)
        assert await last_seen_ms(web, gid) == after_close, (protocol, how)
    finally:
        stream.close_connection()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _read_to_end(reader: asyncio.StreamReader, seconds: float) -> bytes:
    received = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = await asyncio.wait_for(reader.read(65536), deadline - time.monotonic())
        except TimeoutError:
            break
        if not chunk:
            break
        received += chunk
    return received


async def _http2_trailers(stream: OpenStream, reader: asyncio.StreamReader) -> dict[str, str]:
    """The rest of an HTTP/2 gRPC-Web stream, to its trailer frame."""
    assert stream.h2conn is not None
    body = b""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        chunk = await asyncio.wait_for(reader.read(65536), deadline - time.monotonic())
        if not chunk:
            break
        for event in stream.h2conn.receive_data(chunk):
            if isinstance(event, h2.events.DataReceived) and event.stream_id == stream.stream_id:
                body += event.data
        at = 0
        while at + 5 <= len(body):
            flag, size = struct.unpack(">BI", body[at : at + 5])
            if flag & 0x80 and at + 5 + size <= len(body):
                lines = body[at + 5 : at + 5 + size].decode().split("\r\n")
                return {
                    k.strip().lower(): v.strip()
                    for k, _, v in (ln.partition(":") for ln in lines if ln)
                }
            at += 5 + size
    raise AssertionError(f"no trailers in {body!r}")


async def test_serve_stops_cleanly_ending_the_browser_ports_streams(tmp_path: Path) -> None:
    """SIGTERM with streams open on the browser port (Connect over HTTP/1.1,
    gRPC-Web over HTTP/2): each ends UNAVAILABLE (its client watches again) at
    once rather than holding the server through its grace period, the process
    exits 0 and writes no traceback."""
    url = f"sqlite:///{tmp_path / 'tranca.db'}"
    await migrate.upgrade_async(url)
    port, web_port = _free_port(), _free_port()
    key = "stop-test-key"
    stderr = tmp_path / "stderr.log"
    server = subprocess.Popen(
        [
            sys.executable, "-m", "tranca.cli", "serve", "--port", str(port),
            "--web-port", str(web_port), "--metrics-port", "0", "--database-url", url,
            "--dev-api-key", key, "--log-level", "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=stderr.open("wb"),
    )  # fmt: skip
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}") as http:
            deadline = time.monotonic() + 30
            while True:
                try:
                    listed = await http.post(
                        "/tranca.v1.GameService/ListPresets",
                        json={},
                        headers={"x-api-key": key},
                    )
                    if listed.status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, "the server did not start"
                await asyncio.sleep(0.2)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                gid, tokens = await Client(channel, key).new_game()
        by_connect = await open_http1(web_port, "connect", gid, tokens[0])
        by_grpc_web = await open_http2(web_port, "grpc-web", gid, tokens[1])
        connect_reader = by_connect.reader
        grpc_web_reader = by_grpc_web.reader
        stopped_at = time.monotonic()
        server.send_signal(signal.SIGTERM)
        connect_rest = await _read_to_end(connect_reader, 10)
        trailers = await _http2_trailers(by_grpc_web, grpc_web_reader)
        assert b'"unavailable"' in connect_rest, connect_rest
        assert trailers["grpc-status"] == str(grpc.StatusCode.UNAVAILABLE.value[0]), trailers
        code = await asyncio.to_thread(server.wait, 20)
        # Well within the grace period (10 s): the streams did not hold it.
        assert time.monotonic() - stopped_at < 8
        by_connect.close_connection()
        by_grpc_web.close_connection()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert code == 0
    written = stderr.read_text()
    assert "Traceback" not in written, written
    assert "Error" not in written, written


def _server_side_timer(web_port: int, client_port: int) -> tuple[int, float]:
    """The kernel's timer on the server's end of a connection (/proc/net/tcp): its
    kind (2: keepalive) and the seconds until it fires."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = (int(f.split(":")[1], 16) for f in fields[1:3])
        if local == web_port and remote == client_port:
            kind, ticks = fields[5].split(":")
            return int(kind, 16), int(ticks, 16) / os.sysconf("SC_CLK_TCK")
    raise AssertionError("no such connection")


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="Linux's /proc/net/tcp")
async def test_a_browser_ports_connection_is_kept_alive_by_tcp_probes(web: Running) -> None:
    """A client that vanishes without closing (no FIN: a phone out of coverage) is
    found by TCP keepalive, the first probe within 30 s of silence, as the gRPC
    port finds it with its pings."""
    assert web.web is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", web.web.port)
    try:
        writer.write(b"GET /tranca-web.json HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        await writer.drain()
        assert (await reader.read(65536)).startswith(b"HTTP/1.1 200")
        kind, seconds = _server_side_timer(web.web.port, writer.get_extra_info("sockname")[1])
        assert kind == 2, kind
        assert 0 < seconds <= 30
    finally:
        writer.close()
