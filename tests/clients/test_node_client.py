"""The Node.js client (clients/node) against a real server in a subprocess.

The example examples/play-deal.js plays a whole deal through the API; its printed
scores must be those the server reports (GetView and GetReplay through the Python
stubs). The Node packages come from `make node-deps` (a prerequisite of `make
pytest`). When CI is set, a missing node, npm or package install fails the test;
elsewhere it skips.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.harness.processes import free_port, serve_command, stop, wait_healthy
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "clients" / "node"
EXAMPLE = NODE_DIR / "examples" / "play-deal.js"
SERVICE = "tranca.v1.GameService"
START_TIMEOUT = 30.0
NODE_TIMEOUT = 120.0


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{message} (required when CI is set)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def node() -> str:
    """The node executable, with the client's packages installed."""
    found = {name: shutil.which(name) for name in ("node", "npm")}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        _unavailable(f"{' and '.join(missing)} not found on the PATH")
    for package in ("@grpc/grpc-js", "@grpc/proto-loader", "protobufjs"):
        if not (NODE_DIR / "node_modules" / package / "package.json").is_file():
            _unavailable(f"{package} is not installed in clients/node: run `make node-deps`")
    path = found["node"]
    assert path is not None
    return path


@dataclass
class Server:
    address: str
    api_key: str
    channel: grpc.Channel
    stub: pb_grpc.GameServiceStub

    def app(self) -> tuple[tuple[str, str], ...]:
        return (("x-api-key", self.api_key),)


def _wait_serving(proc: subprocess.Popen[bytes], address: str, log: Path) -> bool:
    """True once the health service answers SERVING; False if the process died."""
    if wait_healthy(proc, address, START_TIMEOUT, SERVICE):
        return True
    if proc.poll() is not None:
        return False
    proc.kill()
    proc.wait()
    pytest.fail(f"the server did not serve within {START_TIMEOUT:.0f} s:\n{log.read_text()}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`tranca serve` on a fresh SQLite file, with a development API key."""
    tmp = tmp_path_factory.mktemp("node-client")
    api_key = f"dev-{uuid.uuid4().hex}"
    log = tmp / "server.log"
    for _attempt in range(3):  # a port picked free may be taken before the server binds it
        port = free_port()
        address = f"127.0.0.1:{port}"
        database = f"sqlite:///{tmp / 'x.db'}"
        command = serve_command(port, database, "--auto-migrate", "--dev-api-key", api_key)
        with log.open("wb") as out:
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        if _wait_serving(proc, address, log):
            break
    else:
        pytest.fail(f"the server did not start:\n{log.read_text()}")
    try:
        with grpc.insecure_channel(address) as channel:
            yield Server(address, api_key, channel, pb_grpc.GameServiceStub(channel))
    finally:
        stop(proc)


def _play_deal(
    node: str, args: list[str], env: dict[str, str] | None = None
) -> tuple[dict[str, Any], float]:
    """Runs the example; returns its JSON line and its run time."""
    started = time.monotonic()
    done = subprocess.run(
        [node, str(EXAMPLE), *args],
        cwd=NODE_DIR,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT,
        check=False,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 0, f"play-deal.js failed:\n{done.stderr}\n{done.stdout}"
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, f"expected one JSON line, got:\n{done.stdout}"
    result: dict[str, Any] = json.loads(lines[0])
    return result, elapsed


def _scores(deal: pb.DealResult) -> list[dict[str, int]]:
    return [{"side": s.side, "total": s.total} for s in deal.scores]


def _check_against_server(server: Server, out: dict[str, Any], preset: str) -> pb.GameView:
    """The example's output is what the server says of the game."""
    gid = out["game_id"]
    view = server.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=server.app()).view
    assert view.status == pb.GAME_STATUS_FINISHED
    assert view.rules.preset == preset
    assert view.match_result.reason == "single_deal"
    assert view.HasField("last_deal")
    assert out["scores"] == _scores(view.last_deal)
    assert len(out["scores"]) == 2
    assert out["end_reason"] == view.last_deal.end_reason
    assert out["went_out_seat"] == view.last_deal.went_out_seat
    assert out["winner_side"] == view.match_result.winner_side
    assert out["version"] == view.version
    assert list(view.match_totals) == [s["total"] for s in out["scores"]]

    replay = server.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=server.app())
    assert [d.deal_number for d in replay.deals] == [1]
    assert _scores(replay.deals[0].result) == out["scores"]
    played = [m for m in replay.moves if m.move.WhichOneof("kind") is not None]
    assert len(played) == out["moves"]
    assert {m.seat for m in played} == {0, 1}
    return view


