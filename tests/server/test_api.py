"""The gRPC API through a real channel, on SQLite and PostgreSQL: every RPC, the
authentication rules, the error conventions (status code plus a google.rpc.ErrorInfo
reason, domain "tranca.v1"), idempotent moves, fixed decks, watch streams and replays.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable

import grpc
import pytest

from tests.server.api_calls import (
    DRAW,
    OK_TIMEOUT,
    Code,
    app_view,
    create,
    discard,
    error_info,
    join,
    plain_deck,
    read,
    reason_of,
    refused,
    seat_view,
    step,
    submit,
)
from tests.web.boards import kept_board, replayed_boards
from tranca.server import Running
from tranca.v1 import game_pb2 as pb

from .conftest import Client

# ----- presets, creation, seats, start ---------------------------------------------


async def test_list_presets(client: Client) -> None:
    """ListPresets lists every preset by name, with its player counts and knobs."""
    presets = (
        await client.stub.ListPresets(pb.ListPresetsRequest(), metadata=client.app())
    ).presets
    names = [p.name for p in presets]
    assert names == sorted(names) and "tranca-000" in names
    t000 = next(p for p in presets if p.name == "tranca-000")
    assert list(t000.player_counts) == [2, 4]
    assert t000.knobs["hand_size"].int_value == 11


async def test_create_game_returns_a_waiting_summary(client: Client) -> None:
    """CreateGame returns the game waiting, at version 0, with no seat taken."""
    req = pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=4, label="table 1")
    game = (await client.stub.CreateGame(req, metadata=client.app())).game
    assert game.game_id and game.status == pb.GAME_STATUS_WAITING
    assert (game.preset, game.players, game.seats_taken, game.version, game.label) == (
        "tranca-000",
        4,
        0,
        0,
        "table 1",
    )


async def test_create_game_refuses_bad_rules(client: Client) -> None:
    """An unknown preset, no preset or a player count the preset forbids is INVALID_ARGUMENT."""
    for rules, players in [("nope", 2), ("", 2), ("tranca-000", 3)]:
        req = pb.CreateGameRequest(rules=pb.Rules(preset=rules), players=players)
        await refused(client.stub.CreateGame(req, metadata=client.app()), Code.INVALID_ARGUMENT)


async def test_join_game_seats(client: Client) -> None:
    """JoinGame takes the seat asked for, or the lowest free seat for -1; a taken seat is
    ALREADY_EXISTS SEAT_TAKEN, a full game GAME_FULL, a seat out of range INVALID_ARGUMENT."""
    gid = await create(client)
    assert (await join(client, gid, 1)).seat == 1
    first = await join(client, gid, -1)
    assert first.seat == 0 and first.player_token
    await refused(join(client, gid, 1), Code.ALREADY_EXISTS, "SEAT_TAKEN")
    await refused(join(client, gid, -1), Code.FAILED_PRECONDITION, "GAME_FULL")
    await refused(join(client, gid, 2), Code.INVALID_ARGUMENT)
    view = await app_view(client, gid)
    assert [(s.taken, s.player_name) for s in view.seats] == [(True, "p-1"), (True, "p1")]
    assert view.version == 2


async def test_start_game_needs_every_seat(client: Client) -> None:
    """StartGame before every seat is taken is FAILED_PRECONDITION; then it deals."""
    gid = await create(client)
    await join(client, gid, 0)
    start = client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    await refused(start, Code.FAILED_PRECONDITION, "SEATS_FREE")
    assert (await app_view(client, gid)).status == pb.GAME_STATUS_WAITING
    token = (await join(client, gid, 1)).player_token
    started = await client.stub.StartGame(
        pb.StartGameRequest(game_id=gid), metadata=client.player(token)
    )
    view = started.view
    assert view.status == pb.GAME_STATUS_PLAYING and view.deal_number == 1
    assert view.seat == 1 and len(view.hand) == view.seats[1].hand_size > 0
    again = client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    await refused(again, Code.FAILED_PRECONDITION)
    await refused(join(client, gid, -1), Code.FAILED_PRECONDITION, "GAME_FULL")


# ----- views and legal moves -------------------------------------------------------


async def test_get_view_shows_only_the_readers_hand(client: Client) -> None:
    """A seat sees its own hand; the app and a spectator see no hand, the same table."""
    gid, tokens = await client.new_game(spectators_allowed=True)
    spectator = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, spectator=True, player_name="watcher"),
        metadata=client.app(),
    )
    assert spectator.seat == -1
    for seat, token in enumerate(tokens):
        view = await seat_view(client, gid, token)
        assert view.seat == seat and len(view.hand) == view.seats[seat].hand_size == 11
    for view in (await app_view(client, gid), await seat_view(client, gid, spectator.player_token)):
        assert view.seat == -1 and not view.hand
        assert [s.hand_size for s in view.seats] == [11, 11]
        assert view.status == pb.GAME_STATUS_PLAYING and view.stock_size > 0


async def test_list_legal_moves_only_on_your_turn(client: Client) -> None:
    """ListLegalMoves lists the moves of the seat to act, and nothing for the other."""
    gid, tokens = await client.new_game()
    view = await app_view(client, gid)
    mine = await client.stub.ListLegalMoves(
        pb.ListLegalMovesRequest(game_id=gid), metadata=client.player(tokens[view.turn])
    )
    assert mine.version == view.version
    assert mine.moves and mine.moves[0].text == "draw"
    other = await client.stub.ListLegalMoves(
        pb.ListLegalMovesRequest(game_id=gid), metadata=client.player(tokens[1 - view.turn])
    )
    assert other.version == view.version and not other.moves


# ----- moves -----------------------------------------------------------------------


async def test_submit_move_plays_and_bumps_the_version(client: Client) -> None:
    """A legal move returns the next version and the mover's view after it."""
    gid, tokens = await client.new_game()
    view = await app_view(client, gid)
    done = await submit(client, gid, tokens[view.turn], DRAW, view.version)
    assert done.version == done.view.version == view.version + 1 and not done.replayed
    assert done.view.phase == pb.PHASE_PLAY and len(done.view.hand) == 12
    again = await submit(client, gid, tokens[view.turn], discard(done.view.hand[0]), done.version)
    assert again.view.turn == 1 - view.turn and len(again.view.hand) == 11


