"""The web table in a real browser: Debian's chromium driven by playwright-core
(clients/web/test-browser/play-match.mjs) plays a whole 4-player match to its target
score through the page, in Portuguese, on a phone-sized screen, against the server's
robots. Checked here against the API: every end-of-deal board the page kept on screen
is the deal's whole table as the engine rebuilds it from GetReplay (melds with their
canastras and their wilds marked, red threes, every hand left, open, both mortos with
their cards, the pile, the stock) with its breakdown from the player's side; the log
tells each move under the deal it was played in (the move that ended a deal under
that deal); the hand during the deal is GetView's; a refusal is shown in the service's
Portuguese next to the moves; no button or log line speaks the engine's notation; axe
finds no serious or critical violation on the lobby, the table mid-deal or the
breakdown. Screenshots at a phone's and a desktop's size go to build/artifacts/."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.web.boards import assert_board_shown, deal_of, replayed_boards
from tests.web.browser import ARTIFACTS, run_script
from tests.web.conftest import WebServer
from tranca.api.localized import MESSAGES
from tranca.v1 import game_pb2 as pb

PORTUGUESE = 1  # MESSAGES' columns: English, Portuguese of Brazil, Spanish
# A target one to three deals reach: the match stays around a minute.
TARGET = 700
SCREENSHOTS = [
    f"web-{name}-{size}.png"
    for name in ("lobby", "table", "table-end")
    for size in ("phone", "desktop")
]
NOTATION = re.compile(r"\b(draw|take|meld|add|replace|discard)\b|\b[2-9TJQKA][CDHS]\b|@\d")


def test_a_whole_match_through_the_page(node: str, web_server: WebServer) -> None:
    for name in SCREENSHOTS:
        (ARTIFACTS / name).unlink(missing_ok=True)
    out = run_script(
        node,
        web_server,
        "play-match.mjs",
        timeout=420.0,
        TRANCA_TARGET=str(TARGET),
        TRANCA_ARTIFACTS=str(ARTIFACTS),
    )
    summary = {k: v for k, v in out.items() if k not in {"token", "log", "deal_ends"}}
    print(f"play-match.mjs: {json.dumps(summary)}")
    assert out["console_errors"] == []
    seat_token = (("authorization", f"Bearer {out['token']}"),)
    view = web_server.games.GetView(
        pb.GetViewRequest(game_id=out["game_id"]), metadata=seat_token
    ).view
    replay = web_server.games.GetReplay(
        pb.GetReplayRequest(game_id=out["game_id"]), metadata=seat_token
    )

    # A whole match of four, to its target, with the server's robots in three seats.
    assert view.status == pb.GAME_STATUS_FINISHED and view.players == 4
    assert view.match_result.reason in ("target_reached", "tie_break")
    assert max(view.match_totals) >= TARGET
    assert [s.robot for s in view.seats] == [s.seat != view.seat for s in view.seats]
    assert out["version"] == str(view.version)
    me = view.seat % 2
    won = view.match_result.winner_side == me
    assert out["match_result"] == ("Nós vencemos a partida!" if won else "Eles venceram a partida.")

    # Every deal's end was kept on screen, and its board is the deal's whole table as
    # the engine rebuilds it from the replay.
    boards = replayed_boards(replay)
    assert [e["deal"] for e in out["deal_ends"]] == [d.deal_number for d in replay.deals]
    assert len(out["deal_ends"]) >= 1
    for shown, deal in zip(out["deal_ends"], replay.deals, strict=True):
        assert_board_shown(shown, boards[deal.deal_number], view.seat)
        # The breakdown from the player's side: us first, then them.
        assert shown["headers"] == ["Nós", "Eles"]
        totals = {str(s.side): s.total for s in deal.result.scores}
        assert shown["totals"] == totals
        ours, theirs = totals[str(me)], totals[str(1 - me)]
        verdict = "Nós vencemos a mão" if ours > theirs else "Eles venceram a mão"
        assert shown["winner"].startswith(verdict if ours != theirs else "A mão empatou")
    assert out["deal_ends"][-1]["match"] == {str(i): t for i, t in enumerate(view.match_totals)}

    # The log tells each change under the deal it was made in: the move that ended a
    # deal (logged with the next deal's number) under the deal it ended.
    logged = {m.version: m for m in replay.moves}
    assert out["log"]
    for entry in out["log"]:
        move = logged[entry["version"]]
        assert entry["deal"] == deal_of(move), entry
        assert entry["ended"] == (move.ended_deal > 0), entry
    assert any(e["ended"] for e in out["log"]), "the log shows the match's last deal's end"

    # The hand on the screen was GetView's for the seat, during the deals.
    assert out["hand_checks"] >= 2 and out["hand_mismatches"] == []

    # A refused move shows the service's Portuguese wording, where the player acts.
    refusal = out["refusal"]
    assert refusal["reason"] == "MUST_DRAW_FIRST"
    assert refusal["text"] == MESSAGES["MUST_DRAW_FIRST"][PORTUGUESE]
    assert refusal["html_lang"] == "pt-BR" and refusal["in_view"] is True

    # Moves in words: on the buttons, and in the log (robots' moves among them).
    assert out["notation_seen"] == []
    assert out["log"] and not [e["text"] for e in out["log"] if NOTATION.search(e["text"])]
    robot_lines = [e["text"] for e in out["log"] if e["actor"] == "robot"]
    assert robot_lines and all(re.match(r"^Robô \d ", t) for t in robot_lines)
    assert any(" descartou " in t for t in robot_lines)

    # A discard played with the keyboard alone.
    assert out["keyboard"] == {"arrow_moved": True, "pressed": "true", "refusal": ""}

    # Accessibility: no serious or critical violation on the lobby, the table, the breakdown.
    assert out["axe"] == []

    # The screenshots, at a phone's and a desktop's size.
    for name in SCREENSHOTS:
        path = Path(ARTIFACTS / name)
        assert str(path) in out["screenshots"] and path.stat().st_size > 10_000