def test_play_deal_from_environment(node: str, server: Server) -> None:
    """The default preset, with the address and key from the environment."""
    out, elapsed = _play_deal(
        node, [], {"TRANCA_ADDRESS": server.address, "TRANCA_API_KEY": server.api_key}
    )
    print(f"play-deal.js ({elapsed:.1f} s): {json.dumps(out)}")
    assert out["preset"] == "tranca-000"
    assert out["conflicts"] == 0
    _check_against_server(server, out, "tranca-000")


def test_play_deal_with_errors_and_watch(node: str, server: Server) -> None:
    """Arguments on the command line; the refusals an app meets, a stale move handled
    by refreshing, and a watch stream that sees every version without a gap."""
    out, elapsed = _play_deal(
        node,
        [server.address, server.api_key, "--seed", "7", "--exercise-errors", "--watch"],
    )
    print(f"play-deal.js ({elapsed:.1f} s): {json.dumps(out)}")
    view = _check_against_server(server, out, "tranca-000")
    checks = out["checks"]
    assert checks["VERSION_CONFLICT"] == {"current_version": "3"}  # 2 joins + the start
    for reason in ("NOT_YOUR_TURN", "MALFORMED_MOVE", "MUST_DRAW_FIRST", "REQUEST_ID_REUSED"):
        assert checks[reason] is True, reason
    assert checks["replayed"] is True
    assert checks["stale_move_refreshed"] is True
    # A turn refused at its second move names it (SubmitTurn's move_index).
    assert checks["TURN_MOVE_REFUSED"]["move_index"] == "2"
    # The rest of each turn after its draw went in one SubmitTurn call.
    assert out["turns"] > 0
    assert out["conflicts"] == 1
    watch = out["watch"]
    assert watch["from_version"] == 3
    assert watch["last_version"] == view.version
    assert watch["updates"] == view.version - 3


def test_play_deal_overrides_the_target(node: str, server: Server) -> None:
    """A preset played to a target (tranca-003, 2,000) becomes one deal: the override
    target_score = 0 reaches the server."""
    preset = "tranca-003"
    out, _ = _play_deal(node, [server.address, server.api_key, "--preset", preset])
    view = _check_against_server(server, out, preset)
    target = view.rules.overrides["target_score"]
    assert target.WhichOneof("value") == "int_value"
    assert target.int_value == 0


LANGUAGE_SCRIPT = """
const { TrancaClient, localizedMessage, reasonOf } = require('./lib/client');
(async () => {
  const [address, apiKey] = process.argv.slice(1);  // node -e: no script path
  const client = new TrancaClient(address, { apiKey, language: 'es' });
  const created = await client.createGame({ rules: { preset: 'tranca-000' }, players: 2 });
  const gameId = created.game.game_id;
  const tokens = [];
  for (const seat of [0, 1]) {
    tokens.push((await client.joinGame(gameId, seat, `p${seat}`)).player_token);
  }
  await client.startGame(gameId);
  const view = (await client.getView(gameId)).view;
  const idle = tokens[1 - view.turn];
  try {
    await client.submitMove(gameId, idle, view.version, { draw: {} }, { attempts: 1 });
    console.log(JSON.stringify({ refused: false }));
  } catch (err) {
    const text = localizedMessage(err);
    console.log(JSON.stringify({ reason: reasonOf(err), turn: view.turn, text }));
  }
  client.close();
})().catch((err) => { console.error(err); process.exit(1); });
"""


def test_the_node_client_reads_refusals_in_its_language(node: str, server: Server) -> None:
    """The client's language goes out as accept-language; localizedMessage(err) reads
    the service's wording of a refusal in it."""
    done = subprocess.run(
        [node, "-e", LANGUAGE_SCRIPT, server.address, server.api_key],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["reason"] == "NOT_YOUR_TURN"
    assert out["text"] == {
        "locale": "es",
        "message": f"No es tu turno: juega el asiento {out['turn']}.",
    }