async def test_a_move_can_answer_with_the_next_legal_moves(client: Client) -> None:
    """include_legal_moves: the answer lists what ListLegalMoves would, at the answer's
    version, and nothing once the turn has passed."""
    gid, tokens = await client.new_game()
    view = await app_view(client, gid)
    me = client.player(tokens[view.turn])
    drew = await client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid,
            expected_version=view.version,
            request_id=uuid.uuid4().hex,
            move=DRAW,
            include_legal_moves=True,
        ),
        metadata=me,
    )
    listed = await client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=me)
    assert listed.version == drew.version
    assert [m.text for m in drew.legal_moves] == [m.text for m in listed.moves]
    assert any(m.WhichOneof("kind") == "discard" for m in drew.legal_moves)
    discarded = await client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid,
            expected_version=drew.version,
            request_id=uuid.uuid4().hex,
            move=discard(drew.view.hand[0]),
            include_legal_moves=True,
        ),
        metadata=me,
    )
    assert discarded.view.turn != view.turn and not discarded.legal_moves
    # Without the flag, the answer stays as small as before.
    plain = await submit(client, gid, tokens[discarded.view.turn], DRAW, discarded.version)
    assert not plain.legal_moves


@pytest.mark.parametrize(
    "move",
    [
        pb.Move(discard=pb.DiscardMove(card="ZZ")),
        pb.Move(create_meld=pb.CreateMeldMove(cards=["4H", "5H"])),
        pb.Move(),
        None,
    ],
    ids=["bad-card", "two-card-meld", "empty-move", "no-move"],
)
async def test_malformed_move_is_invalid_argument(client: Client, move: pb.Move | None) -> None:
    """A move that cannot be read is INVALID_ARGUMENT and changes nothing."""
    gid, tokens = await client.new_game()
    view = await app_view(client, gid)
    req = pb.SubmitMoveRequest(game_id=gid, expected_version=view.version, request_id="m1")
    if move is not None:
        req.move.CopyFrom(move)
    e = await refused(
        client.stub.SubmitMove(req, metadata=client.player(tokens[view.turn])),
        Code.INVALID_ARGUMENT,
    )
    assert reason_of(e) in ("MALFORMED_MOVE", "MALFORMED_REQUEST")
    assert (await app_view(client, gid)).version == view.version


