"""Merging two accounts (services/account_merge.py), against the fakes: what moves to
the kept player, who may ask, and the refusals. The database side (ratings, the
ledger's transfer, tournaments) is tests/server_platform/test_account_merge.py."""

from __future__ import annotations

import pytest

from tranca.services.access import Credentials
from tranca.services.account_merge import AccountMerge, MergeRepository
from tranca.services.audit import AuditAction, AuditLog
from tranca.services.errors import Refused
from tranca.table.game import rebuild

from .conftest import World
from .fakes import IdentitiesMemory, PlayersMemory, ProfilesMemory
from .fakes.audit import AuditMemory
from .fakes.merge import MergeMemory


class Rig:
    def __init__(self, world: World) -> None:
        self.identities = IdentitiesMemory()
        self.profiles = ProfilesMemory(world.repo.sessions)
        self.players = PlayersMemory(world.repo.chips)
        self.audit = AuditMemory()
        merges: MergeRepository = MergeMemory(
            world.repo, self.identities, self.profiles, self.players, self.audit
        )
        self.merge = AccountMerge(world.access, merges, lambda: world.repo.now)
        self.log = AuditLog(world.access, self.audit)


@pytest.fixture
def rig(world: World) -> Rig:
    return Rig(world)


async def test_the_merged_players_seat_identity_and_chips_are_the_kept_players(
    world: World, rig: Rig
) -> None:
    game_id, tokens = await world.seated()  # id0 and id1
    await world.games.leave(world.as_player(tokens[0]), game_id, "r1")
    opened = await world.sessions.create(world.as_app(), "id0", "p0")
    await rig.identities.link_identity(world.app.id, "custom", "id0", "id0", 1)
    await rig.players.grant_chips(world.app.id, "g1", "id0", 300)
    await rig.players.grant_chips(world.app.id, "g2", "kim", 100)

    merged = await rig.merge.merge(world.as_app(), "id0", "kim")
    assert merged.rows["player_identities"] == 1 and merged.rows["games"] == 1
    assert await rig.identities.identity_player(world.app.id, "custom", "id0") == "kim"
    game = world.repo.games[game_id]
    assert (game.state.seats[0].player_id, game.state.seats[0].name) == ("kim", "p0")
    assert (game.log[-1].action.kind, game.log[-1].actor) == ("merge", "app")
    assert rebuild(game.state.setup, [r.action for r in game.log]).to_dict() == (
        game.state.to_dict()
    )
    assert world.repo.chips[(world.app.id, "kim")] == 400
    with pytest.raises(Refused):
        await world.access.identify(Credentials(token=opened.access_token))
    (entry,) = await rig.log.list(world.as_app(), 0, 0)
    assert (entry.action, entry.subject, entry.detail["merged"]) == (
        AuditAction.MERGE_PLAYERS,
        "kim",
        "id0",
    )


async def test_players_who_shared_a_table_are_not_merged(world: World, rig: Rig) -> None:
    game_id, tokens = await world.seated()
    await world.games.leave(world.as_player(tokens[0]), game_id, "r1")
    with pytest.raises(Refused) as shared:
        await rig.merge.merge(world.as_app(), "id0", "id1")
    assert shared.value.reason == "ACCOUNTS_SHARED_A_TABLE"
    assert game_id in shared.value.message
    assert await rig.log.list(world.as_app(), 0, 0) == []


async def test_a_player_at_a_table_is_not_merged(world: World, rig: Rig) -> None:
    await world.seated()
    with pytest.raises(Refused) as still:
        await rig.merge.merge(world.as_app(), "kim", "id1")
    assert still.value.reason == "PLAYER_STILL_PLAYING"


async def test_only_the_app_merges_two_distinct_ids(world: World, rig: Rig) -> None:
    with pytest.raises(Refused) as same:
        await rig.merge.merge(world.as_app(), "kim", " kim ")
    assert same.value.reason == "MALFORMED_REQUEST"
    with pytest.raises(Refused) as empty:
        await rig.merge.merge(world.as_app(), "", "kim")
    assert empty.value.reason == "MALFORMED_REQUEST"
    opened = await world.sessions.create(world.as_app(), "kim", "Kim")
    with pytest.raises(Refused) as session:
        await rig.merge.merge(Credentials(token=opened.access_token), "ana", "kim")
    assert session.value.reason == "APP_KEY_REQUIRED"
