"""The end of a deal on the web table, in a real browser (clients/web/test-browser/
deal-end.mjs): the server shows a finished deal's whole table only until the next
deal's first move, which a robot may play at once. Here the script plays both seats
of a 2-seat match through the API, the page watching seat 0, and plays deal 2's first
move as soon as deal 1 ends: the page still shows deal 1's whole table (taken from the
watch message of the version that ended it), again after a reload (from GetReplay,
when no view carries it any more), and the table is the engine's rebuild of the deal
from the replay; the log tells the deal-ending move under deal 1; a board the player
closed stays closed after a reload."""

from __future__ import annotations

from tests.web.boards import assert_board_shown, deal_of, replayed_boards
from tests.web.browser import run_script
from tests.web.conftest import WebServer
from tranca.v1 import game_pb2 as pb


def test_a_deals_end_stays_on_screen_when_the_next_deal_moves_at_once(
    node: str, web_server: WebServer
) -> None:
    out = run_script(node, web_server, "deal-end.mjs", timeout=180.0)
    assert out["console_errors"] == []
    replay = web_server.games.GetReplay(
        pb.GetReplayRequest(game_id=out["game_id"]), metadata=web_server.app()
    )
    # Deal 1 ended at ending_version, and deal 2's first move followed: no view shows
    # deal 1's table any more, and the page had moved past it when it was read.
    ending = [(m.version, m.ended_deal, m.deal_number) for m in replay.moves if m.ended_deal]
    assert ending == [(out["ending_version"], 1, 2)]
    assert out["first_move_version"] == out["ending_version"] + 1
    assert out["server_view_has_board"] is False
    assert out["live_version"] >= out["first_move_version"]

    board = replayed_boards(replay)[1]
    assert board["melds"] and sum(len(h) for h in board["hands"]), "a table worth showing"
    (deal,) = replay.deals
    totals = {str(s.side): s.total for s in deal.result.scores}
    for shown in (out["live"], out["reloaded"]):
        assert shown["deal"] == 1
        assert_board_shown(shown, board, out["seat"])
        # The breakdown at two players: the player, then the opponent by name.
        assert shown["headers"] == ["Você", "Bia"]
        assert shown["totals"] == totals

    # The log, live and from the replay: each change under the deal it was made in,
    # the move that ended deal 1 (logged with deal 2's number) under deal 1.
    logged = {m.version: m for m in replay.moves}
    for log in (out["log_live"], out["log_reloaded"]):
        for entry in log:
            move = logged[entry["version"]]
            assert (entry["deal"], entry["ended"]) == (deal_of(move), move.ended_deal > 0)
        ended = [e for e in log if e["ended"]]
        assert [(e["version"], e["deal"]) for e in ended] == [(out["ending_version"], 1)]
        after = [e["deal"] for e in log if e["version"] > out["ending_version"]]
        assert after == [2]

    assert out["closed_after_reload"] is True