async def test_rule_violations_are_failed_precondition(client: Client) -> None:
    """Out of turn is NOT_YOUR_TURN, discarding before drawing MUST_DRAW_FIRST; neither
    changes the game's version."""
    gid, tokens = await client.new_game()
    view = await app_view(client, gid)
    await refused(
        submit(client, gid, tokens[1 - view.turn], DRAW, view.version),
        Code.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
    )
    hand = (await seat_view(client, gid, tokens[view.turn])).hand
    await refused(
        submit(client, gid, tokens[view.turn], discard(hand[0]), view.version),
        Code.FAILED_PRECONDITION,
        "MUST_DRAW_FIRST",
    )
    assert (await app_view(client, gid)).version == view.version


async def test_moves_before_the_start_are_refused(client: Client) -> None:
    """A move in a game still waiting is FAILED_PRECONDITION GAME_NOT_STARTED."""
    gid = await create(client)
    token = (await join(client, gid, 0)).player_token
    await refused(submit(client, gid, token, DRAW, 1), Code.FAILED_PRECONDITION, "GAME_NOT_STARTED")


async def test_stale_expected_version_is_aborted(client: Client) -> None:
    """A stale expected_version is ABORTED VERSION_CONFLICT with the real version."""
    gid, tokens = await client.new_game()
    view = await app_view(client, gid)
    e = await refused(
        submit(client, gid, tokens[view.turn], DRAW, view.version - 1),
        Code.ABORTED,
        "VERSION_CONFLICT",
    )
    assert error_info(e).metadata["current_version"] == str(view.version)
    assert (await app_view(client, gid)).version == view.version


async def test_retried_request_id_is_applied_once(client: Client) -> None:
    """A retry with the same request_id answers the same version, replayed, and the move
    is logged once; the same id with another move is ALREADY_EXISTS REQUEST_ID_REUSED."""
    gid, tokens = await client.new_game()
    view = await app_view(client, gid)
    token = tokens[view.turn]
    first = await submit(client, gid, token, DRAW, view.version, request_id="draw-1")
    again = await submit(client, gid, token, DRAW, view.version, request_id="draw-1")
    assert (again.version, again.replayed, first.replayed) == (first.version, True, False)
    assert again.view == first.view
    assert (await app_view(client, gid)).version == first.version
    replay = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    assert [m.move.text for m in replay.moves].count("draw") == 1
    assert [m.version for m in replay.moves] == list(range(1, first.version + 1))
    other = discard(first.view.hand[0])
    await refused(
        submit(client, gid, token, other, first.version, request_id="draw-1"),
        Code.ALREADY_EXISTS,
        "REQUEST_ID_REUSED",
    )
    assert (await app_view(client, gid)).version == first.version


async def test_a_request_id_is_honoured_even_when_the_rules_now_refuse(client: Client) -> None:
    """At the current version a retry of an applied move would be refused by the rules
    (the seat already drew): it still gets the first answer; and the same id with a
    move the rules refuse is REQUEST_ID_REUSED, not the rules' refusal."""
    gid, tokens = await client.new_game()
    view = await app_view(client, gid)
    token = tokens[view.turn]
    first = await submit(client, gid, token, DRAW, view.version, request_id="draw-1")
    again = await submit(client, gid, token, DRAW, first.version, request_id="draw-1")
    assert again.replayed and again.version == first.version and again.view == first.view
    not_held = next(c for c in ("AS", "KD", "2C", "7H") if c not in first.view.hand)
    await refused(
        submit(client, gid, token, discard(not_held), first.version, request_id="draw-1"),
        Code.ALREADY_EXISTS,
        "REQUEST_ID_REUSED",
    )
    assert (await app_view(client, gid)).version == first.version


