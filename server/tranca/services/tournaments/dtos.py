"""What the tournaments' use cases take (``NewTournament``) and give (``TournamentShown``,
``RoundShown``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...platform.tournament_events import (
    RoundTimeout,
    TournamentConfig,
)
from ...platform.tournaments import (
    Entrant,
    Format,
    KnockoutTie,
    Outcome,
    Points,
    Round,
    Standing,
    TieBreaker,
    Tournament,
)
from ...table.game import (
    TableOptions,
)
from .ports import GamesByTable, TokensBySeat, TournamentRow


@dataclass(frozen=True)
class NewTournament:
    """A tournament to create, its fields as the request gave them (checked here)."""

    name: str
    format: Format | None  # None: no format given, or one this server does not know
    entrants: Sequence[Entrant]  # ids and player ids as given (player ids are trimmed)
    table_size: int
    preset: str
    # The rules' knob overrides, read only once the checks before them pass (reading
    # them may refuse them).
    overrides: Callable[[], dict[str, Any]]
    table: TableOptions
    seed: int = 0  # 0: the server picks one
    rounds: int = 0  # 0: the format's own count
    duplicate: bool = False
    round_decks: Sequence[str] = ()  # card texts, separated by spaces or commas
    knockout_tie: KnockoutTie = KnockoutTie.HIGHER_SEED
    start_deadline_seconds: int = 0  # 0: DEFAULT_START_DEADLINE_SECONDS
    start_at: int = 0  # epoch ms; 0: not scheduled
    round_break_seconds: int = 0
    round_time_limit_seconds: int = 0
    round_timeout: RoundTimeout = RoundTimeout.DOUBLE_NO_SHOW
    registration: bool = False  # entrants may register (RegisterEntrant)
    max_entrants: int = 0  # 0: MAX_ENTRANTS
    late_registration_rounds: int = 0  # Swiss: registration open until round N started
    check_in_seconds: int = 0  # scheduled: check-in opens this long before the start
    registration_opens_at: int = 0  # epoch ms; 0: at once
    registration_closes_at: int = 0  # epoch ms; 0: at the start
    points: Points | None = None  # None: 1, 1/2, 0 and a bye 1
    # The tie-breaks in order (empty: the default; None in it: one this server
    # does not know, refused).
    tie_breaks: Sequence[TieBreaker | None] = ()
    playoff: int = 0  # a Swiss's play-off: a knockout of its top N
    spectators: bool = False  # spectators may watch the tables
    entry_fee: int = 0  # chips each player pays to enter (0: free)
    payout: Sequence[int] = ()  # percent of the pool by place (empty: the default)
    house_percent: int | None = None  # None: the ledger's (003's 25 %)


@dataclass(frozen=True)
class TournamentShown:
    """A tournament as its organiser sees it: ``decks_shown`` are the duplicate rounds
    whose deck is no longer any table's hidden cards."""

    row: TournamentRow
    tournament: Tournament
    games: GamesByTable
    standings: Sequence[Standing]
    decks_shown: frozenset[int] = frozenset()
    prize_pool: int = 0  # chips in the prize pool now
    prizes: Mapping[str, int] = field(default_factory=dict)  # once finished, by entrant
    # Its view, once computed (``views.tournament_view``): the use case answers a read
    # of an unchanged tournament with the same ``TournamentShown``, so the view is
    # computed once per version. Not copied by ``dataclasses.replace``: a copy with
    # other decks shown computes its own.
    view_kept: list[TournamentView] = field(
        init=False, default_factory=list, compare=False, repr=False
    )


@dataclass(frozen=True)
class RoundShown:
    """A round as StartRound answers it: the seats in ``tokens`` show their new token,
    valid until ``token_expires_at`` (epoch ms)."""

    config: TournamentConfig
    tournament: Tournament
    round: Round
    games: GamesByTable
    tokens: TokensBySeat
    deck_shown: bool
    token_expires_at: int


# ----- what a transport shows -------------------------------------------------------------


@dataclass(frozen=True)
class SeatView:
    """A table's seat: its player and, just after StartRound, its new token."""

    seat: int
    player_id: str
    player_token: str = ""  # "": no new token
    token_expires_at: int = 0  # epoch ms; 0 without a token


@dataclass(frozen=True)
class TableView:
    """A round's table: its sides, its game, its result (None: none yet), its seats."""

    number: int
    entrant_a: str
    entrant_b: str
    game_id: str
    outcome: Outcome | None
    seats: tuple[SeatView, ...]


@dataclass(frozen=True)
class RoundView:
    """A round as its organiser sees it: ``deck`` (card texts) once a duplicate
    round's deck may be shown, else empty."""

    number: int
    byes: tuple[str, ...]
    deck: tuple[str, ...]
    tables: tuple[TableView, ...]


@dataclass(frozen=True)
class CorrectionView:
    """A corrected result: the audit trail's entry."""

    round: int
    table: int
    previous: Outcome | None  # None: the table had no result recorded as such
    outcome: Outcome
    reason: str
    at: int  # epoch ms


@dataclass(frozen=True)
class StandingView:
    """An entrant's place in the standings, with its prize once finished."""

    standing: Standing
    prize: int


@dataclass(frozen=True)
class TournamentView:
    """A tournament as its organiser sees it, every value computed: what a transport
    writes out as it is. Scheduling fields are 0 for a tournament not scheduled,
    registration fields for one without registration, prize fields without a fee."""

    id: str
    name: str
    format: Format
    status: str
    table_size: int
    total_rounds: int
    champion: str
    duplicate: bool
    start_deadline_seconds: int
    knockout_tie: KnockoutTie | None  # None: no knockout round
    points: Points
    tie_breaks: tuple[TieBreaker, ...]
    playoff_size: int
    spectators: bool
    corrections: tuple[CorrectionView, ...]
    swiss_rounds: int
    scheduled: bool
    start_at: int
    round_break_seconds: int
    round_time_limit_seconds: int
    round_timeout: RoundTimeout | None  # None: not scheduled
    next_at: int
    registration: bool
    max_entrants: int
    late_registration_rounds: int
    registration_opens_at: int
    registration_closes_at: int
    check_in_seconds: int
    checked_in: tuple[str, ...]
    entrants: tuple[Entrant, ...]  # registered ones too, in seed order
    rounds: tuple[RoundView, ...]
    entry_fee: int
    payout: tuple[int, ...]
    house_percent: int
    prize_pool: int
    standings: tuple[StandingView, ...]
    # The tables of every round: how much a translation of it costs.
    table_count: int
    # A transport's translation of this view, kept with it (the use case keeps the
    # latest shown of each tournament: a read of an unchanged one translates nothing
    # again). Keyed by the transport.
    translations: dict[str, object] = field(
        default_factory=dict, compare=False, repr=False, hash=False
    )
