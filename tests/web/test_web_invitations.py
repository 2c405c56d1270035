"""Invitations to a table in the web table, in real browsers (clients/web/test-browser/
invitations.mjs): two guests become friends; the first opens a private table from the
lobby and invites the second from the friends panel at the waiting table; the second's
page, never reloaded, shows the invitation (who invites, the table, when it expires),
declines it (the inviter's page shows it), is invited again and sees it cancelled, is
invited a third time and accepts: both pages show both seats. A third guest, nobody's
friend, is refused at the private table without its code, in words, and sits down
with the code the owner's page shows. Before all that, an invitation to a table that
filled up meanwhile is refused in words when accepted (GAME_FULL). Checked here against
the API: the invitations each player has (ListInvitations), the events each was told
and the table's seats (GetView)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.web.browser import ARTIFACTS, run_script
from tests.web.conftest import WebServer
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import invitations_pb2 as pb
from tranca.v1 import invitations_pb2_grpc as pb_grpc
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc

ANA, BIA = "Ana Anfitriã", "Bia Convidada"


def invitations(
    server: WebServer, player_id: str, direction: pb.InvitationDirection.ValueType
) -> list[pb.TableInvitation]:
    """The player's invitations one way, newest first, as the server holds them (the app's key)."""
    listed = pb_grpc.InvitationServiceStub(server.channel).ListInvitations(
        pb.ListInvitationsRequest(acting_player_id=player_id, direction=direction),
        metadata=server.app(),
    )
    return list(listed.invitations)


def invitation_events(server: WebServer, player_id: str) -> list[dict[str, object]]:
    page = npb_grpc.NotificationServiceStub(server.channel).ListPlayerEvents(
        npb.ListPlayerEventsRequest(player_id=player_id, page_size=500), metadata=server.app()
    )
    return [json.loads(e.payload_json) for e in page.events if e.kind == "table_invitation"]


def test_a_friend_invited_to_a_private_table_sees_it_at_once_and_sits_down(
    node: str, web_server: WebServer
) -> None:
    out = run_script(
        node, web_server, "invitations.mjs", timeout=240.0, TRANCA_ARTIFACTS=str(ARTIFACTS)
    )
    assert "error" not in out, out.get("error")
    assert out["console_errors"] == []
    for where in (
        "axe_full",
        "axe_new_table",
        "axe_waiting_table",
        "axe_invitation",
        "axe_seated",
        "axe_refusal",
    ):
        assert out[where] == [], where
    ana, bia, caio, game = out["ana"], out["bia"], out["caio"], out["game"]
    assert len({ana, bia, caio}) == 3 and game

    # An invitation to a table that filled up meanwhile: Accept refused in words, the
    # invitation kept (then declined), the page still in the lobby.
    assert out["full_invitation"]["game"] == out["full_game"]
    assert out["full_invitation"]["from"] == f"{ANA} invites you to a seat"
    assert out["full_invitation"]["table"] == "· tranca-000, 2 players · Sexta à noite"
    assert out["full_refusal"] == {"reason": "GAME_FULL", "text": "The table is full."}
    assert out["full_still_shown"] == 1
    assert out["full_screen"] == 0

    # The lobby's "Private table" (not with robots: it waits for the players invited);
    # the waiting table says it is private, with its id and its code for its owner.
    assert out["private_disabled_with_robots"] is True
    assert out["table_private"] == "true"
    assert out["invite_code"]
    assert out["ana_seat"] == 0
    assert out["invite_label"] == f"Invite {BIA} to a seat"
    assert out["watch_offered"] == 0  # the table takes no spectators

    # Invited: shown beside the friend on Ana's page, and on Bia's without a reload.
    assert out["ana_pending"] == {"state": "pending", "text": "invited · expires in 10 minutes"}
    assert out["ana_notice_sent"] == f"Invitation sent to {BIA}."
    assert out["bia_invitation"] == {
        "id": out["declined_id"],
        "game": game,
        "from_player": ana,
        "kind": "seat",
        "from": f"{ANA} invites you to a seat",
        "table": "· tranca-000, 4 players",
        "expires": "· expires in 10 minutes",
        "accept_label": f"Accept {ANA}’s invitation",
        "decline_label": f"Decline {ANA}’s invitation",
    }
    assert out["bia_notice_invited"] == f"{ANA} invites you to a table."
    # Declined: Bia's page says so, and Ana's shows it (beside Bia and in words).
    assert out["bia_notice_declined"] == f"You declined {ANA}’s invitation."
    assert out["ana_declined"] == {"state": "declined", "text": "declined your invitation"}
    assert out["ana_notice_declined"] == f"{BIA} declined your invitation."
    # Cancelled by Ana: gone from Bia's page, told in words.
    assert out["cancel_label"] == f"Cancel the invitation to {BIA}"
    assert out["ana_notice_cancelled"] == f"Your invitation to {BIA} was withdrawn."
    assert out["bia_notice_cancelled"] == f"{ANA} withdrew their invitation."
    # Accepted: Bia sits at Ana's table; both pages show both seats.
    assert out["bia_seat"] == 1
    assert out["ana_bia_seated"] == {"state": "seated", "text": "at this table"}
    assert out["ana_notice_accepted"] == f"{BIA} accepted your invitation."
    assert out["seats_ana"] == out["seats_bia"] == [ANA, BIA, "free seat", "free seat"]
    assert out["bia_sees_code"] == 0

    # Caio, nobody's friend: refused without the code, in words; seated with it.
    assert out["caio_refusal"] == {
        "reason": "INVITE_REQUIRED",
        "text": "This table is private: you need its invitation.",
    }
    assert out["caio_screen_after_refusal"] == 0
    assert out["caio_id_kept"] == game
    assert out["caio_seat"] == 2
    assert out["seats_ana_after_caio"] == [ANA, BIA, "Caio Estranho", "free seat"]
    assert out["screenshots"] and all(Path(p).is_file() for p in out["screenshots"])

    # The server's state: Ana's three invitations, newest first, as the pages showed them.
    sent = invitations(web_server, ana, pb.INVITATION_DIRECTION_SENT)
    assert [(i.invitation_id, i.status) for i in sent] == [
        (out["accepted_id"], pb.INVITATION_STATUS_ACCEPTED),
        (out["cancelled_id"], pb.INVITATION_STATUS_CANCELLED),
        (out["declined_id"], pb.INVITATION_STATUS_DECLINED),
        (out["full_invitation"]["id"], pb.INVITATION_STATUS_DECLINED),
    ]
    full, sent = sent[-1], sent[:-1]
    assert (full.game_id, full.label, full.players) == (out["full_game"], "Sexta à noite", 2)
    assert all(
        (i.game_id, i.to_player_id, i.kind, i.preset, i.players)
        == (game, bia, pb.INVITATION_KIND_SEAT, "tranca-000", 4)
        for i in sent
    )
    assert [
        i.invitation_id for i in invitations(web_server, bia, pb.INVITATION_DIRECTION_RECEIVED)
    ] == [i.invitation_id for i in [*sent, full]]
    assert invitations(web_server, caio, pb.INVITATION_DIRECTION_UNSPECIFIED) == []
    # What each was told: Bia of the invitations and the cancel, Ana of her answers.
    assert [e["change"] for e in invitation_events(web_server, bia)] == [
        "invited",
        "invited",
        "invited",
        "cancelled",
        "invited",
    ]
    assert [e["change"] for e in invitation_events(web_server, ana)] == [
        "declined",
        "declined",
        "accepted",
    ]
    # The table: private, waiting, Ana, Bia and Caio seated by their ids.
    view = web_server.games.GetView(
        gpb.GetViewRequest(game_id=game), metadata=web_server.app()
    ).view
    assert view.table.private
    assert view.status == gpb.GAME_STATUS_WAITING
    assert [(s.player_id, s.taken) for s in view.seats] == [
        (ana, True),
        (bia, True),
        (caio, True),
        ("", False),
    ]
