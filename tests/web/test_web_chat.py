"""Chat in the web table, in real browsers (clients/web/test-browser/chat.mjs): two
players at a practice table, one writing in English and one reading in Portuguese,
and a spectator reading in Spanish. A message shows on the other pages without a
reload, then its edit; a quick phrase shows in each reader's language; a masked word
shows masked, and its message, deleted by its author (confirmed in place), goes from
the others' pages. The spectator reads the players' room, where he cannot write, and
writes in the spectators' room, which the practice table's players read at once. At a
rated table the players' pages hold no word of the spectators' room until the match is
over (a player leaves), and then show it. In the lobby, two friends' pages: the lobby's
room, and a direct message marked unread on the reader's Friends panel until opened.
Checked here against what the service keeps (ListChatMessages: the app's key, and the
reader's session, from her page, for the direct room) and the reader's direct_message
event."""

from __future__ import annotations

from pathlib import Path

from tests.web.browser import ARTIFACTS, run_script
from tests.web.conftest import WebServer
from tranca.v1 import chat_pb2 as pb
from tranca.v1 import chat_pb2_grpc as pb_grpc
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc

SECRET = "Dana holds two jokers"


def kept(
    server: WebServer,
    kind: pb.RoomKind.ValueType,
    room_id: str,
    metadata: tuple[tuple[str, str], ...] | None = None,
) -> list[pb.ChatMessage]:
    """A room's messages as the service keeps them now (the app's key reads every room
    but the direct ones)."""
    page = pb_grpc.ChatServiceStub(server.channel).ListChatMessages(
        pb.ListChatMessagesRequest(room=pb.ChatRoom(kind=kind, id=room_id)),
        metadata=metadata or server.app(),
    )
    return list(page.messages)


