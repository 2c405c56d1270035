"""The load generator plays concurrent games and verifies them from the server."""

import pytest

from tranca.loadgen import LoadGenerator, _rebuild_check
from tranca.server import Running


@pytest.mark.parametrize("list_moves_first", [False, True])
async def test_a_short_load_run_verifies_every_acknowledged_move(
    server: Running, db_url: str, list_moves_first: bool
) -> None:
    _, key = await server.store.create_app("load")
    gen = LoadGenerator(
        [f"127.0.0.1:{server.port}"],
        key,
        channels=2,
        seed=3,
        draw_at_turn_start=not list_moves_first,
        think=0.001,
    )
    try:
        result = await gen.run(games=3, seconds=2.0, warmup=0.3)
        verification = await gen.verify()
    finally:
        await gen.close()
    assert result["moves"] > 0 and result["moves_per_second"] > 0
    assert {"CreateGame", "SubmitMove"} <= set(result["rpcs"])
    if list_moves_first:
        # Every turn opened with a listing: at least one per move's turn.
        assert result["rpcs"]["ListLegalMoves"]["calls"] > 0
    else:
        # Turns open with a draw and each answer carries the next legal moves: a
        # listing only where the preset refused the draw.
        listed = result["rpcs"].get("ListLegalMoves", {"calls": 0})["calls"]
        assert listed <= result["draws_refused"] + result["conflicts"]
    assert result["rpcs"]["SubmitMove"]["p99_ms"] >= result["rpcs"]["SubmitMove"]["p50_ms"]
    assert verification["lost"] == 0 and verification["doubled"] == 0
    assert verification["moves_checked"] >= result["moves"]
    assert await _rebuild_check(db_url, list(gen.stats.acked)) == 0
