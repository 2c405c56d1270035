"""Chat (``tranca.v1.ChatService``) for both clients: post to a room, edit or delete
one's own message, page a room's history, follow it as it is written, and list the
quick phrases.

A room is named by ``chpb.ChatRoom(kind=..., id=...)`` or the helpers
``table_room(game_id)``, ``spectators_room(game_id)``, ``lobby_room(name)`` and
``direct_room(player_id)``. A table's rooms take the seat's (or the spectator's)
token (``client.with_token(player_token)``); lobby rooms and direct messages the
player's session token.

Moderation: a player mutes another (``mute_chat_player``) and reports a message
(``report_chat_message``); the app's backend works through the queue
(``chat_reports``, ``resolve_chat_report``: dismiss, warn, mute for a time, ban).

Retries: ``send_chat_message`` carries a client message id (a UUID unless you pass
one) and reuses it on every retry, so a message is never kept twice; edits,
deletes and reads are retried as they are idempotent; ``watch_chat`` reopens a
broken stream after the last message received. Refusals are typed: a
``RuleRejected`` with ``CHAT_PHRASES_ONLY``, ``EDIT_WINDOW_PASSED`` or
``NOT_FRIENDS``; a ``PermissionDenied`` with ``CHAT_NOT_ALLOWED`` or
``SPECTATOR_CHAT_HELD``; a ``ResourceExhausted`` with ``RATE_LIMITED`` (its
``retry_after_ms``).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ._auth import ANY
from ._streams import resumed
from .v1 import chat_pb2 as chpb
from .v1 import chat_pb2_grpc as chpb_grpc

if TYPE_CHECKING:
    from .client import AsyncTrancaClient, RetryPolicy

T = TypeVar("T")


__all__ = [
    "AsyncChat",
    "Chat",
    "direct_room",
    "lobby_room",
    "spectators_room",
    "table_room",
]


def table_room(game_id: str) -> chpb.ChatRoom:
    """A table's players' room."""
    return chpb.ChatRoom(kind=chpb.ROOM_KIND_TABLE, id=game_id)


def spectators_room(game_id: str) -> chpb.ChatRoom:
    """A table's spectators' room."""
    return chpb.ChatRoom(kind=chpb.ROOM_KIND_SPECTATORS, id=game_id)


def lobby_room(name: str = "main") -> chpb.ChatRoom:
    """One of the app's lobby rooms."""
    return chpb.ChatRoom(kind=chpb.ROOM_KIND_LOBBY, id=name)


def direct_room(player_id: str) -> chpb.ChatRoom:
    """The conversation with a friend."""
    return chpb.ChatRoom(kind=chpb.ROOM_KIND_DIRECT, id=player_id)


