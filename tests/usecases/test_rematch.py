"""The rematch use case (services/rematch.py) against the in-memory repository: the
next match created once, each confirming seat at its own seat with a new token, the
others' seats held until the sweeper frees them at the app's hold, and refusals."""

from __future__ import annotations

import pytest

from tranca.services.errors import Refused
from tranca.services.games import Joining
from tranca.services.policy import AppPolicy
from tranca.services.rematch import Rematch
from tranca.services.timers import Sweeper
from tranca.table.errors import GameError
from tranca.table.game import FINISHED, WAITING

from .conftest import World
from .fakes import RematchMemory


def rematch_of(world: World, tournament_games: frozenset[str] = frozenset()) -> Rematch:
    return Rematch(
        world.games, RematchMemory(world.repo, tournament_games), world.repo, lambda: world.repo.now
    )


async def finished(world: World, players: int = 2) -> tuple[str, list[str]]:
    game_id, tokens = await world.seated(players=players)
    await world.games.leave(world.as_player(tokens[0]), game_id, "resign")
    assert (await world.repo.game(game_id)).state.status == FINISHED
    return game_id, tokens


async def test_the_first_confirmation_creates_the_next_match_and_the_others_join_it(
    world: World,
) -> None:
    rematch = rematch_of(world)
    game_id, tokens = await finished(world, players=4)
    first = await rematch.confirm(world.as_player(tokens[3]), game_id)
    assert first.created and first.seat == 3
    nxt = (await world.repo.game(first.game_id)).state
    assert nxt.status == WAITING and nxt.held == {0, 1, 2}
    assert nxt.setup.table_id == game_id and nxt.setup.match_number == 2
    assert nxt.seats[3].player_id == "id3"
    old = (await world.repo.game(game_id)).state
    assert old.next_game_id == first.game_id and old.rematch_seats == {3}
    for seat in (0, 1, 2):
        done = await rematch.confirm(world.as_player(tokens[seat]), game_id)
        assert not done.created and done.game_id == first.game_id and done.seat == seat
    nxt = (await world.repo.game(first.game_id)).state
    assert not nxt.held and [s.player_id for s in nxt.seats] == ["id0", "id1", "id2", "id3"]
    # The new tokens act in the next match; it starts as any table does.
    await world.games.start(world.as_player(first.player_token), first.game_id)
    assert (await world.repo.game(first.game_id)).state.status != WAITING


async def test_the_sweeper_frees_held_seats_at_the_apps_hold(world: World) -> None:
    world.repo.policies[world.app.id] = AppPolicy(rematch_hold_seconds=20)
    rematch = rematch_of(world)
    game_id, tokens = await finished(world)
    done = await rematch.confirm(world.as_player(tokens[1]), game_id)
    sweeper = Sweeper(world.repo, world.moves, clock=lambda: world.repo.now)
    world.repo.now += 19_000
    assert await sweeper.sweep_timers() == 0
    with pytest.raises(GameError) as held:
        await world.games.join(world.as_app(), done.game_id, Joining(0, "x", player_id="other"))
    assert held.value.reason == "SEAT_HELD"
    world.repo.now += 2_000
    assert await sweeper.sweep_timers() == 1
    nxt = await world.repo.game(done.game_id)
    assert not nxt.state.held and nxt.deadline_at is None
    seated = await world.games.join(world.as_app(), done.game_id, Joining(-1, "x", "other"))
    assert seated.seat == 0


async def test_refusals(world: World) -> None:
    game_id, tokens = await world.seated()
    rematch = rematch_of(world, frozenset({game_id}))
    with pytest.raises(Refused) as early:
        await rematch.confirm(world.as_player(tokens[0]), game_id)
    assert early.value.reason == "MATCH_NOT_OVER"
    await world.games.leave(world.as_player(tokens[0]), game_id, "resign")
    with pytest.raises(Refused) as tournament:
        await rematch.confirm(world.as_player(tokens[1]), game_id)
    assert tournament.value.reason == "TOURNAMENT_TABLE"
    other, others = await finished(world)
    rematch = rematch_of(world)
    await rematch.confirm(world.as_player(others[0]), other)
    with pytest.raises(Refused) as twice:
        await rematch.confirm(world.as_player(others[0]), other)
    assert twice.value.reason == "REMATCH_CONFIRMED"
