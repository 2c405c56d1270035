"""Chat's moderation through a real channel, on SQLite and PostgreSQL: a mute hides a
player's words from the muter; a report reaches the app's queue with the messages
around it and the game; the app mutes the author, who is refused on every replica
at once, is told by an event, and the resolution is in the audit log; a report is
resolved once, even asked on two replicas at once."""

from __future__ import annotations

import asyncio
import json

import grpc

from tests.harness.clients import Client
from tests.harness.servers import app_client
from tranca.server import Running
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import chat_pb2 as pb
from tranca.v1 import chat_pb2_grpc as pb_grpc
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .api_calls import error_info, reason_of, refused
from .test_chat import send, table, texts

Metadata = tuple[tuple[str, str], ...]
Code = grpc.StatusCode
LOBBY = pb.ChatRoom(kind=pb.ROOM_KIND_LOBBY, id="main")


def chat(client: Client) -> pb_grpc.ChatServiceAsyncStub:
    return pb_grpc.ChatServiceStub(client.channel)


async def session(client: Client, player_id: str) -> Metadata:
    opened = await spb_grpc.SessionServiceStub(client.channel).CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=player_id, display_name=player_id.title()),
        metadata=client.app(),
    )
    return (("authorization", f"Bearer {opened.session.access_token}"),)


async def test_a_mute_hides_a_players_words_from_the_muter_only(client: Client) -> None:
    ana, bia, cid = [await session(client, p) for p in ("ana", "bia", "cid")]
    await send(client, bia, LOBBY, "1", text="compre fichas aqui")
    muted = await chat(client).MuteChatPlayer(
        pb.MuteChatPlayerRequest(player_id="bia"), metadata=ana
    )
    assert muted.changed
    assert await texts(client, ana, LOBBY) == []
    assert await texts(client, cid, LOBBY) == ["compre fichas aqui"]
    listed = await chat(client).ListMutedChatPlayers(pb.ListMutedChatPlayersRequest(), metadata=ana)
    assert list(listed.player_ids) == ["bia"]


async def test_a_report_is_resolved_with_a_mute_that_holds_and_is_audited(
    client: Client,
) -> None:
    game_id, (ana, bia), _ = await table(client)
    at = pb.ChatRoom(kind=pb.ROOM_KIND_TABLE, id=game_id)
    await send(client, ana, at, "a", text="boa sorte")
    rude = await send(client, bia, at, "b", text="jogador ruim")
    report = (
        await chat(client).ReportChatMessage(
            pb.ReportChatMessageRequest(room=at, message_id=rude.id, reason="ofensa"),
            metadata=ana,
        )
    ).report
    assert (report.reported_id, report.game_id, report.status) == (
        "p1",
        game_id,
        pb.REPORT_STATUS_OPEN,
    )
    assert [m.text for m in report.evidence] == ["boa sorte", "jogador ruim"]
    assert report.game_version > 0 and report.room == at
    queue = await chat(client).ListChatReports(
        pb.ListChatReportsRequest(status=pb.REPORT_STATUS_OPEN), metadata=client.app()
    )
    assert [r.id for r in queue.reports] == [report.id]
    await refused(
        chat(client).ListChatReports(pb.ListChatReportsRequest(), metadata=ana),
        Code.PERMISSION_DENIED,
        "APP_KEY_REQUIRED",
    )
    resolved = await chat(client).ResolveChatReport(
        pb.ResolveChatReportRequest(
            report_id=report.id, resolution=pb.RESOLUTION_MUTE, seconds=600, note="sem ofensas"
        ),
        metadata=client.app(),
    )
    assert resolved.report.status == pb.REPORT_STATUS_RESOLVED and resolved.report.until_ms
    error = await refused(
        send(client, bia, at, "c", text="?"), Code.PERMISSION_DENIED, "CHAT_MUTED"
    )
    assert error_info(error).metadata["note"] == "sem ofensas"
    events = await npb_grpc.NotificationServiceStub(client.channel).ListPlayerEvents(
        npb.ListPlayerEventsRequest(player_id="p1"), metadata=client.app()
    )
    told = [json.loads(e.payload_json) for e in events.events if e.kind == "chat_sanction"]
    assert [(t["kind"], t["note"]) for t in told] == [("mute", "sem ofensas")]
    audit = await apb_grpc.AdminServiceStub(client.channel).ListAuditEntries(
        apb.ListAuditEntriesRequest(), metadata=client.app()
    )
    (entry,) = [e for e in audit.entries if e.action == "resolve_chat_report"]
    assert entry.subject == "p1" and json.loads(entry.detail_json)["resolution"] == "mute"
    await refused(
        chat(client).ResolveChatReport(
            pb.ResolveChatReportRequest(report_id=report.id, resolution=pb.RESOLUTION_DISMISS),
            metadata=client.app(),
        ),
        Code.FAILED_PRECONDITION,
        "REPORT_RESOLVED",
    )


async def test_a_ban_on_one_replica_holds_on_the_other_and_one_resolution_wins(
    replicas: list[Running],
) -> None:
    async with (
        app_client(replicas[0]) as first,
        grpc.aio.insecure_channel(f"127.0.0.1:{replicas[1].port}") as channel,
    ):
        second = Client(channel, first.api_key)
        ana, bia = await session(first, "ana"), await session(first, "bia")
        rude = await send(first, bia, LOBBY, "1", text="xingamento")
        report = (
            await chat(second).ReportChatMessage(
                pb.ReportChatMessageRequest(room=LOBBY, message_id=rude.id), metadata=ana
            )
        ).report
        outcomes = await asyncio.gather(
            *(
                chat(c).ResolveChatReport(
                    pb.ResolveChatReportRequest(report_id=report.id, resolution=pb.RESOLUTION_BAN),
                    metadata=c.app(),
                )
                for c in (first, second)
            ),
            return_exceptions=True,
        )
        won = [o for o in outcomes if isinstance(o, pb.ResolveChatReportResponse)]
        lost = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        assert len(won) == 1 and [reason_of(e) for e in lost] == ["REPORT_RESOLVED"]
        for c in (first, second):
            await refused(
                send(c, bia, LOBBY, "2", text="oi"), Code.PERMISSION_DENIED, "CHAT_BANNED"
            )
