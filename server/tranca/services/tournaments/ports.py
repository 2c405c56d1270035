"""What crosses the tournaments' repository port: the tournament as stored, what a
change writes beside its events, a round's new games, and the two repositories
(``TournamentRepository``; ``TournamentResults``, inside a settlement's
transaction). ``store/tournament_store.py`` implements them on a database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ...platform.entry_fees import (
    ChipMoves,
)
from ...platform.tournament_events import (
    Event,
    TournamentConfig,
    rebuild,
)
from ...platform.tournaments import (
    Standing,
    Tournament,
)
from ...table.events import Event as PlayerEvent
from ..ports import GameChange, NewGame, SeatToken

# (round, table) -> game id, and (round, table, seat) -> a new seat's token.
GamesByTable = dict[tuple[int, int], str]
TokensBySeat = dict[tuple[int, int, int], str]


@dataclass
class TournamentRow:
    """A tournament as stored: ``version`` is what a change compares and swaps."""

    id: str
    app_id: str
    name: str
    version: int
    config: TournamentConfig
    events: list[Event]
    # The standings the latest change stored; None for a tournament stored before
    # they were kept (computed when it is read, until its next change).
    standings: list[Standing] | None = None
    # The status the latest change stored ("": not read): a change that finishes or
    # cancels the tournament is the one that moves status from running, and so the
    # one that pays out or refunds its prize pool.
    status: str = ""

    def rebuild(self) -> Tournament:
        return rebuild(self.config, self.events)


@dataclass(frozen=True)
class Written:
    """What a change writes beside its events, from the tournament it leaves: its
    status, its standings, when a sweeper is next due (``next_due``), how many
    entrants are in (for listings) and what its players are told (``notices``,
    written as player events in the same transaction)."""

    status: str
    standings: Sequence[Standing]
    due_at: int | None
    entrants: int
    notices: Sequence[PlayerEvent] = ()
    # What the change moves through the prize pool (``entry_fees``), posted with it.
    chips: ChipMoves = field(default_factory=ChipMoves)


@dataclass
class TableGame:
    """A tournament table's new game, written with its round: the game as created
    (version 0), and every seat's join (versions 1..n), each with the seat's token, as
    the changes ``Moves`` would write one by one."""

    round_no: int
    table_no: int
    new: NewGame
    joins: list[GameChange]

    @property
    def game_id(self) -> str:
        return self.new.game_id


@dataclass(frozen=True)
class TableOfGame:
    """The tournament table a game is played at: the tournament as read (locked
    against other changes until the reading transaction ends), the round and table."""

    row: TournamentRow
    round_no: int
    table_no: int


class TournamentRepository(Protocol):
    """The tournaments, the games of their tables and those games' statuses."""

    async def create_tournament(
        self, app_id: str, name: str, config: TournamentConfig, written: Written
    ) -> str:
        """Store a new tournament (no events yet) with what ``written`` says; its id."""
        ...

    async def load_tournament(self, tournament_id: str, app_id: str) -> TournamentRow | None:
        """The app's tournament; None for an unknown id or another app's tournament."""
        ...

    async def tournament_version(self, tournament_id: str, app_id: str) -> int | None:
        """The app's tournament's version; None for an unknown id or another app's."""
        ...

    async def table_games(self, tournament_id: str) -> GamesByTable:
        """The game of every table created so far, by (round, table)."""
        ...

    async def game_statuses(self, game_ids: Sequence[str]) -> dict[str, str]:
        """Each game's status now (waiting, playing, finished)."""
        ...

    async def add_seat_tokens(self, tokens: Sequence[tuple[str, SeatToken]]) -> None:
        """More tokens for seats already taken (``(game_id, token)`` pairs)."""
        ...

    async def count_running(self) -> int:
        """Tournaments running now (every app's)."""
        ...

    async def append_events(self, row: TournamentRow, new: list[Event], written: Written) -> bool:
        """Append events to the tournament as ``row`` read it, with what they leave
        (``written``: status, standings, when a sweeper is next due); False (nothing
        written) if it changed since."""
        ...

    async def list_tournaments(
        self, app_id: str, query: TournamentQuery, offset: int, limit: int
    ) -> list[TournamentSummary]:
        """The app's tournaments matching ``query``, by start time then creation."""
        ...

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[tuple[str, str]]:
        """Scheduled tournaments due by ``now`` (``(id, app_id)``), each claimed for
        ``lease_ms`` by this caller alone."""
        ...

    async def set_due(self, row: TournamentRow, due_at: int | None) -> bool:
        """When the tournament is next due, if still at ``row``'s version."""
        ...

    async def write_round(
        self,
        row: TournamentRow,
        new: list[Event],
        games: Sequence[TableGame],
        written: Written,
    ) -> bool:
        """``append_events`` and the round's games with their seats taken, in one
        transaction: the whole round or nothing. False if the tournament changed."""
        ...


class TournamentResults(Protocol):
    """A game's tournament table read and changed inside the caller's transaction (the
    settlement's): written with the game's settlement or not at all."""

    async def table_of_game(self, game_id: str) -> TableOfGame | None:
        """The tournament table of ``game_id``, its tournament locked against other
        changes until the transaction ends; None for a game of no tournament."""
        ...

    async def append_events(self, row: TournamentRow, new: list[Event], written: Written) -> bool:
        """As ``TournamentRepository.append_events``, in the caller's transaction."""
        ...


# ----- what the use cases take and give ---------------------------------------------------


@dataclass(frozen=True)
class TournamentQuery:
    """ListTournaments' filters (empty or 0: any)."""

    status: str = ""
    preset: str = ""
    starts_after: int = 0  # epoch ms, inclusive
    starts_before: int = 0  # epoch ms, exclusive
    page_size: int = 0
    page_token: str = ""


@dataclass(frozen=True)
class TournamentSummary:
    """A tournament in a listing."""

    id: str
    name: str
    status: str
    format: str
    preset: str
    start_at: int  # epoch ms; 0: not scheduled
    entrants: int  # entrants in (withdrawn ones not counted)
    registration: bool
    max_entrants: int
    entry_fee: int = 0  # chips each player pays to enter
