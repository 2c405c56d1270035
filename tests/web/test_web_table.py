"""The web table in a real browser: Debian's chromium driven by playwright-core
(clients/web/test-browser/play-table.mjs) plays a whole deal through the page against
the server's robot, on a phone-sized screen, in Portuguese. Checked here against the
API: the hand on the screen equals GetView for the page's seat; a refused move shows
the service's Portuguese wording of its reason; the robot's moves appear without a
reload; the breakdown on the screen is the deal's. The mid-deal screenshot is kept at
build/artifacts/web-table.png (and the end at build/artifacts/web-table-end.png)."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from tests.web.conftest import CHROMIUM, ROOT, WEB_DIR, WebServer, unavailable
from tranca.api.localized import MESSAGES
from tranca.v1 import game_pb2 as pb

SCRIPT = WEB_DIR / "test-browser" / "play-table.mjs"
SCREENSHOT = ROOT / "build" / "artifacts" / "web-table.png"
BROWSER_TIMEOUT = 420.0
PORTUGUESE = 1  # MESSAGES' columns: English, Portuguese of Brazil, Spanish


def _play(node: str, server: WebServer) -> dict[str, Any]:
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing: deploy/system-deps.sh installs Debian's chromium")
    if not (WEB_DIR / "node_modules" / "playwright-core" / "package.json").is_file():
        unavailable("playwright-core is not installed in clients/web: run `make web`")
    SCREENSHOT.unlink(missing_ok=True)
    done = subprocess.run(
        [node, str(SCRIPT)],
        cwd=WEB_DIR,
        env={
            **os.environ,
            "TRANCA_WEB_URL": server.web_url,
            "TRANCA_LANG": "pt-BR",
            "TRANCA_SCREENSHOT": str(SCREENSHOT),
            "CHROMIUM": str(CHROMIUM),
        },
        capture_output=True,
        text=True,
        timeout=BROWSER_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"play-table.mjs failed:\n{done.stderr}\n{done.stdout}"
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_whole_deal_through_the_page(node: str, web_server: WebServer) -> None:
    out = _play(node, web_server)
    summary = {k: v for k, v in out.items() if k not in {"token", "last_hand_check"}}
    print(f"play-table.mjs: {json.dumps(summary)}")
    seat_token = (("authorization", f"Bearer {out['token']}"),)
    view = web_server.games.GetView(
        pb.GetViewRequest(game_id=out["game_id"]), metadata=seat_token
    ).view

    # The whole deal was played, to the breakdown, with the server's robot.
    assert view.status == pb.GAME_STATUS_FINISHED
    assert view.seat == out["seat"]
    assert any(s.robot for s in view.seats if s.seat != view.seat)
    assert out["my_turns"] >= 3
    assert out["breakdown"] == [{"side": s.side, "total": s.total} for s in view.last_deal.scores]
    assert out["version"] == str(view.version)

    # The hand on the screen is GetView's for that seat: during the deal (the page's
    # script asked through the browser port) and at the end (asked here over gRPC).
    assert out["hand_checks"] >= out["my_turns"]
    assert out["hand_mismatches"] == []
    assert sorted(out["final_hand"]) == sorted(view.hand)

    # A refused move shows the service's Portuguese wording of its reason.
    refusal = out["refusal"]
    assert refusal["reason"] == "MUST_DRAW_FIRST"
    assert refusal["text"] == MESSAGES["MUST_DRAW_FIRST"][PORTUGUESE]
    assert refusal["html_lang"] == "pt-BR"

    # The robot's moves appeared as they were played, without a reload.
    assert out["other_seat_moves_seen"] >= 3
    assert out["reloaded"] is False
    assert out["navigations"] == 1
    assert out["console_errors"] == []

    # The mid-deal screenshot is kept as an artifact.
    assert out["screenshot"] == str(SCREENSHOT)
    assert SCREENSHOT.stat().st_size > 10_000
