"""SubmitTurn: a sequence of moves in one request, on SQLite and PostgreSQL.

Applied all or none in one write; each move logged as its own move at its own
version (the replay, the watch streams and the verification read moves one by one);
one request id for the sequence, applied once however often it is sent; the refusal
of the k-th move names k (ErrorInfo metadata ``move_index``) and its reason, and
changes nothing (GUARANTEES.md, "Moves"; proto/tranca/v1/game.proto, SubmitTurn).
"""

from __future__ import annotations

import copy
import random
import uuid

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tranca.api.convert import move_to_pb
from tranca.server import Running
from tranca.table.game import GameState, apply_action, play_action, rebuild
from tranca.v1 import game_pb2 as pb
from tranca_rules.cards import card_text
from tranca_rules.engine import legal_moves
from tranca_rules.moves import parse_move

from .api_calls import error_info
from .conftest import Client


async def _stored(server: Running, gid: str) -> tuple[int, dict[str, object]]:
    game = await server.store.game(gid)
    return game.version, game.state.to_dict()


async def _log_rebuilds(server: Running, gid: str) -> None:
    """The stored log, folded move by move, is the stored snapshot."""
    rows = await server.store.log(gid)
    game = await server.store.game(gid)
    assert [r.version for r in rows] == list(range(1, game.version + 1))
    rebuilt = rebuild(game.state.setup, [r.action for r in rows])
    assert rebuilt.to_dict() == game.state.to_dict()


def _first_refused(state: GameState, seat: int, version: int, moves: list[pb.Move]) -> int | None:
    """The place (from 1) of the first of ``moves`` the rules refuse when ``seat``
    plays them in order from ``state`` (on a copy), or None if all are legal."""
    trial = copy.deepcopy(state)
    for i, m in enumerate(moves):
        deal = trial.deal
        legal = [] if deal is None else [x for x in legal_moves(deal) if move_to_pb(x) == m]
        if deal is None or deal.turn != seat or not legal:
            return i + 1
        apply_action(trial, play_action(seat, legal[0]), version + 1 + i)
    return None


async def _draw_and_discard(client: Client, server: Running, gid: str) -> list[pb.Move]:
    """The mover's turn as one sequence: a draw, then a discard of a card held before it."""
    game = await server.store.game(gid)
    deal = game.state.deal
    assert deal is not None
    hand = sorted(deal.hands[deal.turn])
    return [
        move_to_pb(parse_move("draw")),
        pb.Move(discard=pb.DiscardMove(card=card_text(hand[0]))),
    ]


async def test_a_turn_is_logged_move_by_move_and_answered_once(
    server: Running, client: Client
) -> None:
    gid, tokens = await client.new_game()
    version, _ = await _stored(server, gid)
    game = await server.store.game(gid)
    assert game.state.deal is not None
    seat = game.state.deal.turn
    md = client.player(tokens[seat])
    moves = await _draw_and_discard(client, server, gid)
    request = pb.SubmitTurnRequest(
        game_id=gid,
        expected_version=version,
        request_id=uuid.uuid4().hex,
        moves=moves,
        include_legal_moves=True,
    )
    done = await client.stub.SubmitTurn(request, metadata=md)
    assert done.version == version + 2 and not done.replayed
    assert done.view.version == done.version and done.view.turn != seat
    assert list(done.legal_moves) == []  # the turn passed
    replay = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    logged = [m for m in replay.moves if m.version > version]
    assert [m.version for m in logged] == [version + 1, version + 2]
    assert [m.move.WhichOneof("kind") for m in logged] == ["draw", "discard"]
    assert all(m.seat == seat for m in logged)
    # The same request again: the first answer, nothing played twice.
    again = await client.stub.SubmitTurn(request, metadata=md)
    assert again.replayed and again.version == done.version
    assert again.view == done.view
    assert (await _stored(server, gid))[0] == done.version
    # The same id with other moves: refused, nothing changes.
    other = pb.SubmitTurnRequest()
    other.CopyFrom(request)
    del other.moves[-1]
    with pytest.raises(grpc.aio.AioRpcError) as reused:
        await client.stub.SubmitTurn(other, metadata=md)
    assert reused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert error_info(reused.value).reason == "REQUEST_ID_REUSED"
    await _log_rebuilds(server, gid)