async def test_retry_after_the_game_moved_on_returns_the_first_answer(client: Client) -> None:
    """A retry answers the first answer: its view is the game at the version it names,
    even after later moves."""
    gid, tokens = await client.new_game()
    view = await app_view(client, gid)
    token = tokens[view.turn]
    first = await submit(client, gid, token, DRAW, view.version, request_id="draw-1")
    await submit(client, gid, token, discard(first.view.hand[0]), first.version)
    again = await submit(client, gid, token, DRAW, view.version, request_id="draw-1")
    assert again.replayed and again.version == first.version
    assert again.view.version == first.version
    # The view labelled with the first answer's version shows the game at that version.
    assert (again.view.phase, list(again.view.hand)) == (first.view.phase, list(first.view.hand))
    assert again.view == first.view


# ----- fixed deck ------------------------------------------------------------------


async def test_fixed_deck_deals_in_the_given_order(client: Client) -> None:
    """CreateGame with a deck deals it in order: the player left of the dealer gets
    deck[0], the next deck[1], and so on, one card at a time."""
    deck = plain_deck()
    gid, tokens = await client.new_game(deck=deck)
    dealer = (await app_view(client, gid)).dealer
    first = (dealer + 1) % 2
    hands = {first: deck[0:22:2], 1 - first: deck[1:22:2]}
    for seat, token in enumerate(tokens):
        assert list((await seat_view(client, gid, token)).hand) == sorted(hands[seat])


async def test_fixed_deck_needs_the_permission(client: Client, server: Running) -> None:
    """A deck needs the API key permission "fixed_deck" (PERMISSION_DENIED without it),
    and must hold exactly the preset's cards (INVALID_ARGUMENT)."""
    _, key = await server.store.create_app(f"plain-{uuid.uuid4().hex[:6]}")
    req = pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, deck=plain_deck())
    await refused(
        client.stub.CreateGame(req, metadata=(("x-api-key", key),)),
        Code.PERMISSION_DENIED,
        "FIXED_DECK_NOT_ALLOWED",
    )
    del req.deck[-1]
    await refused(client.stub.CreateGame(req, metadata=client.app()), Code.INVALID_ARGUMENT)
    req.deck.append("ZZ")
    await refused(client.stub.CreateGame(req, metadata=client.app()), Code.INVALID_ARGUMENT)


async def test_a_whole_deal_is_replayed_with_its_deck_and_seed(client: Client) -> None:
    """Once the deal (here the match) is over, the replay shows the deck as dealt, its
    result and the seed; the last view shows the match result."""
    deck = plain_deck()
    knobs = {k: pb.KnobValue(int_value=20) for k in ("hand_size", "morto_size")}
    knobs["player_counts"] = pb.KnobValue(int_list=pb.IntList(values=[2]))
    rules = pb.Rules(preset="tranca-000", overrides=knobs)  # a short stock: a quick deal
    gid = await create(client, rules=rules, deck=deck)
    tokens = [(await join(client, gid, seat)).player_token for seat in range(2)]
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    for _ in range(200):
        if (await app_view(client, gid)).status == pb.GAME_STATUS_FINISHED:
            break
        await step(client, gid, tokens)
    view = await app_view(client, gid)
    assert view.status == pb.GAME_STATUS_FINISHED
    assert view.match_result.reason == "single_deal" and view.last_deal.end_reason == "stock_out"
    replay = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    assert replay.seed == 7  # revealed now that the match is over
    assert [d.deal_number for d in replay.deals] == [1]
    assert list(replay.deals[0].deck) == deck
    assert replay.deals[0].result == view.last_deal
    assert [m.version for m in replay.moves] == list(range(1, view.version + 1))


