"""A rematch at the same table in the web table, in real browsers (clients/web/
test-browser/rematch.mjs): two guests finish a match of one deal (the first resigns),
both press Rematch, and both land at the same seats in the table's next match, which
starts; the second's confirmation, the time the seat is held and the table's matches
show on the pages without a reload. Checked here against the API: the finished
match's next match and confirmations (GetView), the next match's seats and players,
and the table's history (TableService.ListTableMatches)."""

from __future__ import annotations

from tests.web.browser import run_script
from tests.web.conftest import WebServer
from tranca.v1 import game_pb2 as pb
from tranca.v1 import tables_pb2 as tpb
from tranca.v1 import tables_pb2_grpc as tpb_grpc


def test_both_players_press_rematch_and_play_the_next_match_at_their_seats(
    node: str, web_server: WebServer
) -> None:
    out = run_script(node, web_server, "rematch.mjs", timeout=240.0)
    assert out["console_errors"] == []
    first, nxt = out["first_game"], out["next_game"]
    assert first and nxt and nxt != first
    assert (out["ana_seat"], out["bia_seat"]) == (0, 1)

    # The finished match, as the API shows it: both confirmed, the next match named.
    old = web_server.games.GetView(pb.GetViewRequest(game_id=first), metadata=web_server.app())
    assert old.view.status == pb.GAME_STATUS_FINISHED
    assert old.view.match_result.reason == "resignation"
    assert old.view.next_game_id == nxt and sorted(old.view.rematch_seats) == [0, 1]

    # The next match: the same players at the same seats, under way.
    view = web_server.games.GetView(pb.GetViewRequest(game_id=nxt), metadata=web_server.app())
    assert view.view.status == pb.GAME_STATUS_PLAYING
    assert view.view.table_id == first and view.view.match_number == 2
    assert (
        [s.player_id for s in view.view.seats]
        == [s.player_id for s in old.view.seats]
        == [out["ana"], out["bia"]]
    )
    assert (out["ana_next_seat"], out["bia_next_seat"], out["bia_next_seat_playing"]) == (0, 1, 1)
    assert out["seat_kept"]["gameId"] == nxt and out["seat_kept"]["seat"] == 0

    # What the pages showed in between: Bia waited with Ana's seat held and its time,
    # the table's two matches listed; Ana's page saw Bia's confirmation.
    assert out["ana_before"] == "No one has confirmed the rematch yet."
    assert out["bia_waiting_held"] == "0"
    assert 0 < out["bia_waiting_time"] <= 60
    assert out["bia_waiting_seats"] == ["held for the last match’s player", "Bia Revanche"]
    assert [(m["game"], m["number"]) for m in out["bia_table_matches"]] == [(first, 1), (nxt, 2)]
    # Bia won the first match: her page says so in her words.
    assert out["bia_table_matches"][0]["text"].startswith("Match 1: won by You")
    assert out["ana_sees"].startswith("Rematch confirmed by Bia Revanche")
    assert 0 < out["ana_time_left"] <= 60
    assert out["ana_panel_next"] == nxt

    history = tpb_grpc.TableServiceStub(web_server.channel).ListTableMatches(
        tpb.ListTableMatchesRequest(game_id=nxt), metadata=web_server.app()
    )
    assert [m.game.game_id for m in history.matches] == [first, nxt]

    for key in ("axe_finished", "axe_waiting"):
        assert out[key] == [], out[key]
