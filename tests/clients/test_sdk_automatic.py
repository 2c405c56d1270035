"""The Python SDK's automatic mode against a real server (SQLite and PostgreSQL): a
seat switched on, seen by the other seat, refused twice with the typed error an app
handles, and switched off (003: "Véase también: Juego en modo automático")."""

from __future__ import annotations

import pytest

from tranca_client import AsyncTrancaClient, RuleRejected


async def test_a_seat_switches_automatic_mode_on_and_off(app: AsyncTrancaClient) -> None:
    game = await app.create_game("tranca-000", 2)
    seats = [await app.join(game.game_id, i, player_name=f"p{i}") for i in range(2)]
    await app.start_game(game.game_id)
    on = await seats[1].set_automatic(game.game_id, True)
    assert on.seats[1].automatic and on.seats[1].robot and on.seats[1].was_automatic
    seen = await seats[0].get_view(game.game_id)
    assert seen.seats[1].automatic
    with pytest.raises(RuleRejected) as twice:
        await seats[1].set_automatic(game.game_id, True)
    assert twice.value.reason == "AUTOMATIC_ALREADY_ON"
    off = await seats[1].set_automatic(game.game_id, False)
    assert not off.seats[1].automatic and not off.seats[1].robot
    with pytest.raises(RuleRejected) as not_on:
        await seats[1].set_automatic(game.game_id, False)
    assert not_on.value.reason == "AUTOMATIC_NOT_ON"
