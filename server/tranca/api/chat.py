"""ChatService: protobuf in, a use case of ``services.chat.Chat``, protobuf out.
Nothing else happens here."""

from __future__ import annotations

from collections.abc import AsyncIterator

from ..services.chat import Chat, ChatMessage, RoomKind, RoomRef, quick_phrases
from ..services.chat_moderation import (
    ChatModeration,
    ChatReport,
    ReportStatus,
    Resolution,
    report_room,
)
from ..services.errors import malformed
from ..v1 import chat_pb2 as pb
from ..v1 import chat_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .errors import caller_locale
from .servicer import rpc, stream_rpc

ROOM_KINDS: dict[pb.RoomKind.ValueType, RoomKind] = {
    pb.ROOM_KIND_TABLE: RoomKind.TABLE,
    pb.ROOM_KIND_SPECTATORS: RoomKind.SPECTATORS,
    pb.ROOM_KIND_LOBBY: RoomKind.LOBBY,
    pb.ROOM_KIND_DIRECT: RoomKind.DIRECT,
}


ROOM_KINDS_PB = {kind: code for code, kind in ROOM_KINDS.items()}
STATUS_FILTER: dict[pb.ReportStatus.ValueType, ReportStatus | None] = {
    pb.REPORT_STATUS_UNSPECIFIED: None,
    pb.REPORT_STATUS_OPEN: ReportStatus.OPEN,
    pb.REPORT_STATUS_RESOLVED: ReportStatus.RESOLVED,
}
STATUS_PB = {status: code for code, status in STATUS_FILTER.items() if status is not None}
RESOLUTIONS: dict[pb.Resolution.ValueType, Resolution] = {
    pb.RESOLUTION_DISMISS: Resolution.DISMISS,
    pb.RESOLUTION_WARN: Resolution.WARN,
    pb.RESOLUTION_MUTE: Resolution.MUTE,
    pb.RESOLUTION_BAN: Resolution.BAN,
}
RESOLUTIONS_PB = {resolution: code for code, resolution in RESOLUTIONS.items()}


def room_ref(room: pb.ChatRoom) -> RoomRef:
    kind = ROOM_KINDS.get(room.kind)
    if kind is None:
        raise malformed("room.kind is TABLE, SPECTATORS, LOBBY or DIRECT")
    return RoomRef(kind, room.id)


def message_pb(m: ChatMessage) -> pb.ChatMessage:
    return pb.ChatMessage(
        id=m.id,
        kind=m.kind,
        author_id=m.author_id,
        author_name=m.author_name,
        seat=m.seat,
        text=m.text,
        phrase=m.phrase,
        created_at_ms=m.created_ms,
        edited_at_ms=m.edited_ms,
        deleted=m.deleted,
        filtered=m.filtered,
        target_id=m.target_id,
        client_message_id=m.client_id,
    )


def report_pb(r: ChatReport) -> pb.ChatReport:
    room = report_room(r)
    return pb.ChatReport(
        id=r.id,
        reporter_id=r.reporter_id,
        reported_id=r.reported_id,
        room=pb.ChatRoom(kind=ROOM_KINDS_PB[room.kind], id=room.id),
        message_id=r.message_id,
        reason=r.reason,
        evidence=[message_pb(m) for m in r.evidence],
        game_id=r.game_id,
        game_version=r.game_version,
        created_at_ms=r.created_ms,
        status=STATUS_PB[r.status],
        resolution=RESOLUTIONS_PB.get(Resolution(r.resolution), pb.RESOLUTION_UNSPECIFIED)
        if r.resolution
        else pb.RESOLUTION_UNSPECIFIED,
        note=r.note,
        resolved_at_ms=r.resolved_ms,
        until_ms=r.until_ms,
    )


