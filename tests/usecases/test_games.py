"""The games' use cases against the in-memory repository: who may do what, what each
refusal is, what a reader sees (APP_GUIDE.md §3-§8)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable

import pytest

from tranca.services import watch as watch_module
from tranca.services.errors import Refusal, Refused
from tranca.services.games import Joining, NewTable
from tranca.services.ports import LogRecord
from tranca.table.game import GameError, TableOptions
from tranca_rules.cards import card_text, full_deck
from tranca_rules.engine import legal_moves
from tranca_rules.errors import RulesError
from tranca_rules.moves import parse_move

from .conftest import World


async def refused(call: Awaitable[object], reason: str) -> Refused:
    with pytest.raises(Refused) as err:
        await call
    assert err.value.reason == reason, err.value.message
    return err.value


async def test_only_an_app_key_creates_and_seats_and_the_game_waits(world: World) -> None:
    game_id = await world.table(players=4)
    game = await world.repo.game(game_id)
    assert game.status == "waiting" and game.app_id == world.app.id and game.version == 0
    seated = await world.games.join(world.as_app(), game_id, Joining(-1, "ana"))
    assert seated.seat == 0 and seated.token.startswith("tp_")
    assert seated.expires_at == world.repo.now + 7 * 24 * 3600 * 1000
    await refused(
        world.games.create(
            world.as_player(seated.token), NewTable("tranca-000", {}, 2, TableOptions())
        ),
        "APP_KEY_REQUIRED",
    )


async def test_another_apps_game_is_not_found_not_forbidden(world: World) -> None:
    game_id = await world.table()
    _, other_key = world.repo.add_app("other")
    err = await refused(world.games.view(world.as_app(other_key), game_id), "GAME_NOT_FOUND")
    assert err.kind == Refusal.NOT_FOUND


async def test_a_fixed_deck_needs_the_permission_and_the_whole_deck(world: World) -> None:
    deck = [card_text(c) for c in full_deck(False)]
    _, plain_key = world.repo.add_app("plain")
    table = NewTable("tranca-000", {}, 2, TableOptions(), deck=deck)
    await refused(world.games.create(world.as_app(plain_key), table), "FIXED_DECK_NOT_ALLOWED")
    game, _ = await world.games.create(world.as_app(), table)
    assert game.state.setup.deck is not None
    short = NewTable("tranca-000", {}, 2, TableOptions(), deck=deck[:-1])
    await refused(world.games.create(world.as_app(), short), "MALFORMED_REQUEST")
    verifiable = NewTable("tranca-000", {}, 2, TableOptions(verifiable=True), deck=deck)
    await refused(world.games.create(world.as_app(), verifiable), "MALFORMED_REQUEST")


async def test_rules_out_of_range_or_for_other_player_counts_are_refused(world: World) -> None:
    with pytest.raises(RulesError):
        await world.games.create(
            world.as_app(), NewTable("tranca-000", {"batida_bonus": 10**9}, 2, TableOptions())
        )
    await refused(
        world.games.create(world.as_app(), NewTable("tranca-001", {}, 4, TableOptions())),
        "MALFORMED_REQUEST",
    )


async def test_a_private_table_seats_only_with_its_invite(world: World) -> None:
    game, invite = await world.games.create(
        world.as_app(), NewTable("tranca-000", {}, 2, TableOptions(private=True))
    )
    assert invite.startswith("ti_")
    await refused(world.games.join(world.as_app(), game.id, Joining(0)), "INVITE_REQUIRED")
    await refused(
        world.games.join(world.as_app(), game.id, Joining(0, invite_code="ti_wrong")),
        "INVITE_REQUIRED",
    )
    seated = await world.games.join(world.as_app(), game.id, Joining(0, invite_code=invite))
    assert seated.seat == 0


async def test_token_lifetimes_are_the_apps_choice_within_bounds(world: World) -> None:
    game_id = await world.table()
    seated = await world.games.join(world.as_app(), game_id, Joining(0, token_lifetime_seconds=60))
    assert seated.expires_at == world.repo.now + 60_000
    for lifetime in (59, 366 * 24 * 3600):
        await refused(
            world.games.join(world.as_app(), game_id, Joining(1, token_lifetime_seconds=lifetime)),
            "MALFORMED_REQUEST",
        )
    world.repo.now = seated.expires_at
    await refused(world.games.view(world.as_player(seated.token), game_id), "BAD_TOKEN")


async def test_a_full_table_refuses_a_seat_and_a_competitive_one_needs_player_ids(
    world: World,
) -> None:
    game_id, _ = await world.seated()
    await refused(world.games.join(world.as_app(), game_id, Joining(-1)), "GAME_FULL")
    competitive = await world.table(table=TableOptions(competitive=True))
    await refused(world.games.join(world.as_app(), competitive, Joining(0)), "MALFORMED_REQUEST")


async def test_spectators_see_no_hand_and_cannot_act(world: World) -> None:
    game_id = await world.table(spectators=True)
    watcher = await world.games.join(world.as_app(), game_id, Joining(spectator=True))
    for seat in range(2):
        await world.games.join(world.as_app(), game_id, Joining(seat))
    await refused(world.games.start(world.as_player(watcher.token), game_id), "SPECTATOR")
    await world.games.start(world.as_app(), game_id)
    shown = await world.games.view(world.as_player(watcher.token), game_id)
    assert shown.seat == -1
    await refused(world.games.legal_moves(world.as_player(watcher.token), game_id), "SPECTATOR")
    closed = await world.table()
    await refused(
        world.games.join(world.as_app(), closed, Joining(spectator=True)), "NO_SPECTATORS"
    )


async def test_a_staked_start_takes_every_stake_or_none(world: World) -> None:
    table = TableOptions(competitive=True, stake=50)
    game_id = await world.table(table=table)
    world.repo.chips[(world.app.id, "id0")] = 100
    world.repo.chips[(world.app.id, "id1")] = 100
    for seat in range(2):
        await world.games.join(world.as_app(), game_id, Joining(seat, player_id=f"id{seat}"))
    world.repo.chips[(world.app.id, "id1")] = 10  # spent meanwhile
    with pytest.raises(GameError) as err:
        await world.games.start(world.as_app(), game_id)
    assert err.value.reason == "INSUFFICIENT_CHIPS"
    assert (await world.repo.game(game_id)).status == "waiting"
    assert world.repo.chips[(world.app.id, "id0")] == 100
    world.repo.chips[(world.app.id, "id1")] = 60
    shown = await world.games.start(world.as_app(), game_id)
    assert shown.state.status == "playing"
    assert world.repo.chips[(world.app.id, "id0")] == 50
    assert world.repo.chips[(world.app.id, "id1")] == 10
    poor = await world.table(table=table)
    with pytest.raises(GameError) as at_join:
        await world.games.join(world.as_app(), poor, Joining(0, player_id="nobody"))
    assert at_join.value.reason == "INSUFFICIENT_CHIPS"


async def test_a_seat_moves_and_sees_its_own_hand_only(world: World) -> None:
    game_id, tokens = await world.seated()
    app_view = await world.games.view(world.as_app(), game_id)
    assert app_view.state.deal is not None
    turn = app_view.state.deal.turn
    mine = await world.games.legal_moves(world.as_player(tokens[turn]), game_id)
    assert mine.seat == turn
    moved = await world.games.move(
        world.as_player(tokens[turn]),
        game_id,
        parse_move("draw"),
        expected_version=mine.version,
        request_id="d1",
    )
    assert moved.shown.version == mine.version + 1 and not moved.replayed
    again = await world.games.move(
        world.as_player(tokens[turn]),
        game_id,
        parse_move("draw"),
        expected_version=mine.version,
        request_id="d1",
    )
    assert again.replayed and again.shown.version == moved.shown.version
    await refused(
        world.games.move(
            world.as_player(tokens[turn]),
            game_id,
            parse_move("draw"),
            expected_version=0,
            request_id="",
        ),
        "MALFORMED_REQUEST",
    )
    await refused(
        world.games.move(
            world.as_app(), game_id, parse_move("draw"), expected_version=0, request_id="x"
        ),
        "PLAYER_TOKEN_REQUIRED",
    )


async def test_leaving_before_the_start_frees_the_seat_and_after_it_resigns(
    world: World,
) -> None:
    game_id = await world.table()
    seated = await world.games.join(world.as_app(), game_id, Joining(0))
    await world.games.leave(world.as_player(seated.token), game_id, "bye")
    assert not (await world.repo.game(game_id)).state.seats[0].taken
    await refused(world.games.view(world.as_player(seated.token), game_id), "BAD_TOKEN")
    started, tokens = await world.seated()
    await world.games.leave(world.as_player(tokens[1]), started, "bye")
    game = await world.repo.game(started)
    assert game.status == "finished" and game.state.result_reason == "resignation"


async def test_the_list_pages_an_apps_games_newest_first(world: World) -> None:
    ids = [await world.table() for _ in range(5)]
    page, token = await world.games.list(world.as_app(), None, 2, "", False)
    assert [g.id for g in page] == ids[::-1][:2] and token == "2"
    rest, end = await world.games.list(world.as_app(), None, 10, token, False)
    assert [g.id for g in rest] == ids[::-1][2:] and end == ""
    for size in (501, -1):
        await refused(world.games.list(world.as_app(), None, size, "", False), "MALFORMED_REQUEST")
    await refused(world.games.list(world.as_app(), None, 5, "x", False), "MALFORMED_REQUEST")


async def test_a_replay_shows_a_deals_cards_only_once_it_is_over(world: World) -> None:
    game_id, tokens = await world.seated(overrides={"target_score": 0})
    during = await world.games.replay(world.as_app(), game_id)
    assert during.seed is None and during.deals == []
    assert [m.row.action.kind for m in during.moves] == ["join", "join", "start"]
    await world.games.leave(world.as_player(tokens[0]), game_id, "r")  # the match ends
    after = await world.games.replay(world.as_app(), game_id)
    assert after.seed == 7


async def test_a_watch_yields_every_version_in_order_and_counts_against_the_cap(
    world: World,
) -> None:
    game_id, tokens = await world.seated()
    updates = world.games.watch(world.as_player(tokens[0]), game_id, 0)
    first = await anext(updates)
    assert first.shown.version == 3 and first.change is None
    assert first.shown.state.deal is not None
    turn = first.shown.state.deal.turn
    await world.games.move(
        world.as_player(tokens[turn]),
        game_id,
        parse_move("draw"),
        expected_version=3,
        request_id="w",
    )
    second = await asyncio.wait_for(anext(updates), 5)
    assert second.shown.version == 4 and second.change is not None
    assert second.change.row.action.kind == "move"
    assert world.notes.leases == [game_id]
    others = [world.games.watch(world.as_player(tokens[0]), game_id, 0) for _ in range(4)]
    for stream in others[:3]:
        await anext(stream)
    await refused(anext(others[3]), "TOO_MANY_WATCHES")
    assert isinstance(updates, AsyncGenerator)  # closed as a cancelled stream is
    await updates.aclose()
    freed = world.games.watch(world.as_player(tokens[0]), game_id, 0)
    assert (await anext(freed)).shown.version == 4  # the slot the closed stream held
    resumed = world.games.watch(world.as_app(), game_id, 3)
    assert (await anext(resumed)).shown.version == 4


async def first_legal_move(world: World, game_id: str, tokens: list[str]) -> None:
    """The mover's first legal move, played at the version it was read at."""
    seen = await world.games.view(world.as_app(), game_id)
    assert seen.state.deal is not None
    seat = seen.state.deal.turn
    legal = await world.games.legal_moves(world.as_player(tokens[seat]), game_id)
    assert legal.state.deal is not None
    move = legal_moves(legal.state.deal)[0]
    await world.games.move(
        world.as_player(tokens[seat]),
        game_id,
        move,
        expected_version=seen.version,
        request_id=f"first-{seen.version}",
    )


