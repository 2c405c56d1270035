"""Chat in the room of 003 (pure: no I/O): its rooms, who reads and writes each, a
table's chat mode, the quick phrases, and what a message's text may hold.

003: "Permitir público: otras personas podrán entrar en la mesa para ver la partida
y chatear". A table has two rooms:

- **table**: the seated players write; the players and the spectators read.
- **spectators**: the spectators write and read. At a rated (competitive) table the
  players do not read it until the match is over, so that no watcher can tell a
  player anything (whose hand holds what); at a practice table they read it.

Beside the tables: **lobby** rooms of an app (named by the app's policy), where any
of its players' sessions write and read, and **direct** messages between two
friends.

A table's **chat mode** (its options: off, quick phrases only, free text) is the
table's; where it does not say, a rated partnership table (four players) chats in
quick phrases only, since partners' free text is the first channel of collusion
(a partner saying what they hold), and every other table in free text.

A message's text is cleaned before anything else: Unicode NFC, format characters
(zero-width spaces and joiners, bidirectional controls) removed, since they serve
only to hide a word from a filter or to turn a line around; control characters
refused; runs of spaces made one; 1 to ``MAX_TEXT`` characters.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from ..reasons import Reason

MAX_TEXT = 500  # characters of a message, after cleaning
MAX_LOBBY_NAME = 32
EDIT_WINDOW_MS = 5 * 60 * 1000  # an author edits or deletes a message this long after
_HIDDEN = {"Cf", "Co", "Cs", "Cn"}  # format, private use, surrogates, unassigned


class RoomKind(StrEnum):
    TABLE = "table"
    SPECTATORS = "spectators"
    LOBBY = "lobby"
    DIRECT = "direct"


class ChatMode(StrEnum):
    """What a table's players may write: nothing, quick phrases, or free text."""

    OFF = "off"
    PHRASES = "phrases"
    FREE = "free"


CHAT_MODES = frozenset(m.value for m in ChatMode)


class Role(StrEnum):
    """Who reads or writes a room: a seated player of the table, a spectator of it,
    a player of the app (a session: lobby rooms, direct messages), or the app itself
    (its key: reads every room of its app, for moderation)."""

    PLAYER = "player"
    SPECTATOR = "spectator"
    MEMBER = "member"
    APP = "app"


@dataclass(frozen=True)
class Room:
    """A room: its kind and its key (a game's id, a lobby room's name, or the two
    players of a direct conversation, in order)."""

    kind: RoomKind
    key: str

    @property
    def stored(self) -> str:
        return f"{self.kind.value}:{self.key}"


def direct_room(a: str, b: str) -> Room:
    low, high = sorted((a, b))
    return Room(RoomKind.DIRECT, f"{len(low)}:{low}:{high}")


def direct_members(room: Room) -> tuple[str, str]:
    """The two players of a direct room (as ``direct_room`` made its key)."""
    size, _, rest = room.key.partition(":")
    n = int(size)
    return rest[:n], rest[n + 1 :]


