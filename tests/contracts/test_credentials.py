"""The credentials' reads (services/ports.py) as the fake and both databases keep
them: an app by its key while not revoked, a seat's token written with the change
that seats it, working until it expires or its seat is revoked."""

from __future__ import annotations

import uuid

from tranca.services.ports import GameChange
from tranca.table.game import Action

from .cases import join, new_table, state
from .conftest import Backend


def _token() -> str:
    return f"tok_{uuid.uuid4().hex}"


async def test_an_app_is_found_by_its_key(backend: Backend) -> None:
    app_id, key = await backend.new_app(frozenset({"fixed_deck"}))
    app = await backend.games.app_by_key(key)
    assert app is not None
    assert (app.id, app.permissions) == (app_id, frozenset({"fixed_deck"}))


async def test_an_unknown_key_finds_no_app(backend: Backend) -> None:
    await backend.new_app()
    assert await backend.games.app_by_key(f"ak_{uuid.uuid4().hex}") is None


async def test_a_seats_token_is_written_with_its_change(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    token = _token()
    await backend.games.commit(join(game_id, 0, seat=1, token=token))
    found = await backend.games.token(token)
    assert found is not None
    assert (found.game_id, found.seat, found.player_name) == (game_id, 1, "p1")


async def test_an_unknown_token_finds_nothing(backend: Backend) -> None:
    assert await backend.games.token(_token()) is None


async def test_an_expired_token_finds_nothing(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    token = _token()
    await backend.games.commit(join(game_id, 0, token=token, expires_at=1))
    assert await backend.games.token(token) is None


async def test_a_token_of_a_change_not_written_finds_nothing(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    token = _token()
    assert await backend.games.commit(join(game_id, 5, token=token)) is None
    assert await backend.games.token(token) is None


async def test_revoking_a_seat_ends_its_tokens(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    game_id = await backend.games.create_game(new_table(app_id))
    kept, revoked = _token(), _token()
    await backend.games.commit(join(game_id, 0, seat=0, token=kept))
    await backend.games.commit(join(game_id, 1, seat=1, token=revoked))
    leave = GameChange(game_id, 2, state(), Action("leave", 1), revoke_seat=1)
    assert await backend.games.commit(leave) is not None
    assert await backend.games.token(revoked) is None
    assert await backend.games.token(kept) is not None
