"""The Python SDK's table head calls against a real server (SQLite and PostgreSQL):
the head changes a waiting table's options, the other seat sees the change and agrees
to a new stake or rated play, and a seat that is not the head is refused."""

from __future__ import annotations

import pytest

from tranca_client import AsyncTrancaClient, PermissionDenied, RuleRejected, pb


async def test_the_head_changes_the_options_and_the_other_seat_agrees(
    app: AsyncTrancaClient,
) -> None:
    game = await app.create_game("tranca-003", 2)
    head = await app.join(game.game_id, 0, player_name="ana", player_id="sdk-head-ana")
    other = await app.join(game.game_id, 1, player_name="bia", player_id="sdk-head-bia")
    seen = await other.get_view(game.game_id)
    assert seen.head_seat == 0 and seen.seats[0].head and seen.options_version == 0
    with pytest.raises(PermissionDenied) as refused:
        await other.update_table_options(game.game_id, pb.TableOptions(turn_seconds=30))
    assert refused.value.reason == "NOT_TABLE_HEAD"
    changed = await head.update_table_options(
        game.game_id,
        pb.TableOptions(competitive=True, turn_seconds=30),
        spectators_allowed=True,
        expected_version=seen.version,
    )
    assert changed.options_version == changed.version and changed.table.competitive
    seen = await other.get_view(game.game_id)
    assert seen.table.turn_seconds == 30 and seen.spectators_allowed
    assert seen.seats[1].consent_pending  # rated play changed: bia agrees again
    with pytest.raises(RuleRejected) as early:
        await app.start_game(game.game_id)
    assert early.value.reason == "CONSENT_PENDING"
    agreed = await other.consent_to_options(game.game_id)
    assert not agreed.seats[1].consent_pending
    started = await app.start_game(game.game_id)
    assert started.status == pb.GAME_STATUS_PLAYING
