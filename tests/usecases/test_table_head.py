"""The table head's use case (services/table_options.py) against the in-memory
repository: the head's change, the seats' consent, a staked start at the new stake,
and the refusals, each changing nothing (docs/platform/table-head.md)."""

from __future__ import annotations

import pytest

from tranca.services.errors import Refused, VersionConflict
from tranca.services.games import Joining
from tranca.services.policy import AppPolicy
from tranca.services.table_options import NewOptions, TableHead
from tranca.table.game import GameError, TableOptions, rebuild

from .conftest import World


async def _two_seats(world: World) -> tuple[str, list[str]]:
    game_id = await world.table("tranca-003")
    tokens = []
    for seat in (1, 0):  # seat 1 sits first: the head
        seated = await world.games.join(
            world.as_app(), game_id, Joining(seat, f"p{seat}", player_id=f"id{seat}")
        )
        tokens.append(seated.token)
    return game_id, [tokens[1], tokens[0]]  # by seat


async def test_the_head_changes_a_stake_the_other_agrees_and_the_start_takes_it(
    world: World,
) -> None:
    await world.repo.set_app_policy(world.app.id, AppPolicy(max_stake=50))
    head = TableHead(world.games, world.repo, world.repo)
    game_id, tokens = await _two_seats(world)
    for player in ("id0", "id1"):
        world.repo.chips[(world.app.id, player)] = 100
    shown = await head.update(
        world.as_player(tokens[1]),
        game_id,
        NewOptions(TableOptions(competitive=True, stake=30), spectators_allowed=True),
    )
    assert shown.state.head == 1 and shown.state.unconsented == {0}
    with pytest.raises(GameError) as early:
        await world.games.start(world.as_app(), game_id)
    assert early.value.reason == "CONSENT_PENDING"
    await head.consent(world.as_player(tokens[0]), game_id, "agree-1")
    started = await world.games.start(world.as_app(), game_id)
    assert started.state.setup.table.stake == 30
    for player in ("id0", "id1"):
        assert world.repo.chips[(world.app.id, player)] == 70
    game = await world.repo.game(game_id)
    rows = await world.repo.log(game_id)
    replayed = rebuild(await world.repo.setup_of(game_id), [r.action for r in rows])
    assert replayed.to_dict() == game.state.to_dict()


async def test_refusals_change_nothing(world: World) -> None:
    head = TableHead(world.games, world.repo, world.repo)
    game_id, tokens = await _two_seats(world)
    before = await world.repo.game(game_id)
    with pytest.raises(Refused) as other:
        await head.update(world.as_player(tokens[0]), game_id, NewOptions(TableOptions(), False))
    assert other.value.reason == "NOT_TABLE_HEAD"
    with pytest.raises(Refused) as app:
        await head.update(world.as_app(), game_id, NewOptions(TableOptions(), False))
    assert app.value.reason == "NOT_TABLE_HEAD"
    with pytest.raises(Refused) as stake:  # the default policy: no stakes
        await head.update(
            world.as_player(tokens[1]),
            game_id,
            NewOptions(TableOptions(competitive=True, stake=10), False),
        )
    assert stake.value.reason == "STAKE_NOT_ALLOWED"
    with pytest.raises(GameError) as fixed:
        await head.update(
            world.as_player(tokens[1]), game_id, NewOptions(TableOptions(verifiable=True), False)
        )
    assert fixed.value.reason == "OPTION_FIXED"
    with pytest.raises(VersionConflict):
        await head.update(
            world.as_player(tokens[1]),
            game_id,
            NewOptions(TableOptions(turn_seconds=5), False, expected_version=before.version - 1),
        )
    with pytest.raises(GameError) as nothing:
        await head.consent(world.as_player(tokens[0]), game_id, "")
    assert nothing.value.reason == "NO_CONSENT_PENDING"
    after = await world.repo.game(game_id)
    assert after.version == before.version and after.state.table_change is None
