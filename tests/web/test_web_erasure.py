"""Erasing one's account from the web table, in real browsers
(clients/web/test-browser/erasure.mjs): a guest finds the player's table in the lobby
with their country; mid-match the erasure is refused in words and nothing changes;
the player leaves the match (confirming), erases their account (confirming), and the
page is a stranger's again. Checked here against the server's
database (every text column of every table: the player's name and id are in none)
and its API (the seat shows the pseudonym; the audit log says the player asked)."""

from __future__ import annotations

import json

from sqlalchemy import create_engine

from tests.harness import scans
from tests.web.browser import run_script
from tests.web.conftest import WebServer
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import game_pb2 as pb

NAME = "Rui Apagado Teixeira"


def test_a_player_erases_their_account_from_the_table(node: str, web_server: WebServer) -> None:
    out = run_script(node, web_server, "erasure.mjs", timeout=180.0)
    assert out["console_errors"] == []
    assert out["axe_asking"] == [] and out["axe_after"] == []
    player = out["signed_in"]["player"]
    # The lobby named the host with the country of their profile (GetPlayerProfiles).
    assert out["listed"] == f" · {NAME} (PT)"
    assert out["signed_in"]["kind"] == "identity" and player
    # Mid-match: refused, with the words the player reads, and still signed in.
    assert out["refusal"]["reason"] == "PLAYER_STILL_PLAYING"
    assert out["refusal"]["text"].startswith("Leave your tables")
    assert out["still_signed_in"] == out["signed_in"]
    assert out["after_cancel"] == pb.GAME_STATUS_PLAYING
    # Erased: no session kept by the page, the lobby, the notice.
    assert out["notice"] == "Your account and your data were erased."
    assert out["after"] == {"session": None, "table": None, "lobby": True}

    # The server holds the name and the id nowhere.
    engine = create_engine(f"sqlite:///{web_server.database}")
    try:
        with engine.connect() as conn:
            assert scans.text_hits(conn, (NAME, player)) == []
    finally:
        engine.dispose()
    # The table the player left shows the pseudonym in their seat; the erasure is logged.
    view = web_server.games.GetView(
        pb.GetViewRequest(game_id=out["seat"]["gameId"]), metadata=web_server.app()
    ).view
    seat = view.seats[out["seat"]["seat"]]
    assert seat.player_name.startswith("erased-") and seat.player_id == seat.player_name
    audit = apb_grpc.AdminServiceStub(web_server.channel)
    entries = audit.ListAuditEntries(apb.ListAuditEntriesRequest(), metadata=web_server.app())
    (entry,) = [e for e in entries.entries if e.subject == seat.player_name]
    assert (entry.action, entry.actor) == ("erase_player", "player")
    assert json.loads(entry.detail_json)["rows"]["player_identities"] == 1
