"""The games' port (services/ports.py GameRepository) as the fake and both databases
keep it: a game read back as written, changes written only at the version they were
made on and once per request id, the log in order, listings by app and page."""

from __future__ import annotations

import pytest

from tranca.services.errors import DuplicateRequest, NotFound
from tranca_rules.presets import make_rules

from .cases import join, new_table, request_id
from .conftest import Backend


async def test_a_created_game_reads_back_waiting_at_version_zero(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id, "first"))
    game = await backend.games.game(game_id)
    assert (game.id, game.app_id, game.version, game.label) == (game_id, app_id, 0, "first")
    assert game.status == "waiting"


async def test_an_unknown_game_is_not_found(backend: Backend) -> None:
    with pytest.raises(NotFound):
        await backend.games.game("no-such-game")


async def test_a_games_setup_reads_back_as_written(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id, seed=41))
    setup = await backend.games.setup_of(game_id)
    assert (setup.players, setup.seed) == (2, 41)
    assert setup.rules.to_dict() == make_rules("tranca-000").to_dict()


async def test_a_new_games_current_version_is_zero(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    assert await backend.games.current_version(game_id) == 0


async def test_a_change_at_the_current_version_is_written(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    assert await backend.games.commit(join(game_id, 0)) is not None
    assert await backend.games.current_version(game_id) == 1
    assert (await backend.games.game(game_id)).version == 1


async def test_a_change_at_a_past_version_is_not_written(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    await backend.games.commit(join(game_id, 0))
    assert await backend.games.commit(join(game_id, 0, seat=1)) is None
    assert await backend.games.current_version(game_id) == 1
    assert [r.seat for r in await backend.games.log(game_id)] == [0]


async def test_a_change_at_a_future_version_is_not_written(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    assert await backend.games.commit(join(game_id, 3)) is None
    assert await backend.games.current_version(game_id) == 0


async def test_a_request_id_is_written_once_per_game(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    rid = request_id()
    await backend.games.commit(join(game_id, 0, request_id=rid))
    with pytest.raises(DuplicateRequest):
        await backend.games.commit(join(game_id, 1, seat=1, request_id=rid))
    assert await backend.games.current_version(game_id) == 1


async def test_one_request_id_may_serve_two_games(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    first = await backend.games.create_game(new_table(app_id))
    second = await backend.games.create_game(new_table(app_id))
    rid = request_id()
    assert await backend.games.commit(join(first, 0, request_id=rid)) is not None
    assert await backend.games.commit(join(second, 0, request_id=rid)) is not None


async def test_a_logged_request_gives_its_version_and_action(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    rid = request_id()
    await backend.games.commit(join(game_id, 0))
    await backend.games.commit(join(game_id, 1, seat=1, request_id=rid))
    found = await backend.games.logged_request(game_id, rid)
    assert found is not None
    version, action = found
    assert (version, action.kind, action.seat, action.name) == (2, "join", 1, "p1")


async def test_an_unlogged_request_is_none(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    await backend.games.commit(join(game_id, 0, request_id=request_id()))
    assert await backend.games.logged_request(game_id, request_id()) is None


async def test_the_log_holds_every_change_in_version_order(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    rid = request_id()
    await backend.games.commit(join(game_id, 0, request_id=rid))
    await backend.games.commit(join(game_id, 1, seat=1))
    rows = await backend.games.log(game_id)
    assert [(r.version, r.seat, r.request_id, r.actor) for r in rows] == [
        (1, 0, rid, "player"),
        (2, 1, None, "player"),
    ]


async def test_the_log_after_a_version_holds_only_the_later_rows(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    for version in range(3):
        await backend.games.commit(join(game_id, version, seat=version % 2))
    assert [r.version for r in await backend.games.log(game_id, after=1)] == [2, 3]
    assert await backend.games.log(game_id, after=3) == []


async def test_the_log_up_to_a_version_stops_there(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    for version in range(3):
        await backend.games.commit(join(game_id, version, seat=version % 2))
    assert [r.version for r in await backend.games.log(game_id, 0, 2)] == [1, 2]


async def test_a_new_games_log_is_empty(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    assert await backend.games.log(game_id) == []


async def test_an_apps_listing_holds_its_own_games_only(backend: Backend) -> None:
    mine, _ = await backend.new_app()
    other, _ = await backend.new_app()
    made = {await backend.games.create_game(new_table(mine)) for _ in range(3)}
    await backend.games.create_game(new_table(other))
    listed = await backend.games.list_games(mine, None, 10, 0)
    assert {g.id for g in listed} == made
    assert all(g.app_id == mine for g in listed)


async def test_listing_pages_cover_every_game_once(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    made = {await backend.games.create_game(new_table(app_id, seed=s)) for s in range(5)}
    pages = [await backend.games.list_games(app_id, None, 2, offset) for offset in (0, 2, 4)]
    assert [len(p) for p in pages] == [2, 2, 1]
    ids = [g.id for page in pages for g in page]
    assert sorted(ids) == sorted(made)


async def test_a_listing_past_the_last_game_is_empty(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    await backend.games.create_game(new_table(app_id))
    assert await backend.games.list_games(app_id, None, 5, 1) == []


async def test_a_listing_by_status_holds_that_status_only(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    await backend.games.create_game(new_table(app_id))
    assert len(await backend.games.list_games(app_id, "waiting", 10, 0)) == 1
    assert await backend.games.list_games(app_id, "finished", 10, 0) == []


async def test_an_app_without_games_lists_none(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    assert await backend.games.list_games(app_id, None, 10, 0) == []