class ChatRefused(Exception):
    """A message or a reader the room refuses; ``reason`` is the API's."""

    def __init__(self, reason: Reason, message: str, *, malformed: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.malformed = malformed


def table_mode(chosen: str, competitive: bool, players: int) -> ChatMode:
    """A table's chat mode: the one its options chose, else quick phrases at a rated
    partnership table and free text elsewhere (module docstring)."""
    if chosen:
        return ChatMode(chosen)
    return ChatMode.PHRASES if competitive and players == 4 else ChatMode.FREE


@dataclass(frozen=True)
class TableRoomState:
    """What a table's rooms depend on: its chat mode, whether it is rated, and
    whether its match is over."""

    mode: ChatMode
    competitive: bool
    over: bool


def may_read(kind: RoomKind, role: Role, table: TableRoomState | None = None) -> bool:
    if role == Role.APP:
        return True
    if kind == RoomKind.TABLE:
        return role in (Role.PLAYER, Role.SPECTATOR)
    if kind == RoomKind.SPECTATORS:
        if role == Role.SPECTATOR:
            return True
        # Held in at a rated table until the match is over.
        return role == Role.PLAYER and table is not None and (not table.competitive or table.over)
    return role == Role.MEMBER


def check_post(kind: RoomKind, role: Role, phrase: bool, table: TableRoomState | None) -> None:
    """``ChatRefused`` where the role may not write that kind of message there."""
    if kind == RoomKind.TABLE:
        if role != Role.PLAYER:
            raise ChatRefused(
                Reason.CHAT_NOT_ALLOWED,
                "only the table's players write in its room: spectators have their own",
            )
        assert table is not None
        if table.mode == ChatMode.OFF:
            raise ChatRefused(Reason.CHAT_NOT_ALLOWED, "this table's chat is off")
        if table.mode == ChatMode.PHRASES and not phrase:
            raise ChatRefused(
                Reason.CHAT_PHRASES_ONLY,
                "this table chats in quick phrases only (ListQuickPhrases)",
            )
        return
    if kind == RoomKind.SPECTATORS:
        if role != Role.SPECTATOR:
            raise ChatRefused(
                Reason.CHAT_NOT_ALLOWED, "only the table's spectators write in their room"
            )
        return
    if role != Role.MEMBER:
        raise ChatRefused(Reason.CHAT_NOT_ALLOWED, "a player's session writes here")


def clean_text(text: str) -> str:
    """The text as kept (module docstring), or ``ChatRefused`` (malformed)."""
    if any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in text):
        raise ChatRefused(
            Reason.MALFORMED_REQUEST, "a message holds no control characters", malformed=True
        )
    shown = "".join(
        c for c in unicodedata.normalize("NFC", text) if unicodedata.category(c) not in _HIDDEN
    )
    shown = " ".join(shown.split())
    if not shown:
        raise ChatRefused(Reason.MALFORMED_REQUEST, "a message holds some text", malformed=True)
    if len(shown) > MAX_TEXT:
        raise ChatRefused(
            Reason.MALFORMED_REQUEST,
            f"a message is at most {MAX_TEXT} characters",
            malformed=True,
        )
    return shown


def lobby_room(name: str, allowed: tuple[str, ...]) -> Room:
    if name not in allowed:
        raise ChatRefused(
            Reason.CHAT_ROOM_NOT_FOUND, "the app has no lobby room of that name (its policy)"
        )
    return Room(RoomKind.LOBBY, name)


# The quick phrases (003's room, and the Brazilian card rooms' "Boa!", "Vou bater"):
# an id, and its words in English, Portuguese and Spanish.
QUICK_PHRASES: dict[str, tuple[str, str, str]] = {
    "hello": ("Hello!", "Olá!", "¡Hola!"),
    "good_luck": ("Good luck!", "Boa sorte!", "¡Buena suerte!"),
    "nice": ("Nice!", "Boa!", "¡Bien!"),
    "well_played": ("Well played!", "Bem jogado!", "¡Bien jugado!"),
    "going_out": ("I'm going out", "Vou bater", "Voy a cerrar"),
    "hurry": ("Let's go!", "Vamos lá!", "¡Vamos!"),
    "thinking": ("Thinking...", "Pensando...", "Pensando..."),
    "oops": ("Oops!", "Ops!", "¡Uy!"),
    "thanks": ("Thanks!", "Obrigado!", "¡Gracias!"),
    "good_game": ("Good game!", "Bom jogo!", "¡Buena partida!"),
    "rematch": ("Rematch?", "Revanche?", "¿Revancha?"),
    "bye": ("Bye!", "Tchau!", "¡Adiós!"),
}


def check_phrase(phrase: str) -> str:
    if phrase not in QUICK_PHRASES:
        raise ChatRefused(
            Reason.MALFORMED_REQUEST,
            "no quick phrase of that id (ListQuickPhrases)",
            malformed=True,
        )
    return phrase


__all__ = [
    "CHAT_MODES",
    "EDIT_WINDOW_MS",
    "MAX_LOBBY_NAME",
    "MAX_TEXT",
    "QUICK_PHRASES",
    "ChatMode",
    "ChatRefused",
    "Role",
    "Room",
    "RoomKind",
    "TableRoomState",
    "check_phrase",
    "check_post",
    "clean_text",
    "direct_members",
    "direct_room",
    "lobby_room",
    "may_read",
    "table_mode",
]
