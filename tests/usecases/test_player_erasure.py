"""Erasing a player (services/player_erasure.py) and the audit log (services/audit.py),
against the fakes: what is deleted, what keeps its place under the pseudonym, who
may ask, and a player still playing. The database side, with every table scanned,
is tests/server_platform/test_player_erasure.py."""

from __future__ import annotations

import pytest

from tranca.services.access import Credentials
from tranca.services.admin import Admin
from tranca.services.audit import AuditAction, AuditLog
from tranca.services.errors import Refused
from tranca.services.games import Joining
from tranca.services.player_erasure import ErasureRepository, PlayerErasure
from tranca.services.player_rewrite import PlayerRewrite
from tranca.services.policy import AppPolicy
from tranca.table.game import TableOptions, rebuild

from .conftest import World
from .fakes import IdentitiesMemory, PlayersMemory, ProfilesMemory
from .fakes.audit import AuditMemory
from .fakes.erasure import ErasureMemory

PSEUDONYM = "erased-0123456789abcdef"
REWRITE = PlayerRewrite("ana", PSEUDONYM)


class Rig:
    def __init__(self, world: World) -> None:
        self.identities = IdentitiesMemory()
        self.profiles = ProfilesMemory(world.repo.sessions)
        self.players = PlayersMemory(world.repo.chips)
        self.audit = AuditMemory()
        erasures: ErasureRepository = ErasureMemory(
            world.repo, self.identities, self.profiles, self.players, self.audit
        )
        self.erasure = PlayerErasure(
            world.access, erasures, lambda: world.repo.now, lambda: PSEUDONYM, world.notes
        )
        self.log = AuditLog(world.access, self.audit)


@pytest.fixture
def rig(world: World) -> Rig:
    return Rig(world)


def test_a_document_names_the_pseudonym_wherever_it_named_the_player() -> None:
    document = {
        "players": ["ana", "bia"],
        "pay_ins": {"ana": 100, "bia": 100},
        "seat": {"player_id": "ana", "name": "Ana", "rank": 1},
        "other": {"player_id": "bia", "name": "Ana"},  # another Ana: hers to keep
        "note": "ana's table",  # free text is not a player's id
    }
    assert REWRITE.value(document) == {
        "players": [PSEUDONYM, "bia"],
        "pay_ins": {PSEUDONYM: 100, "bia": 100},
        "seat": {"player_id": PSEUDONYM, "name": PSEUDONYM, "rank": 1},
        "other": {"player_id": "bia", "name": "Ana"},
        "note": "ana's table",
    }


def test_a_name_is_the_players_only_beside_the_member_that_names_them() -> None:
    # A quick-play party's invitation to Bia, from Ana: erasing Ana renames the
    # inviter's name; erasing Bia leaves it.
    invited = {
        "player_id": "bia",
        "from_player_id": "ana",
        "from_display_name": "Ana Souza",
        "ticket_id": "t1",
    }
    assert REWRITE.value(invited) == {
        **invited,
        "from_player_id": PSEUDONYM,
        "from_display_name": PSEUDONYM,
    }
    bia = PlayerRewrite("bia", PSEUDONYM)
    assert bia.value(invited) == {**invited, "player_id": PSEUDONYM}


def test_a_key_is_renamed_where_the_id_is_a_whole_word() -> None:
    one = PlayerRewrite("1", PSEUDONYM)
    assert one.key("grant-2021-1") == f"grant-2021-{PSEUDONYM}"
    assert one.key("grant-2021") == "grant-2021"
    long = "g-" + "x" * 120 + "-1"
    renamed = one.key(long)
    assert len(renamed) <= 128 and renamed.startswith(PSEUDONYM + ":")
    assert renamed != one.key("g-" + "y" * 120 + "-1")  # still one key for one key


def test_a_snapshot_renames_the_players_seat_and_removal_only() -> None:
    snapshot = {
        "seats": [["Ana", True, False], ["Bia", True, True]],
        "player_ids": {"0": "ana", "1": "bia"},
        "removed_players": ["ana"],
        "match": {"deal": [1, 2, 3]},
    }
    assert REWRITE.snapshot(snapshot) == {
        "seats": [[PSEUDONYM, True, False], ["Bia", True, True]],
        "player_ids": {"0": PSEUDONYM, "1": "bia"},
        "removed_players": [PSEUDONYM],
        "match": {"deal": [1, 2, 3]},
    }
    join = {"kind": "join", "seat": 0, "name": "Ana", "player_id": "ana"}
    assert REWRITE.action(join) == {**join, "name": PSEUDONYM, "player_id": PSEUDONYM}
    other = {"kind": "join", "seat": 1, "name": "Bia", "player_id": "bia"}
    assert REWRITE.action(other) == other
    assert REWRITE.key("g-ana-500") == f"g-{PSEUDONYM}-500"