class AsyncChat:
    """The chat calls of ``AsyncTrancaClient``."""

    if TYPE_CHECKING:
        retry: RetryPolicy
        _chat: chpb_grpc.ChatServiceAsyncStub

        def _metadata(self, auth: str) -> tuple[tuple[str, str], ...]: ...

        async def _unary(
            self, method: Any, request: Any, auth: str, *, retry: bool, conflicts: bool = False
        ) -> Any: ...

    async def send_chat_message(
        self,
        room: chpb.ChatRoom,
        *,
        text: str = "",
        phrase: str = "",
        client_message_id: str | None = None,
    ) -> chpb.ChatMessage:
        """Post free ``text`` or a quick ``phrase`` to the room; the message as kept
        (the first one, if this id was sent before)."""
        request = chpb.SendChatMessageRequest(
            room=room,
            text=text,
            phrase=phrase,
            client_message_id=client_message_id or uuid.uuid4().hex,
        )
        out: chpb.SendChatMessageResponse = await self._unary(
            self._chat.SendChatMessage, request, ANY, retry=True
        )
        return out.message

    async def edit_chat_message(
        self, room: chpb.ChatRoom, message_id: int, text: str
    ) -> chpb.ChatMessage:
        """A new text for your message (within 5 minutes); the amendment posted."""
        request = chpb.EditChatMessageRequest(room=room, message_id=message_id, text=text)
        out: chpb.EditChatMessageResponse = await self._unary(
            self._chat.EditChatMessage, request, ANY, retry=True
        )
        return out.amendment

    async def delete_chat_message(self, room: chpb.ChatRoom, message_id: int) -> chpb.ChatMessage:
        """Delete your message (within 5 minutes); the amendment posted. A retry of a
        delete that was done answers MESSAGE_NOT_FOUND."""
        request = chpb.DeleteChatMessageRequest(room=room, message_id=message_id)
        out: chpb.DeleteChatMessageResponse = await self._unary(
            self._chat.DeleteChatMessage, request, ANY, retry=False
        )
        return out.amendment

    async def chat_messages(
        self, room: chpb.ChatRoom, *, before_id: int = 0, page_size: int = 0
    ) -> chpb.ListChatMessagesResponse:
        """A page of the room's history (the newest below ``before_id``), oldest
        first; ``next_before_id`` reads the page before it."""
        request = chpb.ListChatMessagesRequest(room=room, before_id=before_id, page_size=page_size)
        out: chpb.ListChatMessagesResponse = await self._unary(
            self._chat.ListChatMessages, request, ANY, retry=True
        )
        return out

    async def watch_chat(
        self, room: chpb.ChatRoom, *, after_id: int = 0
    ) -> AsyncGenerator[chpb.ChatMessage, None]:
        """The room's messages and amendments after ``after_id``, then each new one,
        for as long as you read; a broken stream is reopened after the last one."""

        def open_after(last: int) -> Any:
            request = chpb.WatchChatRequest(room=room, after_id=last)
            return self._chat.WatchChat(request, metadata=self._metadata(ANY))

        updates = resumed(open_after, _message_id, after_id, self.retry, "the chat stream ended")
        async for update in updates:
            yield update.message

    async def quick_phrases(self, locale: str = "") -> list[chpb.QuickPhrase]:
        """The quick phrases, in ``locale`` ("en", "pt", "es"; empty: the call's
        Accept-Language)."""
        request = chpb.ListQuickPhrasesRequest(locale=locale)
        out: chpb.ListQuickPhrasesResponse = await self._unary(
            self._chat.ListQuickPhrases, request, ANY, retry=True
        )
        return list(out.phrases)

    # ----- moderation ---------------------------------------------------------------------

    async def mute_chat_player(self, player_id: str, *, muted: bool = True) -> bool:
        """Hide ``player_id``'s messages from your session's player in every room (or
        show them again, ``muted=False``); whether anything changed."""
        if muted:
            request: Any = chpb.MuteChatPlayerRequest(player_id=player_id)
            method: Any = self._chat.MuteChatPlayer
        else:
            request = chpb.UnmuteChatPlayerRequest(player_id=player_id)
            method = self._chat.UnmuteChatPlayer
        out = await self._unary(method, request, ANY, retry=True)
        return bool(out.changed)

    async def muted_chat_players(self) -> list[str]:
        """The players your session's player muted."""
        out: chpb.ListMutedChatPlayersResponse = await self._unary(
            self._chat.ListMutedChatPlayers, chpb.ListMutedChatPlayersRequest(), ANY, retry=True
        )
        return list(out.player_ids)

    async def report_chat_message(
        self, room: chpb.ChatRoom, message_id: int, reason: str = ""
    ) -> chpb.ChatReport:
        """Report another player's message of a room you read, to the app's
        moderators; reported again, the same report."""
        request = chpb.ReportChatMessageRequest(room=room, message_id=message_id, reason=reason)
        out: chpb.ReportChatMessageResponse = await self._unary(
            self._chat.ReportChatMessage, request, ANY, retry=True
        )
        return out.report

    async def chat_reports(
        self,
        status: chpb.ReportStatus.ValueType = chpb.REPORT_STATUS_UNSPECIFIED,
        *,
        page_size: int = 0,
        page_token: str = "",
    ) -> chpb.ListChatReportsResponse:
        """A page of the app's queue of reports, newest first (the app's key)."""
        request = chpb.ListChatReportsRequest(
            status=status, page_size=page_size, page_token=page_token
        )
        out: chpb.ListChatReportsResponse = await self._unary(
            self._chat.ListChatReports, request, ANY, retry=True
        )
        return out

    async def resolve_chat_report(
        self,
        report_id: int,
        resolution: chpb.Resolution.ValueType,
        *,
        seconds: int = 0,
        note: str = "",
    ) -> chpb.ChatReport:
        """Resolve an open report (the app's key): dismiss, warn, mute for
        ``seconds`` or ban (``seconds`` 0: no end); audited. Not retried: a retry of a
        resolution that was made answers REPORT_RESOLVED."""
        request = chpb.ResolveChatReportRequest(
            report_id=report_id, resolution=resolution, seconds=seconds, note=note
        )
        out: chpb.ResolveChatReportResponse = await self._unary(
            self._chat.ResolveChatReport, request, ANY, retry=False
        )
        return out.report


