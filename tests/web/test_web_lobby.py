"""The lobby's open tables in two real browsers (clients/web/test-browser/lobby.mjs),
in Spanish: a guest opens a table for two without robots; another guest finds it
listed (ListOpenTables), sits down, and the game starts for both. Checked here
against the API."""

from __future__ import annotations

from tests.web.browser import run_script
from tests.web.conftest import WebServer
from tranca.v1 import game_pb2 as pb


def test_a_guest_sits_at_a_table_listed_in_the_lobby(node: str, web_server: WebServer) -> None:
    out = run_script(node, web_server, "lobby.mjs", timeout=120.0)
    assert out["console_errors"] == [] and "error" not in out
    assert out["host_waiting"] == "Esperando jugadores: 1 de 2 sentados."
    game = out["host"]["gameId"]
    assert "1 de 2 asientos ocupados" in out["listed"] and "Lola" in out["listed"]
    assert out["guest"]["gameId"] == game and out["guest"]["seat"] != out["host"]["seat"]
    view = web_server.games.GetView(pb.GetViewRequest(game_id=game), metadata=web_server.app()).view
    assert view.status == pb.GAME_STATUS_PLAYING
    assert sorted(s.player_name for s in view.seats) == ["Lola", "Pepe"]
    assert not any(s.robot for s in view.seats)
    # Seen from the host's seat: the opponent at the top, the host at the bottom.
    assert out["host_seats"] == ["Pepe", "Lola"]
    # The Spanish table speaks of the "pozo", as the Spanish refusals do.
    assert out["guest_pile"].startswith("Pozo")
    guest_turn = view.turn == out["guest"]["seat"]
    assert out["guest_turn"] == (
        "Tu turno: roba del mazo o toma el pozo" if guest_turn else "Turno de Lola"
    )
