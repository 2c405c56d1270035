"""The lobby against the in-memory repository: the open tables an end user may join,
filtered, oldest first, paged; private, full and started tables never listed; a
player's session sees only what its app's policy lets it join."""

from __future__ import annotations

from tranca.services.errors import Refused
from tranca.services.games import Joining, NewTable
from tranca.services.lobby import LobbyFilter, Play
from tranca.services.policy import AppPolicy
from tranca.table.game import TableOptions

from .conftest import World


async def table(world: World, preset: str = "tranca-000", players: int = 2, **opts: object) -> str:
    game, _ = await world.games.create(
        world.as_app(),
        NewTable(preset, {}, players, TableOptions(**opts)),  # type: ignore[arg-type]
    )
    world.repo.now += 1  # one table per millisecond: the lobby's order is theirs
    return game.id


ANY = LobbyFilter()


async def listed(world: World, wanted: LobbyFilter = ANY, size: int = 50) -> list[str]:
    tables, _ = await world.lobby.open_tables(world.as_app(), wanted, size, "")
    return [g.id for g in tables]


async def test_open_public_tables_are_listed_oldest_first(world: World) -> None:
    first = await table(world)
    private = await table(world, private=True)
    second = await table(world, players=4)
    full = await table(world)
    for seat in range(2):
        await world.games.join(world.as_app(), full, Joining(seat, f"p{seat}"))
    started, _ = await world.seated()
    assert await listed(world) == [first, second]
    assert private not in await listed(world) and started not in await listed(world)


async def test_the_filters_pick_preset_size_play_stake_and_free_seats(world: World) -> None:
    pairs = await table(world)
    fours = await table(world, players=4)
    rated = await table(world, competitive=True)
    staked = await table(world, competitive=True, stake=50)
    other = await table(world, "tranca-003")
    crowded = await table(world, players=4)
    for seat in range(3):
        await world.games.join(world.as_app(), crowded, Joining(seat, f"p{seat}"))
    assert await listed(world, LobbyFilter(preset="tranca-003")) == [other]
    assert await listed(world, LobbyFilter(players=4)) == [fours, crowded]
    assert await listed(world, LobbyFilter(players=4, min_free_seats=2)) == [fours]
    assert await listed(world, LobbyFilter(play=Play.RATED)) == [rated, staked]
    assert staked not in await listed(world, LobbyFilter(play=Play.PRACTICE))
    assert await listed(world, LobbyFilter(min_stake=1)) == [staked]
    assert await listed(world, LobbyFilter(max_stake=0, play=Play.RATED)) == [rated]
    assert pairs in await listed(world, LobbyFilter(preset="tranca-000", players=2))


async def test_pages_follow_on_without_gaps_or_repeats_as_tables_fill(world: World) -> None:
    ids = [await table(world) for _ in range(7)]
    seen: list[str] = []
    token = ""
    while True:
        page, token = await world.lobby.open_tables(world.as_app(), LobbyFilter(), 3, token)
        seen += [g.id for g in page]
        if ids[0] in seen and ids[1] not in seen:
            # A table listed already fills meanwhile: nothing later shifts.
            for seat in range(2):
                await world.games.join(world.as_app(), ids[0], Joining(seat, f"p{seat}"))
        if not token:
            break
    assert seen == ids


async def test_a_session_sees_only_the_tables_its_policy_lets_it_join(world: World) -> None:
    await world.sessions.set_policy(
        world.as_app(), AppPolicy(presets=("tranca-000",), competitive=False)
    )
    practice = await table(world)
    await table(world, competitive=True)
    await table(world, "tranca-003")
    ana = await world.sessions.create(world.as_app(), "ana", "Ana")
    mine = world.as_player(ana.access_token)
    tables, _ = await world.lobby.open_tables(mine, LobbyFilter(), 50, "")
    assert [g.id for g in tables] == [practice]


async def test_bad_filters_and_tokens_are_refused(world: World) -> None:
    for wanted in (
        LobbyFilter(players=3),
        LobbyFilter(min_free_seats=5),
        LobbyFilter(min_stake=-1),
        LobbyFilter(min_stake=10, max_stake=5),
    ):
        try:
            await world.lobby.open_tables(world.as_app(), wanted, 10, "")
        except Refused as e:
            assert e.reason == "MALFORMED_REQUEST"
        else:
            raise AssertionError(f"{wanted} was accepted")
    for token in ("!!", "bm9jb2xvbg", "LTE6eA"):  # not base64; no colon; a negative time
        try:
            await world.lobby.open_tables(world.as_app(), LobbyFilter(), 10, token)
        except Refused as e:
            assert e.reason == "MALFORMED_REQUEST"
        else:
            raise AssertionError(f"page token {token!r} was accepted")