def _message_id(update: chpb.WatchChatResponse) -> int:
    return int(update.message.id)


class Chat:
    """The chat calls of the blocking ``TrancaClient`` (see ``AsyncChat``)."""

    if TYPE_CHECKING:

        @property
        def aio(self) -> AsyncTrancaClient: ...

        def _run(self, coro: Coroutine[Any, Any, T]) -> T: ...

    def send_chat_message(
        self,
        room: chpb.ChatRoom,
        *,
        text: str = "",
        phrase: str = "",
        client_message_id: str | None = None,
    ) -> chpb.ChatMessage:
        """See ``AsyncTrancaClient.send_chat_message``."""
        return self._run(
            self.aio.send_chat_message(
                room, text=text, phrase=phrase, client_message_id=client_message_id
            )
        )

    def edit_chat_message(
        self, room: chpb.ChatRoom, message_id: int, text: str
    ) -> chpb.ChatMessage:
        """See ``AsyncTrancaClient.edit_chat_message``."""
        return self._run(self.aio.edit_chat_message(room, message_id, text))

    def delete_chat_message(self, room: chpb.ChatRoom, message_id: int) -> chpb.ChatMessage:
        """See ``AsyncTrancaClient.delete_chat_message``."""
        return self._run(self.aio.delete_chat_message(room, message_id))

    def chat_messages(
        self, room: chpb.ChatRoom, *, before_id: int = 0, page_size: int = 0
    ) -> chpb.ListChatMessagesResponse:
        """See ``AsyncTrancaClient.chat_messages``."""
        return self._run(self.aio.chat_messages(room, before_id=before_id, page_size=page_size))

    def quick_phrases(self, locale: str = "") -> list[chpb.QuickPhrase]:
        """See ``AsyncTrancaClient.quick_phrases``."""
        return self._run(self.aio.quick_phrases(locale))

    def mute_chat_player(self, player_id: str, *, muted: bool = True) -> bool:
        """See ``AsyncTrancaClient.mute_chat_player``."""
        return self._run(self.aio.mute_chat_player(player_id, muted=muted))

    def muted_chat_players(self) -> list[str]:
        """See ``AsyncTrancaClient.muted_chat_players``."""
        return self._run(self.aio.muted_chat_players())

    def report_chat_message(
        self, room: chpb.ChatRoom, message_id: int, reason: str = ""
    ) -> chpb.ChatReport:
        """See ``AsyncTrancaClient.report_chat_message``."""
        return self._run(self.aio.report_chat_message(room, message_id, reason))

    def chat_reports(
        self,
        status: chpb.ReportStatus.ValueType = chpb.REPORT_STATUS_UNSPECIFIED,
        *,
        page_size: int = 0,
        page_token: str = "",
    ) -> chpb.ListChatReportsResponse:
        """See ``AsyncTrancaClient.chat_reports``."""
        return self._run(self.aio.chat_reports(status, page_size=page_size, page_token=page_token))

    def resolve_chat_report(
        self,
        report_id: int,
        resolution: chpb.Resolution.ValueType,
        *,
        seconds: int = 0,
        note: str = "",
    ) -> chpb.ChatReport:
        """See ``AsyncTrancaClient.resolve_chat_report``."""
        return self._run(
            self.aio.resolve_chat_report(report_id, resolution, seconds=seconds, note=note)
        )
