"""Friends in the web table, in real browsers (clients/web/test-browser/friends.mjs):
two guests; one adds the other by the player id the other's panel shows; the other's
page, never reloaded, shows the request (its event stream told it) and accepts; both
show the other as a friend. Then the first blocks the second (confirmed in place): the
second's page loses the friend without a reload, and its request back is refused in
words (FRIEND_REQUEST_REFUSED). Unblocked, the two sit at one table, where the second
adds the first from their seat and the first accepts from the other's seat. Checked
here against the API: the relations each player has, and the friendship events each
was told (the blocked one never of the block)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.web.browser import ARTIFACTS, run_script
from tests.web.conftest import WebServer
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import social_pb2 as pb
from tranca.v1 import social_pb2_grpc as pb_grpc

ANA, BIA = "Ana Amiga", "Bia Bloqueada"


def relations(server: WebServer, player_id: str) -> dict[str, int]:
    """The player's relations by the other's id, as the server holds them (the app's key)."""
    listed = pb_grpc.SocialServiceStub(server.channel).ListFriends(
        pb.ListFriendsRequest(acting_player_id=player_id), metadata=server.app()
    )
    return {f.player_id: f.relation for f in listed.friends}


def friendship_events(server: WebServer, player_id: str) -> list[dict[str, str]]:
    page = npb_grpc.NotificationServiceStub(server.channel).ListPlayerEvents(
        npb.ListPlayerEventsRequest(player_id=player_id, page_size=500), metadata=server.app()
    )
    return [json.loads(e.payload_json) for e in page.events if e.kind == "friendship"]


def test_two_guests_become_friends_and_a_block_refuses_the_next_request(
    node: str, web_server: WebServer
) -> None:
    out = run_script(
        node, web_server, "friends.mjs", timeout=180.0, TRANCA_ARTIFACTS=str(ARTIFACTS)
    )
    assert out["console_errors"] == []
    for where in ("axe_request", "axe_friends", "axe_block_asking", "axe_refusal", "axe_seat"):
        assert out[where] == [], where
    ana, bia = out["ana"], out["bia"]
    assert ana and bia and ana != bia
    # Bia's panel showed her own id to give, which Ana typed; the field emptied after.
    assert out["bia_shows_id"] == bia
    assert out["ana_sent"] == {"relation": "request_sent", "name": BIA}
    assert out["ana_notice_sent"] == f"Friend request sent to {BIA}."
    assert out["ana_input_after"] == ""
    # Bia's page, never reloaded, showed the request and told it; both then friends.
    assert out["bia_received"] == {"relation": "request_received", "name": ANA}
    assert out["bia_notice_asked"] == f"{ANA} asked to be your friend."
    assert out["bia_friend"] == {"relation": "friend", "name": ANA}
    assert out["bia_notice_accepted"] == f"{ANA} is your friend now."
    assert out["ana_friend"] == {"relation": "friend", "name": BIA}
    assert out["ana_notice_accepted"] == f"{BIA} is your friend now."
    # The block asked first (cancelling changed nothing), then held.
    assert out["block_question"].startswith(f"Block {BIA}?")
    assert out["after_block_cancel"] == {"relation": "friend", "name": BIA}
    assert out["ana_blocked"] == {"relation": "blocked", "name": BIA}
    assert out["ana_notice_blocked"] == f"You blocked {BIA}."
    # Bia's page lost the friend by itself; her request back was refused in words.
    assert out["bia_after_block"] is None
    assert out["refusal"] == {
        "reason": "FRIEND_REQUEST_REFUSED",
        "text": "That player does not take your friend requests.",
    }
    assert out["bia_input_after_refusal"] == ana  # kept, to correct or try later
    assert out["bia_after_refusal"] is None
    assert out["screenshots"] and all(Path(p).is_file() for p in out["screenshots"])

    # Unblocked, at one table: friends again from each other's seat.
    assert out["ana_notice_unblocked"] == f"You unblocked {BIA}."
    assert out["seat_add_label"] == f"Add friend: {ANA}"
    assert out["bia_seat_sent"] == "friend request sent"
    assert out["seat_accept_label"] == f"Accept: {BIA}"
    assert out["seats_friends"] == ["friend", "friend"]

    # The server's state: friends again.
    assert relations(web_server, ana) == {bia: pb.RELATION_FRIEND}
    assert relations(web_server, bia) == {ana: pb.RELATION_FRIEND}
    # What each was told: Bia never of the block (nor of its end), only that the
    # friendship ended.
    told_bia = [(e["change"], e["by"], e["relation"]) for e in friendship_events(web_server, bia)]
    assert told_bia == [
        ("requested", ana, "request_received"),
        ("accepted", bia, "friend"),
        ("removed", ana, "none"),
        ("requested", bia, "request_sent"),
        ("accepted", ana, "friend"),
    ]
    assert all(e["player_id"] == ana for e in friendship_events(web_server, bia))
    told_ana = [e["change"] for e in friendship_events(web_server, ana)]
    assert told_ana[:2] == ["requested", "accepted"] and told_ana[-2:] == ["requested", "accepted"]
    assert "removed" not in told_ana
