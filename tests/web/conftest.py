"""A server for the browser tests: `tranca serve` on a fresh SQLite file with a
development app and its browser port (Connect, gRPC-Web and the web table's files),
as `make run` starts it: the development app lets guests sign in and open tables.

The page, the client and the browser come from the project's own files: `make web`
(npm ci and the build of clients/web, a prerequisite of `make pytest`) and
deploy/system-deps.sh (Debian's chromium). When CI is set a missing piece fails the
tests; elsewhere they skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from tests.harness.processes import free_port, serve_command, stop, wait_healthy
from tranca.v1 import game_pb2_grpc, session_pb2, session_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
WEB_DIR = ROOT / "clients" / "web"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
START_TIMEOUT = 30.0


def unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{message} (required when CI is set)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def node() -> str:
    """The node executable, with clients/web's packages installed and built."""
    path = shutil.which("node")
    if path is None:
        unavailable("node not found on the PATH")
    assert path is not None
    for needed in ("node_modules/@connectrpc/connect-web", "dist/index.js", "table/dist/app.js"):
        if not (WEB_DIR / needed).exists():
            unavailable(f"clients/web/{needed} is missing: run `make web`")
    return path


@dataclass
class WebServer:
    grpc_address: str
    web_url: str
    api_key: str
    app_id: str
    channel: grpc.Channel
    games: game_pb2_grpc.GameServiceStub
    database: Path  # the server's SQLite file

    @property
    def sessions(self) -> session_pb2_grpc.SessionServiceStub:
        return session_pb2_grpc.SessionServiceStub(self.channel)

    def app(self) -> tuple[tuple[str, str], ...]:
        return (("x-api-key", self.api_key),)


def _web_config(url: str) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"{url}/tranca-web.json", timeout=1) as reply:
            config: dict[str, object] = json.load(reply)
            return config
    except (OSError, urllib.error.URLError, ValueError):
        return None


def _wait_serving(
    proc: subprocess.Popen[bytes], address: str, url: str
) -> dict[str, object] | None:
    """The browser port's config once both ports answer; None if the process died."""
    deadline = time.monotonic() + START_TIMEOUT
    while wait_healthy(proc, address, deadline - time.monotonic()):
        config = _web_config(url)
        if config is not None:
            return config
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    return None


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """`tranca serve --web-port` on SQLite with a development app (which lets guests
    sign in and open tables, as under `make run`); robots play every 0.1 s."""
    tmp = tmp_path_factory.mktemp("web")
    api_key = f"dev-{uuid.uuid4().hex}"
    log = tmp / "server.log"
    config: dict[str, object] | None = None
    for _attempt in range(3):  # a port picked free may be taken before the server binds it
        port, web_port = free_port(), free_port()
        address, url = f"127.0.0.1:{port}", f"http://127.0.0.1:{web_port}"
        command = serve_command(
            port,
            f"sqlite:///{tmp / 'web.db'}",
            "--web-port",
            str(web_port),
            "--auto-migrate",
            "--dev-api-key",
            api_key,
            "--sweep-interval",
            "0.1",
        )
        with log.open("wb") as out:
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        config = _wait_serving(proc, address, url)
        if config is not None:
            break
        proc.kill()
        proc.wait()
    if config is None:
        pytest.fail(f"the server did not serve its browser port:\n{log.read_text()}")
    try:
        with grpc.insecure_channel(address) as channel:
            # The development app as `make run` has it: guests may sign in (the web
            # table's /tranca-web.json says so) and players may open tables.
            assert config["guestSignIn"] is True, config
            key = (("x-api-key", api_key),)
            sessions = session_pb2_grpc.SessionServiceStub(channel)
            policy = sessions.GetAppPolicy(session_pb2.GetAppPolicyRequest(), metadata=key).policy
            assert policy.guest_sign_in and policy.players_create_tables, policy
            yield WebServer(
                address,
                url,
                api_key,
                str(config["appId"]),
                channel,
                game_pb2_grpc.GameServiceStub(channel),
                tmp / "web.db",
            )
    finally:
        stop(proc)
