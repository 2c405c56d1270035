"""A player's copy of their data (services/player_data.py), against the fakes: the
games they sat at with the changes from their seat only, and who may ask."""

from __future__ import annotations

import pytest

from tranca.services.access import Credentials
from tranca.services.errors import Refused
from tranca.services.player_data import PlayerData
from tranca.services.policy import AppPolicy

from .conftest import World
from .fakes import (
    AuditMemory,
    FriendsMemory,
    IdentitiesMemory,
    PlayedGamesMemory,
    PlayersMemory,
    ProfilesMemory,
)


@pytest.fixture
def audit() -> AuditMemory:
    return AuditMemory()


@pytest.fixture
def player_data(world: World, audit: AuditMemory) -> PlayerData:
    return PlayerData(
        world.access,
        world.repo,
        IdentitiesMemory(),
        ProfilesMemory(world.repo.sessions),
        PlayersMemory(world.repo.chips),
        world.repo,
        PlayedGamesMemory(world.repo),
        audit,
        FriendsMemory(world.repo.sessions),
        lambda: world.repo.now,
    )


async def test_the_games_a_player_sat_at_with_its_seats_changes_only(
    world: World, player_data: PlayerData
) -> None:
    game_id, _ = await world.seated()  # seats 0 and 1: players id0 and id1
    data = await player_data.export(world.as_app(), "id0")
    (game,) = data["games"]
    assert (game["game_id"], game["seat"]) == (game_id, 0)
    assert {m["action"]["seat"] for m in game["moves"]} == {0}
    assert game["moves"][0]["action"] == {
        "kind": "join",
        "seat": 0,
        "name": "p0",
        "player_id": "id0",
    }
    assert (await player_data.export(world.as_app(), "nobody"))["games"] == []


async def test_each_copy_handed_out_is_audited(
    world: World, player_data: PlayerData, audit: AuditMemory
) -> None:
    await world.seated()
    await player_data.export(world.as_app(), "id0")
    (entry,) = await audit.audit_entries(world.app.id, 0, 10)
    assert (entry.action, entry.actor, entry.subject) == ("export_player_data", "app", "id0")
    assert entry.detail == {"games": 1, "events": 1}
    with pytest.raises(Refused):
        await player_data.export(world.as_app(), "")
    assert len(await audit.audit_entries(world.app.id, 0, 10)) == 1  # refused: not audited


async def test_a_session_asks_for_itself_where_the_app_allows(
    world: World, player_data: PlayerData
) -> None:
    opened = await world.sessions.create(world.as_app(), "ana", "Ana")
    ana = Credentials(token=opened.access_token, peer=lambda: "198.51.100.1")
    with pytest.raises(Refused) as off:
        await player_data.export(ana, "")
    assert off.value.reason == "DATA_RIGHTS_DISABLED"
    await world.sessions.set_policy(world.as_app(), AppPolicy(player_data_rights=True))
    opened = await world.sessions.create(world.as_app(), "ana", "Ana")
    ana = Credentials(token=opened.access_token, peer=lambda: "198.51.100.1")
    assert (await player_data.export(ana, ""))["player_id"] == "ana"
    with pytest.raises(Refused) as other:
        await player_data.export(ana, "bia")
    assert other.value.reason == "NOT_YOUR_DATA"
