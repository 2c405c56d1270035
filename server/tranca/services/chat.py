"""Chat (ChatService): a message posted to a room, edited or deleted by its author,
the room's history paged, and its new messages followed as they come.

Who reads and writes which room, a table's chat mode and what a message may hold are
the domain's (``platform/chat.py``); this use case finds who calls and in which
role (a table's seat token: a player, or a spectator with seat -1; a player's
session: lobby rooms and direct messages; the app's key: reads every room of its
app), screens free text (``Screen``: the profanity filter, ``chat_filter.py``), and
has the store keep the message.

- **Exactly once**: a message carries the author's ``client_message_id``; the same
  id again (a retry after a lost answer, or after a replica died) is the message
  already kept, never a second one.
- **Order and delivery**: every message has an id that grows in the order written;
  a reader pages the history by it and follows a room after the last id it saw
  (``watch``), woken at once by a message posted on its own process, within
  ``poll_seconds`` by another replica's. A broken stream resumed after its last id
  loses nothing and repeats nothing.
- **Edits and deletes**: by the author, within ``EDIT_WINDOW_MS``; the message is
  changed in the history, and an amendment (kind ``edit`` or ``delete``, naming the
  message) follows in the room's stream, so a reader following it changes what it
  shows.
- **Direct messages**: between friends only, never to or from a player who blocked
  the other; each is also a ``direct_message`` event to its receiver (their event
  stream and the app's webhook: the app can push it).
- **Limits**: per author and per room (``RateLimiter``, this process), RATE_LIMITED
  with ``retry_after_ms``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ..platform.chat import (
    EDIT_WINDOW_MS,
    MAX_LOBBY_NAME,
    QUICK_PHRASES,
    ChatRefused,
    Role,
    Room,
    RoomKind,
    TableRoomState,
    check_phrase,
    check_post,
    clean_text,
    direct_room,
    lobby_room,
    may_read,
    table_mode,
)
from ..platform.chat_moderation import Resolution, Sanction
from ..platform.friendships import Relation
from ..reasons import Reason
from ..table.events import Event, EventKind
from ..table.game import FINISHED, GameState
from .access import Access, Credentials, require_app
from .errors import Refusal, Refused, malformed, rate_limited
from .limits import RateLimiter, WatchCounts
from .policy import AppPolicies, AppPolicy
from .ports import Wakeup, player_key
from .sessions import Clock

MAX_CLIENT_ID = 64
DEFAULT_PAGE = 50
MAX_PAGE = 200
# A room's stream reads the room on this timer as well as on hints: every second
# where other replicas' messages send no hint here (no change feed, or the feed's
# connection down), every half minute while the NATS feed carries them (a message
# lost on a live connection then waits that long).
POLL_SECONDS = 1.0
STEADY_POLL_SECONDS = 30.0
# Per author: a message a second on average, five at once; per room, ten a second.
AUTHOR_RATE, AUTHOR_BURST = 1.0, 5.0
ROOM_RATE, ROOM_BURST = 10.0, 30.0
# An open stream reads the players its reader muted or blocked again this often.
HIDDEN_REFRESH_MS = 10_000


@dataclass(frozen=True)
class ChatMessage:
    """A message as kept: its id (growing), its room, its author (their player id,
    or "" for a seat without one; their name and seat, -1 away from a table), its
    kind ("text", "phrase", or an amendment: "edit", "delete" naming ``target_id``),
    what it says (the text as shown, or the phrase's id), and its times (epoch ms;
    ``edited_ms`` 0 until edited)."""

    id: int
    room: str
    author_id: str
    author_name: str
    seat: int
    kind: str
    text: str
    phrase: str
    created_ms: int
    edited_ms: int = 0
    deleted: bool = False
    filtered: bool = False
    target_id: int = 0
    client_id: str = ""
    author_key: str = ""


@dataclass(frozen=True)
class NewMessage:
    app_id: str
    room: str
    author_key: str  # who wrote it, for exactly-once and edits: a player id or a seat's
    author_id: str
    author_name: str
    seat: int
    kind: str
    text: str
    phrase: str
    filtered: bool
    client_id: str
    created_ms: int


class ChatRepository(Protocol):
    async def post(self, message: NewMessage, events: Sequence[Event]) -> ChatMessage:
        """Keep the message (and ``events``, in the same transaction); the message
        already kept under the same author and client id instead, if there is one."""
        ...

    async def message(self, app_id: str, room: str, message_id: int) -> ChatMessage | None:
        """The room's message (or amendment) of that number."""
        ...

    async def amend(
        self, app_id: str, original: ChatMessage, text: str | None, filtered: bool, now: int
    ) -> ChatMessage:
        """Change the message (``text``; None: delete it) and append the amendment
        that tells the room's readers; the amendment."""
        ...

    async def messages(
        self, app_id: str, room: str, after: int, before: int | None, limit: int, history: bool
    ) -> list[ChatMessage]:
        """The room's messages with ids above ``after`` (and below ``before``), oldest
        first, at most ``limit``: every row (a stream's) or, for ``history``, the
        messages as they are now without their amendments (newest ``limit`` when
        ``before`` is given)."""
        ...

    async def game_state(self, game_id: str) -> tuple[str, GameState] | None:
        """A game's app and state (the app's key reading a table's rooms)."""
        ...

    async def pair(self, app_id: str, player_id: str, other: str) -> tuple[Relation, Relation]:
        """The two sides of a pair of players (friends, blocks)."""
        ...

    async def sanction(self, app_id: str, player_id: str) -> Sanction | None:
        """The sanction the player's chat is under, if any (active or not)."""
        ...

    async def hidden_authors(self, app_id: str, player_id: str) -> frozenset[str]:
        """The players whose messages the player does not see: those they muted or
        blocked."""
        ...


