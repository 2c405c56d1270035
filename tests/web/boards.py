"""Each finished deal's table rebuilt by the rules engine from a game's replay (the
deck as dealt and the moves), independently of the table the server keeps and shows
(``DealBoard``, in ``GameView.final_board`` and ``DealReplay.final_board``): what the
service tests and the browser tests compare against.

The rebuild reads the engine's own state after the deal's last move (hands, mortos,
pile, stock), not the server's board: only the melds' layout (cards in the order
shown, wilds marked) is the rules' view, as every view has it."""

from __future__ import annotations

from typing import Any

from tranca.v1 import game_pb2 as pb
from tranca_rules import make_rules, new_deal, parse_card, parse_move
from tranca_rules.cards import card_text
from tranca_rules.engine import apply
from tranca_rules.views import SPECTATOR, view_of


def _knob(value: pb.KnobValue) -> Any:
    case = value.WhichOneof("value")
    if case == "int_list":
        return list(value.int_list.values)
    return getattr(value, case) if case else None


def deal_of(logged: pb.LoggedMove) -> int:
    """The deal a logged change was made in: the move that ended deal k is logged with
    deal_number k + 1 (the game's deal after it) and ended_deal k."""
    return logged.ended_deal or logged.deal_number


def replayed_boards(replay: pb.GetReplayResponse) -> dict[int, dict[str, Any]]:
    """By deal number, every finished deal's last table, in ``kept_board``'s terms:
    melds (id, side, cards, canastra kind, wild positions), red threes by side, mortos
    (size, taken, cards), each seat's hand (sorted), the pile, the stock's size, and
    how the deal ended. A deal whose deck the replay does not show yet is left out."""
    rules = make_rules(
        replay.rules.preset, {k: _knob(v) for k, v in replay.rules.overrides.items()}
    )
    out: dict[int, dict[str, Any]] = {}
    for deal in replay.deals:
        if not deal.deck:
            continue
        s = new_deal(
            rules,
            replay.players,
            dealer=deal.dealer,
            deck=[parse_card(c) for c in deal.deck],
        )
        for logged in replay.moves:
            if deal_of(logged) == deal.deal_number and logged.move.WhichOneof("kind"):
                apply(s, logged.seat, parse_move(logged.move.text))
        assert s.is_over, f"deal {deal.deal_number} replayed is not over"
        mortos = [[] if m is None else [card_text(c) for c in m] for m in s.mortos]
        out[deal.deal_number] = {
            "dealer": deal.dealer,
            "melds": [
                {
                    "id": m.id,
                    "side": m.side,
                    "cards": list(m.cards),
                    "canastra": m.canastra,
                    "wild_indexes": list(m.wild_indexes),
                }
                for m in view_of(s, SPECTATOR).melds
            ],
            "red_threes": [[card_text(c) for c in r] for r in s.red_threes],
            "mortos": [
                [len(cards), taken, cards]
                for cards, taken in zip(mortos, s.morto_taken, strict=True)
            ],
            "hands": [sorted(card_text(c) for c in hand) for hand in s.hands],
            "pile": [card_text(c) for c in s.pile],
            "stock_size": len(s.stock),
            "end_reason": str(s.end_reason),
            "went_out": s.went_out,
        }
    return out


CANASTRA_NAMES = {
    pb.CANASTRA_KIND_UNSPECIFIED: None,
    pb.CANASTRA_KIND_CLEAN: "clean",
    pb.CANASTRA_KIND_DIRTY: "dirty",
    pb.CANASTRA_KIND_REAL: "real",
    pb.CANASTRA_KIND_ALL_WILDS: "all_wilds",
    pb.CANASTRA_KIND_ACE_TO_ACE: "ace_to_ace",
}


def kept_board(board: pb.DealBoard) -> dict[str, Any]:
    """A finished deal's table as the server shows it, in ``replayed_boards``' terms."""
    assert [h.seat for h in board.hands] == list(range(len(board.hands)))
    assert [r.side for r in board.red_threes] == list(range(len(board.red_threes)))
    assert [m.side for m in board.mortos] == list(range(len(board.mortos)))
    return {
        "dealer": board.dealer,
        "melds": [
            {
                "id": m.id,
                "side": m.side,
                "cards": list(m.cards),
                "canastra": CANASTRA_NAMES[m.canastra],
                "wild_indexes": list(m.wild_indexes),
            }
            for m in board.melds
        ],
        "red_threes": [list(r.cards) for r in board.red_threes],
        "mortos": [[m.size, m.taken, list(m.cards)] for m in board.mortos],
        "hands": [list(h.cards) for h in board.hands],
        "pile": list(board.pile),
        "stock_size": board.stock_size,
        "end_reason": board.result.end_reason,
        "went_out": board.result.went_out_seat,
    }


def assert_board_shown(shown: dict[str, Any], board: dict[str, Any], seat: int) -> None:
    """The end-of-deal board the page showed (clients/web/test-browser/lib.mjs's
    readDealEnd) is ``board``, the engine's rebuild of the deal (``replayed_boards``):
    every card where the deal left it, every hand open, the wilds the page marks those
    the engine counts; ``seat``'s own hand marked as the player's."""
    assert shown["board_deal"] == shown["deal"]
    assert sorted(
        (m["id"], m["side"], m["cards"], CANASTRA_NAMES[m["canastra"]], m["wild_indexes"])
        for m in shown["melds"]
    ) == sorted(
        (m["id"], m["side"], m["cards"], m["canastra"], m["wild_indexes"]) for m in board["melds"]
    )
    reds = {r["side"]: r["cards"] for r in shown["reds"]}
    assert reds == dict(enumerate(board["red_threes"]))
    # Every hand, open, as the deal left it; the player's own among them.
    hands = {h["seat"]: h for h in shown["hands"]}
    assert sorted(hands) == list(range(len(board["hands"])))
    for s, cards in enumerate(board["hands"]):
        assert sorted(hands[s]["cards"]) == cards and sorted(hands[s]["shown"]) == cards
        assert hands[s]["size"] == len(cards)
    assert sorted(shown["hand"]) == board["hands"][seat]
    mortos = {m["side"]: m for m in shown["mortos"]}
    assert sorted(mortos) == list(range(len(board["mortos"])))
    for side, (size, taken, cards) in enumerate(board["mortos"]):
        morto = mortos[side]
        assert (morto["size"], morto["taken"], morto["cards"], morto["shown"]) == (
            size,
            taken,
            cards,
            cards,
        )
    assert shown["pile"] == board["pile"] and shown["pile_shown"] == board["pile"]
    assert shown["stock"] == board["stock_size"]
