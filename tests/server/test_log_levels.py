"""`tranca serve --log-level`: which lines a server writes.

Each applied move is a debug line (the move log in the database records every move);
info keeps the server's own events (listening, settlements, timeouts, robots) and
warnings and errors always pass.
"""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import pytest
import structlog
import structlog.testing

from tranca.server import Config, configure_logging
from tranca.v1 import game_pb2 as pb

from .conftest import Client


@pytest.fixture
def restore_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def _lines(err: str) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in err.splitlines() if line.startswith("{")]


def test_info_drops_the_move_lines_and_keeps_the_rest(
    restore_logging: None, capfd: pytest.CaptureFixture[str]
) -> None:
    configure_logging("json", "info")
    log = structlog.get_logger("test")
    log.debug("move", game_id="g1", version=3)
    log.info("match_settled", game_id="g1")
    log.warning("sweep_failed", error="boom")
    events = [line["event"] for line in _lines(capfd.readouterr().err)]
    assert events == ["match_settled", "sweep_failed"]


def test_debug_writes_a_line_per_move(
    restore_logging: None, capfd: pytest.CaptureFixture[str]
) -> None:
    configure_logging("json", "debug")
    structlog.get_logger("test").debug("move", game_id="g1", version=3, seat=0, kind="draw")
    (line,) = _lines(capfd.readouterr().err)
    assert line["event"] == "move" and line["level"] == "debug" and line["version"] == 3


def test_warning_keeps_only_warnings_and_errors(
    restore_logging: None, capfd: pytest.CaptureFixture[str]
) -> None:
    configure_logging("json", "warning")
    log = structlog.get_logger("test")
    log.info("listening")
    log.error("rpc_failed")
    assert [line["event"] for line in _lines(capfd.readouterr().err)] == ["rpc_failed"]


def test_the_level_comes_from_the_flag_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Config.from_args([]).log_level == "info"
    assert Config.from_args(["--log-level", "debug"]).log_level == "debug"
    monkeypatch.setenv("TRANCA_LOG_LEVEL", "WARNING")
    assert Config.from_args([]).log_level == "warning"
    with pytest.raises(SystemExit):
        Config.from_args(["--log-level", "verbose"])


async def test_the_server_logs_an_applied_move_at_debug(client: Client) -> None:
    gid, tokens = await client.new_game()
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    md = client.player(tokens[view.turn])
    legal = await client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md)
    with structlog.testing.capture_logs() as logged:
        await client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=gid, expected_version=legal.version, request_id="m", move=legal.moves[0]
            ),
            metadata=md,
        )
    moves = [entry for entry in logged if entry["event"] == "move"]
    assert [(m["log_level"], m["game_id"], m["version"]) for m in moves] == [
        ("debug", gid, legal.version + 1)
    ]