class Screen(Protocol):
    def __call__(self, text: str) -> tuple[str, bool]:
        """The text as shown, and whether words in it were masked."""
        ...


class ChatHints(Protocol):
    """This process's hub of change hints (``store/hints.py``), where a room's
    watchers wait, by the room's key (``hint_key``)."""

    def subscribe(self, key: str) -> contextlib.AbstractContextManager[Wakeup]: ...


class ChatNotifier(Protocol):
    """Wakes a room's watchers after a message commits: this process's through the
    hub, the other replicas' through the change feed where there is one (NATS: at
    once); without one they read on their timer (``poll_seconds``)."""

    def publish(self, key: str, version: int | None) -> None: ...


@dataclass(frozen=True)
class RoomRef:
    """A room as a caller names it: its kind and its id (a game's id, a lobby room's
    name, the other player of a direct conversation)."""

    kind: RoomKind
    id: str


@dataclass(frozen=True)
class Speaker:
    """The caller in a room: their role, and who they are there."""

    app_id: str
    room: Room
    role: Role
    author_key: str
    author_id: str
    name: str
    seat: int
    table: TableRoomState | None
    watch_key: str
    watch_cap: int


@dataclass(frozen=True)
class Page:
    messages: tuple[ChatMessage, ...]
    next_before_id: int  # 0: no older message


def hint_key(app_id: str, room: Room) -> str:
    return f"chat:{app_id}:{room.stored}"


def _refused(exc: ChatRefused) -> Refused:
    if exc.malformed:
        return malformed(exc.message)
    kind = {
        Reason.CHAT_ROOM_NOT_FOUND: Refusal.NOT_FOUND,
        Reason.CHAT_PHRASES_ONLY: Refusal.PRECONDITION,
    }.get(exc.reason, Refusal.FORBIDDEN)
    return Refused(kind, exc.reason, exc.message)


def _not_found() -> Refused:
    return Refused(Refusal.NOT_FOUND, Reason.MESSAGE_NOT_FOUND, "no such message in this room")