async def test_an_erased_players_seat_keeps_its_place_under_the_pseudonym(
    world: World, rig: Rig
) -> None:
    game_id, tokens = await world.seated()  # seats 0 and 1: players id0 and id1
    await world.games.leave(world.as_player(tokens[1]), game_id, "r1")  # id1 resigns
    opened = await world.sessions.create(world.as_app(), "id0", "p0")
    await rig.identities.link_identity(world.app.id, "custom", "id0", "id0", 1)
    await rig.players.grant_chips(world.app.id, "g-id0", "id0", 300)

    erased = await rig.erasure.erase(world.as_app(), "id0")
    assert erased.pseudonym == PSEUDONYM
    assert erased.rows == {
        "chip_accounts": 1,
        "chip_entries": 1,
        "games": 1,
        "move_log": 2,  # the join rewritten, the erasure logged
        "player_identities": 1,
        "player_events": 2,  # "your_turn" at the start, "game_over"
        "player_sessions": 1,
        "player_tokens": 1,
    }
    game = world.repo.games[game_id]
    assert [(s.name, s.player_id) for s in game.state.seats] == [
        (PSEUDONYM, PSEUDONYM),
        ("p1", "id1"),
    ]
    last = game.log[-1]
    assert (last.action.kind, last.actor, last.version) == ("erase", "app", game.version)
    # Its watchers here read it again (the change was made outside the move path).
    assert world.notes.unversioned[-1:] == [game_id]
    # The log still rebuilds the game.
    rebuilt = rebuild(game.state.setup, [r.action for r in game.log])
    assert rebuilt.to_dict() == game.state.to_dict()
    # The session and the identity are gone; the chips are the pseudonym's.
    assert await rig.identities.identities_of(world.app.id, "id0") == []
    with pytest.raises(Refused):
        await world.access.identify(Credentials(token=opened.access_token))
    assert world.repo.chips.get((world.app.id, PSEUDONYM)) == 300
    assert (world.app.id, "id0") not in world.repo.chips
    # Audited by pseudonym.
    (entry,) = await rig.log.list(world.as_app(), 0, 0)
    assert (entry.action, entry.actor, entry.subject) == (
        AuditAction.ERASE_PLAYER,
        "app",
        PSEUDONYM,
    )
    assert entry.detail == {"rows": erased.rows}


async def test_a_player_still_at_a_table_is_not_erased(world: World, rig: Rig) -> None:
    game_id, _ = await world.seated()
    before = world.repo.games[game_id].state.to_dict()
    with pytest.raises(Refused) as still:
        await rig.erasure.erase(world.as_app(), "id0")
    assert still.value.reason == "PLAYER_STILL_PLAYING"
    assert game_id in still.value.message
    assert world.repo.games[game_id].state.to_dict() == before
    assert await rig.log.list(world.as_app(), 0, 0) == []


async def test_a_session_erases_itself_only_and_only_where_the_app_allows(
    world: World, rig: Rig
) -> None:
    opened = await world.sessions.create(world.as_app(), "ana", "Ana")
    ana = Credentials(token=opened.access_token, peer=lambda: "198.51.100.1")
    with pytest.raises(Refused) as off:
        await rig.erasure.erase(ana, "")
    assert off.value.reason == "DATA_RIGHTS_DISABLED"
    await world.sessions.set_policy(world.as_app(), AppPolicy(player_data_rights=True))
    opened = await world.sessions.create(world.as_app(), "ana", "Ana")
    ana = Credentials(token=opened.access_token, peer=lambda: "198.51.100.1")
    with pytest.raises(Refused) as other:
        await rig.erasure.erase(ana, "bia")
    assert other.value.reason == "NOT_YOUR_DATA"
    erased = await rig.erasure.erase(ana, "")
    assert erased.rows == {"player_sessions": 2}
    (entry,) = await rig.log.list(world.as_app(), 0, 0)
    assert entry.actor == "player"


async def test_a_player_the_app_removed_is_erased_while_the_game_goes_on(
    world: World, rig: Rig
) -> None:
    game_id = await world.table(table=TableOptions(robot_grace_seconds=60))
    for seat in (0, 1):
        await world.games.join(
            world.as_app(), game_id, Joining(seat, f"p{seat}", player_id=f"id{seat}")
        )
    await world.games.start(world.as_app(), game_id)
    await Admin(world.repo, world.access, world.moves).remove_seat(world.as_app(), game_id, 0, "r1")
    game = world.repo.games[game_id]
    assert game.state.status != "finished" and 0 in game.state.removed_seats
    erased = await rig.erasure.erase(world.as_app(), "id0")
    assert erased.rows["games"] == 1
    assert (game.log[-1].action.kind, game.log[-1].seat) == ("erase", 0)
    assert game.state.seats[0].player_id == PSEUDONYM and 0 in game.state.robots
    assert rebuild(game.state.setup, [r.action for r in game.log]).to_dict() == (
        game.state.to_dict()
    )


async def test_erasing_an_id_that_holds_nothing_changes_nothing(world: World, rig: Rig) -> None:
    assert (await rig.erasure.erase(world.as_app(), "nobody")).rows == {}
    (entry,) = await rig.log.list(world.as_app(), 0, 0)
    assert entry.detail == {"rows": {}}


async def test_the_audit_log_is_the_apps_and_pages_by_id(world: World, rig: Rig) -> None:
    for player in ("a", "b", "c"):
        await rig.erasure.erase(world.as_app(), player)
    first = await rig.log.list(world.as_app(), 0, 2)
    assert [e.id for e in first] == [1, 2]
    assert [e.id for e in await rig.log.list(world.as_app(), first[-1].id, 2)] == [3]
    opened = await world.sessions.create(world.as_app(), "ana", "Ana")
    with pytest.raises(Refused) as denied:
        await rig.log.list(Credentials(token=opened.access_token), 0, 0)
    assert denied.value.reason == "APP_KEY_REQUIRED"
    with pytest.raises(Refused):
        await rig.log.list(world.as_app(), -1, 0)
