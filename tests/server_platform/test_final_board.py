"""A finished deal's whole table stays visible: GetView shows the deal that ended,
every hand open, from its end until the next deal's first move and once the match
is over; GetReplay shows every finished deal's; the watch stream's view of the
deal-ending version has it, and its logged move names the deal it ended. Played
by greedy bots through the API, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

from tranca.server import Running
from tranca.v1 import game_pb2 as pb
from tranca_rules.cards import card_text, full_deck
from tranca_rules.presets import make_rules

from ..server.conftest import Client
from .test_tables import create, greedy_bots, play_by_bots, seat_all, start


def board_cards(board: pb.DealBoard) -> Counter[str]:
    """Every card the board shows: hands, melds, red threes, mortos, the pile."""
    seen: Counter[str] = Counter()
    for hand in board.hands:
        seen.update(hand.cards)
    for meld in board.melds:
        seen.update(meld.cards)
    for reds in board.red_threes:
        seen.update(reds.cards)
    for morto in board.mortos:
        seen.update(morto.cards)
    seen.update(board.pile)
    return seen


def assert_whole(board: pb.DealBoard, preset: str, players: int) -> None:
    """The board accounts for the deal's every card but the stock's, each once."""
    deck = Counter(card_text(c) for c in full_deck(make_rules(preset).jokers))
    shown = board_cards(board)
    assert not shown - deck, "a card the deck does not hold"
    assert sum(shown.values()) + board.stock_size == sum(deck.values())
    assert [h.seat for h in board.hands] == list(range(players))
    for morto in board.mortos:
        assert morto.size == len(morto.cards)
        assert not (morto.taken and morto.cards)


async def test_a_finished_match_shows_its_last_deal_whole(server: Running, client: Client) -> None:
    gid = (await create(client, pb.TableOptions(express=True), seed=11)).game.game_id
    tokens = await seat_all(client, gid, 2)
    await start(client, gid)
    end = await play_by_bots(server, client, gid, tokens, greedy_bots(11, 2))
    assert end.status == pb.GAME_STATUS_FINISHED
    board = end.final_board
    assert board.deal_number == 1
    assert board.result == end.last_deal
    assert_whole(board, "tranca-000", 2)
    if board.result.end_reason == "batida":
        assert not board.hands[board.result.went_out_seat].cards
    # The same for a seat, whose own view shows every hand once the deal is over.
    mine = (
        await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[1]))
    ).view
    assert mine.final_board == board
    replay = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    assert [d.final_board for d in replay.deals] == [board]
    ending = [m for m in replay.moves if m.ended_deal]
    assert [m.ended_deal for m in ending] == [1]
    assert ending[0].version == end.version


async def test_between_deals_the_view_shows_the_deal_that_ended_until_the_next_move(
    server: Running, client: Client
) -> None:
    # Seed 3 with a 500-point limit takes greedy bots three deals (test_tables.py).
    gid = (await create(client, pb.TableOptions(point_limit=500), seed=3)).game.game_id
    tokens = await seat_all(client, gid, 2)
    first = await start(client, gid)
    assert not first.HasField("final_board")
    watch = client.stub.WatchGame(
        pb.WatchGameRequest(game_id=gid, from_version=first.version),
        metadata=client.player(tokens[0]),
    )
    second = await play_by_bots(server, client, gid, tokens, greedy_bots(3, 2), until_deal=2)
    assert second.deal_number == 2 and second.status == pb.GAME_STATUS_PLAYING
    board = second.final_board
    assert board.deal_number == 1 and board.result == second.last_deal
    assert_whole(board, "tranca-000", 2)
    # The new deal is dealt: the view's own fields show it.
    assert sum(s.hand_size for s in second.seats) == 2 * 11
    # The watch stream delivers the deal-ending move with that board.
    while True:
        update = await asyncio.wait_for(watch.read(), 10)
        assert isinstance(update, pb.WatchGameResponse)
        if update.view.version == second.version:
            break
    watch.cancel()
    assert update.move.ended_deal == 1 and update.move.deal_number == 2
    assert update.view.final_board == board
    replay = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    assert [d.deal_number for d in replay.deals] == [1]
    assert replay.deals[0].final_board == board
    # The next deal's first move: its table is what is shown, the last deal's in the
    # replay only.
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    md = client.player(tokens[view.turn])
    legal = await client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md)
    moved = await client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid,
            expected_version=legal.version,
            request_id=uuid.uuid4().hex,
            move=legal.moves[0],
        ),
        metadata=md,
    )
    assert not moved.view.HasField("final_board")
    assert moved.view.last_deal == second.last_deal


async def test_melds_mark_their_wilds_and_seats_name_their_side(
    server: Running, client: Client
) -> None:
    gid = (await create(client, players=4, seed=3)).game.game_id
    tokens = await seat_all(client, gid, 4)
    await start(client, gid)
    view = await play_by_bots(server, client, gid, tokens, greedy_bots(3, 4), until_deal=2)
    assert [s.side for s in view.seats] == [0, 1, 0, 1]
    melds = list(view.final_board.melds)
    assert melds, "greedy bots lay melds in a whole deal"
    for meld in melds:
        assert len(meld.wild_indexes) == meld.wilds
        for i in meld.wild_indexes:
            assert meld.cards[i][0] == "2" or meld.cards[i] == "JK"
    assert any(m.wilds for m in melds), "a deal of greedy bots uses a wild"
