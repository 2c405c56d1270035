"""Experience, levels and achievements on the web table, in a real browser
(clients/web/test-browser/progression.mjs), in Spanish: a guest wins a competitive
match (the rival resigns) and, once the match is settled, sees their level and XP
and the achievement it unlocked, told in words. Checked here against the API
(ProgressionService) and 003: "Competir por puntos y fichas. Permite jugar partidas
competitivas."; "El ganador de la partida consigue los puntos XP"."""

from __future__ import annotations

from tests.web.browser import run_script
from tests.web.conftest import WebServer
from tranca.v1 import progression_pb2 as xpb
from tranca.v1 import progression_pb2_grpc as xpb_grpc


def test_a_player_wins_a_competitive_match_and_sees_level_and_achievement(
    node: str, web_server: WebServer
) -> None:
    out = run_script(node, web_server, "progression.mjs", timeout=180.0)
    assert out["console_errors"] == [] and "error" not in out
    assert out["axe"] == []
    assert out["before"] == "Nivel 1 · 0 XP"
    # A win of a match to points: 100 XP (docs/platform/progression.md), level 2; the
    # page shows what the service says.
    stub = xpb_grpc.ProgressionServiceStub(web_server.channel)
    got = stub.GetProgression(
        xpb.GetProgressionRequest(player_id=out["player"]), metadata=web_server.app()
    )
    assert (got.xp, got.level, got.next_level_xp) == (100, 2, 300)
    assert out["level"] == out["level_at_table"] == f"Nivel {got.level} · {got.xp} XP"
    assert out["to_next"] == f"{got.xp} de {got.next_level_xp} XP para el siguiente nivel"
    assert out["unlocked"] == [a.achievement.id for a in got.achievements if a.unlocked]
    assert "first-win" in out["unlocked"]
    assert "1 / 100" in out["towards"]
    assert out["notice"] in ("Logro conseguido: First win", f"¡Has subido al nivel {got.level}!")
