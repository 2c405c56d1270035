"""Signing in from the web table with the development server's test identity provider,
in a real browser (clients/web/test-browser/identity.mjs): a guest plays a move at a
table of its own, signs in, and its player, with that game, is the identity's from
then on; another browser signs in with the same name as that same player. Checked
here against the API: both seats belong to the one player id."""

from __future__ import annotations

from tests.web.browser import run_script
from tests.web.conftest import WebServer
from tranca.v1 import game_pb2 as pb
from tranca.v1 import session_pb2 as spb


def test_a_guest_signs_in_and_keeps_its_game(node: str, web_server: WebServer) -> None:
    out = run_script(node, web_server, "identity.mjs", timeout=180.0)
    assert out["console_errors"] == []
    assert out["axe"] == []
    guest, linked, second = out["guest"], out["linked"], out["second"]
    assert guest["kind"] == "guest" and guest["player"].startswith("guest:")
    assert guest["text"] == "Playing as a guest: Lia Prado"
    # Signing in linked the identity to the guest's player: the same id, its game kept.
    assert linked == {
        "kind": "identity",
        "player": guest["player"],
        "text": "Signed in as Lia Prado",
    }
    assert out["after_link_table"] == pb.GAME_STATUS_PLAYING
    # The same name in another browser is the same identity, so the same player.
    assert second["kind"] == "identity" and second["player"] == guest["player"]
    assert "welcome back" in out["second_notice"]
    assert out["signed_out"]["kind"] == ""
    # Signing in while the lobby's guest sign-in was still under way: signed in, and
    # still so once the guest's answer came.
    race = out["race"]
    assert race["guest_in_flight_at_click"] is True
    assert (
        race["after"]["kind"] == "identity" and race["after"]["text"] == "Signed in as Rui Corrida"
    )
    # The profile the page saved is the one the API shows others.
    assert out["profile"]["text"] == "Signed in as Lia P."
    public = web_server.sessions.GetPlayerProfile(
        spb.GetPlayerProfileRequest(player_id=guest["player"]), metadata=web_server.app()
    ).profile
    assert (public.display_name, public.country) == ("Lia P.", "BR")
    # Its seat at its own table shows the country it saved (in the page's language).
    assert out["seat_country"] == {"text": "BR", "title": "Brazil"}
    # The picture it uploaded: a 128-pixel copy the server made, on its seat too.
    assert out["avatar"]["src"].startswith("/avatars/") and out["avatar"]["width"] == 128
    assert out["seat_avatar"] == out["avatar"]["src"]
    public = web_server.sessions.GetPlayerProfile(
        spb.GetPlayerProfileRequest(player_id=guest["player"]), metadata=web_server.app()
    ).profile
    assert public.avatar_url == out["avatar"]["src"]
    # The copy of its data the page downloaded: its player, profile and first game.
    downloaded = out["downloaded"]
    assert out["download_name"] == "tranca-my-data.json"
    assert downloaded["player_id"] == guest["player"]
    assert downloaded["profile"]["display_name"] == "Lia P."
    assert out["seat"]["gameId"] in [g["game_id"] for g in downloaded["games"]]
    assert [i["issuer"] for i in downloaded["identities"]] == [
        "https://dev-identity.tranca.invalid"
    ]
    # The server's view: both tables were sat at by that one player.
    for seat in (out["seat"], out["second_seat"]):
        view = web_server.games.GetView(
            pb.GetViewRequest(game_id=seat["gameId"]), metadata=web_server.app()
        ).view
        assert view.seats[seat["seat"]].player_id == guest["player"]
    replay = web_server.games.GetReplay(
        pb.GetReplayRequest(game_id=out["seat"]["gameId"]), metadata=web_server.app()
    )
    assert any(m.seat == out["seat"]["seat"] and m.actor == "player" for m in replay.moves)
