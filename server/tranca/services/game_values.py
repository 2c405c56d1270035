"""What the games' use cases take and give (services/games.py, services/watch.py): the
table to create, the seat wanted, and the answers the transports translate.

The answers made on every move (``Shown``, ``Moved``, ``Listed``) are slotted and not
frozen: a frozen dataclass sets each field through ``object.__setattr__``, several
times the cost of a plain one. Each is made for one answer, and nothing changes it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tranca_rules.state import DealState

from ..table.fairness import Reveal
from ..table.game import GameState, TableOptions
from .move_values import MoveValue
from .ports import GameRecord, LogRecord


@dataclass(frozen=True)
class NewTable:
    """A table to create, its fields read from the request."""

    preset: str
    overrides: dict[str, Any]
    players: int
    table: TableOptions
    seed: int = 0  # 0: the server picks one
    deck: Sequence[str] = ()  # the first deal's deck (card texts), where the app fixes it
    label: str = ""
    spectators_allowed: bool = False
    # The table's owner the app names (its key only; a session's table is its
    # player's): who invites to it, whose friends a private table admits.
    owner_id: str = ""


@dataclass(frozen=True)
class Joining:
    """A seat (or a spectator's place) wanted at a table."""

    seat: int = -1  # -1: the lowest free seat
    player_name: str = ""
    player_id: str = ""
    spectator: bool = False
    robot: bool = False
    invite_code: str = ""
    address: str = ""  # the player's address as the app saw it; empty: the caller's
    token_lifetime_seconds: int = 0  # 0: the server's default


@dataclass(frozen=True)
class Seated:
    seat: int
    token: str = ""  # none for a robot's seat
    expires_at: int = 0


@dataclass(slots=True)
class Shown:
    """A game as one reader sees it at one version (the transport builds the view)."""

    game_id: str
    version: int
    state: GameState
    seat: int  # -1: an app or a spectator (no hand)
    deadline_at: int | None = None
    # The final table of the deal that ended (``GameState.deal_board``) is withheld
    # (services/boards.py).
    board_hidden: bool = False


@dataclass(slots=True)
class Listed(Shown):
    """The seat's game and its legal moves now, in canonical order (none when it is
    not its turn)."""

    legal: Sequence[MoveValue] = ()


@dataclass(slots=True)
class Moved:
    shown: Shown
    replayed: bool
    # The seat's legal moves after the move, where the caller asked for them.
    legal: Sequence[MoveValue] = ()


@dataclass(frozen=True)
class DealReplay:
    deal_number: int
    dealer: int
    result: dict[str, Any] | None = None  # the deal's result, once it is over
    deck: list[int] | None = None  # the cards as dealt, once nothing of them is hidden
    reveal: Reveal | None = None  # a verifiable deal's proof
    # The deal as it ended (its whole table), given with its cards.
    final: DealState | None = None


@dataclass(frozen=True)
class LoggedChange:
    row: LogRecord
    deal_number: int  # the game's deal number after the change (the next deal's
    # for the change that ended a deal and dealt the next)
    ended_deal: int = 0  # the deal the change ended, 0 if none


@dataclass(frozen=True)
class Replay:
    game: GameRecord
    seed: int | None  # shown once the match is over and no table of its round plays
    moves: list[LoggedChange]
    deals: list[DealReplay] = field(default_factory=list)


@dataclass(frozen=True)
class WatchUpdate:
    shown: Shown
    change: LoggedChange | None = None  # None for the first view of a watch from 0
