"""Chip grants (services/players.py PlayersRepository, the ledger of
platform/chips.py) as the fake and both databases keep them: a grant posted once per
grant id, a retry answered with the same balance, another grant under a used id
refused, the account read newest first by pages."""

from __future__ import annotations

import uuid

import pytest

from tranca.platform import chips

from .conftest import Backend


def _grant_id() -> str:
    return f"g-{uuid.uuid4().hex}"


async def test_a_grant_adds_to_the_players_balance(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    assert await backend.players.grant_chips(app_id, _grant_id(), "ana", 100) == (100, True)
    assert await backend.players.grant_chips(app_id, _grant_id(), "ana", 50) == (150, True)


async def test_a_grant_retried_is_posted_once(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    grant = _grant_id()
    await backend.players.grant_chips(app_id, grant, "ana", 100)
    assert await backend.players.grant_chips(app_id, grant, "ana", 100) == (100, False)


async def test_another_grant_under_a_used_id_is_a_conflict(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    grant = _grant_id()
    await backend.players.grant_chips(app_id, grant, "ana", 100)
    with pytest.raises(chips.Conflict):
        await backend.players.grant_chips(app_id, grant, "ana", 99)


async def test_a_grant_of_no_chips_is_refused(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    with pytest.raises(chips.InvalidRequest):
        await backend.players.grant_chips(app_id, _grant_id(), "ana", 0)


async def test_a_players_grants_are_not_anothers(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    await backend.players.grant_chips(app_id, _grant_id(), "ana", 100)
    assert await backend.players.grant_chips(app_id, _grant_id(), "bia", 5) == (5, True)


async def test_the_account_reads_newest_first_by_pages(backend: Backend) -> None:
    app_id, _ = await backend.new_app()
    for amount in (10, 20, 30):
        await backend.players.grant_chips(app_id, _grant_id(), "ana", amount)
    first = await backend.players.chip_entries(app_id, "ana", 2, None)
    assert [(e.amount, e.balance) for e in first.entries] == [(30, 60), (20, 30)]
    assert first.next_before is not None
    rest = await backend.players.chip_entries(app_id, "ana", 2, first.next_before)
    assert [(e.amount, e.balance) for e in rest.entries] == [(10, 10)]
    assert rest.next_before is None
