"""A seat's table actions, the sweeper's timers and robots, and who may call, against
the in-memory repository (docs/platform/timers-and-robots.md, GUARANTEES.md)."""

from __future__ import annotations

import pytest

from tranca.services.access import Credentials
from tranca.services.errors import Refused
from tranca.services.games import Joining
from tranca.services.ports import TokenRecord
from tranca.services.timers import Sweeper
from tranca.table.game import GameError, TableOptions
from tranca_rules.moves import DISCARD, DRAW

from .conftest import World, make_world


async def _robot_table(world: World, grace: int = 30) -> tuple[str, list[str]]:
    return await world.seated(table=TableOptions(robot_grace_seconds=grace))


async def test_a_silent_seat_is_taken_by_a_robot_which_plays_until_reclaimed(
    world: World,
) -> None:
    game_id, tokens = await _robot_table(world)
    game = await world.repo.game(game_id)
    assert game.deadline_at is not None  # the first turn's clock
    assert game.state.deal is not None
    seat = game.state.deal.turn
    sweeper = Sweeper(world.repo, world.moves, clock=lambda: world.repo.now)
    assert await sweeper.sweep_timers() == 0  # not due yet
    world.repo.now += 31_000
    assert await sweeper.sweep_timers() == 1
    game = await world.repo.game(game_id)
    assert seat in game.state.robots
    actors = [r.actor for r in await world.repo.log(game_id)]
    assert actors[3] == "robot" and "robot" in actors[4:]
    assert await world.tables.heartbeat(world.as_player(tokens[seat]), game_id)
    shown = await world.tables.reclaim(world.as_player(tokens[seat]), game_id, "back")
    assert seat not in shown.state.robots


async def test_a_turn_out_of_time_is_played_for_the_player(world: World) -> None:
    game_id, _ = await world.seated(table=TableOptions(turn_seconds=10))
    sweeper = Sweeper(world.repo, world.moves, clock=lambda: world.repo.now)
    world.repo.now += 11_000
    assert await sweeper.sweep_timers() == 1
    timed_out = [r for r in await world.repo.log(game_id) if r.actor == "timeout"]
    # 003: "el juego realizará la jugada por él": a draw, and a discard that ends the turn.
    kinds = [r.action.move.kind for r in timed_out if r.action.move is not None]
    assert kinds == [DRAW, DISCARD]
    game = await world.repo.game(game_id)
    assert game.state.deal is not None
    assert game.state.deal.turn == 1 - timed_out[0].seat


async def test_robot_seats_play_from_the_start_and_only_at_practice_tables_with_robots(
    world: World,
) -> None:
    game_id = await world.table(table=TableOptions(robot_grace_seconds=30))
    await world.games.join(world.as_app(), game_id, Joining(0, "ana"))
    robot = await world.games.join(world.as_app(), game_id, Joining(1, robot=True))
    assert robot.token == "" and robot.seat == 1
    plain = await world.table()
    with pytest.raises(GameError) as err:
        await world.games.join(world.as_app(), plain, Joining(0, robot=True))
    assert err.value.reason == "NO_ROBOTS"


async def test_an_annulment_needs_every_person_and_entropy_only_before_the_start(
    world: World,
) -> None:
    game_id, tokens = await world.seated(table=TableOptions(annulment_allowed=True))
    first = await world.tables.vote_annul(world.as_player(tokens[0]), game_id, "v0")
    assert first.votes == [0] and not first.annulled
    again = await world.tables.vote_annul(world.as_player(tokens[0]), game_id, "v0")
    assert again.version == first.version  # the retry's first answer
    done = await world.tables.vote_annul(world.as_player(tokens[1]), game_id, "v1")
    assert done.annulled
    waiting = await world.table(table=TableOptions(verifiable=True))
    state = await world.tables.add_entropy(world.as_app(), waiting, "dice", "e1")
    assert state.entropy == ["dice"]
    with pytest.raises(Refused) as err:
        await world.tables.add_entropy(world.as_app(), waiting, "x" * 300, "e2")
    assert err.value.reason == "MALFORMED_REQUEST"


async def test_revoking_an_app_ends_its_key_and_every_token_of_its_games(world: World) -> None:
    game_id, tokens = await world.seated()
    world.repo.revoke_app(world.app.id)
    for credentials in (world.as_app(), world.as_player(tokens[0])):
        with pytest.raises(Refused) as err:
            await world.games.view(credentials, game_id)
        assert err.value.reason in ("BAD_API_KEY", "BAD_TOKEN")


async def test_guessing_credentials_is_throttled_per_peer_before_any_lookup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    world = make_world(failures_per_peer=1)  # bursts of 4
    game_id, tokens = await world.seated()
    await world.games.view(world.as_player(tokens[0], peer="1.2.3.4"), game_id)  # accepted
    lookups = []
    real = world.repo.token

    async def counted(token: str) -> TokenRecord | None:
        lookups.append(token)
        return await real(token)

    monkeypatch.setattr(world.repo, "token", counted)
    reasons = []
    for i in range(8):
        guess = Credentials(token=f"tp_guess{i}", peer=lambda: "1.2.3.4")
        with pytest.raises(Refused) as err:
            await world.access.identify(guess)
        reasons.append(err.value.reason)
    assert reasons[:4] == ["BAD_TOKEN"] * 4 and set(reasons[5:]) == {"RATE_LIMITED"}
    assert len(lookups) <= 5
    # The token accepted before still works from the same address; another peer too.
    await world.games.view(world.as_player(tokens[0], peer="1.2.3.4"), game_id)
    with pytest.raises(Refused) as other:
        await world.access.identify(Credentials(token="tp_x", peer=lambda: "5.6.7.8"))
    assert other.value.reason == "BAD_TOKEN"


async def test_each_token_and_each_app_has_its_own_rate_limit() -> None:
    world = make_world(rate_per_token=5, rate_per_app=0)  # bursts of 10
    game_id = await world.table(spectators=True)
    tokens = [
        (
            await world.games.join(
                world.as_app(), game_id, Joining(spectator=True, player_name="Same")
            )
        ).token
        for _ in range(2)
    ]
    for token in tokens:
        for _ in range(10):
            await world.games.view(world.as_player(token), game_id)
    with pytest.raises(Refused) as err:
        await world.games.view(world.as_player(tokens[0]), game_id)
    assert err.value.reason == "RATE_LIMITED" and int(err.value.metadata["retry_after_ms"]) > 0
