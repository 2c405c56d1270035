"""Every change of a game goes through ``Moves``: applied by the pure game logic to the
state read, written only at that version, a request id applied once, the first
answer to a retry, watchers woken after the commit (GUARANTEES.md, "Moves")."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tranca.platform.chips import InsufficientChips
from tranca.services import moves as moves_module
from tranca.services.errors import RequestIdReused, VersionConflict
from tranca.services.ports import GameChange
from tranca.table.game import Action, GameError, play_action, rebuild
from tranca_rules.engine import legal_moves
from tranca_rules.moves import parse_move

from .conftest import World, make_world


async def test_a_change_is_written_at_the_next_version_and_wakes_the_watchers(
    world: World,
) -> None:
    game_id, _ = await world.seated()
    game = await world.repo.game(game_id)
    assert game.state.deal is not None
    seat = game.state.deal.turn
    done = await world.moves.apply(game_id, play_action(seat, parse_move("draw")))
    assert done.version == game.version + 1 and not done.replayed
    assert (await world.repo.game(game_id)).version == done.version
    assert world.notes.published[-1] == (game_id, done.version)


async def test_a_change_hints_the_rows_it_logged(world: World) -> None:
    game_id, _ = await world.seated()
    game = await world.repo.game(game_id)
    assert game.state.deal is not None
    action = play_action(game.state.deal.turn, parse_move("draw"))
    done = await world.moves.apply(game_id, action, request_id="r1")
    assert list(world.notes.rows[game_id]) == await world.repo.log(game_id, game.version)
    assert [r.action for r in world.notes.rows[game_id]] == [action]
    assert done.version == game.version + 1


async def test_a_write_cut_off_after_it_may_have_committed_has_the_watchers_read_the_log(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A timeout or a cancelled call after COMMIT was sent: the move may be in the log
    with nobody told, so a hint without a version wakes every watcher to read it."""
    game_id, _ = await world.seated()
    game = await world.repo.game(game_id)
    assert game.state.deal is not None
    real_commit = world.repo.commit

    async def committed_then_cut_off(change: GameChange) -> float | None:
        await real_commit(change)
        raise TimeoutError("the answer to COMMIT never came")

    monkeypatch.setattr(world.repo, "commit", committed_then_cut_off)
    monkeypatch.setattr(moves_module, "UNKNOWN_WRITE_RECHECK_SECONDS", 0.05)
    with pytest.raises(TimeoutError):
        await world.moves.apply(game_id, play_action(game.state.deal.turn, parse_move("draw")))
    assert world.notes.unversioned == [game_id]  # now
    await asyncio.sleep(0.2)
    assert world.notes.unversioned == [game_id, game_id]  # and once a COMMIT is over
    assert (await world.repo.game(game_id)).version == game.version + 1


async def test_a_refused_stake_hints_nothing(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id, _ = await world.seated()
    game = await world.repo.game(game_id)
    assert game.state.deal is not None

    async def refused(change: GameChange) -> float | None:
        raise InsufficientChips("p1", 0, 10)

    monkeypatch.setattr(world.repo, "commit", refused)
    with pytest.raises(InsufficientChips):
        await world.moves.apply(game_id, play_action(game.state.deal.turn, parse_move("draw")))
    assert world.notes.unversioned == []


async def test_a_move_made_on_a_stale_version_is_a_conflict_and_writes_nothing(
    world: World,
) -> None:
    _, tokens = await world.seated()
    loaded = await world.repo.seat_game(tokens[0])
    assert loaded is not None and loaded.state.deal is not None
    seat = loaded.state.deal.turn
    turn = await world.repo.seat_game(tokens[seat])
    assert turn is not None
    before = world.repo.commits
    with pytest.raises(VersionConflict) as conflict:
        await world.moves.move(
            turn,
            play_action(seat, parse_move("draw")),
            expected_version=turn.version - 1,
            request_id="r1",
        )
    assert conflict.value.current == turn.version
    assert world.repo.commits == before


async def test_a_retry_gets_the_first_answer_and_the_move_is_applied_once(world: World) -> None:
    game_id, _ = await world.seated()
    game = await world.repo.game(game_id)
    assert game.state.deal is not None
    seat = game.state.deal.turn
    action = play_action(seat, parse_move("draw"))
    first = await world.moves.apply(game_id, action, expected_version=game.version, request_id="r")
    for expected in (game.version, first.version, None):
        again = await world.moves.apply(game_id, action, expected_version=expected, request_id="r")
        assert again.replayed and again.version == first.version
        assert again.state.to_dict() == first.state.to_dict()
    assert (await world.repo.game(game_id)).version == first.version
    assert first.state.deal is not None
    other = play_action(seat, legal_moves(first.state.deal)[-1])
    with pytest.raises(RequestIdReused):
        await world.moves.apply(game_id, other, request_id="r")
    assert (await world.repo.game(game_id)).version == first.version


async def test_a_retry_racing_its_first_attempt_gets_the_first_answer(world: World) -> None:
    """The write meets the logged request id (the first attempt committed after the
    retry read the game): the first answer, not a refusal."""
    game_id, tokens = await world.seated()
    loaded = await world.repo.seat_game(tokens[0])
    assert loaded is not None and loaded.state.deal is not None
    seat = loaded.state.deal.turn
    stale = await world.repo.seat_game(tokens[seat])
    assert stale is not None
    action = play_action(seat, parse_move("draw"))
    first = await world.moves.apply(game_id, action, request_id="r")
    again = await world.moves.move(stale, action, expected_version=stale.version, request_id="r")
    assert again.replayed and again.version == first.version


async def test_an_action_without_an_expected_version_rereads_after_a_lost_race(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = await world.table()
    real_commit = world.repo.commit
    raced: list[bool] = []

    async def racing_commit(change: GameChange) -> float | None:
        if not raced:  # another replica seats someone first
            raced.append(True)
            await real_commit(
                type(change)(
                    change.game_id,
                    change.version,
                    (await world.repo.game(game_id)).state,
                    Action("entropy", -1, text="x"),
                )
            )
            return None
        return await real_commit(change)

    monkeypatch.setattr(world.repo, "commit", racing_commit)
    done = await world.moves.apply(game_id, Action("join", 0, name="ana"))
    assert raced and done.version == 2


async def test_a_refused_action_writes_nothing(world: World) -> None:
    game_id, _ = await world.seated()
    before = await world.repo.game(game_id)
    with pytest.raises(GameError):
        await world.moves.apply(game_id, Action("join", 0, name="late"))
    after = await world.repo.game(game_id)
    assert after.version == before.version and after.state.to_dict() == before.state.to_dict()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), moves=st.integers(1, 120))
async def test_the_log_rebuilds_the_stored_game_after_any_play(seed: int, moves: int) -> None:
    """Whatever is played through ``Moves``, folding the log from the setup gives the
    snapshot stored beside it (GUARANTEES.md, "The log is the truth")."""
    w = make_world()
    game_id, _ = await w.seated("tranca-003", 4, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        game = await w.repo.game(game_id)
        deal = game.state.deal
        if game.state.status != "playing" or deal is None:
            break
        move = rng.choice(legal_moves(deal))
        await w.moves.apply(game_id, play_action(deal.turn, move), request_id=f"m{game.version}")
    game = await w.repo.game(game_id)
    rows = await w.repo.log(game_id)
    assert [r.version for r in rows] == list(range(1, game.version + 1))
    rebuilt = rebuild(game.state.setup, [r.action for r in rows])
    assert rebuilt.to_dict() == game.state.to_dict()
