"""The Python SDK's rematch against a real server (SQLite and PostgreSQL), on the
asyncio and the blocking clients: two players finish a match, both confirm the
rematch with the clients of their seats, each gets a client that plays the same seat
in the table's next match, and the table's history lists both matches."""

from __future__ import annotations

import asyncio

import pytest

from tranca_client import AsyncTrancaClient, RuleRejected, TrancaClient, pb


async def finished(app: AsyncTrancaClient) -> tuple[str, list[AsyncTrancaClient]]:
    game = await app.create_game("tranca-000", 2, table=pb.TableOptions(express=True))
    seats = [
        await app.join(game.game_id, seat, player_name=f"p{seat}", player_id=f"sdk-r-{seat}")
        for seat in range(2)
    ]
    await app.start_game(game.game_id)
    await seats[0].leave_game(game.game_id)
    return game.game_id, seats


async def test_both_players_confirm_and_play_the_same_seats_at_the_next_match(
    app: AsyncTrancaClient,
) -> None:
    gid, seats = await finished(app)
    first = await seats[1].rematch(gid)
    assert first.response.created and first.response.seat == 1
    assert list(first.response.view.rematch_seats) == [0]
    watched = await seats[0].get_view(gid)
    assert watched.next_game_id == first.response.game_id
    assert list(watched.rematch_seats) == [1]
    second = await seats[0].rematch(gid)
    assert second.response.game_id == first.response.game_id and second.response.seat == 0
    nxt = second.response.game_id
    started = await second.client.start_game(nxt)
    assert started.status == pb.GAME_STATUS_PLAYING and started.seat == 0
    assert (await first.client.get_view(nxt)).seat == 1
    with pytest.raises(RuleRejected) as twice:
        await seats[0].rematch(gid)
    assert twice.value.reason == "REMATCH_CONFIRMED"
    history = await app.all_table_matches(nxt)
    assert [m.game.game_id for m in history] == [gid, nxt]
    assert history[0].result.reason == "resignation"


async def test_the_blocking_client_confirms_and_pages_the_history(
    address: str, api_key: str, app: AsyncTrancaClient
) -> None:
    gid, seats = await finished(app)
    tokens = [s.token for s in seats]
    await asyncio.to_thread(_blocking, address, api_key, gid, tokens)


def _blocking(address: str, api_key: str, gid: str, tokens: list[str | None]) -> None:
    with TrancaClient(address, api_key=api_key) as app:
        seat = app.with_token(str(tokens[1]))
        done = seat.rematch(gid)
        assert done.response.seat == 1
        assert done.client.get_view(done.response.game_id).seat == 1
        page = app.table_matches(gid, page_size=1)
        assert [m.game.match_number for m in page.matches] == [1] and page.next_page_token
        assert [m.game.match_number for m in app.all_table_matches(gid)] == [1, 2]
