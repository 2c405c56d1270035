"""The table head in the web table, in two real browsers (clients/web/test-browser/
table-head.mjs). 003 ("Opciones de mesa"): "Las opciones de mesa son elegidas por el
jefe de mesa (el primer jugador que se ha sentado en la mesa y que tiene una estrella
estrella junto a su avatar) ... Si el icono cambia a rojo, indica que el jefe de mesa
ha cambiado alguna de las opciones." Ana opens a table and is its head (the star on
both pages); Bia sits down; Ana makes the table rated with a stake of 10 chips; Bia's
page marks the Options button, shows the stake read-only and asks her to agree; the
full table does not start until she does; then it starts on both pages. Checked here
against the API: the table's options, the start, and the stake taken from each seat."""

from __future__ import annotations

from tests.web.browser import ARTIFACTS, run_script
from tests.web.conftest import WebServer
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc


def test_the_head_changes_the_stake_the_other_agrees_and_the_game_starts(
    node: str, web_server: WebServer
) -> None:
    # The app lets its players stake (its policy's default is no stakes).
    sessions = spb_grpc.SessionServiceStub(web_server.channel)
    policy = sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=web_server.app()).policy
    policy.max_stake = 50
    sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=web_server.app())

    out = run_script(
        node, web_server, "table-head.mjs", timeout=240.0, TRANCA_ARTIFACTS=str(ARTIFACTS)
    )
    assert "error" not in out, out.get("error")
    assert out["console_errors"] == []
    assert out["axe_head_panel"] == [] and out["axe_consent"] == []
    # The first player seated is the head, starred on every page.
    head = {"starred": [["Ana", '" ★"']], "line": "★ Table head: Ana"}
    assert out["head_on_ana"] == head == out["head_on_bia"]
    assert out["ana_panel_editable"] == "true" and out["ana_marked"] == "false"
    # The other seat: the button marked, the prompt, the panel read-only.
    assert out["bia_marker"] == "(changed)"
    assert out["consent_text"] == (
        "The table head made this a rated table with a stake of 10 chips. Do you agree?"
    )
    assert out["bia_panel_editable"] == "false"
    assert out["bia_stake"] == "10" and out["bia_stake_disabled"] is True
    assert out["bia_competitive"] is True and out["bia_marked_after"] == "false"
    # Full, but no start before Bia agreed; then it started.
    assert out["early_start"] == "CONSENT_PENDING" and out["waiting_before_consent"] == 1
    assert out["started"] is True and out["head_star_playing"] == 1

    game = out["game"]
    view = web_server.games.GetView(pb.GetViewRequest(game_id=game), metadata=web_server.app()).view
    assert view.status == pb.GAME_STATUS_PLAYING
    assert view.table.competitive and view.table.stake == 10
    assert view.head_seat == out["ana_seat"] and view.options_version > 0
    assert not any(s.consent_pending for s in view.seats)
    players = ppb_grpc.PlayerServiceStub(web_server.channel)
    for player in out["player_ids"]:
        got = players.GetPlayer(ppb.GetPlayerRequest(player_id=player), metadata=web_server.app())
        assert got.chips == 90, player  # 100 granted, 10 staked at the start