async def test_a_finished_deals_table_is_kept_with_its_result(client: Client) -> None:
    """In a match the next deal is dealt at the version that ends one, so the view's own
    fields show the new deal: the finished deal's whole table is its final_board (every
    hand open, melds with their wilds, red threes, mortos with their cards, the pile,
    the stock's size, the result), the same in the app's view, each seat's and in
    GetReplay's deals[].final_board, and it is the table the engine rebuilds from the
    replay, the move that ended the deal (logged with the next deal's number) grouped
    with it by ended_deal. (tests/server_platform/test_final_board.py covers when the
    table is shown, the watch stream's message and that every card is accounted for.)"""
    knobs = {k: pb.KnobValue(int_value=20) for k in ("hand_size", "morto_size")}
    knobs["player_counts"] = pb.KnobValue(int_list=pb.IntList(values=[2]))
    rules = pb.Rules(preset="tranca-000", overrides=knobs)  # a short stock: a quick deal
    # A match to a target (tranca-000 alone is one deal): deal 2 follows deal 1.
    target = pb.TableOptions(point_limit=100_000)
    gid = await create(client, rules=rules, deck=plain_deck(), table=target)
    tokens = [(await join(client, gid, seat)).player_token for seat in range(2)]
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    for _ in range(400):
        view = await app_view(client, gid)
        if view.deal_number >= 2 or view.status == pb.GAME_STATUS_FINISHED:
            break
        token = tokens[view.turn]
        legal = await client.stub.ListLegalMoves(
            pb.ListLegalMovesRequest(game_id=gid), metadata=client.player(token)
        )
        melds = [m for m in legal.moves if m.WhichOneof("kind") in ("create_meld", "add_to_meld")]
        await submit(client, gid, token, (melds or list(legal.moves))[0], view.version)
    assert view.deal_number == 2 and view.last_deal.deal_number == 1
    replay = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    ended = [(m.version, m.deal_number, m.ended_deal) for m in replay.moves if m.ended_deal]
    assert ended == [(view.version, 2, 1)]
    rebuilt = replayed_boards(replay)[1]
    board = view.final_board
    assert board.deal_number == 1 and board.result == view.last_deal
    kept = kept_board(board)
    assert kept["melds"], "the deal laid melds: the test must see some kept"
    assert any(m["wild_indexes"] for m in kept["melds"]), "a wild must be marked"
    assert sum(len(h) for h in kept["hands"]) > 0, "hands were left: the test must see them"
    assert kept == rebuilt
    assert view.melds != board.melds  # the view's own fields show deal 2
    # Every reader sees the same whole table: each seat, and the replay.
    for token in tokens:
        assert (await seat_view(client, gid, token)).final_board == board
    assert [d.final_board for d in replay.deals] == [board]


# ----- watch -----------------------------------------------------------------------


async def test_watch_streams_every_version_in_order(client: Client) -> None:
    """WatchGame from 0 sends the current view, then one message per change, versions
    consecutive, each the watcher's own seat view."""
    gid, tokens = await client.new_game()
    start = await app_view(client, gid)
    watcher = 1 - start.turn
    call = client.stub.WatchGame(
        pb.WatchGameRequest(game_id=gid, from_version=0), metadata=client.player(tokens[watcher])
    )
    try:
        first = await read(call)
        assert first.view.version == start.version and first.view.seat == watcher
        for _ in range(4):
            await step(client, gid, tokens)
        for version in range(start.version + 1, start.version + 5):
            msg = await read(call)
            assert msg.view.version == msg.move.version == version
            assert msg.view.seat == watcher
            assert len(msg.view.hand) == msg.view.seats[watcher].hand_size
        assert msg.view == await seat_view(client, gid, tokens[watcher])
        assert msg.move.seat == watcher and msg.move.move.text.startswith("discard ")
    finally:
        call.cancel()


async def test_watch_resumes_after_from_version(client: Client) -> None:
    """WatchGame from v sends versions v+1, v+2, ... in order, then live changes."""
    gid, tokens = await client.new_game(spectators_allowed=True)
    for _ in range(3):
        await step(client, gid, tokens)
    now = (await app_view(client, gid)).version
    call = client.stub.WatchGame(
        pb.WatchGameRequest(game_id=gid, from_version=2), metadata=client.app()
    )
    try:
        seen = [(await read(call)).view.version for _ in range(now - 2)]
        assert seen == list(range(3, now + 1))
        await step(client, gid, tokens)
        live = await read(call)
        assert live.view.version == now + 1 and live.view.seat == -1 and not live.view.hand
    finally:
        call.cancel()


async def test_watch_ends_with_the_match(client: Client) -> None:
    """A watch stream sends the change that ends the match, with the final view."""
    gid, tokens = await client.new_game()
    call = client.stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=client.app())
    try:
        await read(call)
        await client.stub.LeaveGame(
            pb.LeaveGameRequest(game_id=gid), metadata=client.player(tokens[0])
        )
        last = await read(call)
        assert last.view.status == pb.GAME_STATUS_FINISHED and last.move.move.text == "resign"
        assert last.view.match_result.reason == "resignation"
    finally:
        call.cancel()


