"""The web table coming back, in a real browser (clients/web/test-browser/
reload-reclaim.mjs): a table reloaded ten times in one turn plays on with its log
kept; a player who closed the browser until a robot took the seat opens the page
again and takes the seat back from it; a turn the timer played is told as such.
Checked here against the API. Both the reloads and the absence need the server to
release a watch stream when its page goes."""

from __future__ import annotations

from tests.web.browser import run_script
from tests.web.conftest import WebServer
from tranca.v1 import game_pb2 as pb


def test_a_table_comes_back_after_reloads_and_an_absence(node: str, web_server: WebServer) -> None:
    out = run_script(node, web_server, "reload-reclaim.mjs", timeout=240.0)
    assert out["console_errors"] == []

    # Ten reloads in one turn: the table, its log and the turn came back each time,
    # and the game played on (two more turns of the page's) with no refusal.
    reload = out["reload"]
    assert reload["reloads"] == 10
    assert reload["refusal"] == "" and reload["refusal_after"] == ""
    # The log before the reloads (its start included: join, start...) is still there.
    assert 1 in reload["log_before"] and set(reload["log_before"]) <= set(reload["log_after"])
    assert reload["turns_after"] == 2
    seat = (("authorization", f"Bearer {reload['token']}"),)
    view = web_server.games.GetView(
        pb.GetViewRequest(game_id=reload["game_id"]), metadata=seat
    ).view
    assert view.version >= int(reload["version"])

    # Away until a robot took the seat; back, the page took it back (ReclaimSeat).
    reclaim = out["reclaim"]
    assert reclaim["robot_took_it"] is True and reclaim["robot_after"] is False
    assert "robô está jogando por você" in reclaim["banner"]
    kinds = [e["kind"] for e in sorted(reclaim["log"], key=lambda e: e["version"])]
    assert "robot" in kinds and "return" in kinds and kinds.index("robot") < kinds.index("return")
    texts = {e["kind"]: e["text"] for e in reclaim["log"]}
    assert texts["robot"] == "Um robô assumiu o lugar de Bia" and texts["return"] == "Bia voltou"
    assert reclaim["played"] in ("draw", "createMeld", "addToMeld", "discard")
    # The server's log: a robot took the seat, its player took it back, then played.
    replay = web_server.games.GetReplay(
        pb.GetReplayRequest(game_id=reclaim["game_id"]), metadata=web_server.app()
    )
    mine = [m for m in replay.moves if m.seat == reclaim["seat"]]
    changes = [m.move.text if not m.move.WhichOneof("kind") else m.actor for m in mine]
    back = changes.index("return")
    assert "robot" in changes[:back] and "player" in changes[back + 1 :]

    # A turn the timer played is told as the timer's.
    timed = out["timer"]["log"]
    assert timed and all(e["text"].startswith("O tempo de Caio acabou; o servidor ") for e in timed)
    replay = web_server.games.GetReplay(
        pb.GetReplayRequest(game_id=out["timer"]["game_id"]), metadata=web_server.app()
    )
    assert {m.version for m in replay.moves if m.actor == "timeout"} >= {
        e["version"] for e in timed
    }
