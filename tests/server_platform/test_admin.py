"""The app owner's admin view through a real channel and through `tranca admin`, on
SQLite and PostgreSQL: a game inspected (seats, last change, timer), a stuck staked
game ended with every stake returned, seats removed (freed, played by a robot, or
resigned), and other apps' games invisible."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import grpc

from tests.server.api_calls import refused
from tests.server.conftest import Client
from tranca.server import Running
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import chat_pb2 as chpb
from tranca.v1 import chat_pb2_grpc as chpb_grpc
from tranca.v1 import game_pb2 as pb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .staking import Platform

Code = grpc.StatusCode


def admin(client: Client) -> apb_grpc.AdminServiceAsyncStub:
    return apb_grpc.AdminServiceStub(client.channel)


async def test_a_game_is_inspected_seat_by_seat(client: Client, server: Running) -> None:
    platform = await Platform.of(client, server)
    table = await platform.table(["ana", "bia"], turn_seconds=60)
    seen = await admin(client).InspectGame(
        apb.InspectGameRequest(game_id=table.game_id), metadata=client.app()
    )
    assert seen.game.status == pb.GAME_STATUS_PLAYING
    assert [s.player_id for s in seen.seats] == ["ana", "bia"]
    assert all(s.taken and s.last_seen_at_ms > 0 for s in seen.seats)
    assert seen.last_change.kind == "start" and seen.last_change.version == 3
    assert seen.deadline_at_ms > 0  # the first turn's clock
    # Another app's key sees no such game.
    _, other_key = await server.store.create_app("other")
    await refused(
        admin(client).InspectGame(
            apb.InspectGameRequest(game_id=table.game_id), metadata=(("x-api-key", other_key),)
        ),
        Code.NOT_FOUND,
        "GAME_NOT_FOUND",
    )
    await refused(
        admin(client).InspectGame(
            apb.InspectGameRequest(game_id=table.game_id), metadata=client.player(table.tokens[0])
        ),
        Code.PERMISSION_DENIED,
        "APP_KEY_REQUIRED",
    )


async def test_ending_a_stuck_staked_game_returns_every_stake(
    client: Client, server: Running
) -> None:
    platform = await Platform.of(client, server)
    for p in ("ana", "bia"):
        await platform.grant(p, 500)
    table = await platform.table(["ana", "bia"], stake=100)
    assert await platform.chips("ana") == 400
    ended = await admin(client).EndGame(
        apb.EndGameRequest(game_id=table.game_id, request_id="end-1"), metadata=client.app()
    )
    retried = await admin(client).EndGame(
        apb.EndGameRequest(game_id=table.game_id, request_id="end-1"), metadata=client.app()
    )
    assert retried.version == ended.version  # the first answer, not a second end
    view = await client.stub.GetView(
        pb.GetViewRequest(game_id=table.game_id), metadata=client.app()
    )
    assert view.view.status == pb.GAME_STATUS_FINISHED
    assert view.view.match_result.reason == "ended_by_app"
    await platform.settle()
    assert await platform.chips("ana") == await platform.chips("bia") == 500
    assert (await platform.player("ana")).matches == 0  # not rated
    await refused(
        admin(client).EndGame(apb.EndGameRequest(game_id=table.game_id), metadata=client.app()),
        Code.FAILED_PRECONDITION,
        "GAME_OVER",
    )


async def test_removing_a_seat_frees_it_hands_it_to_a_robot_or_resigns(
    client: Client, server: Running
) -> None:
    platform = await Platform.of(client, server)
    waiting = await platform.table(["ana", "bia"], competitive=False, start=False)
    freed = await admin(client).RemoveSeat(
        apb.RemoveSeatRequest(game_id=waiting.game_id, seat=1), metadata=client.app()
    )
    assert freed.outcome == "freed"
    await refused(
        client.stub.GetView(
            pb.GetViewRequest(game_id=waiting.game_id), metadata=client.player(waiting.tokens[1])
        ),
        Code.UNAUTHENTICATED,
        "BAD_TOKEN",
    )
    # A practice match with robots plays on with a robot in the seat.
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=2,
            table=pb.TableOptions(robot_grace_seconds=60),
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    for seat in range(2):
        await client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=seat), metadata=client.app()
        )
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    robot = await admin(client).RemoveSeat(
        apb.RemoveSeatRequest(game_id=gid, seat=0), metadata=client.app()
    )
    assert robot.outcome == "robot"
    # A rated match: the seat's side resigns.
    rated = await platform.table(["cai", "dan"])
    resigned = await admin(client).RemoveSeat(
        apb.RemoveSeatRequest(game_id=rated.game_id, seat=0), metadata=client.app()
    )
    assert resigned.outcome == "resigned"
    view = await client.stub.GetView(
        pb.GetViewRequest(game_id=rated.game_id), metadata=client.app()
    )
    assert view.view.match_result.winner_side == 1


async def test_tranca_admin_shows_and_ends_games_from_a_terminal(
    client: Client, server: Running
) -> None:
    platform = await Platform.of(client, server)
    table = await platform.table(["ana", "bia"])

    def tranca_admin(*args: str) -> subprocess.CompletedProcess[str]:
        base = ["--address", f"127.0.0.1:{server.port}", "--api-key", client.api_key]
        return subprocess.run(
            [sys.executable, "-m", "tranca.cli", "admin", *base, *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    shown = await asyncio.to_thread(tranca_admin, "game", table.game_id)
    assert shown.returncode == 0, shown.stderr
    assert "seat 0: ana (ana)" in shown.stdout and "last change: v3 start" in shown.stdout
    listed = await asyncio.to_thread(tranca_admin, "--json", "games")
    assert table.game_id in [g["gameId"] for g in json.loads(listed.stdout)["games"]]
    ended = await asyncio.to_thread(tranca_admin, "end", table.game_id)
    assert ended.returncode == 0 and "ended at version" in ended.stdout
    again = await asyncio.to_thread(tranca_admin, "end", table.game_id)
    assert again.returncode == 1 and "GAME_OVER" in again.stderr
    assert again.stderr.count("\n") == 1  # one line, no traceback
    # The data-rights tools: a merge, an erasure, and the audit log of both.
    await platform.grant("cid", 10)
    await platform.grant("cid-2", 5)
    asked = await asyncio.to_thread(tranca_admin, "merge-players", "cid-2", "cid")
    assert asked.returncode == 1 and "add --yes" in asked.stderr  # nothing done
    assert await platform.chips("cid") == 10
    merged = await asyncio.to_thread(tranca_admin, "merge-players", "cid-2", "cid", "--yes")
    assert merged.returncode == 0, merged.stderr
    assert merged.stdout.startswith("cid-2 merged into cid; rows changed: chip_entries 2")
    assert await platform.chips("cid") == 15
    refused = await asyncio.to_thread(tranca_admin, "merge-players", "ana", "bia", "--yes")
    assert refused.returncode == 1 and "ACCOUNTS_SHARED_A_TABLE" in refused.stderr
    erased = await asyncio.to_thread(tranca_admin, "--json", "erase-player", "cid", "--yes")
    assert erased.returncode == 0, erased.stderr
    pseudonym = json.loads(erased.stdout)["pseudonym"]
    audit = await asyncio.to_thread(tranca_admin, "audit")
    lines = audit.stdout.splitlines()
    assert [line.split()[3:6] for line in lines] == [
        ["merge_players", "by", "app"],
        ["erase_player", "by", "app"],
    ]
    assert pseudonym in lines[1]


async def test_tranca_admin_works_through_the_chat_reports(client: Client, server: Running) -> None:
    sessions = spb_grpc.SessionServiceStub(client.channel)
    chat = chpb_grpc.ChatServiceStub(client.channel)
    md = {}
    for name in ("ana", "bia"):
        opened = await sessions.CreatePlayerSession(
            spb.CreatePlayerSessionRequest(player_id=name, display_name=name.title()),
            metadata=client.app(),
        )
        md[name] = (("authorization", f"Bearer {opened.session.access_token}"),)
    lobby = chpb.ChatRoom(kind=chpb.ROOM_KIND_LOBBY, id="main")
    rude = await chat.SendChatMessage(
        chpb.SendChatMessageRequest(room=lobby, text="seu pato", client_message_id="1"),
        metadata=md["bia"],
    )
    await chat.ReportChatMessage(
        chpb.ReportChatMessageRequest(room=lobby, message_id=rude.message.id, reason="ofensa"),
        metadata=md["ana"],
    )

    def tranca_admin(*args: str) -> subprocess.CompletedProcess[str]:
        base = ["--address", f"127.0.0.1:{server.port}", "--api-key", client.api_key]
        return subprocess.run(
            [sys.executable, "-m", "tranca.cli", "admin", *base, *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    queue = await asyncio.to_thread(tranca_admin, "chat-reports", "--status", "open")
    assert queue.returncode == 0, queue.stderr
    (line,) = queue.stdout.splitlines()
    assert "bia said 'seu pato'" in line and "reported by ana: ofensa" in line
    report_id = line.split()[0]
    muted = await asyncio.to_thread(
        tranca_admin, "resolve-report", report_id, "mute", "--seconds", "60", "--note", "calma"
    )
    assert muted.returncode == 0 and "resolved: mute" in muted.stdout, muted.stderr
    again = await asyncio.to_thread(tranca_admin, "resolve-report", report_id, "dismiss")
    assert again.returncode == 1 and "REPORT_RESOLVED" in again.stderr