async def test_watch_refusals(client: Client) -> None:
    """WatchGame of an unknown game is NOT_FOUND; from_version ahead of the game is
    INVALID_ARGUMENT."""
    gid, _ = await client.new_game()
    call = client.stub.WatchGame(
        pb.WatchGameRequest(game_id=gid, from_version=99), metadata=client.app()
    )
    await refused(call.read(), Code.INVALID_ARGUMENT)
    call = client.stub.WatchGame(pb.WatchGameRequest(game_id="nope"), metadata=client.app())
    await refused(call.read(), Code.NOT_FOUND)


# ----- replay ----------------------------------------------------------------------


async def test_replay_during_a_deal_hides_the_cards(client: Client) -> None:
    """During the first deal the replay has no deals and seed 0; its moves are every
    logged change in order."""
    gid, tokens = await client.new_game()
    for _ in range(3):
        await step(client, gid, tokens)
    view = await app_view(client, gid)
    replay = await client.stub.GetReplay(
        pb.GetReplayRequest(game_id=gid), metadata=client.player(tokens[0])
    )
    assert replay.game_id == gid and replay.players == 2 and replay.rules.preset == "tranca-000"
    assert replay.seed == 0 and not replay.deals
    assert [m.version for m in replay.moves] == list(range(1, view.version + 1))
    texts = [m.move.text for m in replay.moves]
    assert texts[:3] == ["join", "join", "start"]
    assert texts[3] == "draw" and texts[4].startswith("discard ") and texts[5] == "draw"
    assert all(m.actor == "player" for m in replay.moves)


# ----- leaving ---------------------------------------------------------------------


async def test_leave_before_the_start_frees_the_seat(client: Client) -> None:
    """LeaveGame before the start frees the seat for another player."""
    gid = await create(client)
    leaver = (await join(client, gid, 0)).player_token
    await join(client, gid, 1)
    left = await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=gid, request_id="l1"), metadata=client.player(leaver)
    )
    view = await app_view(client, gid)
    assert left.version == view.version == 3
    assert [s.taken for s in view.seats] == [False, True]
    assert (await join(client, gid, -1, "newcomer")).seat == 0


async def test_a_left_token_no_longer_acts_for_the_seat(client: Client) -> None:
    """A token given up by LeaveGame no longer speaks for the seat: once someone else
    holds it, the old token cannot read the new player's view (hand included)."""
    gid = await create(client)
    leaver = (await join(client, gid, 0)).player_token
    other = (await join(client, gid, 1)).player_token
    await client.stub.LeaveGame(pb.LeaveGameRequest(game_id=gid), metadata=client.player(leaver))
    newcomer = (await join(client, gid, 0, "newcomer")).player_token
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.player(other))
    assert (await seat_view(client, gid, newcomer)).hand
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await seat_view(client, gid, leaver)
    assert caught.value.code() in (Code.UNAUTHENTICATED, Code.PERMISSION_DENIED)


async def test_leave_after_the_start_resigns(client: Client) -> None:
    """LeaveGame once the game is under way resigns: the match is over and the other
    side (of a partnership) wins; the game then refuses moves and further leaves."""
    gid, tokens = await client.new_game(players=4)
    left = await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=gid, request_id="bye"), metadata=client.player(tokens[1])
    )
    view = await app_view(client, gid)
    assert left.version == view.version
    assert view.status == pb.GAME_STATUS_FINISHED and view.seats[1].resigned
    assert (view.match_result.winner_side, view.match_result.reason) == (0, "resignation")
    await refused(
        submit(client, gid, tokens[0], DRAW, view.version), Code.FAILED_PRECONDITION, "GAME_OVER"
    )
    leave = client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=gid), metadata=client.player(tokens[3])
    )
    await refused(leave, Code.FAILED_PRECONDITION, "GAME_OVER")
    replay = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    assert replay.moves[-1].move.text == "resign" and replay.moves[-1].seat == 1