class Chat:
    def __init__(
        self,
        access: Access,
        repo: ChatRepository,
        policies: AppPolicies,
        screen: Screen,
        clock: Clock,
        watches: WatchCounts,
        hints: ChatHints,
        notifier: ChatNotifier,
        event_hints: ChatNotifier,
        *,
        hold: Callable[[str], Awaitable[None]] | None = None,
        steady: Callable[[], bool] = lambda: False,
        poll_seconds: float = POLL_SECONDS,
        steady_poll_seconds: float = STEADY_POLL_SECONDS,
    ) -> None:
        self.access = access
        self.repo = repo
        self.policies = policies
        self.screen = screen
        self.clock = clock
        self.watches = watches
        self.hints = hints
        self.notifier = notifier
        self.event_hints = event_hints
        # The feed's "subscribed": a watch waits for it before its first read, so a
        # message either committed before that read or wakes it.
        self.hold = hold
        self.poll_seconds = poll_seconds
        # Whether the change feed carries other replicas' hints now (``Hub.steady``).
        self.steady = steady
        self.steady_poll_seconds = steady_poll_seconds
        # One read of a room from a point at a time in this process: its watchers,
        # woken together by one message, share it (``_read_after``).
        self._reads: dict[tuple[str, str, int], asyncio.Future[list[ChatMessage]]] = {}
        self.authors = RateLimiter(AUTHOR_RATE, AUTHOR_BURST)
        self.rooms = RateLimiter(ROOM_RATE, ROOM_BURST)

    # ----- who speaks where ------------------------------------------------------------

    async def speaker(self, credentials: Credentials, ref: RoomRef) -> Speaker:
        """The caller in the room ``ref`` names: their role and identity there."""
        if not ref.id or len(ref.id) > 128:
            raise malformed("room.id is 1 to 128 characters")
        if ref.kind in (RoomKind.TABLE, RoomKind.SPECTATORS):
            return await self._at_table(credentials, ref)
        caller = await self.access.identify(credentials)
        session = caller.session
        if caller.player is not None:
            raise Refused(
                Refusal.FORBIDDEN,
                Reason.SESSION_TOKEN_REQUIRED,
                "lobby rooms and direct messages take the player's session token",
            )
        if ref.kind == RoomKind.LOBBY:
            if len(ref.id) > MAX_LOBBY_NAME:
                raise malformed(f"a lobby room's name is at most {MAX_LOBBY_NAME} characters")
            if session is not None:
                room = _lobby(ref.id, session.policy.lobby_rooms)
                return Speaker(
                    session.app_id,
                    room,
                    Role.MEMBER,
                    session.player_id,
                    session.player_id,
                    session.display_name,
                    -1,
                    None,
                    f"chat-session:{session.session_id}",
                    self.watches.per_token,
                )
            app = require_app(caller)
            policy = await self.policies.app_policy(app.id) or AppPolicy()
            room = _lobby(ref.id, policy.lobby_rooms)
            return self._app_speaker(app.id, room)
        # A direct conversation: the session's player and the other.
        if session is None:
            require_app(caller)
            raise Refused(
                Refusal.FORBIDDEN,
                Reason.SESSION_TOKEN_REQUIRED,
                "direct messages are the two players' own: their sessions only",
            )
        if ref.id == session.player_id:
            raise malformed("room.id of a direct conversation is the other player")
        return Speaker(
            session.app_id,
            direct_room(session.player_id, ref.id),
            Role.MEMBER,
            session.player_id,
            session.player_id,
            session.display_name,
            -1,
            None,
            f"chat-session:{session.session_id}",
            self.watches.per_token,
        )

    def _app_speaker(self, app_id: str, room: Room, table: TableRoomState | None = None) -> Speaker:
        return Speaker(
            app_id,
            room,
            Role.APP,
            "",
            "",
            "",
            -1,
            table,
            f"chat-app:{app_id}",
            self.watches.per_app,
        )

    async def _at_table(self, credentials: Credentials, ref: RoomRef) -> Speaker:
        room = Room(ref.kind, ref.id)
        loaded = await self.access.seat_game(credentials)
        if loaded is None:
            caller = await self.access.identify(credentials)
            if caller.session is not None:
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.SEAT_TOKEN_REQUIRED,
                    "a table's rooms take the seat's (or the spectator's) token",
                )
            app = require_app(caller)
            found = await self.repo.game_state(ref.id)
            if found is None or found[0] != app.id:
                raise Refused(Refusal.NOT_FOUND, Reason.GAME_NOT_FOUND, "no such game")
            return self._app_speaker(app.id, room, _table_state(found[1]))
        token = loaded.player
        if token.game_id != ref.id:
            raise Refused(Refusal.FORBIDDEN, Reason.WRONG_GAME, "this token is another table's")
        state = loaded.state
        seat = token.seat
        player_id = state.seats[seat].player_id if seat >= 0 else ""
        return Speaker(
            loaded.app_id,
            room,
            Role.PLAYER if seat >= 0 else Role.SPECTATOR,
            player_id or f"seat:{token.token_hash}",
            player_id or "",
            token.player_name,
            seat,
            _table_state(state),
            f"chat-token:{token.token_hash}",
            self.watches.per_token,
        )

    def readable(self, speaker: Speaker) -> None:
        if may_read(speaker.room.kind, speaker.role, speaker.table):
            return
        if speaker.room.kind == RoomKind.SPECTATORS and speaker.role == Role.PLAYER:
            raise Refused(
                Refusal.FORBIDDEN,
                Reason.SPECTATOR_CHAT_HELD,
                "at a rated table the players read the spectators' chat once the match is over",
            )
        raise Refused(Refusal.FORBIDDEN, Reason.CHAT_NOT_ALLOWED, "this room is not yours to read")

    # ----- writing -----------------------------------------------------------------------

    async def post(
        self,
        credentials: Credentials,
        ref: RoomRef,
        client_id: str,
        *,
        text: str = "",
        phrase: str = "",
    ) -> ChatMessage:
        """The caller's message in the room: free ``text`` or a quick ``phrase`` (one
        of the two); the same ``client_id`` again is the message already kept."""
        speaker = await self.speaker(credentials, ref)
        _check_client_id(client_id)
        if bool(text) == bool(phrase):
            raise malformed("a message is text or a quick phrase: one of the two")
        try:
            check_post(speaker.room.kind, speaker.role, bool(phrase), speaker.table)
            shown, filtered, kind = "", False, "phrase"
            if phrase:
                check_phrase(phrase)
            else:
                shown, filtered = self.screen(clean_text(text))
                kind = "text"
        except ChatRefused as exc:
            raise _refused(exc) from None
        events: list[Event] = []
        if speaker.author_id:
            await self._not_sanctioned(speaker)
        if speaker.room.kind == RoomKind.DIRECT:
            await self._may_write_to(speaker, ref.id)
        self._limit(speaker)
        now = self.clock()
        new = NewMessage(
            speaker.app_id,
            speaker.room.stored,
            speaker.author_key,
            speaker.author_id,
            speaker.name,
            speaker.seat,
            kind,
            shown,
            phrase,
            filtered,
            client_id,
            now,
        )
        if speaker.room.kind == RoomKind.DIRECT:
            payload = {
                "from_player_id": speaker.author_id,
                "from_display_name": speaker.name,
                "client_message_id": client_id,
                "text": shown,
                "phrase": phrase,
            }
            events.append(Event(ref.id, EventKind.DIRECT_MESSAGE, None, payload))
        kept = await self.repo.post(new, events)
        self._wake(speaker, events)
        return kept

    async def _not_sanctioned(self, speaker: Speaker) -> None:
        sanction = await self.repo.sanction(speaker.app_id, speaker.author_id)
        if sanction is None or not sanction.active(self.clock()):
            return
        banned = sanction.kind == Resolution.BAN
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.CHAT_BANNED if banned else Reason.CHAT_MUTED,
            "your chat is "
            + ("banned" if banned else "muted")
            + (f": {sanction.reason}" if sanction.reason else ""),
            {"until_ms": str(sanction.until_ms), "note": sanction.reason},
        )

    async def _may_write_to(self, speaker: Speaker, other: str) -> None:
        mine, theirs = await self.repo.pair(speaker.app_id, speaker.author_id, other)
        if Relation.BLOCKED in (mine, theirs):
            raise Refused(
                Refusal.FORBIDDEN, Reason.CHAT_NOT_ALLOWED, "you cannot write to that player"
            )
        if mine != Relation.FRIEND:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.NOT_FRIENDS,
                "direct messages are between friends",
            )

    def _limit(self, speaker: Speaker) -> None:
        now = self.clock() / 1000
        wait = self.authors.take(f"{speaker.app_id}:{speaker.author_key}", now)
        if wait:
            raise rate_limited(wait)
        wait = self.rooms.take(f"{speaker.app_id}:{speaker.room.stored}", now)
        if wait:
            self.authors.give_back(f"{speaker.app_id}:{speaker.author_key}")
            raise rate_limited(wait)

    def _wake(self, speaker: Speaker, events: Sequence[Event] = ()) -> None:
        self.notifier.publish(hint_key(speaker.app_id, speaker.room), None)
        for event in events:
            self.event_hints.publish(player_key(event.player_id), None)

    async def amend(
        self, credentials: Credentials, ref: RoomRef, message_id: int, text: str | None
    ) -> ChatMessage:
        """The author's edit (``text``) or deletion (None) of their message, within
        the window; the amendment the room's readers receive."""
        speaker = await self.speaker(credentials, ref)
        if message_id <= 0:
            raise malformed("message_id is a message's id")
        original = await self.repo.message(speaker.app_id, speaker.room.stored, message_id)
        if original is None or original.kind not in ("text", "phrase") or original.deleted:
            raise _not_found()
        if not speaker.author_key or original.author_key != speaker.author_key:
            raise Refused(
                Refusal.FORBIDDEN, Reason.NOT_YOUR_MESSAGE, "only its author changes a message"
            )
        now = self.clock()
        if now - original.created_ms > EDIT_WINDOW_MS:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.EDIT_WINDOW_PASSED,
                f"a message is edited or deleted within {EDIT_WINDOW_MS // 60_000} minutes",
            )
        shown, filtered = "", False
        if text is not None:
            if original.kind != "text":
                raise malformed("a quick phrase is deleted, not edited")
            try:
                shown, filtered = self.screen(clean_text(text))
            except ChatRefused as exc:
                raise _refused(exc) from None
        self._limit(speaker)
        amendment = await self.repo.amend(
            speaker.app_id, original, None if text is None else shown, filtered, now
        )
        self._wake(speaker)
        return amendment

    # ----- reading -----------------------------------------------------------------------

    async def history(
        self, credentials: Credentials, ref: RoomRef, before_id: int, page_size: int
    ) -> Page:
        """The room's messages as they are now, the newest ``page_size`` below
        ``before_id`` (0: the newest), oldest first."""
        speaker = await self.speaker(credentials, ref)
        self.readable(speaker)
        if before_id < 0 or page_size < 0:
            raise malformed("before_id and page_size are 0 or more")
        size = min(page_size or DEFAULT_PAGE, MAX_PAGE)
        rows = await self.repo.messages(
            speaker.app_id, speaker.room.stored, 0, before_id or None, size + 1, True
        )
        older = len(rows) > size
        rows = rows[-size:]
        hidden = await self._hidden(speaker)
        shown = tuple(_as_seen(row, speaker) for row in rows if row.author_id not in hidden)
        return Page(shown, rows[0].id if older and rows else 0)

    async def _hidden(self, speaker: Speaker) -> frozenset[str]:
        if not speaker.author_id:
            return frozenset()
        return await self.repo.hidden_authors(speaker.app_id, speaker.author_id)

    async def watch(
        self, credentials: Credentials, ref: RoomRef, after_id: int
    ) -> AsyncIterator[ChatMessage]:
        """Every message (and amendment) of the room after ``after_id``, in order, as
        they are written, for as long as the caller reads."""
        speaker = await self.speaker(credentials, ref)
        self.readable(speaker)
        if after_id < 0:
            raise malformed("after_id is 0 or more")
        key = hint_key(speaker.app_id, speaker.room)
        with (
            self.watches.hold(speaker.watch_key, speaker.watch_cap),
            self.hints.subscribe(key) as hint,
        ):
            if self.hold is not None:
                await self.hold(key)
            last = after_id
            hidden, hidden_at = await self._hidden(speaker), self.clock()
            while True:
                hint.clear()
                rows = await self._read_after(speaker.app_id, speaker.room.stored, last)
                if self.clock() - hidden_at > HIDDEN_REFRESH_MS:
                    hidden, hidden_at = await self._hidden(speaker), self.clock()
                for row in rows:
                    last = row.id
                    if row.author_id not in hidden:
                        yield _as_seen(row, speaker)
                if len(rows) == MAX_PAGE:
                    continue
                steady = self.steady()
                await hint.wait(self.steady_poll_seconds if steady else self.poll_seconds)

    async def _read_after(self, app_id: str, room: str, after: int) -> list[ChatMessage]:
        """The room's rows after ``after``: read once however many of this process's
        watchers ask at the same time (a room's readers, woken by one message, are
        all at the same point)."""
        key = (app_id, room, after)
        pending = self._reads.get(key)
        if pending is not None:
            try:
                return await asyncio.shield(pending)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not pending.cancelled() or (task is not None and task.cancelling()):
                    raise
                # The reader that started it was cancelled, not this one: read here.
        future: asyncio.Future[list[ChatMessage]] = asyncio.get_running_loop().create_future()
        self._reads[key] = future
        try:
            rows = await self.repo.messages(app_id, room, after, None, MAX_PAGE, False)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: the waiters, if any, raise it themselves
            raise
        else:
            future.set_result(rows)
            return rows
        finally:
            if self._reads.get(key) is future:
                del self._reads[key]


