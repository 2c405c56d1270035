"""The Python SDK's progression against a real server (SQLite and PostgreSQL), on the
asyncio and the blocking clients: a player wins a rated match and reads, with her own
session, her XP, her level and the achievement it unlocked, which reached her event
stream; another player reads it as a public profile."""

from __future__ import annotations

import asyncio
import json
import time

from tranca_client import AsyncTrancaClient, TrancaClient, pb, xpb


async def _settled(client: AsyncTrancaClient, player_id: str) -> xpb.GetProgressionResponse:
    """The player's progress once the server's sweeper has settled her match."""
    deadline = time.monotonic() + 20
    while True:
        got = await client.progression(player_id)
        if got.xp or time.monotonic() > deadline:
            return got
        await asyncio.sleep(0.1)


async def test_a_rated_win_shows_as_xp_a_level_and_an_achievement(
    address: str, api_key: str, app: AsyncTrancaClient
) -> None:
    game = await app.create_game("tranca-003", 2, table=pb.TableOptions(competitive=True))
    await app.join_game(
        game.game_id, 0, player_name="Ana", player_id="ana-x", player_address="10.2.0.1"
    )
    bia_seat = await app.join(
        game.game_id, 1, player_name="Bia", player_id="bia-x", player_address="10.2.0.2"
    )
    await app.start_game(game.game_id)
    await bia_seat.leave_game(game.game_id)  # Bia resigns: Ana wins
    ana = app.with_token((await app.create_player_session("ana-x", "Ana")).access_token)
    mine = await _settled(ana, "")
    assert (mine.player_id, mine.xp, mine.level, mine.next_level_xp) == ("ana-x", 100, 2, 300)
    assert [a.achievement.id for a in mine.achievements if a.unlocked] == ["first-win"]
    events = await app.player_events("ana-x")
    kinds = {e.kind: json.loads(e.payload_json) for e in events.events}
    assert kinds["achievement_unlocked"]["achievement_id"] == "first-win"
    assert kinds["level_up"]["level"] == 2
    seen = await asyncio.to_thread(_blocking_read, address, api_key, "bia-x")
    assert (seen.xp, seen.level) == (0, 1)


def _blocking_read(address: str, api_key: str, player_id: str) -> xpb.GetProgressionResponse:
    with TrancaClient(address, api_key=api_key) as client:
        return client.progression(player_id)
