"""What the use cases need from the outside, and the values that cross: the game
repository (one adapter per database in ``tranca.store``, an in-memory one for the
services' unit tests) and the notifier that wakes watchers.

A change of a game is one ``GameChange``: the new snapshot, written only if the game
is still at the version it was read at (compare-and-swap), with the log rows that
made it, any seat tokens added or revoked, the turn's deadline, and the chips staked
with it; the repository writes it whole or not at all (``GameRepository.commit``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from ..table.events import Event
from ..table.game import Action, GameState, Setup
from .policy import AppPolicy


@dataclass(frozen=True)
class AppRecord:
    id: str
    name: str
    permissions: frozenset[str]


@dataclass(frozen=True)
class TokenRecord:
    game_id: str
    seat: int
    player_name: str
    # The token's hash: what identifies this credential (its rate limit, its watches).
    token_hash: str


class SessionKind(StrEnum):
    SERVER = "server"  # opened by the app's backend (CreatePlayerSession)
    DEVICE = "device"
    GUEST = "guest"
    IDENTITY = "identity"  # an OpenID Connect ID token or a custom token


@dataclass(frozen=True)
class SessionRecord:
    """A live session, as a call's credentials read it."""

    session_id: str
    app_id: str
    player_id: str
    display_name: str
    kind: SessionKind
    token_hash: str  # the access token's hash: its rate limit's key
    refresh_expires_at: int  # epoch ms: no seat token it gets outlives it
    policy: AppPolicy


@dataclass(frozen=True)
class GameRecord:
    id: str
    app_id: str
    status: str
    version: int
    label: str
    created_at: float
    state: GameState
    deadline_at: int | None = None  # when the sweeper looks next (epoch ms)


@dataclass(frozen=True)
class SeatGame:
    """A player token's seat and its game, read together (the move path's one read)."""

    player: TokenRecord
    app_id: str
    version: int
    state: GameState
    deadline_at: int | None = None  # games.deadline_at at that version (epoch ms)


@dataclass(frozen=True)
class LogRecord:
    version: int
    seat: int
    action: Action
    request_id: str | None
    actor: str
    created_at: float


@dataclass(frozen=True, slots=True)
class SeatToken:
    """A seat's new player token (its hash), written with the change that seats it."""

    token_hash: str
    seat: int
    player_name: str
    player_id: str | None = None  # the app's id for the player
    address: str = ""  # the network address the player joined from
    # When the token stops being valid (epoch ms); every issuer sets it (0 is a token
    # that never works).
    expires_at: int = 0
    # The player session it was issued to (JoinGame with a session token), if any:
    # signing out or revoking the player revokes it.
    session_id: str | None = None


@dataclass(frozen=True, slots=True)
class Stake:
    """Every seat's stake, taken into the match's pot in the change's transaction (a
    staked start): refused whole, with the change, if a seat cannot cover it."""

    app_id: str
    player_ids: tuple[str, ...]
    amount: int


@dataclass(frozen=True, slots=True)
class GameChange:
    """One change of one game: ``state`` becomes its snapshot at ``version + 1``, and
    ``action`` its log row, if the game is still at ``version``."""

    game_id: str
    version: int  # the version the change was made on (the compare-and-swap guard)
    state: GameState
    action: Action
    request_id: str | None = None
    actor: str = "player"  # the log's actor: "player", "timeout" or "robot"
    new_token: SeatToken | None = None
    revoke_seat: int | None = None  # the seat whose tokens are revoked with it
    # games.deadline_at: set to ``deadline_at`` (None clears it) if ``deadline_set``.
    deadline_set: bool = False
    deadline_at: int | None = None
    stake: Stake | None = None
    # The players' events of the change (table/events.py), written with it in
    # its transaction (and, for an app with a webhook, their deliveries): an event
    # exists exactly when its change does.
    events: tuple[Event, ...] = ()
    # The actions after ``action`` when the change is a turn of several moves, with
    # the request id each is logged with: each its own log row, at ``version + 2``,
    # ``version + 3``, ...; ``state`` is the game after the last.
    then: tuple[tuple[Action, str | None], ...] = ()
    # The caller uses ``state`` only until it next awaits (a move's answer is built
    # from it at once) and never after: once written, the store may hand this very
    # object to the next read of the game at the new version instead of decoding
    # the snapshot again (``Store.seat_game``).
    keep_state: bool = False