async def test_a_retried_resignation_returns_the_first_answer(client: Client) -> None:
    """LeaveGame's request_id works as SubmitMove's: a retry answers the first answer."""
    gid, tokens = await client.new_game()
    req = pb.LeaveGameRequest(game_id=gid, request_id="bye")
    first = await client.stub.LeaveGame(req, metadata=client.player(tokens[0]))
    again = await client.stub.LeaveGame(req, metadata=client.player(tokens[0]))
    assert again.version == first.version == (await app_view(client, gid)).version


async def test_a_three_player_resignation_reports_a_documented_winner(client: Client) -> None:
    """With three players a resignation ends the match; winner_side is a side other than
    the resigner's, or -1 for a draw (as MatchResult documents)."""
    gid, tokens = await client.new_game(preset="canasta-002-tres", players=3)
    await client.stub.LeaveGame(pb.LeaveGameRequest(game_id=gid), metadata=client.player(tokens[0]))
    result = (await app_view(client, gid)).match_result
    assert result.reason == "resignation"
    assert result.winner_side in (-1, 1, 2)


# ----- listing ---------------------------------------------------------------------


async def test_list_games_filters_and_pages(client: Client) -> None:
    """ListGames lists the app's games newest first, filtered by status, in pages."""
    waiting = [await create(client, label=f"w{i}") for i in range(3)]
    playing, _ = await client.new_game()
    newest_first = [playing, *reversed(waiting)]

    async def page(request: pb.ListGamesRequest) -> pb.ListGamesResponse:
        return await client.stub.ListGames(request, metadata=client.app())

    assert [g.game_id for g in (await page(pb.ListGamesRequest())).games] == newest_first
    got = await page(pb.ListGamesRequest(status=pb.GAME_STATUS_PLAYING))
    assert [(g.game_id, g.seats_taken) for g in got.games] == [(playing, 2)]
    got = await page(pb.ListGamesRequest(status=pb.GAME_STATUS_WAITING))
    assert [g.label for g in got.games] == ["w2", "w1", "w0"]
    first = await page(pb.ListGamesRequest(page_size=3))
    assert first.next_page_token
    second = await page(pb.ListGamesRequest(page_size=3, page_token=first.next_page_token))
    assert not second.next_page_token
    assert [g.game_id for g in [*first.games, *second.games]] == newest_first


@pytest.mark.parametrize("token", ["abc", "-1"])
async def test_list_games_refuses_a_bad_page_token(client: Client, token: str) -> None:
    """A page_token that no answer gave is INVALID_ARGUMENT."""
    req = pb.ListGamesRequest(page_token=token)
    await refused(client.stub.ListGames(req, metadata=client.app()), Code.INVALID_ARGUMENT)


# ----- authentication and authorization --------------------------------------------


async def test_calls_need_credentials(client: Client) -> None:
    """No credentials, an unknown API key or an unknown token is UNAUTHENTICATED."""
    gid, _ = await client.new_game()
    presets = pb.ListPresetsRequest()
    await refused(client.stub.ListPresets(presets), Code.UNAUTHENTICATED, "NO_CREDENTIALS")
    await refused(
        client.stub.GetView(pb.GetViewRequest(game_id=gid)), Code.UNAUTHENTICATED, "NO_CREDENTIALS"
    )
    bad_key = (("x-api-key", "tk_nope"),)
    await refused(
        client.stub.ListPresets(presets, metadata=bad_key), Code.UNAUTHENTICATED, "BAD_API_KEY"
    )
    await refused(
        client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player("tp_nope")),
        Code.UNAUTHENTICATED,
        "BAD_TOKEN",
    )


async def test_app_calls_refuse_player_tokens(client: Client) -> None:
    """An app call made with a player token is PERMISSION_DENIED."""
    gid, tokens = await client.new_game()
    md = client.player(tokens[0])
    calls: list[Awaitable[object]] = [
        client.stub.ListPresets(pb.ListPresetsRequest(), metadata=md),
        client.stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2), metadata=md
        ),
        client.stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=-1), metadata=md),
        client.stub.ListGames(pb.ListGamesRequest(), metadata=md),
    ]
    for call in calls:
        await refused(call, Code.PERMISSION_DENIED, "APP_KEY_REQUIRED")


