"""Watching a friend's table in the web table, in real browsers (clients/web/
test-browser/watch.mjs): two guests become friends; Ana opens a table for two that
allows spectators (a robot in the other seat) and sits; Bia's Friends panel shows
Ana's table with Watch beside it, and Bia watches: her page shows the table as a
spectator (no hand, no moves, "You are watching"), the players' room to read and the
spectators' room, where she writes and Ana, at a practice table, reads. A reload keeps
her watching; Stop watching brings her back to the lobby. Checked here against the
API: Ana's presence as Bia may see it, the game as the app sees it (GetView with the
app's key), and the spectators' room as the service keeps it (ListChatMessages)."""

from __future__ import annotations

from pathlib import Path

from tests.web.browser import ARTIFACTS, run_script
from tests.web.conftest import WebServer
from tranca.v1 import chat_pb2 as cpb
from tranca.v1 import chat_pb2_grpc as cpb_grpc
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import game_pb2_grpc as gpb_grpc
from tranca.v1 import social_pb2 as spb
from tranca.v1 import social_pb2_grpc as spb_grpc

WORDS = "Nice game, Ana!"


def test_a_friend_watches_a_table_chats_with_the_spectators_reloads_and_stops(
    node: str, web_server: WebServer
) -> None:
    out = run_script(node, web_server, "watch.mjs", timeout=240.0, TRANCA_ARTIFACTS=str(ARTIFACTS))
    assert out.get("error") is None, out.get("error")
    assert out["console_errors"] == []
    for where in ("axe_watch_button", "axe_watching", "axe_lobby"):
        assert out[where] == [], where
    ana, bia, game = out["ana"], out["bia"], out["game"]
    assert out["spectators_option"].strip() == "Spectators allowed"

    # Ana's table in her presence, with Watch beside it.
    assert out["presence_text"] == "Online · playing at a table (spectators welcome)"
    assert out["watch_label"] == "Watch"
    assert out["watch_aria"] == "Watch Ana Mesa’s table"

    # Bia's page at Ana's table as a spectator: no hand, no moves, each seat once.
    for shown in (out["watched"], out["after_reload"]):
        assert shown["game"] == game
        assert shown["seat"] == -1
        assert shown["status"] == gpb.GAME_STATUS_PLAYING
        assert shown["watching"] == "You are watching this table. Every hand is hidden."
        assert shown["stop"] == "Stop watching"
        assert (shown["hands"], shown["cards_in_hand"], shown["legal_moves"]) == (0, 0, 0)
        assert sorted(shown["seat_plates"]) == [0, 1]
        # The players' room to read, the spectators' room to write in.
        assert (shown["players_room"], shown["players_room_inputs"]) == ("open", 0)
        assert (shown["spectators_room"], shown["spectators_room_inputs"]) == ("open", 1)
        # The spectator's token kept as a seat's is: a reload keeps watching.
        assert shown["kept"]["gameId"] == game and shown["kept"]["seat"] == -1
        assert shown["kept"]["token"]
    assert out["after_reload"]["kept"] == out["watched"]["kept"]

    # Her words in the spectators' room, on her page and on Ana's (who cannot write there).
    assert [(m["author"], m["text"], m["mine"]) for m in out["bia_spectators"]] == [
        ("Bia Plateia", WORDS, True)
    ]
    assert [(m["author"], m["text"], m["mine"]) for m in out["ana_spectators"]] == [
        ("Bia Plateia", WORDS, False)
    ]
    assert out["ana_spectators_inputs"] == 0

    # Stop watching: the lobby, no table kept, Watch beside Ana's table again.
    assert out["after_stop"] == {"table": 0, "lobby": 1, "kept": None}
    assert out["watch_again"] == 1
    assert out["screenshots"] and all(Path(p).is_file() for p in out["screenshots"])

    # The server's state: Ana at the table, which takes spectators, as Bia may see her.
    seen = spb_grpc.SocialServiceStub(web_server.channel).GetPresence(
        spb.GetPresenceRequest(acting_player_id=bia, player_ids=[ana]), metadata=web_server.app()
    )
    (presence,) = seen.presences
    assert [(t.game_id, t.spectators_allowed) for t in presence.tables] == [(game, True)]
    # The game as the app sees it: Ana in the first seat, a robot in the second, no hand.
    view = (
        gpb_grpc.GameServiceStub(web_server.channel)
        .GetView(gpb.GetViewRequest(game_id=game), metadata=web_server.app())
        .view
    )
    assert view.seat == -1 and list(view.hand) == []
    assert view.seats[0].player_id == ana and view.seats[1].robot
    # The spectators' room as the service keeps it: Bia's words, by her name, from no
    # seat (a spectator's token carries no player id to the message: not checked here).
    kept = cpb_grpc.ChatServiceStub(web_server.channel).ListChatMessages(
        cpb.ListChatMessagesRequest(room=cpb.ChatRoom(kind=cpb.ROOM_KIND_SPECTATORS, id=game)),
        metadata=web_server.app(),
    )
    assert [(m.author_name, m.text, m.seat) for m in kept.messages] == [("Bia Plateia", WORDS, -1)]
