"""Automatic mode at the web table, in a real browser (clients/web/test-browser/
automatic.mjs): two players' pages at one table; the player to act switches
automatic mode on from the page, the other page shows the seat as automatic, the
server's robot makes the moves for them, and they switch it off from the banner.
Checked here against the API (003: "Véase también: Juego en modo automático")."""

from __future__ import annotations

from tests.web.browser import run_script
from tests.web.conftest import WebServer
from tranca.v1 import game_pb2 as pb


def test_a_player_switches_automatic_mode_on_and_off_from_the_page(
    node: str, web_server: WebServer
) -> None:
    out = run_script(node, web_server, "automatic.mjs", timeout=180.0)
    assert out["console_errors"] == []
    assert "error" not in out, out.get("error")
    seat = out["seat"]
    assert out["banner"] == "Modo automático: el servidor juega por ti."
    assert "automático" in out["other_role"]
    assert out["robot_moves"] and all(m["actor"] == "robot" for m in out["robot_moves"])
    assert out["switch_line"].endswith("pasó a modo automático")
    assert out["on_button_back"] == 1 and out["view_after"] is False

    # The server's log: the switch by the player, the robot's moves, the return.
    replay = web_server.games.GetReplay(
        pb.GetReplayRequest(game_id=out["game_id"]), metadata=web_server.app()
    )
    mine = [m for m in replay.moves if m.seat == seat]
    changes = [m.move.text if not m.move.WhichOneof("kind") else m.actor for m in mine]
    on, off = changes.index("robot"), changes.index("return")
    assert on < off and "robot" in changes[on + 1 : off]
    switched = next(m for m in mine if m.move.text == "robot")
    assert switched.actor == "player"
    shown = {m["version"] for m in out["robot_moves"]}
    assert shown <= {m.version for m in mine if m.actor == "robot"}
