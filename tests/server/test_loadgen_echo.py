"""The transport ceiling's parts: the echo server and ``tranca loadtest --echo``."""

from __future__ import annotations

import asyncio
import json

import pytest
from bench import echo_server

from tranca.tools import loadgen
from tranca.tools.loadgen_echo import EchoLoad


async def test_echo_load_makes_calls_and_reports_latencies() -> None:
    server, port = await echo_server.start(port=0)
    load = EchoLoad([f"127.0.0.1:{port}"], channels=2, payload_bytes=200)
    try:
        result = await load.run(games=4, seconds=1.0, warmup=0.2)
    finally:
        await load.close()
        await server.stop(0)
    assert result["mode"] == "echo" and result["errors"] == {}
    assert result["calls"] > 0 and result["calls_per_second"] > 0
    assert result["payload_bytes"] == 200 and result["channels"] == 2
    echo = result["rpcs"]["Echo"]
    assert echo["calls"] == result["calls"]
    assert 0 < echo["p50_ms"] <= echo["p90_ms"] <= echo["p99_ms"] <= echo["max_ms"]


async def test_loadtest_echo_flag_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    server, port = await echo_server.start(port=0)
    try:
        # The command runs its own event loop: in a thread, beside this test's.
        code = await asyncio.to_thread(
            loadgen.main,
            [
                *("--echo", "--address", f"127.0.0.1:{port}", "--games", "2"),
                *("--seconds", "0.5", "--warmup", "0.1", "--channels", "1"),
            ],
        )
    finally:
        await server.stop(0)
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert code == 0
    assert report["calls"] > 0 and "Echo" in report["rpcs"]
    # The measured window is marked on stderr, for a harness reading CPU time over it.
    assert out.err.index("measured window open") < out.err.index("measured window closed")


def test_loadtest_still_needs_an_api_key_without_echo() -> None:
    with pytest.raises(SystemExit):
        loadgen.main(["--seconds", "1"])
