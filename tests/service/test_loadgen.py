"""The load generator plays concurrent games and verifies them from the server."""

from tranca.loadgen import LoadGenerator, _rebuild_check
from tranca.server import Running


async def test_a_short_load_run_verifies_every_acknowledged_move(
    server: Running, db_url: str
) -> None:
    _, key = await server.store.create_app("load")
    gen = LoadGenerator([f"127.0.0.1:{server.port}"], key, channels=2, seed=3)
    try:
        result = await gen.run(games=3, seconds=2.0, warmup=0.3)
        verification = await gen.verify()
    finally:
        await gen.close()
    assert result["moves"] > 0 and result["moves_per_second"] > 0
    assert {"CreateGame", "ListLegalMoves", "SubmitMove"} <= set(result["rpcs"])
    assert result["rpcs"]["SubmitMove"]["p99_ms"] >= result["rpcs"]["SubmitMove"]["p50_ms"]
    assert verification["lost"] == 0 and verification["doubled"] == 0
    assert verification["moves_checked"] >= result["moves"]
    assert await _rebuild_check(db_url, list(gen.stats.acked)) == 0
