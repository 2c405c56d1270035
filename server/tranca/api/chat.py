"""ChatService: protobuf in, a use case of ``services.chat.Chat``, protobuf out.
Nothing else happens here."""

from __future__ import annotations

from collections.abc import AsyncIterator

from ..services.chat import Chat, ChatMessage, RoomKind, RoomRef, quick_phrases
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


class ChatService(pb_grpc.ChatServiceServicer):
    def __init__(self, chat: Chat) -> None:
        self.chat = chat

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
