"""Quick play through the web table in a real browser (Debian's chromium driven by
playwright-core: clients/web/test-browser/quick-play.mjs): a page reloaded while it
waits finds its ticket again instead of asking anew, Cancel takes the ticket out of
the queue (another guest who asks next is matched with the player after, never with
the one who left), and a page seated by the matchmaker plays the ticket's table.
Checked here against the API."""

from __future__ import annotations

from tests.web.browser import run_script
from tests.web.conftest import WebServer
from tranca.v1 import game_pb2 as pb
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc


def test_a_reloaded_page_finds_its_ticket_cancels_it_and_is_seated(
    node: str, web_server: WebServer
) -> None:
    out = run_script(node, web_server, "quick-play.mjs", timeout=180.0)
    assert out["console_errors"] == []
    waiting, cancelled, matched = (
        qpb.TICKET_STATUS_WAITING,
        qpb.TICKET_STATUS_CANCELLED,
        qpb.TICKET_STATUS_MATCHED,
    )
    # Reloaded, the page followed the ticket it had asked for, and asked no other.
    asked = out["asked"]
    assert asked and out["reloaded"] and out["resumed"] == asked
    assert [(t["ticket_id"], t["status"]) for t in out["after_reload"]] == [(asked, waiting)]
    # Cancel cancelled it.
    assert [(t["ticket_id"], t["status"]) for t in out["after_cancel"]] == [(asked, cancelled)]
    # Another guest who asked next waited alone (not matched with the player who left),
    # then sat with the next player to ask.
    quick = qpb_grpc.QuickPlayServiceStub(web_server.channel)
    assert out["other_alone"] == waiting
    other = out["other_tickets"]
    assert [(t["ticket_id"], t["status"]) for t in other] == [(out["other_ticket"], matched)]
    third = quick.GetTicket(
        qpb.GetTicketRequest(ticket_id=out["third"]), metadata=web_server.app()
    ).ticket
    assert third.status == matched and third.game_id == other[0]["game_id"]
    assert out["other_seated"]["gameId"] == other[0]["game_id"]
    table = web_server.games.GetView(
        pb.GetViewRequest(game_id=other[0]["game_id"]), metadata=web_server.app()
    ).view
    leaver = out["after_cancel"][0]["player_ids"][0]
    assert sorted(s.player_id for s in table.seats) == sorted([other[0]["player_ids"][0], "third"])
    assert leaver not in {s.player_id for s in table.seats}
    # Asked again (a new ticket), reloaded, and seated at that ticket's table.
    second = out["second"]
    assert second not in ("", asked) and out["second_resumed"] == second
    assert [(t["ticket_id"], t["status"]) for t in out["after_match"]] == [
        (second, matched),
        (asked, cancelled),
    ]
    assert out["after_match"][0]["game_id"] == out["game_id"]
    rival = quick.GetTicket(
        qpb.GetTicketRequest(ticket_id=out["rival"]), metadata=web_server.app()
    ).ticket
    assert rival.status == matched and rival.game_id == out["game_id"]
    view = web_server.games.GetView(
        pb.GetViewRequest(game_id=out["game_id"]),
        metadata=(("authorization", f"Bearer {out['token']}"),),
    ).view
    assert view.seat == out["seat"] and view.status == pb.GAME_STATUS_PLAYING
    guest = out["after_match"][0]["player_ids"]
    assert [s.player_id for s in view.seats if s.seat == view.seat] == guest