@dataclass(frozen=True)
class Committed:
    version: int
    state: GameState
    replayed: bool  # True: the request id was already in the log
    # Whether the write set games.deadline_at, and to what (None: cleared).
    deadline_set: bool = False
    deadline_at: int | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """An overdue game a sweeper claimed: its deadline is now ``lease_until`` (so no
    other replica claims it meanwhile); ``due`` is the deadline that fell due."""

    game_id: str
    version: int
    due: int
    lease_until: int


@dataclass(frozen=True)
class NewGame:
    """A game to create: its setup and first state, with what the listing shows."""

    app_id: str
    setup: Setup
    state: GameState
    label: str = ""
    invite_hash: str | None = None  # a private table's invite code's hash
    game_id: str = field(default="")  # chosen by the repository when empty
    owner_id: str | None = None  # the table's owner (services/invitations.py), if any


class GameRepository(Protocol):
    """The games, their logs and their seats' tokens, as the use cases see them."""

    async def game(self, game_id: str) -> GameRecord:
        """The game now; ``NotFound`` if there is none."""
        ...

    async def seat_game(self, token: str) -> SeatGame | None:
        """A working player token's seat and its game, in one read; None otherwise."""
        ...

    async def log(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        """The log rows with ``after < version <= upto``, in order."""
        ...

    async def logged_request(self, game_id: str, request_id: str) -> tuple[int, Action] | None:
        """The version and action a request id was logged with, if it was."""
        ...

    async def setup_of(self, game_id: str) -> Setup:
        """What the game was created with; ``NotFound`` if there is none."""
        ...

    async def current_version(self, game_id: str) -> int:
        """The game's version now (-1 if there is no such game)."""
        ...

    async def commit(self, change: GameChange) -> float | None:
        """Write ``change`` whole if the game is still at ``change.version``: the time
        its log rows carry (seconds since the epoch, as ``log`` reads them back);
        None if it moved on. ``DuplicateRequest`` when its request id is logged."""
        ...

    async def create_game(self, new: NewGame) -> str:
        """Store a new game at version 0; its id."""
        ...


class Notifier(Protocol):
    """Wakes this process's watchers of a game (and, through the database, other
    replicas' watchers: the commit itself sends their hint; or through the change
    feed, ``store/nats_feed.py``).

    ``rows`` are the log rows the commit wrote, exactly as the log holds them: a
    watcher whose version they follow on from takes them instead of reading the log
    (``Hints.rows_after``). Empty when the caller does not have them. Without a
    version (a write that may or may not have committed), every watcher reads the log.
    """

    def publish(
        self, game_id: str, version: int | None, rows: Sequence[LogRecord] = ()
    ) -> None: ...


class Wakeup(Protocol):
    """A watcher's wake-up (``store/hints.py``'s ``Signal``): cleared before each
    read, set by each hint; ``wait`` is done once it is set or ``timeout`` seconds
    have passed."""

    def clear(self) -> None: ...

    def is_set(self) -> bool: ...

    @property
    def reread(self) -> bool:
        """Whether a wake since the last ``clear`` asked for a read of the log (hints
        may have been lost), not of the rows that came with the hints."""
        ...

    def wait(self, timeout: float | None = None) -> Awaitable[None]: ...


class EventHints(Protocol):
    """Wakes this process's streams of a player's events (``player_key``); other
    replicas' streams re-read on their timer."""

    def publish(self, key: str, version: int | None = None) -> None: ...


def player_key(player_id: str) -> str:
    """The hint key of a player's event streams (of any app: a stream woken for
    another app's player of the same id reads nothing new)."""
    return f"events:{player_id}"


__all__: Sequence[str] = [
    "AppRecord",
    "Claim",
    "Committed",
    "EventHints",
    "GameChange",
    "GameRecord",
    "GameRepository",
    "LogRecord",
    "NewGame",
    "Notifier",
    "SeatGame",
    "SeatToken",
    "SessionKind",
    "SessionRecord",
    "Stake",
    "TokenRecord",
    "Wakeup",
    "player_key",
]