async def test_a_refused_move_names_its_place_and_nothing_is_played(
    server: Running, client: Client
) -> None:
    gid, tokens = await client.new_game()
    game = await server.store.game(gid)
    assert game.state.deal is not None
    md = client.player(tokens[game.state.deal.turn])
    before = await _stored(server, gid)
    draw = pb.Move(draw=pb.DrawMove())
    cases = [
        # A second draw in the same turn: the rules refuse it (move 2).
        ([draw, draw], grpc.StatusCode.FAILED_PRECONDITION, "2"),
        # A move that sets no kind: malformed (move 2), before any rule is asked.
        ([draw, pb.Move(), draw], grpc.StatusCode.INVALID_ARGUMENT, "2"),
        # A discard before the draw (move 1).
        (
            [pb.Move(discard=pb.DiscardMove(card="2C")), draw],
            grpc.StatusCode.FAILED_PRECONDITION,
            "1",
        ),
    ]
    for moves, code, index in cases:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.stub.SubmitTurn(
                pb.SubmitTurnRequest(
                    game_id=gid,
                    expected_version=before[0],
                    request_id=uuid.uuid4().hex,
                    moves=moves,
                ),
                metadata=md,
            )
        assert refused.value.code() == code, moves
        info = error_info(refused.value)
        assert info.metadata["move_index"] == index
        assert f"move {index}" in (refused.value.details() or "")
        assert await _stored(server, gid) == before
    with pytest.raises(grpc.aio.AioRpcError) as empty:
        await client.stub.SubmitTurn(
            pb.SubmitTurnRequest(game_id=gid, expected_version=before[0], request_id="e"),
            metadata=md,
        )
    assert empty.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(empty.value).reason == "MALFORMED_REQUEST"
    with pytest.raises(grpc.aio.AioRpcError) as stale:
        await client.stub.SubmitTurn(
            pb.SubmitTurnRequest(
                game_id=gid, expected_version=before[0] - 1, request_id="s", moves=[draw]
            ),
            metadata=md,
        )
    assert stale.value.code() == grpc.StatusCode.ABORTED
    assert await _stored(server, gid) == before


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**31), turns=st.integers(1, 25))
async def test_any_sequence_applies_whole_or_changes_nothing(
    server: Running, client: Client, seed: int, turns: int
) -> None:
    """Random sequences, some with an illegal move slipped in: a legal one is applied
    whole (the log folds to the stored snapshot), one with an illegal move is
    refused at that move and changes nothing; a retried request id is applied once."""
    rng = random.Random(seed)
    gid, tokens = await client.new_game(seed=seed % 1000)
    sent: list[tuple[pb.SubmitTurnRequest, str, int]] = []
    for _ in range(turns):
        game = await server.store.game(gid)
        deal = game.state.deal
        if game.state.status != "playing" or deal is None:
            break
        seat = deal.turn
        trial = copy.deepcopy(game.state)
        moves: list[pb.Move] = []
        for i in range(rng.randint(1, 5)):
            tdeal = trial.deal
            if trial.status != "playing" or tdeal is None or tdeal.turn != seat:
                break
            chosen = rng.choice(legal_moves(tdeal))
            apply_action(trial, play_action(seat, chosen), game.version + 1 + i)
            moves.append(move_to_pb(chosen))
        bad_at = None
        if rng.random() < 0.3:
            # A draw slipped in at a random place: refused there, or by a later move
            # it made illegal, unless it happens to be legal where it lands.
            moves.insert(rng.randrange(len(moves) + 1), move_to_pb(parse_move("draw")))
            bad_at = _first_refused(game.state, seat, game.version, moves)
        request = pb.SubmitTurnRequest(
            game_id=gid,
            expected_version=game.version,
            request_id=uuid.uuid4().hex,
            moves=moves,
        )
        md = client.player(tokens[seat])
        before = await _stored(server, gid)
        if bad_at is not None:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.stub.SubmitTurn(request, metadata=md)
            assert error_info(refused.value).metadata["move_index"] == str(bad_at)
            assert await _stored(server, gid) == before
            continue
        done = await client.stub.SubmitTurn(request, metadata=md)
        assert done.version == before[0] + len(moves) and not done.replayed
        sent.append((request, tokens[seat], int(done.version)))
        if rng.random() < 0.3:
            # A retry, now or after later turns: the first answer, applied once.
            old, token, version = rng.choice(sent)
            now = await _stored(server, gid)
            again = await client.stub.SubmitTurn(old, metadata=client.player(token))
            assert again.replayed and again.version == version
            assert await _stored(server, gid) == now
    await _log_rebuilds(server, gid)
    rows = await server.store.log(gid)
    for request, _, version in sent:
        ours = [r for r in rows if version - len(request.moves) < r.version <= version]
        assert [move_to_pb(r.action.move) for r in ours if r.action.move] == list(request.moves)
        assert ours[-1].request_id == request.request_id