def quick_phrases(language: str) -> list[tuple[str, str]]:
    """Every quick phrase's id and its words in ``language`` ("en", "pt" or "es";
    English for any other)."""
    index = {"pt": 1, "es": 2}.get(language.split("-")[0].lower(), 0)
    return [(phrase, words[index]) for phrase, words in QUICK_PHRASES.items()]


def _as_seen(row: ChatMessage, speaker: Speaker) -> ChatMessage:
    """A message as a reader receives it: its client id for its author only."""
    if row.client_id and row.author_key != speaker.author_key:
        return replace(row, client_id="")
    return row


def _table_state(state: GameState) -> TableRoomState:
    table = state.setup.table
    return TableRoomState(
        table_mode(table.chat, table.competitive, state.setup.players),
        table.competitive,
        state.status == FINISHED,
    )


def _lobby(name: str, allowed: tuple[str, ...]) -> Room:
    try:
        return lobby_room(name, allowed)
    except ChatRefused as exc:
        raise _refused(exc) from None


def _check_client_id(client_id: str) -> None:
    if not 1 <= len(client_id) <= MAX_CLIENT_ID or not client_id.isascii():
        raise malformed(
            f"client_message_id is 1 to {MAX_CLIENT_ID} ASCII characters, new for each message"
        )
    if not client_id.isprintable():
        raise malformed("client_message_id holds printable characters only")


__all__ = [
    "Chat",
    "ChatMessage",
    "ChatRepository",
    "NewMessage",
    "Page",
    "RoomKind",
    "RoomRef",
    "Screen",
    "Speaker",
    "hint_key",
    "quick_phrases",
]
