"""The load generator plays concurrent games and verifies them from the server."""

import pytest

from tranca.server import Running
from tranca.tools.loadgen import LoadGenerator, _rebuild_check


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
    # The window opens on games under way: a game is created in it only when one
    # ends during it, so CreateGame may not be there; moves always are.
    assert "SubmitMove" in result["rpcs"]
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


async def test_with_watch_each_seat_watches_its_game_while_it_is_played(
    server: Running, db_url: str
) -> None:
    _, key = await server.store.create_app("load-watch")
    gen = LoadGenerator(
        [f"127.0.0.1:{server.port}"], key, channels=2, seed=5, think=0.002, watch=True
    )
    try:
        result = await gen.run(games=2, seconds=1.5, warmup=0.2)
        verification = await gen.verify()
    finally:
        await gen.close()
    assert result["moves"] > 0
    # Two seats a game, each sent an update for (nearly) every move of its game.
    assert result["watch_updates"] >= result["moves"]
    assert not [e for e in result["errors"] if e.startswith("WatchGame")]
    assert verification["lost"] == 0 and verification["doubled"] == 0
    assert server.watch_leases is not None
    if server.watch_leases.enabled:  # PostgreSQL: the watched games were leased
        assert any(server.watch_leases.held_until(g) for g in gen.stats.acked)


@pytest.mark.parametrize("mode", ["turns", "planned"])
async def test_whole_turns_are_verified_move_by_move(
    server: Running, db_url: str, mode: str
) -> None:
    """With ``--turns`` the rest of each turn after its draw goes in one SubmitTurn,
    and the verification checks each of its moves at its own version (the move
    logged there is the move sent); ``--planned`` sends the same turns move by move."""
    _, key = await server.store.create_app(f"load-{mode}")
    gen = LoadGenerator(
        [f"127.0.0.1:{server.port}"],
        key,
        channels=2,
        seed=7,
        think=0.001,
        turns=mode == "turns",
        planned=mode == "planned",
    )
    try:
        result = await gen.run(games=3, seconds=2.0, warmup=0.3)
        verification = await gen.verify()
    finally:
        await gen.close()
    assert result["moves"] > 0
    if mode == "turns":
        assert result["turns"] > 0 and result["rpcs"]["SubmitTurn"]["calls"] > 0
        submits = result["rpcs"]["SubmitTurn"]["calls"] + result["rpcs"]["SubmitMove"]["calls"]
        assert result["moves"] >= submits  # a turn carries one move or more
    else:
        assert "SubmitTurn" not in result["rpcs"]
    assert verification["lost"] == 0 and verification["doubled"] == 0
    assert verification["moves_checked"] >= result["moves"]
    assert await _rebuild_check(db_url, list(gen.stats.acked)) == 0


async def test_the_verification_finds_a_move_logged_other_than_sent(
    server: Running, db_url: str
) -> None:
    """A move recorded as acknowledged at a version where the log holds another move
    counts as lost: the check is of each move, not only of its version."""
    _, key = await server.store.create_app("load-check")
    gen = LoadGenerator([f"127.0.0.1:{server.port}"], key, channels=1, seed=9, turns=True)
    try:
        await gen.run(games=1, seconds=1.0, warmup=0.1)
        sent = next(m for m in gen.stats.acked_moves.values() if m)
        version = min(sent)
        other = [m for v, m in sent.items() if m != sent[version]]
        assert other
        sent[version] = other[0]
        verification = await gen.verify()
    finally:
        await gen.close()
    assert verification["lost"] == 1
