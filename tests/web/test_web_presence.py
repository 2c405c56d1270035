"""Presence in the web table, in real browsers (clients/web/test-browser/presence.mjs):
two guests become friends; the first's Friends panel shows the second online, then
away once she says so, then nothing once she lets nobody see it, then online at the
table she opened, each time without a reload (the page reads its friends' presence
when it is shown again). Checked here against the API: the second player's presence
as the first may see it, and her own choices as she left them."""

from __future__ import annotations

from pathlib import Path

from tests.web.browser import ARTIFACTS, run_script
from tests.web.conftest import WebServer
from tranca.v1 import social_pb2 as pb
from tranca.v1 import social_pb2_grpc as pb_grpc


def presence(server: WebServer, viewer: str, player_id: str) -> pb.Presence:
    got = pb_grpc.SocialServiceStub(server.channel).GetPresence(
        pb.GetPresenceRequest(acting_player_id=viewer, player_ids=[player_id]),
        metadata=server.app(),
    )
    (one,) = got.presences
    return one


def test_a_friend_shows_online_away_hidden_and_at_a_table(node: str, web_server: WebServer) -> None:
    out = run_script(
        node, web_server, "presence.mjs", timeout=180.0, TRANCA_ARTIFACTS=str(ARTIFACTS)
    )
    assert out.get("error") is None, out.get("error")
    assert out["console_errors"] == []
    for where in ("axe_online", "axe_settings", "axe_at_table"):
        assert out[where] == [], where
    ana, bia = out["ana"], out["bia"]
    # A new player's own choices: not away, seen by friends.
    assert out["ana_settings"] == {"away": False, "visibility": str(pb.PRESENCE_VISIBILITY_FRIENDS)}
    assert out["online"] == {"status": "online", "text": "Online"}
    assert out["away"]["status"] == "away" and out["away"]["text"].startswith("Away")
    # Hidden: still her friend, but no presence shown at all.
    assert (out["hidden"], out["hidden_relation"]) == (None, "friend")
    assert out["bia_settings"] == {"away": False, "visibility": str(pb.PRESENCE_VISIBILITY_FRIENDS)}
    assert out["at_table"] == {
        "status": "online",
        "text": "Online · at a table, waiting for players",
    }
    assert out["screenshots"] and all(Path(p).is_file() for p in out["screenshots"])

    # The server's state: Bia online at one waiting table, as Ana may see it; her own
    # choices as she left them.
    seen = presence(web_server, ana, bia)
    assert (seen.visible, seen.status) == (True, pb.PRESENCE_STATUS_ONLINE)
    assert [t.playing for t in seen.tables] == [False]
    own = presence(web_server, bia, bia)
    assert (own.away, own.visibility) == (False, pb.PRESENCE_VISIBILITY_FRIENDS)
