"""Chat's moderation in the web table, in real browsers (clients/web/test-browser/
chat-moderation.mjs): three guests in the lobby's room. Ana reports Bia's message with
a reason and mutes her: Bia's messages go from Ana's page (at once, and after a
reload), not from Cid's. Midway the test resolves the report with the app's key (a
mute of 600 s with a note), as a moderator would; Bia's page then says her chat is
muted, until when, with the note (the "chat_sanction" event's notice, the chat box,
and the refusal when she writes). Checked against ListChatReports,
ListMutedChatPlayers and ListChatMessages."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.web.browser import ARTIFACTS
from tests.web.conftest import CHROMIUM, WEB_DIR, WebServer, unavailable
from tranca.v1 import chat_pb2 as pb
from tranca.v1 import chat_pb2_grpc as pb_grpc
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc

NOTE = "No selling in the chat"
LOBBY = pb.ChatRoom(kind=pb.ROOM_KIND_LOBBY, id="main")
TIMEOUT = 240.0


def session(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def resolve(server: WebServer, told: dict[str, str]) -> dict[str, Any]:
    """What a moderator does with the app's key: the open report read from the queue
    and resolved with a mute of 600 s; what the service held then."""
    chat = pb_grpc.ChatServiceStub(server.channel)
    queue = chat.ListChatReports(
        pb.ListChatReportsRequest(status=pb.REPORT_STATUS_OPEN), metadata=server.app()
    )
    (report,) = queue.reports
    muted = chat.ListMutedChatPlayers(
        pb.ListMutedChatPlayersRequest(), metadata=session(told["ana_session"])
    )
    before = time.time() * 1000
    resolved = chat.ResolveChatReport(
        pb.ResolveChatReportRequest(
            report_id=report.id, resolution=pb.RESOLUTION_MUTE, seconds=600, note=NOTE
        ),
        metadata=server.app(),
    ).report
    return {
        "report": report,
        "muted_then": list(muted.player_ids),
        "until_ms": resolved.until_ms,
        "asked_at_ms": before,
    }


def run_with_moderator(node: str, server: WebServer, tmp: Path) -> tuple[dict[str, Any], Any]:
    """Runs the script, resolving the report when it says it was made; its line, and
    what the resolution found."""
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing: deploy/system-deps.sh installs Debian's chromium")
    for package in ("playwright-core", "@axe-core/playwright"):
        if not (WEB_DIR / "node_modules" / package / "package.json").is_file():
            unavailable(f"{package} is not installed in clients/web: run `make web`")
    stdout, stderr = tmp / "stdout", tmp / "stderr"
    env = {
        **os.environ,
        "TRANCA_WEB_URL": server.web_url,
        "TRANCA_API_KEY": server.api_key,
        "CHROMIUM": str(CHROMIUM),
        "TRANCA_HANDSHAKE": str(tmp),
        "TRANCA_ARTIFACTS": str(ARTIFACTS),
    }
    script = WEB_DIR / "test-browser" / "chat-moderation.mjs"
    with stdout.open("w") as out, stderr.open("w") as err:
        proc = subprocess.Popen([node, str(script)], cwd=WEB_DIR, env=env, stdout=out, stderr=err)
        try:
            found = None
            deadline = time.monotonic() + TIMEOUT
            while proc.poll() is None and time.monotonic() < deadline:
                reported = tmp / "reported.json"
                if found is None and reported.is_file():
                    found = resolve(server, json.loads(reported.read_text()))
                    (tmp / "resolved.json").write_text(json.dumps({"until_ms": found["until_ms"]}))
                time.sleep(0.1)
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    lines = stdout.read_text().strip().splitlines()
    assert proc.returncode == 0 and lines, f"the script failed:\n{stderr.read_text()}\n{lines}"
    result: dict[str, Any] = json.loads(lines[-1])
    return result, found


def test_a_report_a_mute_and_a_moderators_sanction_reach_the_players_pages(
    node: str, web_server: WebServer, tmp_path: Path
) -> None:
    out, found = run_with_moderator(node, web_server, tmp_path)
    assert out.get("error") is None, out.get("error")
    assert out["console_errors"] == []
    for where in ("axe_reporting", "axe_muted", "axe_sanctioned"):
        assert out[where] == [], where
    ana, bia, cid = out["ana"], out["bia"], out["cid"]
    spam = "buy cheap chips at chips.example"

    # Report and Mute beside another's message, never beside one's own.
    assert [(m["author"], m["text"], m["report"], m["mute"]) for m in out["ana_before"]] == [
        (bia, spam, True, True)
    ]
    assert out["bia_own_buttons"] == 0
    assert out["report_label"] == "Why are you reporting Bia’s message? (optional)"
    assert out["reason_kept"] == "Spam: selling chips"
    assert out["reported_mark"] == "reported"
    assert out["report_notice"] == "Your report was sent to the moderators. Thank you."

    # The report in the app's queue, as the moderator read it: the reason, the message.
    assert found is not None, "the script never said the report was made"
    report = found["report"]
    assert (report.reporter_id, report.reported_id) == (ana, bia)
    assert report.reason == "Spam: selling chips"
    assert report.room == LOBBY
    assert [m.text for m in report.evidence] == [spam]
    assert report.message_id == out["ana_before"][0]["id"]
    # Ana's mute, held by the service when the moderator looked.
    assert found["muted_then"] == [bia]

    # Muted: Bia's words went from Ana's page, at once and after a reload; not from Cid's.
    assert out["mute_notice"] == (
        "You no longer see Bia’s messages. The Friends panel lists the players you muted."
    )
    assert out["ana_muted_list"] == [{"player": bia, "name": "Bia"}]
    assert [(m["author"], m["text"]) for m in out["ana_after_mute"]] == [(ana, "Cid, a game?")]
    assert [(m["author"], m["text"]) for m in out["cid_after_mute"]] == [
        (bia, spam),
        (bia, "anyone there?"),
        (ana, "Cid, a game?"),
    ]
    assert [(m["author"], m["text"]) for m in out["ana_after_reload"]] == [(ana, "Cid, a game?")]
    assert out["ana_reload_had_bia"] is False
    assert out["ana_muted_after_reload"] == [{"player": bia, "name": "Bia"}]

    # The sanction on Bia's page (Portuguese): the event's notice, the chat box, the refusal.
    assert found["until_ms"] >= found["asked_at_ms"] + 599_000
    note = f"A nota do moderador: “{NOTE}”"
    assert out["bia_notice"].startswith(
        "Um moderador analisou uma denúncia sobre as suas mensagens. "
        "O seu chat está silenciado até "
    )
    assert out["bia_notice"].endswith(note)
    assert out["bia_sanction"].startswith("O seu chat está silenciado até ")
    assert out["bia_sanction"].endswith(f". {note}")
    assert out["bia_sanction_kind"] == "mute"
    assert out["bia_refusal_reason"] == "CHAT_MUTED"
    assert out["bia_refusal"] == out["bia_sanction"]
    assert out["bia_sanction_while_refused"] == 0, "the refusal says it; not twice"
    assert out["bia_input_after_refusal"] == "why was I muted?"
    assert out["bia_sanction_after_reload"] == out["bia_sanction"]

    # Unmuted from the Friends panel: Bia's words are back on Ana's page.
    assert [m["text"] for m in out["ana_after_unmute"]] == [spam, "anyone there?", "Cid, a game?"]
    assert out["ana_muted_rows_after_unmute"] == 0
    assert out["unmute_notice"] == "You see Bia’s messages again."

    # What the service holds now: the report resolved, no one muted, Bia's refused
    # text never kept, and her sanction told by one event.
    chat = pb_grpc.ChatServiceStub(web_server.channel)
    queue = chat.ListChatReports(pb.ListChatReportsRequest(), metadata=web_server.app())
    (resolved,) = queue.reports
    assert (resolved.status, resolved.resolution, resolved.note) == (
        pb.REPORT_STATUS_RESOLVED,
        pb.RESOLUTION_MUTE,
        NOTE,
    )
    assert resolved.until_ms == found["until_ms"]
    ana_session = session(json.loads((tmp_path / "reported.json").read_text())["ana_session"])
    muted = chat.ListMutedChatPlayers(pb.ListMutedChatPlayersRequest(), metadata=ana_session)
    assert list(muted.player_ids) == []
    kept = chat.ListChatMessages(pb.ListChatMessagesRequest(room=LOBBY), metadata=web_server.app())
    assert [(m.author_id, m.text) for m in kept.messages] == [
        (bia, spam),
        (bia, "anyone there?"),
        (ana, "Cid, a game?"),
    ]
    events = npb_grpc.NotificationServiceStub(web_server.channel).ListPlayerEvents(
        npb.ListPlayerEventsRequest(player_id=bia, page_size=500), metadata=web_server.app()
    )
    told = [json.loads(e.payload_json) for e in events.events if e.kind == "chat_sanction"]
    assert [(t["kind"], t["until_ms"], t["note"]) for t in told] == [
        ("mute", found["until_ms"], NOTE)
    ]
    assert cid not in (resolved.reporter_id, resolved.reported_id)
    assert out["screenshots"] and all(Path(p).is_file() for p in out["screenshots"])
