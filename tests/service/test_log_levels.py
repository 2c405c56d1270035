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

from tranca.server import Config, configure_logging


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