def test_players_and_a_spectator_chat_and_a_rated_tables_spectators_are_held_to_the_end(
    node: str, web_server: WebServer
) -> None:
    out = run_script(node, web_server, "chat.mjs", timeout=240.0, TRANCA_ARTIFACTS=str(ARTIFACTS))
    assert out.get("error") is None, out.get("error")
    assert out["console_errors"] == []
    for where in (
        "axe_editing",
        "axe_deleting",
        "axe_player",
        "axe_spectator",
        "axe_held",
        "axe_unread",
        "axe_direct",
    ):
        assert out[where] == [], where
    assert out["spectator_seat"] == -1

    # Ana's message reached Bia's page; the box emptied once the service took it.
    assert out["ana_input_after_send"] == ""
    first = out["bia_saw_first"]
    assert [(m["author"], m["text"], m["mine"]) for m in first] == [
        ("Ana", "Good luck, Bia!", False)
    ]
    assert out["bia_edit_buttons"] == 0, "no one edits another's message"
    # The edit, applied live on Bia's page.
    assert [(m["text"], m["edited"]) for m in out["bia_saw_edit"]] == [
        ("Good luck, everyone!", True)
    ]
    # The quick phrase: Bia pressed it in Portuguese.
    assert out["bia_phrase_button"] == "Obrigado!"
    # The masked word, as the service sent it.
    assert (out["bia_saw_masked"]["text"], out["bia_saw_masked"]["filtered"]) == (
        "que *** de jogo",
        True,
    )
    assert out["delete_question"] == "Delete this message?"
    shown = [(m["kind"], m["text"], m["deleted"]) for m in out["ana_after_delete"]]
    assert shown == [
        ("text", "Good luck, everyone!", False),
        ("phrase", "Thanks!", False),
        ("text", "message deleted", True),
    ]
    assert [(m["text"], m["deleted"]) for m in out["bia_after_delete"]] == [
        ("Good luck, everyone!", False),
        ("Obrigado!", False),
        ("mensagem apagada", True),
    ]
    # The spectator read the players' room in Spanish, and could not write in it.
    assert [m["text"] for m in out["cid_table"]] == [
        "Good luck, everyone!",
        "¡Gracias!",
        "mensaje borrado",
    ]
    assert out["cid_table_inputs"] == 0
    assert out["cid_table_note"] == "Solo los jugadores escriben aquí."
    # His words in the spectators' room, on a practice table's player's page.
    assert [(m["author"], m["text"]) for m in out["ana_spectators"]] == [("Cid", "¡Qué partida!")]
    assert out["ana_spectators_inputs"] == 0

    # What the service keeps: the edit and the deletion applied, the phrase by its id,
    # the masked text only.
    table = kept(web_server, pb.ROOM_KIND_TABLE, out["practice"])
    assert [(m.kind, m.text, m.phrase, m.deleted, m.seat) for m in table] == [
        ("text", "Good luck, everyone!", "", False, 0),
        ("phrase", "", "thanks", False, 1),
        ("text", "", "", True, 0),
    ]
    assert table[0].edited_at_ms > 0
    spectators = kept(web_server, pb.ROOM_KIND_SPECTATORS, out["practice"])
    assert [(m.author_name, m.text, m.seat) for m in spectators] == [("Cid", "¡Qué partida!", -1)]

    # The rated table: held, in the players' words, with no word of it on their pages.
    assert out["dana_held"] == "The spectators’ chat opens for you when the match is over."
    assert out["eva_held"] == "O chat dos espectadores abre para você quando a partida acabar."
    assert out["dana_page_had_secret"] is False
    assert out["eva_page_had_secret"] is False
    # The match over (Eva left), both read it.
    for seen in (out["dana_after_end"], out["eva_after_end"]):
        assert [(m["author"], m["text"]) for m in seen] == [("Cid", SECRET)]
    assert [m.text for m in kept(web_server, pb.ROOM_KIND_SPECTATORS, out["rated"])] == [SECRET]
    assert [m.text for m in kept(web_server, pb.ROOM_KIND_TABLE, out["rated"])] == ["gg soon"]
    assert out["screenshots"] and all(Path(p).is_file() for p in out["screenshots"])

    # A table of quick phrases only shows only the phrases; a table without chat says so.
    phrases = pb_grpc.ChatServiceStub(web_server.channel).ListQuickPhrases(
        pb.ListQuickPhrasesRequest(locale="en"), metadata=web_server.app()
    )
    assert out["phrases_only"] == {
        "inputs": 0,
        "phrases": len(phrases.phrases),
        "note": "At this table the players chat in quick phrases only.",
    }
    assert [m.phrase for m in kept(web_server, pb.ROOM_KIND_TABLE, out["phrases_only_game"])] == [
        "good_luck"
    ]
    assert out["chat_off"] == "Chat is off at this table."
    assert out["chat_off_inputs"] == 0

    # The lobby's room and a friend's conversation.
    ana, bia = out["ana_player"], out["bia_player"]
    assert [(m["author"], m["text"]) for m in out["bia_lobby"]] == [
        ("Ana Lobby", "Anyone for a game?")
    ]
    assert [(m.author_id, m.text) for m in kept(web_server, pb.ROOM_KIND_LOBBY, "main")] == [
        (ana, "Anyone for a game?")
    ]
    assert out["bia_unread_label"] == "Conversa com Ana Lobby: 1 mensagem nova"
    assert out["bia_unread_mark"] == "1"
    assert out["bia_unread_after_open"] == "0"
    assert [(m["text"], m["mine"]) for m in out["bia_direct"]] == [("Hi Bia, a rematch?", False)]
    assert [(m["text"], m["mine"]) for m in out["ana_direct"]] == [
        ("Hi Bia, a rematch?", True),
        ("Sim!", False),
    ]
    assert out["ana_unread_while_open"] == "0"
    # A direct room is its two players' own: read with Bia's session, from her page.
    bias_session = (("authorization", f"Bearer {out['bia_session']}"),)
    direct = kept(web_server, pb.ROOM_KIND_DIRECT, ana, bias_session)
    assert [(m.author_id, m.text) for m in direct] == [(ana, "Hi Bia, a rematch?"), (bia, "Sim!")]
    events = npb_grpc.NotificationServiceStub(web_server.channel).ListPlayerEvents(
        npb.ListPlayerEventsRequest(player_id=bia, page_size=500), metadata=web_server.app()
    )
    assert [e.kind for e in events.events].count("direct_message") == 1