async def test_player_calls_refuse_api_keys(client: Client) -> None:
    """ListLegalMoves, SubmitMove and LeaveGame need a player token: PERMISSION_DENIED."""
    gid, _ = await client.new_game()
    md = client.app()
    calls: list[Awaitable[object]] = [
        client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md),
        client.stub.SubmitMove(
            pb.SubmitMoveRequest(game_id=gid, expected_version=3, request_id="r", move=DRAW),
            metadata=md,
        ),
        client.stub.LeaveGame(pb.LeaveGameRequest(game_id=gid), metadata=md),
    ]
    for call in calls:
        await refused(call, Code.PERMISSION_DENIED, "PLAYER_TOKEN_REQUIRED")


async def test_games_of_another_app_are_invisible(client: Client, server: Running) -> None:
    """Another app's game is NOT_FOUND for every call, and not in its ListGames."""
    gid, _ = await client.new_game()
    _, key = await server.store.create_app(f"other-{uuid.uuid4().hex[:6]}")
    md = (("x-api-key", key),)
    calls: list[Awaitable[object]] = [
        client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=md),
        client.stub.JoinGame(pb.JoinGameRequest(game_id=gid, spectator=True), metadata=md),
        client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=md),
        client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=md),
    ]
    for call in calls:
        await refused(call, Code.NOT_FOUND, "GAME_NOT_FOUND")
    watch = client.stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=md)
    await refused(watch.read(), Code.NOT_FOUND, "GAME_NOT_FOUND")
    assert not (await client.stub.ListGames(pb.ListGamesRequest(), metadata=md)).games


async def test_a_token_works_for_its_own_game_only(client: Client) -> None:
    """A token of game A used on game B is NOT_FOUND or PERMISSION_DENIED, never served."""
    game_a, tokens_a = await client.new_game()
    game_b, _ = await client.new_game()
    md = client.player(tokens_a[0])
    calls: list[Awaitable[object]] = [
        client.stub.GetView(pb.GetViewRequest(game_id=game_b), metadata=md),
        client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=game_b), metadata=md),
        client.stub.SubmitMove(
            pb.SubmitMoveRequest(game_id=game_b, expected_version=3, request_id="r", move=DRAW),
            metadata=md,
        ),
        client.stub.StartGame(pb.StartGameRequest(game_id=game_b), metadata=md),
        client.stub.GetReplay(pb.GetReplayRequest(game_id=game_b), metadata=md),
        client.stub.LeaveGame(pb.LeaveGameRequest(game_id=game_b), metadata=md),
    ]
    for call in calls:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await asyncio.wait_for(call, OK_TIMEOUT)
        assert caught.value.code() in (Code.NOT_FOUND, Code.PERMISSION_DENIED)
    assert (await app_view(client, game_b)).version == 3
    assert (await app_view(client, game_a)).version == 3


async def test_spectators_only_where_allowed(client: Client) -> None:
    """Spectators may join only games created with spectators_allowed."""
    gid, _ = await client.new_game()
    req = pb.JoinGameRequest(game_id=gid, spectator=True)
    await refused(
        client.stub.JoinGame(req, metadata=client.app()), Code.PERMISSION_DENIED, "NO_SPECTATORS"
    )


async def test_spectators_watch_but_cannot_act(client: Client) -> None:
    """A spectator sees and watches the game, but cannot move, list moves, start or leave."""
    gid, _ = await client.new_game(spectators_allowed=True)
    joined = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, spectator=True), metadata=client.app()
    )
    md = client.player(joined.player_token)
    version = (await seat_view(client, gid, joined.player_token)).version
    call = client.stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=md)
    try:
        msg = await read(call)
        assert msg.view.seat == -1 and not msg.view.hand and msg.view.version == version
    finally:
        call.cancel()
    calls: list[Awaitable[object]] = [
        client.stub.SubmitMove(
            pb.SubmitMoveRequest(game_id=gid, expected_version=version, request_id="s", move=DRAW),
            metadata=md,
        ),
        client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md),
        client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=md),
        client.stub.LeaveGame(pb.LeaveGameRequest(game_id=gid), metadata=md),
    ]
    for c in calls:
        await refused(c, Code.PERMISSION_DENIED, "SPECTATOR")
    assert (await app_view(client, gid)).version == version