class ChatService(pb_grpc.ChatServiceServicer):
    def __init__(self, chat: Chat, moderation: ChatModeration) -> None:
        self.chat = chat
        self.moderation = moderation

    @rpc("SendChatMessage")
    async def SendChatMessage(
        self, request: pb.SendChatMessageRequest, context: Ctx
    ) -> pb.SendChatMessageResponse:
        kept = await self.chat.post(
            credentials(context),
            room_ref(request.room),
            request.client_message_id,
            text=request.text,
            phrase=request.phrase,
        )
        return pb.SendChatMessageResponse(message=message_pb(kept))

    @rpc("EditChatMessage")
    async def EditChatMessage(
        self, request: pb.EditChatMessageRequest, context: Ctx
    ) -> pb.EditChatMessageResponse:
        amendment = await self.chat.amend(
            credentials(context), room_ref(request.room), request.message_id, request.text
        )
        return pb.EditChatMessageResponse(amendment=message_pb(amendment))

    @rpc("DeleteChatMessage")
    async def DeleteChatMessage(
        self, request: pb.DeleteChatMessageRequest, context: Ctx
    ) -> pb.DeleteChatMessageResponse:
        amendment = await self.chat.amend(
            credentials(context), room_ref(request.room), request.message_id, None
        )
        return pb.DeleteChatMessageResponse(amendment=message_pb(amendment))

    @rpc("ListChatMessages")
    async def ListChatMessages(
        self, request: pb.ListChatMessagesRequest, context: Ctx
    ) -> pb.ListChatMessagesResponse:
        page = await self.chat.history(
            credentials(context), room_ref(request.room), request.before_id, request.page_size
        )
        return pb.ListChatMessagesResponse(
            messages=[message_pb(m) for m in page.messages], next_before_id=page.next_before_id
        )

    @stream_rpc("WatchChat")
    async def WatchChat(
        self, request: pb.WatchChatRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchChatResponse]:
        rows = self.chat.watch(credentials(context), room_ref(request.room), request.after_id)
        async for row in rows:
            yield pb.WatchChatResponse(message=message_pb(row))

    @rpc("ListQuickPhrases")
    async def ListQuickPhrases(
        self, request: pb.ListQuickPhrasesRequest, context: Ctx
    ) -> pb.ListQuickPhrasesResponse:
        language = request.locale or caller_locale(context)
        return pb.ListQuickPhrasesResponse(
            phrases=[pb.QuickPhrase(id=p, text=t) for p, t in quick_phrases(language)]
        )

    @rpc("MuteChatPlayer")
    async def MuteChatPlayer(
        self, request: pb.MuteChatPlayerRequest, context: Ctx
    ) -> pb.MuteChatPlayerResponse:
        changed = await self.moderation.mute(credentials(context), request.player_id, True)
        return pb.MuteChatPlayerResponse(changed=changed)

    @rpc("UnmuteChatPlayer")
    async def UnmuteChatPlayer(
        self, request: pb.UnmuteChatPlayerRequest, context: Ctx
    ) -> pb.UnmuteChatPlayerResponse:
        changed = await self.moderation.mute(credentials(context), request.player_id, False)
        return pb.UnmuteChatPlayerResponse(changed=changed)

    @rpc("ListMutedChatPlayers")
    async def ListMutedChatPlayers(
        self, request: pb.ListMutedChatPlayersRequest, context: Ctx
    ) -> pb.ListMutedChatPlayersResponse:
        muted = await self.moderation.muted(credentials(context))
        return pb.ListMutedChatPlayersResponse(player_ids=muted)

    @rpc("ReportChatMessage")
    async def ReportChatMessage(
        self, request: pb.ReportChatMessageRequest, context: Ctx
    ) -> pb.ReportChatMessageResponse:
        report = await self.moderation.report(
            credentials(context), room_ref(request.room), request.message_id, request.reason
        )
        return pb.ReportChatMessageResponse(report=report_pb(report))

    @rpc("ListChatReports")
    async def ListChatReports(
        self, request: pb.ListChatReportsRequest, context: Ctx
    ) -> pb.ListChatReportsResponse:
        if request.status not in STATUS_FILTER:
            raise malformed(f"unknown report status {request.status}")
        reports, token = await self.moderation.queue(
            credentials(context),
            STATUS_FILTER[request.status],
            request.page_size,
            request.page_token,
        )
        return pb.ListChatReportsResponse(
            reports=[report_pb(r) for r in reports], next_page_token=token
        )

    @rpc("ResolveChatReport")
    async def ResolveChatReport(
        self, request: pb.ResolveChatReportRequest, context: Ctx
    ) -> pb.ResolveChatReportResponse:
        resolution = RESOLUTIONS.get(request.resolution)
        if resolution is None:
            raise malformed("resolution is DISMISS, WARN, MUTE or BAN")
        done = await self.moderation.resolve(
            credentials(context), request.report_id, resolution, request.seconds, request.note
        )
        return pb.ResolveChatReportResponse(report=report_pb(done))