async def test_a_watch_shows_the_same_whether_it_kept_its_state_or_encoded_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream keeps its state as objects for a while after a move, then encoded
    until the next: the views are the game's either way."""
    monkeypatch.setattr(watch_module, "WATCH_HOT_SECONDS", 0.05)
    game_id, tokens = await world.seated()
    updates = world.games.watch(world.as_app(), game_id, 0)
    await anext(updates)
    for pause in (0.0, 0.3, 0.0, 0.3):  # the next move at once, or once encoded
        await first_legal_move(world, game_id, tokens)
        update = await asyncio.wait_for(anext(updates), 5)
        now = await world.games.view(world.as_app(), game_id)
        assert update.shown.version == now.version
        assert update.shown.state.to_dict() == now.state.to_dict()
        await asyncio.sleep(pause)
    assert isinstance(updates, AsyncGenerator)
    await updates.aclose()


async def test_the_watchers_of_a_game_at_one_version_read_its_log_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, tokens = await world.seated()
    streams = [world.games.watch(world.as_app(), game_id, 0) for _ in range(3)]
    for stream in streams:
        assert (await anext(stream)).shown.version == 3
    seen = await world.games.view(world.as_app(), game_id)
    assert seen.state.deal is not None
    await world.games.move(
        world.as_player(tokens[seen.state.deal.turn]),
        game_id,
        parse_move("draw"),
        expected_version=3,
        request_id="once",
    )
    reads: list[int] = []
    read = world.repo.log

    async def slow_log(game: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        reads.append(after)
        await asyncio.sleep(0.05)  # a database read takes a while: the others wait for it
        return await read(game, after, upto)

    monkeypatch.setattr(world.repo, "log", slow_log)
    updates = await asyncio.wait_for(asyncio.gather(*(anext(s) for s in streams)), 5)
    assert [u.shown.version for u in updates] == [4, 4, 4]
    assert reads == [3]  # one read for the three streams
    for stream in streams:
        assert isinstance(stream, AsyncGenerator)
        await stream.aclose()


async def test_a_watcher_woken_by_a_hint_takes_its_rows_and_reads_the_log_otherwise(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first read is the log's; a hint whose rows follow on from the stream's
    version is delivered from them; a hint without rows sends it to the log."""
    game_id, tokens = await world.seated()
    stream = world.games.watch(world.as_app(), game_id, 0)
    assert (await anext(stream)).shown.version == 3
    reads: list[int] = []
    read = world.repo.log

    async def counted(game: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        reads.append(after)
        return await read(game, after, upto)

    monkeypatch.setattr(world.repo, "log", counted)

    async def moved() -> int:
        await first_legal_move(world, game_id, tokens)
        update = await asyncio.wait_for(anext(stream), 5)
        assert update.change is not None
        logged = await read(game_id, update.shown.version - 1, update.shown.version)
        assert [update.change.row] == logged  # whichever way it came
        return update.shown.version

    assert await moved() == 4 and reads == [3]  # the stream's first read
    assert await moved() == 5 and reads == [3]  # from the hint's rows
    assert world.notes.rows_taken == 1
    publish = world.notes.publish
    monkeypatch.setattr(
        world.notes,
        "publish",
        lambda g, v, rows=(): publish(g, v),  # a hint without rows
    )
    assert await moved() == 6 and reads == [3, 5]
    assert isinstance(stream, AsyncGenerator)
    await stream.aclose()
