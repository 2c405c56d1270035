"""The Python SDK as its own distribution: ``pip install ./clients/python`` into a fresh
virtual environment, from a copy of the repository as a clean checkout has it (no
generated stubs, no build tree), then a script in that environment plays against a
real server.

What it proves: the distribution builds its stubs from ``proto/`` by itself, brings
the dependencies it declares (grpcio, protobuf, googleapis-common-protos) and no
more: neither the server's package ``tranca`` nor the table's ``rich`` (an extra)
are there, and the calls work, a typed error with its reason included.

pip takes the build requirements and the dependencies from the package index (its
cache makes a second run quick). Without the index the test skips, and fails when CI
is set, as the project's other tests that need something from outside do.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
import venv
from collections.abc import AsyncIterator
from pathlib import Path
from typing import NoReturn

import pytest

from tests.harness.servers import running_server, server_config
from tranca.server import Running

ROOT = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT = 600.0
SCRIPT_TIMEOUT = 120.0

# pip's words when it could not reach the index (or a wheel it needed is not there).
NETWORK_SIGNS = (
    "NewConnectionError",
    "ConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Read timed out",
)

# Runs in the fresh environment: argv is the server's address and an app's API key.
SCRIPT = r"""
import importlib.metadata, importlib.util, json, sys

found = {
    name: importlib.util.find_spec(name) is not None for name in ("tranca", "rich", "tranca_rules")
}

from tranca_client import RuleRejected, TrancaClient, pb

address, api_key = sys.argv[1:3]
with TrancaClient(address, api_key=api_key) as app:
    app.wait_ready(10)
    game = app.create_game("tranca-000", 2, overrides={"target_score": 0}, seed=7)
    seats = [app.join(game.game_id, s, player_name=f"p{s}") for s in (0, 1)]
    started = app.start_game(game.game_id)
    mover = seats[started.turn]
    idle = seats[1 - started.turn]
    view = mover.get_view(game.game_id)
    after = mover.play(view, "draw")
    try:
        idle.submit_move(game.game_id, "draw", expected_version=after.version)
        refused = ""
    except RuleRejected as exc:
        refused = exc.reason

print(json.dumps({
    "found": found,
    "stubs": pb.__name__,
    "requires": importlib.metadata.requires("tranca-client"),
    "started": started.status == pb.GAME_STATUS_PLAYING,
    "versions": [view.version, after.version],
    "hand": [len(view.hand), len(after.hand)],
    "refused": refused,
}))
"""


def _unavailable(message: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"{message} (required when CI is set)")
    pytest.skip(message)


def _clean_copy(target: Path) -> Path:
    """clients/python and proto/ as a fresh checkout has them: what git ignores (the
    stubs an editable install generates, build trees, caches) left out."""

    def ignored(directory: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n in {"__pycache__", "build"} or n.endswith(".egg-info")}
        if Path(directory).name == "tranca_client":
            skip.add("v1")
        return skip

    shutil.copytree(ROOT / "proto", target / "proto", ignore=ignored)
    shutil.copytree(ROOT / "clients" / "python", target / "clients" / "python", ignore=ignored)
    return target / "clients" / "python"


@pytest.fixture(scope="module")
def sdk_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh virtual environment with ``pip install ./clients/python``."""
    base = tmp_path_factory.mktemp("sdk-dist")
    project = _clean_copy(base / "checkout")
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    # Nothing of the development environment may leak in.
    for name in ("PYTHONPATH", "VIRTUAL_ENV"):
        env.pop(name, None)
    began = time.monotonic()
    try:
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", str(project)],
            env=env,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        _unavailable(f"pip install ./clients/python took over {INSTALL_TIMEOUT:.0f} s")
    output = done.stdout + done.stderr
    if done.returncode != 0:
        if any(sign in output for sign in NETWORK_SIGNS):
            _unavailable(f"pip could not reach the package index:\n{output[-3000:]}")
        pytest.fail(f"pip install ./clients/python failed:\n{output[-6000:]}")
    print(f"fresh environment with tranca-client in {time.monotonic() - began:.1f} s")
    return python


@pytest.fixture
async def sqlite_server(sqlite_url: str) -> AsyncIterator[Running]:
    async with running_server(server_config(sqlite_url)) as running:
        yield running


async def _run(python: Path, *args: str) -> tuple[int, str, str]:
    # The server runs on this event loop: the child is awaited, never waited for.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    proc = await asyncio.create_subprocess_exec(
        str(python),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=python.parent,  # not the repository, whose directories would be importable
        env=env,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), SCRIPT_TIMEOUT)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_the_sdk_installed_alone_plays_against_a_server(
    sdk_python: Path, sqlite_server: Running
) -> None:
    _, api_key = await sqlite_server.store.create_app("sdk-dist", frozenset())
    address = f"127.0.0.1:{sqlite_server.port}"
    code, out, err = await _run(sdk_python, "-c", SCRIPT, address, api_key)
    assert code == 0, err
    result = json.loads(out.strip().splitlines()[-1])

    # Its own stubs, and only what it declares.
    assert result["found"] == {"tranca": False, "rich": False, "tranca_rules": False}
    assert result["stubs"] == "tranca_client.v1.game_pb2"
    requires = [r.replace(" ", "") for r in result["requires"]]
    names = sorted(r.split(";")[0].split(">")[0].split("<")[0].split("=")[0] for r in requires)
    assert names == ["googleapis-common-protos", "grpcio", "protobuf", "rich", "tranca-rules"]
    assert any(r.startswith("rich") and 'extra=="table"' in r for r in requires)
    # The engine comes only with the extra `expert`, pinned to the engine's version.
    assert any(r.startswith("tranca-rules==0.1.0") and 'extra=="expert"' in r for r in requires)

    # The calls: a game made with the API key, two seats, the start, a draw.
    assert result["started"] is True
    before, after = result["versions"]
    assert after == before + 1
    assert result["hand"][1] == result["hand"][0] + 1
    # The other seat's move refused, the reason read from the status details.
    assert result["refused"] == "NOT_YOUR_TURN"


async def test_the_table_without_its_extra_says_how_to_get_it(sdk_python: Path) -> None:
    # Refused before any call: no server is needed.
    code, out, err = await _run(
        sdk_python, "-m", "tranca_client", "play", "--api-key", "some-key", "--new"
    )
    assert code == 1
    assert err.strip() == (
        "tranca play: the terminal table needs rich: pip install 'tranca-client[table]'"
    )
    # The bot, a client of the API alone, needs no extra.
    code, out, err = await _run(sdk_python, "-m", "tranca_client", "bot", "--help")
    assert code == 0, err
    assert "--level" in out


async def test_the_expert_without_the_engine_says_what_to_install(
    sdk_python: Path,
) -> None:
    # The SDK without its extra `expert` has no rules engine: the expert level is
    # refused before any call, with what to install.
    code, _, err = await _run(
        sdk_python,
        "-m", "tranca_client", "bot", "--game", "g", "--token", "t", "--level", "expert",
    )  # fmt: skip
    assert code == 1
    line = err.strip()
    assert line.startswith("tranca bot: the expert bot searches with the Tranca rules engine")
    assert "pip install 'tranca-client[expert]'" in line
