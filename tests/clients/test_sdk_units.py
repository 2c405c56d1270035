"""The SDK's pure parts, without a server: the move notation, the error mapping, the
greedy bot's choices on a view, and the table's rendering."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from rich.console import Console

from tranca_client import (
    DeadlineExceeded,
    GreedyBot,
    MoveSyntaxError,
    RandomBot,
    RuleRejected,
    TrancaError,
    Unavailable,
    VersionConflict,
    add,
    discard,
    draw,
    error_from_rpc,
    find_move,
    meld,
    move_text,
    parse_move,
    pb,
    replace,
    same_move,
    take,
)
from tranca_client.client import RetryPolicy, is_loopback, knob_value
from tranca_client.table import render_hand, render_scores, render_table

NOTATION = [
    ("draw", draw()),
    ("take @3", take(3)),
    ("take 5H 6H", take(cards=["5H", "6H"])),
    ("meld 4H 5H 6H", meld("4H", "5H", "6H")),
    ("add @2 7H", add(2, "7H")),
    ("replace @2 6H", replace(2, "6H")),
    ("discard 9C", discard("9C")),
    ("discard JK", discard("JK")),
]


@pytest.mark.parametrize(("text", "move"), NOTATION)
def test_the_notation_round_trips(text: str, move: pb.Move) -> None:
    assert parse_move(text) == move
    assert move_text(move) == text
    assert parse_move(text.lower()) == move


def test_moves_compare_whatever_the_card_order() -> None:
    assert same_move(parse_move("meld 6H 4H 5H"), meld("4H", "5H", "6H"))
    assert not same_move(parse_move("meld 6H 4H 5H"), meld("4H", "5H", "7H"))
    legal = [draw(), take(cards=["5H", "6H"])]
    assert find_move(legal, parse_move("take 6h 5h")) is legal[1]
    assert find_move(legal, discard("9C")) is None
    assert parse_move("discard 10d") == discard("TD")
    assert move_text(pb.Move(text="resign")) == "resign"


@pytest.mark.parametrize(
    "text",
    ["", "fly", "draw 4H", "take", "take @1 4H", "meld 4H 5H", "add 7H", "add @x 7H",
     "discard", "discard 1Z", "discard @1 9C", "meld @1 4H 5H 6H", "replace @-1 6H"],
)  # fmt: skip
def test_bad_notation_is_refused_before_any_call(text: str) -> None:
    with pytest.raises(MoveSyntaxError):
        parse_move(text)


def _rpc_error(
    code: grpc.StatusCode, reason: str = "", metadata: dict[str, str] | None = None
) -> grpc.aio.AioRpcError:
    trailing = grpc.aio.Metadata()
    if reason:
        info = error_details_pb2.ErrorInfo(reason=reason, domain="tranca.v1", metadata=metadata)
        status = status_pb2.Status(code=code.value[0], message="msg")
        status.details.add().Pack(info)
        trailing.add("grpc-status-details-bin", status.SerializeToString())
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), trailing, details="msg")


def test_errors_map_to_classes_with_reason_and_metadata() -> None:
    err = error_from_rpc(_rpc_error(grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"))
    assert isinstance(err, RuleRejected)
    assert (err.reason, err.domain, err.message) == ("NOT_YOUR_TURN", "tranca.v1", "msg")
    conflict = error_from_rpc(
        _rpc_error(grpc.StatusCode.ABORTED, "VERSION_CONFLICT", {"current_version": "12"})
    )
    assert isinstance(conflict, VersionConflict)
    assert conflict.current_version == 12 and conflict.view is None
    late = error_from_rpc(_rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED))
    assert isinstance(late, DeadlineExceeded) and isinstance(late, Unavailable)
    assert late.reason == ""
    other = error_from_rpc(_rpc_error(grpc.StatusCode.INTERNAL, "INTERNAL"))
    assert type(other) is TrancaError and other.code == grpc.StatusCode.INTERNAL


def test_retry_backoff_grows_and_is_capped() -> None:
    policy = RetryPolicy(initial_backoff=0.1, max_backoff=1.0, multiplier=2.0, jitter=0.0)
    assert [policy.delay(n) for n in (1, 2, 3, 4, 5, 9)] == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    jittery = RetryPolicy(initial_backoff=0.1, jitter=0.5)
    assert all(0.05 <= jittery.delay(1) <= 0.15 for _ in range(50))


def test_connection_helpers() -> None:
    assert is_loopback("127.0.0.1:50051") and is_loopback("localhost:1")
    assert is_loopback("[::1]:50051") and not is_loopback("games.example.org:443")
    assert knob_value(0) == pb.KnobValue(int_value=0)
    assert knob_value(True) == pb.KnobValue(bool_value=True)
    assert knob_value([1, 2]).int_list.values == [1, 2]


def _view(**kwargs: object) -> pb.GameView:
    view = pb.GameView(
        game_id="g",
        version=10,
        status=pb.GAME_STATUS_PLAYING,
        rules=pb.Rules(preset="tranca-000"),
        players=2,
        seat=0,
        seats=[
            pb.SeatInfo(seat=0, player_name="ana", taken=True, hand_size=5),
            pb.SeatInfo(seat=1, player_name="bot", taken=True, hand_size=9),
        ],
        deal_number=1,
        turn=0,
        phase=pb.PHASE_PLAY,
        pile_top="9C",
        pile_size=4,
        stock_size=40,
        mortos=[pb.Morto(side=0, size=11), pb.Morto(side=1, size=0, taken=True)],
        match_totals=[0, 0],
    )
    for key, value in kwargs.items():
        field = getattr(view, key)
        if isinstance(value, list):
            field.extend(value)
        else:
            setattr(view, key, value)
    return view


def test_the_greedy_bot_takes_a_fat_pile_and_prefers_natural_melds() -> None:
    bot = GreedyBot(seed=1)
    drawing = _view(phase=pb.PHASE_DRAW, hand=["9D", "9H", "KS"])
    legal = [draw(), take(cards=["9D", "9H"])]
    assert bot.choose(drawing, legal) == legal[1]
    thin = _view(phase=pb.PHASE_DRAW, pile_size=1, hand=["9D", "9H", "KS"])
    assert bot.choose(thin, legal) == legal[0]

    hand = ["2C", "4H", "5H", "6H", "KS", "KD", "3C"]
    melds = [pb.Meld(id=0, side=0, kind=pb.MELD_KIND_RUN, cards=["7H", "8H", "9H"])]
    playing = _view(hand=hand, melds=melds)
    legal = [meld("2C", "4H", "5H"), meld("4H", "5H", "6H"), add(0, "2C"), discard("3C")]
    assert bot.choose(playing, legal) == legal[1]  # natural meld before wilds
    legal = [add(0, "2C"), add(0, "6H"), discard("3C")]
    assert bot.choose(playing, legal) == legal[1]  # natural add first
    legal = [discard(c) for c in hand]
    assert bot.choose(playing, legal) == discard("3C")  # the black three goes first
    legal = [discard(c) for c in ["2C", "4H", "5H", "KS"]]
    assert bot.choose(playing, legal) == discard("KS")  # not the wild, not the run
    assert RandomBot(seed=1).choose(playing, legal) in legal


def test_the_table_renders_hand_melds_and_scores() -> None:
    console = Console(width=100, record=True, color_system=None)
    view = _view(
        hand=["KS", "2C", "4H", "AS", "JK", "5H"],
        melds=[
            pb.Meld(
                id=0,
                side=0,
                kind=pb.MELD_KIND_RUN,
                cards=["3H", "4H", "5H", "6H", "7H", "8H", "9H"],
                canastra=pb.CANASTRA_KIND_CLEAN,
            ),
            pb.Meld(id=1, side=1, kind=pb.MELD_KIND_SET, cards=["QC", "QD", "2S"], wilds=1),
        ],
    )
    console.print(render_table(view))
    console.print(render_hand(list(view.hand)))
    result = pb.DealResult(
        deal_number=1,
        end_reason="batida",
        went_out_seat=0,
        scores=[
            pb.ScoreBreakdown(
                side=0,
                table_cards=150,
                canastras=[pb.CanastraScore(kind=pb.CANASTRA_KIND_CLEAN, count=1, points=200)],
                batida=100,
                total=450,
            ),
            pb.ScoreBreakdown(side=1, table_cards=40, hand_cards=-60, total=-20),
        ],
    )
    console.print(render_scores(view, result))
    out = console.export_text()
    assert "hearts: 4H 5H" in out and "spades: KS AS" in out and "wild: 2C JK" in out
    assert "*** CLEAN CANASTRA ***" in out
    assert "Turn: ana (you)" in out and "phase: play" in out
    assert "Discard pile: 9C (4 cards)" in out and "Stock: 40" in out
    assert "Morto: us 11 cards   bot taken" in out
    assert "Deal 1 over: someone went out (ana (you) went out)" in out
    assert "canastras, clean" in out and "1 = 200" in out
    assert "450" in out and "-20" in out
