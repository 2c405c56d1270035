"""Tournaments whose tables are games: create one, read it, start its rounds, record
forfeits and withdrawals, and record a finished game's result in its tournament.

A tournament is kept as its configuration and its events (``platform.
tournament_events``); the pure ``platform.tournaments.Tournament`` rebuilt from them
on every call pairs the rounds and ranks the entrants. Every change is a
compare-and-swap on the tournament's version through the repository (the port
below, ``store/tournament_store.py`` on a database), retried here when another
change won, so two concurrent changes never both apply to the same version.

StartRound pairs the next round and writes it with all its games, every seat
joined, in one transaction (``TournamentRepository.write_round``), then starts the
games (``Matches.start``, which takes a staked table's stakes); a retry of the round
starts a game left waiting and answers fresh seat tokens. A game's result reaches
its tournament through the settlement (``services/settlement.py``), which calls
``record_game_result`` inside its own transaction. See docs/platform/tournaments.md.

Nothing heavy runs on the event loop (``services/compute.py``): a Swiss round is
paired in a worker process, once, when it starts (a load takes the stored pairs);
the standings are computed by the change that moves them (a result, a round's byes,
a withdrawal; in a worker thread for a large event) and stored in its transaction,
so a read shows them as stored; and a read of a tournament this process has shown
at its current version answers it again without rebuilding it (``get``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import secrets
import uuid
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import structlog

from .. import metrics
from ..app.deadlines import turn_deadline
from ..app.fairness import deck_size, new_server_secret
from ..app.game import (
    ENDED_BY_APP,
    FINISHED,
    NO_RESULT,
    NOT_STARTED,
    WAITING,
    Action,
    GameError,
    GameState,
    Setup,
    TableOptions,
    apply_action,
    new_game,
)
from ..app.notifications import Event as PlayerEvent
from ..app.notifications import EventKind
from ..platform import tournament_export as export
from ..platform.chips import InsufficientChips
from ..platform.duplicate import DuplicateRound
from ..platform.entry_fees import (
    ChipMoves,
    PrizeRules,
    fees_held,
    field_of,
    moves_of,
    pool_and_prizes,
)
from ..platform.tournament_events import (
    CANCELLED,
    DEFAULT_START_DEADLINE_SECONDS,
    MAX_START_DEADLINE_SECONDS,
    SCHEDULE_LEASE_MS,
    Event,
    RoundTimeout,
    TournamentConfig,
    check_in_event,
    correction_event,
    drop_no_shows,
    latest_result,
    next_due,
    pair_event,
    rebuild,
    register_event,
    result_event,
    round_dealt_out,
    status_of,
    unregister_event,
    withdraw_event,
)
from ..platform.tournament_events import (
    FINISHED as FINISHED_STATUS,
)
from ..platform.tournaments import (
    DEFAULT_TIE_BREAKS,
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
from ..rules.match import DRAWN
from ..rules.presets import Rules
from .access import Access, Credentials
from .compute import Compute, off_loop, off_loop_if_large
from .credentials import new_seat_token
from .errors import Refusal, Refused, malformed
from .games import fixed_deck, robot_level_allowed, rules_and_table
from .limits import DEFAULT_TOKEN_LIFETIME, page_offset
from .matches import Matches
from .moves import now_ms
from .ports import AppRecord, GameChange, NewGame, SeatToken
from .robots import EXPERT

log = structlog.get_logger("tranca.tournaments")

# A player id's length (JoinGameRequest.player_id's max_chars; Entrant's).
MAX_PLAYER_ID = 128
MAX_ENTRANTS = 1024
MAX_SWISS_ROUNDS = 64
# ListTournaments' pages.
DEFAULT_PAGE, MAX_PAGE = 50, 200
# Tournaments whose latest read this process keeps (``Tournaments.get``): at most
# a few megabytes each (a thousand entrants' events and rounds).
SHOWN_KEPT = 32
# Games of a round started at once: enough that a large round starts in a few round
# trips, few enough not to take every database connection of the pool.
CONCURRENT_STARTS = 8
# How often a change re-reads and retries after losing the compare-and-swap to
# another change of the same tournament before giving up (each retry sees the
# winner's change, so this is reached only under a storm of concurrent changes).
CAS_ATTEMPTS = 8
# The outcomes an organiser records (RecordForfeit); a game's own result is recorded
# by the settlement.
FORFEIT_OUTCOMES = frozenset({Outcome.A_FORFEITS, Outcome.B_FORFEITS, Outcome.DOUBLE_NO_SHOW})

# A scheduled tournament's limits: a round break up to a day, a round clock up to a
# week (a correspondence event).
MAX_ROUND_BREAK_SECONDS = 86_400
MAX_ROUND_TIME_LIMIT_SECONDS = 7 * 86_400
# Scheduled tournaments a sweep claims at once.
SCHEDULE_BATCH = 10
# The result events' sources: a game's settlement, the organiser's forfeit, the
# round's clock (a table without a result at the round's deadline).
FROM_GAME, FROM_FORFEIT, FROM_CLOCK = "game", "forfeit", "clock"

# (round, table) -> game id, and (round, table, seat) -> a new seat's token.
GamesByTable = dict[tuple[int, int], str]
TokensBySeat = dict[tuple[int, int, int], str]


class TournamentConflict(Exception):
    """The tournament kept changing under a game's result being recorded (inside the
    settlement's transaction, which then rolls back and is tried again)."""


def bad_config(message: str) -> Refused:
    return Refused(Refusal.MALFORMED, "BAD_TOURNAMENT", message)


def not_found() -> Refused:
    return Refused(Refusal.NOT_FOUND, "TOURNAMENT_NOT_FOUND", "no such tournament")


def refused(reason: str, message: str) -> Refused:
    return Refused(Refusal.PRECONDITION, reason, message)


def count_chips(moves: ChipMoves) -> None:
    """tranca_chips_moved_total for a tournament change's prize pool movements, once
    its transaction committed."""
    for purpose, amount in (
        ("entry_fee", sum(moves.pay_ins.values())),
        ("entry_refund", sum(moves.refunds.values())),
        ("house_share", moves.house),
        ("prize", sum(moves.prizes.values())),
    ):
        if amount:
            metrics.CHIPS_MOVED.labels(purpose).inc(amount)


def cannot_pay(exc: InsufficientChips) -> Refused:
    # Ids only in the message: never a player's balance.
    return refused(
        "INSUFFICIENT_CHIPS", f"player {exc.player} cannot cover the entry fee of {exc.needed}"
    )


def busy() -> Refused:
    return Refused(Refusal.CONFLICT, "TOURNAMENT_CONFLICT", "the tournament kept changing: retry")


# ----- what crosses the repository port ---------------------------------------------------


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


async def rebuilt(row: TournamentRow) -> Tournament:
    """``row.rebuild()``, in a worker thread for a large event (linear in the events:
    milliseconds for a thousand entrants; a fraction of one for 64, done here:
    ``compute.off_loop_if_large``)."""
    return await off_loop_if_large(len(row.events), row.rebuild)


async def standings_of(t: Tournament) -> list[Standing]:
    """``t.standings()``, in a worker thread for a large event (linear in the tables)."""
    return await off_loop_if_large(sum(len(r.tables) for r in t.rounds), t.standings)


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


async def written(
    row: TournamentRow | str, config: TournamentConfig, t: Tournament, new: Sequence[Event]
) -> Written:
    """``Written`` for ``t`` as ``row``'s events and the ``new`` ones left it (``row``:
    the tournament's id for a new one); its standings computed in a worker thread."""
    old = row.events if isinstance(row, TournamentRow) else []
    tid = row.id if isinstance(row, TournamentRow) else row
    standings = await standings_of(t)
    status = status_of(t)
    return Written(
        status,
        standings,
        next_due(config, t, [*old, *new]),
        len(t.ids) - len(t.withdrawn),
        notices(tid, t, new, standings),
        money_moved(row, config, t, new, status, standings),
    )


def money_moved(
    row: TournamentRow | str,
    config: TournamentConfig,
    t: Tournament,
    new: Sequence[Event],
    status: str,
    standings: Sequence[Standing],
) -> ChipMoves:
    """What a change moves through the prize pool: the fees of entrants who entered
    (at creation too: ``row`` is then the new tournament's id) or left the field
    before the start, and the pool paid out or refunded by the change that finishes
    or cancels the tournament (its stored status moves from running or registered:
    a correction after the finish pays nothing again)."""
    rules = config.prizes
    if not rules.entry_fee:
        return ChipMoves()
    if isinstance(row, str):
        # A new tournament: its entrants given at creation pay as it is stored.
        old: Sequence[Event] = []
        before: Counter[str] = Counter()
    elif row.status in (FINISHED_STATUS, CANCELLED):
        return ChipMoves()
    else:
        old = row.events
        before = fees_held(rules, field_of(config.entrants, old))
    after = fees_held(rules, field_of(config.entrants, [*old, *new]))
    return moves_of(
        rules,
        before,
        after,
        cancelling=status == CANCELLED,
        finishing=status == FINISHED_STATUS,
        standings=standings,
        entrants=t.entrants,
    )


def notices(
    tournament_id: str, t: Tournament, new: Sequence[Event], standings: Sequence[Standing]
) -> list[PlayerEvent]:
    """What the players are told of ``new`` events (``t`` as they left it): each
    recorded result to both sides' players (``tournament_result``: won, lost or
    drawn, the source, points and rank now); at a knockout table the winner
    ``tournament_advanced`` (to the next round, or champion) and the loser
    ``tournament_eliminated``; when a play-off's first round is paired, its entrants
    ``tournament_advanced`` and the rest ``tournament_eliminated``."""
    place = {s.entrant: s for s in standings}
    out: list[PlayerEvent] = []

    def tell(entrant: str, kind: EventKind, payload: dict[str, Any]) -> None:
        for player in t.entrants[entrant].players:
            body = {"tournament_id": tournament_id, "entrant": entrant, **payload}
            out.append(PlayerEvent(player, kind, None, body))

    for event in new:
        if event["type"] in ("result", "correction"):
            round_no, table_no = int(event["round"]), int(event["table"])
            table = t.rounds[round_no - 1].tables[table_no - 1]
            effects = RESULT_WORDS[Outcome(event["outcome"])]
            for entrant, said in ((table.a, effects[0]), (table.b, effects[1])):
                standing = place.get(entrant)
                tell(
                    entrant,
                    EventKind.TOURNAMENT_RESULT,
                    {
                        "round": round_no,
                        "table": table_no,
                        "result": said,
                        "outcome": event["outcome"],
                        "source": event.get("source", "correction"),
                        "points": standing.points if standing else 0.0,
                        "rank": standing.rank if standing else 0,
                    },
                )
                if not t.is_knockout_round(round_no) or event["type"] == "correction":
                    continue
                if said == "won":
                    last = round_no == t.total_rounds
                    tell(
                        entrant,
                        EventKind.TOURNAMENT_ADVANCED,
                        {
                            "round": round_no,
                            "next_round": 0 if last else round_no + 1,
                            "champion": last,
                        },
                    )
                else:
                    tell(entrant, EventKind.TOURNAMENT_ELIMINATED, {"round": round_no})
        elif event["type"] == "pair" and t.playoff and int(event["round"]) == t.swiss_rounds + 1:
            qualified = set(t.playoff_seeds)
            for entrant in t.ids:
                if entrant in qualified:
                    payload = {"round": t.swiss_rounds, "next_round": t.swiss_rounds + 1}
                    tell(entrant, EventKind.TOURNAMENT_ADVANCED, {**payload, "champion": False})
                elif entrant not in t.withdrawn:
                    tell(entrant, EventKind.TOURNAMENT_ELIMINATED, {"round": t.swiss_rounds})
    return out


# Each outcome as its sides A and B are told it.
RESULT_WORDS = {
    Outcome.A_WINS: ("won", "lost"),
    Outcome.B_WINS: ("lost", "won"),
    Outcome.DRAW: ("drawn", "drawn"),
    Outcome.A_FORFEITS: ("lost", "won"),
    Outcome.B_FORFEITS: ("won", "lost"),
    Outcome.DOUBLE_NO_SHOW: ("lost", "lost"),
}


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


# ----- rules ------------------------------------------------------------------------------


# An organiser's pairing: the tables (side A, side B) and the byes.
PairingOverride = tuple[Sequence[tuple[str, str]], Sequence[str]]


def overridden(t: Tournament, number: int, override: PairingOverride) -> Round:
    """Round ``number`` of ``t`` as the organiser paired it: a Swiss round (not a
    play-off's), every entrant still in at exactly one table or among the byes
    (BAD_PAIRING otherwise); ``t`` takes it as a stored round."""
    pairs, byes = override
    if t.format != Format.SWISS or t.is_knockout_round(number):
        raise refused("PAIRING_NOT_ALLOWED", "only a Swiss round takes the organiser's pairing")
    named = [e for p in pairs for e in p] + list(byes)
    active = {e for e in t.ids if e not in t.withdrawn}
    if len(named) != len(set(named)) or set(named) != active:
        raise Refused(
            Refusal.MALFORMED,
            "BAD_PAIRING",
            "every entrant still in, once: at a table or among the byes",
        )
    if not pairs:
        raise Refused(Refusal.MALFORMED, "BAD_PAIRING", "a round has at least one table")
    return t.restore_round(number, list(pairs), list(byes))


def tournament_config(new: NewTournament, app: AppRecord) -> TournamentConfig:
    """The tournament's configuration, every refusal a MALFORMED one (BAD_TOURNAMENT,
    or INVALID_RULES for the rules) but FIXED_DECK_NOT_ALLOWED for decks without the
    permission."""
    fmt = new.format
    if fmt is None:
        raise bad_config("format is required")
    if new.table_size not in (2, 4):
        raise bad_config("table_size is 2, or 4 for partnerships")
    least = 0 if new.registration else 2
    if not least <= len(new.entrants) <= MAX_ENTRANTS:
        raise bad_config(f"a tournament has {least} to {MAX_ENTRANTS} entrants")
    if not 0 <= new.max_entrants <= MAX_ENTRANTS:
        raise bad_config(f"max_entrants is 0 (the server's {MAX_ENTRANTS}) to {MAX_ENTRANTS}")
    if new.max_entrants and len(new.entrants) > new.max_entrants:
        raise bad_config("more entrants than max_entrants")
    if not new.registration and (
        new.max_entrants
        or new.late_registration_rounds
        or new.registration_opens_at
        or new.registration_closes_at
    ):
        raise bad_config("max_entrants, late registration and its window need registration_open")
    if new.late_registration_rounds and fmt != Format.SWISS:
        raise bad_config("late registration is for a Swiss")
    if not 0 <= new.late_registration_rounds <= MAX_SWISS_ROUNDS:
        raise bad_config(f"late_registration_rounds is 0 to {MAX_SWISS_ROUNDS}")
    if new.registration_opens_at < 0 or new.registration_closes_at < 0:
        raise bad_config("registration times are epoch ms, or 0")
    if new.registration_closes_at and new.registration_closes_at <= new.registration_opens_at:
        raise bad_config("registration closes after it opens")
    if not 0 <= new.check_in_seconds <= MAX_ROUND_BREAK_SECONDS:
        raise bad_config(f"check_in_seconds is 0 to {MAX_ROUND_BREAK_SECONDS}")
    if new.check_in_seconds and not new.start_at:
        raise bad_config("check-in needs a start_at_ms")
    entrants = []
    for e in new.entrants:
        ids = tuple(p.strip() for p in e.players)
        if not e.id:
            raise bad_config(f"entrant ids are 1 to {MAX_PLAYER_ID} characters")
        if not all(ids):
            raise bad_config(f"player ids are 1 to {MAX_PLAYER_ID} characters")
        entrants.append(Entrant(e.id, ids))
    table = new.table
    rules = rules_and_table(new.preset, new.overrides(), new.table_size, table, bad_config)
    if new.duplicate and table.verifiable:
        raise bad_config("a verifiable table shuffles its own decks: no duplicate deals")
    if new.spectators and new.duplicate:
        # Every table is dealt the same cards: what a spectator sees at one table
        # (its discards and melds) is the cards still hidden at another.
        raise bad_config("no spectators at duplicate deals")
    if new.round_decks and not new.duplicate:
        raise bad_config("round_decks are for duplicate deals")
    if not 0 <= new.start_deadline_seconds <= MAX_START_DEADLINE_SECONDS:
        raise bad_config(
            f"start_deadline_seconds is 0 (the default) to {MAX_START_DEADLINE_SECONDS}"
        )
    if new.start_at < 0:
        raise bad_config("start_at_ms is an epoch time in ms, or 0 (not scheduled)")
    if not 0 <= new.round_break_seconds <= MAX_ROUND_BREAK_SECONDS:
        raise bad_config(f"round_break_seconds is 0 to {MAX_ROUND_BREAK_SECONDS}")
    if not 0 <= new.round_time_limit_seconds <= MAX_ROUND_TIME_LIMIT_SECONDS:
        raise bad_config(f"round_time_limit_seconds is 0 to {MAX_ROUND_TIME_LIMIT_SECONDS}")
    if not new.start_at and (new.round_break_seconds or new.round_time_limit_seconds):
        raise bad_config("round_break_seconds and round_time_limit_seconds need a start_at_ms")
    if None in new.tie_breaks:
        raise bad_config("tie_breaks: an unknown tie-breaker")
    tie_breaks = tuple(b for b in new.tie_breaks if b is not None) or DEFAULT_TIE_BREAKS
    if len(set(tie_breaks)) != len(tie_breaks):
        raise bad_config("tie_breaks: each tie-breaker once")
    points = new.points or Points()
    worth = (points.win, points.draw, points.loss, points.bye)
    if not all(math.isfinite(x) and 0 <= x <= 1000 for x in worth):
        raise bad_config("points are 0 to 1000")
    if not points.win >= points.draw >= points.loss:
        raise bad_config("points: a win is worth at least a draw, a draw at least a loss")
    if new.playoff and (
        fmt != Format.SWISS
        or not 2 <= new.playoff <= MAX_ENTRANTS
        or new.playoff & (new.playoff - 1)
    ):
        raise bad_config("playoff_size is 0, or a power of two from 2 after a Swiss")
    if new.playoff and not new.registration and new.playoff > len(new.entrants):
        raise bad_config("playoff_size is more than the entrants")
    if new.rounds < 0 or new.rounds > MAX_SWISS_ROUNDS:
        raise bad_config(f"rounds is 0 (the format's) to {MAX_SWISS_ROUNDS}")
    prizes = PrizeRules(
        new.entry_fee,
        tuple(new.payout) or PrizeRules().payout,
        PrizeRules().house_percent if new.house_percent is None else new.house_percent,
    )
    if (why := prizes.problem(MAX_ENTRANTS)) is not None:
        raise bad_config(why)
    if (new.payout or new.house_percent is not None) and not new.entry_fee:
        raise bad_config("payout_percents and house_percent need an entry_fee")
    decks: list[tuple[int, ...]] = []
    for number, text in enumerate(new.round_decks):
        deck = fixed_deck(
            app.permissions,
            text.replace(",", " ").split(),  # the separators of rules.cards.parse_cards
            rules.jokers,
            bad_config,
            field=f"round_decks[{number}]",
            wrong_cards=f"round_decks[{number}] must hold the {deck_size(rules.jokers)} cards",
        )
        decks.append(tuple(deck))
    config = TournamentConfig(
        fmt,
        tuple(entrants),
        new.table_size,
        new.seed or secrets.randbits(63),
        (new.rounds or None) if fmt == Format.SWISS else None,
        rules.to_dict(),
        table.to_dict(),
        new.duplicate,
        tuple(decks),
        new.knockout_tie,
        new.start_deadline_seconds or DEFAULT_START_DEADLINE_SECONDS,
        new.start_at,
        new.round_break_seconds,
        new.round_time_limit_seconds,
        new.round_timeout,
        new.registration,
        new.max_entrants,
        new.late_registration_rounds,
        new.check_in_seconds,
        new.registration_opens_at,
        new.registration_closes_at,
        points,
        tie_breaks,
        new.playoff,
        new.spectators,
        prizes,
    )
    try:
        t = config.new_tournament()
    except ValueError as exc:
        raise bad_config(str(exc)) from None
    if len(decks) > t.total_rounds:
        raise bad_config(f"round_decks: the tournament has {t.total_rounds} rounds")
    return config


def table_setup(
    rules: Rules,
    players: int,
    table: TableOptions,
    dup: DuplicateRound | None,
    spectators: bool = False,
) -> Setup:
    """A table's setup: with duplicate deals the round's deck and match seed (so the
    first dealer and every later deal match too), otherwise a fresh seed; spectators
    where the organiser allows them."""
    if dup is not None:
        return Setup(rules, players, dup.match_seed, list(dup.deck), False, table)
    secret = new_server_secret() if table.verifiable else None
    return Setup(rules, players, secrets.randbits(63), None, spectators, table, secret)


def deck_shown(t: Tournament, round_no: int, games: GamesByTable, statuses: dict[str, str]) -> bool:
    """Whether a duplicate round's deck may be shown: once every table of the round has
    a result and every game of the round is finished. Before, the deck is the cards
    still in play at some table (GUARANTEES: "an app sees no hand"), including a table
    whose game goes on after the organiser recorded a forfeit."""
    return t.round_complete(round_no) and round_dealt_out(round_no, games, statuses)


@dataclass(frozen=True)
class GameResult:
    """A finished game's result for its tournament table, worked out and not yet
    written: the tournament as read, the event to append and what it leaves."""

    row: TournamentRow
    event: Event
    written: Written


async def game_result(
    results: TournamentResults, game_id: str, winner: int, reason: str
) -> GameResult | None:
    """A finished game's result in its tournament, if it belongs to one and its table
    takes it (``record_game_result`` says which); None otherwise. Writes nothing."""
    found = await results.table_of_game(game_id)
    if found is None:
        return None
    row, round_no, table_no = found.row, found.round_no, found.table_no
    t = await rebuilt(row)
    if len(t.rounds) != round_no or t.cancelled:
        return None
    table = t.rounds[-1].tables[table_no - 1]
    if t.result(table) is not None:
        return None
    tie_break = False
    if winner in (0, 1):
        # At a duplicate round's even tables side B holds the game's side 0.
        outcome = row.config.outcome_of_game(table_no, winner)
    elif reason == ENDED_BY_APP:
        return None
    elif reason == NOT_STARTED:
        # Closed at its start deadline (the sweeper): nobody played the table.
        outcome = Outcome.DOUBLE_NO_SHOW
    elif (level := row.config.outcome_of_level_game(t, table_no)) is not None:
        outcome, tie_break = level, True
    elif winner == DRAWN:
        outcome = Outcome.DRAW
    else:
        return None
    t.record(round_no, table_no, outcome)
    event = {**result_event(round_no, table_no, outcome, FROM_GAME, now_ms()), "game_id": game_id}
    event["reason"] = reason
    if tie_break:
        event["tie_break"] = row.config.knockout_tie.value
    return GameResult(row, event, await written(row, row.config, t, [event]))


async def write_game_result(results: TournamentResults, result: GameResult) -> ChipMoves:
    """Append ``game_result``'s event in the caller's transaction; what it moved
    through the prize pool (its prizes, if it finished the tournament), for the
    caller to count once its transaction commits."""
    if not await results.append_events(result.row, [result.event], result.written):
        raise TournamentConflict(f"tournament {result.row.id} kept changing")
    return result.written.chips


async def record_game_result(
    results: TournamentResults, game_id: str, winner: int, reason: str
) -> ChipMoves:
    """Record a finished game's result in its tournament, if it belongs to one, inside
    the caller's transaction (the settlement's).

    A knockout table must produce a winner: a drawn or annulled game there is recorded
    as the tournament's ``knockout_tie`` rule decides (``KnockoutTie``), so no round
    waits on it. Elsewhere, left unrecorded for the organiser to decide with
    RecordForfeit: an annulled game (``winner`` -1: 003 says an annulled match counts
    for no one, so it is neither side's win). A game the app ended (``ENDED_BY_APP``)
    is the organiser's to decide everywhere: it stopped the game to rule on the table.
    Ignored: a game of a round that is no longer the latest (the tournament moved on),
    and a table that already has a result (a forfeit recorded while it was played).
    Returns what the result moved through the prize pool (its prizes, if it finished
    the tournament), for the caller to count once its transaction commits."""
    result = await game_result(results, game_id, winner, reason)
    if result is None:
        return ChipMoves()
    return await write_game_result(results, result)


def shown_money(
    row: TournamentRow, t: Tournament, standings: Sequence[Standing]
) -> tuple[int, dict[str, int]]:
    """The prize pool now and, once finished, each entrant's prize (``entry_fees.
    pool_and_prizes``), for ``t`` as ``row`` holds it."""
    status = status_of(t)
    return pool_and_prizes(
        row.config.prizes,
        row.config.entrants,
        row.events,
        standings,
        finished=status == FINISHED_STATUS,
        cancelled=status == CANCELLED,
    )


async def decided_by_forfeit(results: TournamentResults, game_id: str) -> bool:
    """Whether ``game_id`` is played at a tournament table the organiser decided with
    RecordForfeit: the forfeit is the table's result, so the game, which went on,
    counts for no one (no rating, no ranking points, its stakes back), as the
    settlement decides. Inside the caller's transaction, which locks the tournament:
    a forfeit recorded concurrently either comes first (and this sees it) or finds
    the game's result and is refused (TABLE_DECIDED)."""
    found = await results.table_of_game(game_id)
    if found is None:
        return False
    latest = latest_result(found.row.events, found.round_no, found.table_no)
    # A table settled by its round's clock is decided as a forfeit's is.
    return latest is not None and latest["source"] in (FROM_FORFEIT, FROM_CLOCK)


# ----- the use cases ---------------------------------------------------------------------


class Tournaments:
    def __init__(
        self,
        repo: TournamentRepository,
        access: Access,
        matches: Matches,
        token_lifetime_seconds: int = DEFAULT_TOKEN_LIFETIME,
        compute: Compute | None = None,
        clock: Callable[[], int] = now_ms,
        robot_max_level: str = EXPERT,
    ) -> None:
        self.repo = repo
        self.access = access
        self.matches = matches
        # The most expensive robot level a table may ask for (the operator's).
        self.robot_max_level = robot_max_level
        self.compute = compute or Compute()
        # Epoch ms; a test may run it ahead to find a round's clock run out.
        self.clock = clock
        self.token_lifetime_ms = token_lifetime_seconds * 1000
        # The latest tournaments this process showed (``get``), by id.
        self._kept: OrderedDict[str, TournamentShown] = OrderedDict()

    # ----- reading -----------------------------------------------------------------

    async def _load(self, app: AppRecord | str, tournament_id: str) -> TournamentRow:
        """The app's tournament (``app``: the app or its id); other apps' tournaments
        are invisible (NOT_FOUND)."""
        if not tournament_id:
            raise malformed("tournament_id is required")
        app_id = app if isinstance(app, str) else app.id
        row = await self.repo.load_tournament(tournament_id, app_id)
        if row is None:
            raise not_found()
        return row

    async def _shown(
        self, row: TournamentRow, t: Tournament, standings: Sequence[Standing] | None = None
    ) -> TournamentShown:
        """The tournament as shown: its standings as stored (``standings``: those a
        change just computed), computed here only for a row stored before they were
        kept."""
        if standings is None:
            standings = row.standings if row.standings is not None else await standings_of(t)
        games = await self.repo.table_games(row.id)
        shown = await self._decks_shown(row, t, games)
        pool, prizes = shown_money(row, t, standings)
        return TournamentShown(row, t, games, standings, shown, pool, prizes)

    async def _decks_shown(
        self, row: TournamentRow, t: Tournament, games: GamesByTable
    ) -> frozenset[int]:
        """A duplicate tournament's rounds whose deck may be shown (``deck_shown``)."""
        if not row.config.duplicate:
            return frozenset()
        statuses = await self.repo.game_statuses(list(games.values()))
        return frozenset(r.number for r in t.rounds if deck_shown(t, r.number, games, statuses))

    async def refresh_running_gauge(self) -> None:
        """tranca_tournaments_running from the database (every replica sets the same)."""
        metrics.TOURNAMENTS_RUNNING.set(await self.repo.count_running())

    async def create(self, credentials: Credentials, new: NewTournament) -> TournamentShown:
        app = await self.access.calling_app(credentials)
        config = tournament_config(new, app)
        robot_level_allowed(new.table, self.robot_max_level)
        name = new.name.strip()
        fresh = config.new_tournament()
        done = await written("", config, fresh, [])
        try:
            tournament_id = await self.repo.create_tournament(app.id, name, config, done)
        except InsufficientChips as exc:
            raise cannot_pay(exc) from None
        count_chips(done.chips)
        row = await self._load(app, tournament_id)
        return await self._shown(row, await rebuilt(row))

    async def get(self, credentials: Credentials, tournament_id: str) -> TournamentShown:
        """The tournament as stored: rebuilt from its events without pairing any
        round again, its standings as its latest change stored them.

        A tournament this process has shown at its current version is answered
        again as it was (its version read, one integer, and nothing rebuilt: the
        same ``TournamentShown``, which the caller must not change), but for a
        duplicate tournament's decks shown, which follow its games' statuses."""
        app = await self.access.calling_app(credentials)
        if not tournament_id:
            raise malformed("tournament_id is required")
        version = await self.repo.tournament_version(tournament_id, app.id)
        if version is None:
            raise not_found()
        kept = self._kept.get(tournament_id)
        if kept is None or kept.row.version != version or kept.row.app_id != app.id:
            row = await self._load(app, tournament_id)
            kept = await self._shown(row, await rebuilt(row))
        elif kept.row.config.duplicate:
            decks = await self._decks_shown(kept.row, kept.tournament, kept.games)
            if decks != kept.decks_shown:
                kept = replace(kept, decks_shown=decks)
        self._keep(kept)
        return kept

    def _keep(self, shown: TournamentShown) -> None:
        """Keep ``shown`` as its tournament's latest (unless a newer one is kept)."""
        key = shown.row.id
        kept = self._kept.get(key)
        if kept is not None and kept.row.version > shown.row.version:
            return
        self._kept[key] = shown
        self._kept.move_to_end(key)
        while len(self._kept) > SHOWN_KEPT:
            self._kept.popitem(last=False)

    # ----- changing ----------------------------------------------------------------

    async def _change(
        self,
        app: AppRecord | str,
        tournament_id: str,
        change: Callable[[TournamentRow, Tournament], list[Event]],
    ) -> TournamentShown:
        """Apply ``change`` (the events to append, after checks that raise) to the
        tournament as it is now, retrying on a lost compare-and-swap."""
        for _ in range(CAS_ATTEMPTS):
            row = await self._load(app, tournament_id)
            t = await rebuilt(row)
            new = change(row, t)
            if not new:
                return await self._shown(row, t)
            done = await written(row, row.config, t, new)
            try:
                swapped = await self.repo.append_events(row, new, done)
            except InsufficientChips as exc:
                raise cannot_pay(exc) from None
            if swapped:
                count_chips(done.chips)
                await self.refresh_running_gauge()
                after = replace(
                    row,
                    version=row.version + 1,
                    events=[*row.events, *new],
                    standings=list(done.standings),
                    status=done.status,
                )
                return await self._shown(after, t, done.standings)
        raise busy()

    async def record_forfeit(
        self,
        credentials: Credentials,
        tournament_id: str,
        round_no: int,
        table_no: int,
        outcome: Outcome | None,
    ) -> TournamentShown:
        """A table of the current round forfeited by one side or both (``outcome``:
        one of ``FORFEIT_OUTCOMES``; None for none of them)."""
        app = await self.access.calling_app(credentials)
        if outcome is None or outcome not in FORFEIT_OUTCOMES:
            raise malformed("outcome is TABLE_OUTCOME_A_FORFEITS, _B_FORFEITS or _DOUBLE_NO_SHOW")
        forfeit = outcome

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if not t.rounds or round_no != len(t.rounds):
                raise refused("ROUND_NOT_CURRENT", f"round {round_no} is not the current round")
            tables = t.rounds[-1].tables
            if not 1 <= table_no <= len(tables):
                raise malformed(f"round {round_no} has tables 1 to {len(tables)}")
            if t.result(tables[table_no - 1]) == forfeit:
                return []  # a retry (even of the forfeit that ended the tournament)
            latest = latest_result(row.events, round_no, table_no)
            if latest and latest["source"] == FROM_GAME and latest.get("reason") not in NO_RESULT:
                # The game's own result (a win or a draw) was settled with it: rated,
                # scored and paid. A forfeit now would credit a win the ratings call a
                # loss. A level end the game did not decide (an annulled knockout
                # table, a table that never started) stays the organiser's to rule on.
                raise refused("TABLE_DECIDED", f"table {table_no} has its game's result")
            if t.is_over:
                raise refused("TOURNAMENT_OVER", "the tournament is over")
            t.record(round_no, table_no, forfeit)
            return [result_event(round_no, table_no, forfeit, FROM_FORFEIT, now_ms())]

        shown = await self._change(app, tournament_id, change)
        # A retry closes it too, should the call have died between the two writes.
        if await self._close_unstarted(shown.games.get((round_no, table_no))):
            return await self._shown(shown.row, shown.tournament, shown.standings)
        return shown

    async def _close_unstarted(self, game_id: str | None) -> bool:
        """Close a decided table's game that never started (a ``no_show``): a table is
        over once it has a result and its game is finished, and a game left waiting
        would hold a duplicate round's deck back for ever, or could still be started
        (and dealt the round's cards) after they were shown. True if it closed it."""
        if game_id is None:
            return False
        statuses = await self.repo.game_statuses([game_id])
        if statuses.get(game_id) != WAITING:
            return False
        try:
            await self.matches.moves.apply(game_id, Action("no_show"))
        except GameError:
            return False  # started (or closed) meanwhile: its own end releases the round
        return True

    async def withdraw(
        self, credentials: Credentials, tournament_id: str, entrant: str
    ) -> TournamentShown:
        """An entrant withdrawn: it keeps its results and is not paired again."""
        app = await self.access.calling_app(credentials)

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if entrant not in t.entrants:
                raise Refused(Refusal.NOT_FOUND, "ENTRANT_NOT_FOUND", "no such entrant")
            if entrant in t.withdrawn:
                return []
            if t.is_over:
                raise refused("TOURNAMENT_OVER", "the tournament is over")
            if row.config.registration and not t.rounds:
                # Before the start, a registration withdrawn leaves the field.
                t.remove_entrant(entrant)
                return [unregister_event(entrant, now_ms())]
            t.withdraw(entrant)
            return [withdraw_event(entrant, now_ms())]

        return await self._change(app, tournament_id, change)

    # ----- cancelling ----------------------------------------------------------------

    async def cancel(
        self, credentials: Credentials, tournament_id: str, reason: str
    ) -> TournamentShown:
        """The organiser cancels the tournament: it is over (status cancelled), no
        round starts again, and the games of the current round still going are ended
        (by the app: they count for no one and every stake goes back). Its results so
        far stay. A repeat changes nothing; a finished tournament is not cancelled."""
        app = await self.access.calling_app(credentials)

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if t.cancelled:
                return []
            if t.is_over:
                raise refused("TOURNAMENT_OVER", "the tournament is over")
            t.cancelled = True
            return [{"type": "cancel", "reason": reason.strip(), "at": now_ms()}]

        shown = await self._change(app, tournament_id, change)
        statuses = await self.repo.game_statuses(list(shown.games.values()))
        for game_id, status in statuses.items():
            if status == FINISHED:
                continue
            if await self._close_unstarted(game_id):
                continue
            with contextlib.suppress(GameError):  # over meanwhile
                await self.matches.moves.apply(game_id, Action("end"))
        return shown

    # ----- corrections ---------------------------------------------------------------

    async def correct_result(
        self,
        credentials: Credentials,
        tournament_id: str,
        round_no: int,
        table_no: int,
        outcome: Outcome | None,
        reason: str,
    ) -> TournamentShown:
        """The organiser corrects a table's result after its round (any outcome; a
        knockout round's only until the next round is paired). The correction is an
        event of its own (the audit trail: the result it replaced, the reason, when),
        the standings are recomputed with it and the table's players told. What the
        game already counted for (ratings, ranking points, chips) stays: they were
        settled with the game. A repeat of the same correction changes nothing. Once a
        tournament with an entry fee has finished (its prizes paid), its results are
        final (PRIZES_PAID)."""
        app = await self.access.calling_app(credentials)
        if outcome is None:
            raise malformed("outcome is a table outcome")
        reason = reason.strip()
        if not reason:
            raise malformed("a correction needs its reason")
        wanted = outcome

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if not 1 <= round_no <= len(t.rounds):
                raise refused("ROUND_NOT_PLAYED", f"round {round_no} has not been played")
            if row.config.prizes.entry_fee and t.is_over and not t.cancelled:
                # The prize pool was paid by the final standings: a correction would
                # make them disagree with the chips paid.
                raise refused("PRIZES_PAID", "the prizes are paid: the results are final")
            tables = t.rounds[round_no - 1].tables
            if not 1 <= table_no <= len(tables):
                raise malformed(f"round {round_no} has tables 1 to {len(tables)}")
            current = t.result(tables[table_no - 1])
            if current is None:
                # Not decided yet: its game's end, or RecordForfeit, decides it.
                raise refused("NO_RESULT_YET", f"table {table_no} has no result to correct")
            if current == wanted:
                return []
            try:
                previous = t.correct(round_no, table_no, wanted)
            except ValueError as exc:
                raise refused("RESULT_FIXED", str(exc)) from None
            return [correction_event(round_no, table_no, wanted, previous, reason, now_ms())]

        return await self._change(app, tournament_id, change)

    # ----- exports -----------------------------------------------------------------

    async def export(
        self,
        credentials: Credentials,
        tournament_id: str,
        rounds: bool,
        as_json: bool,
        round_no: int,
    ) -> str:
        """The standings (or, with ``rounds``, the pairings and results of round
        ``round_no``, 0: of every round) as CSV or JSON (``tournament_export``)."""
        app = await self.access.calling_app(credentials)
        if round_no < 0:
            raise malformed("round is 0 (every round) or a round's number")
        row = await self._load(app, tournament_id)
        t = await rebuilt(row)
        if rounds:
            games = await self.repo.table_games(row.id)
            rows = await off_loop(export.round_rows, t, row.events, games, round_no)
            columns: Sequence[str] = export.ROUND_COLUMNS
        else:
            standings = row.standings if row.standings is not None else await standings_of(t)
            _, prizes = shown_money(row, t, standings)
            rows = export.standings_rows(t, standings, prizes)
            columns = export.STANDINGS_COLUMNS
        if as_json:
            return await off_loop(export.as_json, rows)
        return await off_loop(export.as_csv, columns, rows)

    # ----- registration ------------------------------------------------------------

    async def register(
        self, credentials: Credentials, tournament_id: str, entrant: Entrant
    ) -> TournamentShown:
        """An entrant registered by the app (an open tournament's): last in seed order,
        within the registration window and the entry limit; in a Swiss with late
        registration also after the start, until the chosen round has started (it
        is paired from the next round, with no points for those it missed). A retry
        (the same entrant and players, still in) changes nothing."""
        app = await self.access.calling_app(credentials)
        players = tuple(p.strip() for p in entrant.players)
        if not entrant.id or not all(players):
            raise malformed("an entrant needs an id and its player ids")
        if len(set(players)) != len(players):
            raise malformed("an entrant's players are different players")
        wanted = Entrant(entrant.id, players)

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if t.entrants.get(wanted.id) == wanted and wanted.id not in t.withdrawn:
                return []  # a retry
            why = row.config.registration_refused(t, self.clock(), MAX_ENTRANTS)
            if why is not None:
                full = why == "TOURNAMENT_FULL"
                raise refused(why, "the tournament is full" if full else "registration is closed")
            try:
                t.add_entrant(wanted)
            except ValueError as exc:
                raise Refused(Refusal.EXISTS, "ENTRANT_EXISTS", str(exc)) from None
            return [register_event(wanted, now_ms())]

        return await self._change(app, tournament_id, change)

    async def check_in(
        self, credentials: Credentials, tournament_id: str, entrant: str
    ) -> TournamentShown:
        """The entrant is here: within the check-in window (``check_in_seconds``
        before a scheduled start, until round 1); those not checked in are dropped
        when round 1 starts. A repeat changes nothing."""
        app = await self.access.calling_app(credentials)

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            if entrant not in t.entrants:
                raise Refused(Refusal.NOT_FOUND, "ENTRANT_NOT_FOUND", "no such entrant")
            if entrant in t.checked_in:
                return []
            why = row.config.check_in_refused(t, self.clock())
            if why is not None:
                raise refused(why, "check-in is not open")
            t.checked_in.add(entrant)
            return [check_in_event(entrant, now_ms())]

        return await self._change(app, tournament_id, change)

    async def list_tournaments(
        self, credentials: Credentials, query: TournamentQuery
    ) -> tuple[list[TournamentSummary], str]:
        """The app's tournaments matching ``query`` (by start time, then creation), a
        page at a time; the next page's token ("" after the last)."""
        app = await self.access.calling_app(credentials)
        offset = page_offset(query.page_token)
        size = query.page_size or DEFAULT_PAGE
        if not 1 <= size <= MAX_PAGE:
            raise malformed(f"page_size is 0 (the default {DEFAULT_PAGE}) to {MAX_PAGE}")
        found = await self.repo.list_tournaments(app.id, query, offset, size + 1)
        more = len(found) > size
        return found[:size], str(offset + size) if more else ""

    # ----- rounds ------------------------------------------------------------------

    async def start_round(
        self,
        credentials: Credentials,
        tournament_id: str,
        number: int,
        override: PairingOverride | None = None,
    ) -> RoundShown:
        """Pair round ``number`` (the next one), write it with all its games and start
        them; a round already started is answered again (``_round_again``).
        ``override``: the organiser's pairing of a Swiss round (its tables and byes)
        instead of the server's."""
        app = await self.access.calling_app(credentials)
        return await self._start_round(app.id, tournament_id, number, override)

    async def _start_round(
        self,
        app_id: str,
        tournament_id: str,
        number: int,
        override: PairingOverride | None = None,
    ) -> RoundShown:
        if number < 1:
            raise malformed("round is 1 or more: the round expected next")
        for _ in range(CAS_ATTEMPTS):
            row = await self._load(app_id, tournament_id)
            t = await rebuilt(row)
            if number <= len(t.rounds):
                return await self._round_again(row, t, number)
            # Round 1 with check-in: the entrants not checked in leave the field,
            # written with the round.
            dropped = drop_no_shows(row.config, t, now_ms())
            before = [dropped] if dropped else []
            if t.cancelled:
                raise refused("TOURNAMENT_OVER", "the tournament was cancelled")
            if len(t.rounds) >= t.total_rounds:
                raise refused("TOURNAMENT_OVER", "every round has been played")
            if number != len(t.rounds) + 1:
                raise refused("ROUND_OUT_OF_ORDER", f"the next round is round {len(t.rounds) + 1}")
            if t.rounds and not t.round_complete(len(t.rounds)):
                raise refused(
                    "ROUND_NOT_COMPLETE", f"round {len(t.rounds)} still has tables without a result"
                )
            if override is not None:
                rnd = overridden(t, number, override)
            else:
                try:
                    rnd = await self._pair(row, t, before)
                except ValueError as exc:
                    raise refused("NOT_ENOUGH_ENTRANTS", str(exc)) from None
            expires = now_ms() + self.token_lifetime_ms
            # Hundreds of games dealt for a large round: in a worker thread.
            games, tokens = await off_loop(self._round_games, row, t, rnd, expires)
            paired = pair_event(t, now_ms())
            if override is not None:
                paired["manual"] = True  # the organiser's pairing
            new = [*before, paired]
            # (The standings move with the round's byes.)
            done = await written(row, row.config, t, new)
            if not await self.repo.write_round(row, new, games, done):
                continue  # another change won: re-read (a concurrent StartRound's round)
            count_chips(done.chips)  # the no-shows' fees back
            await self.refresh_running_gauge()
            # Whatever happens to a start, answer with the tokens (a retry of the
            # round starts a game left waiting, and answers fresh tokens).
            await self._start_all([g.game_id for g in games], best_effort=True)
            by_table = {(g.round_no, g.table_no): g.game_id for g in games}
            # A round just started has no result yet: its deck is not shown.
            return RoundShown(row.config, t, rnd, by_table, tokens, False, expires)
        raise busy()

    # ----- the schedule ------------------------------------------------------------

    async def run_due(self) -> int:
        """What scheduled tournaments need now, run by every replica's sweeper: claim
        the tournaments due (``TournamentRepository.claim_due``: through the
        database, so replicas share the work and no state stays in a process) and
        advance each (``advance``). Returns how many were advanced."""
        claimed = await self.repo.claim_due(self.clock(), SCHEDULE_LEASE_MS, SCHEDULE_BATCH)
        acted = 0
        for tournament_id, app_id in claimed:
            try:
                acted += await self.advance(app_id, tournament_id)
            except Exception:
                # Logged; the claim's lease runs out and a sweep tries again.
                log.exception("tournament_schedule_failed", tournament_id=tournament_id)
        return acted

    async def advance(self, app_id: str, tournament_id: str) -> int:
        """One step of a scheduled tournament, if one is due: start round 1 at the
        start time, the next round once the current one is over (and its break has
        passed), or settle the current round's tables still without a result at its
        deadline by the organiser's ``round_timeout`` (their games, if still going,
        are ended: they count for no one, as a forfeited table's game). Then store
        when it is next due. Returns 1 if it acted."""
        row = await self._load(app_id, tournament_id)
        t = await rebuilt(row)
        due = next_due(row.config, t, row.events)
        now = self.clock()
        if due is None or due > now:
            await self.repo.set_due(row, due)  # a claim that came early: put it back
            return 0
        current = len(t.rounds)
        if current == 0 or t.round_complete(current):
            try:
                await self._start_round(app_id, tournament_id, current + 1)
            except Refused as exc:
                # No round can be paired (too few entrants left): nothing more to do
                # by itself; the organiser decides.
                log.warning(
                    "tournament_round_not_started", tournament_id=tournament_id, reason=exc.reason
                )
                await self.repo.set_due(row, None)
                return 0
            return 1
        await self._settle_round_by_clock(app_id, tournament_id, current)
        return 1

    async def _settle_round_by_clock(self, app_id: str, tournament_id: str, round_no: int) -> None:
        """The round's tables without a result get the clock's (``round_timeout``); the
        games still going at them are ended (by the app, for no one)."""
        decided: list[int] = []

        def change(row: TournamentRow, t: Tournament) -> list[Event]:
            decided.clear()
            if len(t.rounds) != round_no:
                return []
            events: list[Event] = []
            at = now_ms()
            for tb in t.rounds[-1].tables:
                if t.result(tb) is None:
                    outcome = row.config.timeout_outcome(t, tb)
                    t.record(round_no, tb.number, outcome)
                    events.append(result_event(round_no, tb.number, outcome, FROM_CLOCK, at))
                    decided.append(tb.number)
            return events

        shown = await self._change(app_id, tournament_id, change)
        for table_no in decided:
            game_id = shown.games.get((round_no, table_no))
            if game_id is None:
                continue
            if await self._close_unstarted(game_id):
                continue
            # Over meanwhile: its settlement finds the clock's result.
            with contextlib.suppress(GameError):
                await self.matches.moves.apply(game_id, Action("end"))

    async def _pair(self, row: TournamentRow, t: Tournament, before: Sequence[Event]) -> Round:
        """Pair ``t``'s next round (``t`` is ``row`` with the events ``before``
        applied): a Swiss round in the worker process (its search may take seconds),
        then taken into ``t`` as stored rounds are; a round robin's or a knockout's
        here (they pair without searching)."""
        if t.format != Format.SWISS or t.is_knockout_round(len(t.rounds) + 1):
            # (A play-off's first round ranks the Swiss: in a worker thread.)
            return await off_loop(t.pair_next_round)
        event = await self.compute.pair_round(row.config, [*row.events, *before])
        pairs = [(str(a), str(b)) for a, b in event["tables"]]
        return t.restore_round(int(event["round"]), pairs, [str(e) for e in event["byes"]])

    async def _round_again(self, row: TournamentRow, t: Tournament, number: int) -> RoundShown:
        """A round already started. If it is the current round, its games still
        waiting (a start that failed after the round was written) are started now, a
        start refused again being the answer (e.g. a seat without the chips for the
        table's stake); then every seat of every table whose game is not finished is
        given a fresh token, so that an organiser whose first answer was lost (the
        network, a deadline) recovers the seats by retrying. The seats' earlier tokens
        stay valid. An earlier round is answered without tokens."""
        rnd = t.rounds[number - 1]
        games = await self.repo.table_games(row.id)
        ids = [games[(number, tb.number)] for tb in rnd.tables if (number, tb.number) in games]
        statuses = await self.repo.game_statuses(ids)
        tokens: TokensBySeat = {}
        expires = now_ms() + self.token_lifetime_ms
        if number == len(t.rounds):
            # Tables with a result (a forfeit recorded because the game could not
            # start, say) are left as they are.
            waiting = [
                games[(number, tb.number)]
                for tb in rnd.tables
                if t.result(tb) is None
                and statuses.get(games.get((number, tb.number), "")) == WAITING
            ]
            if waiting:
                await self._start_all(waiting, best_effort=False)
                statuses = await self.repo.game_statuses(ids)
            new: list[tuple[str, SeatToken]] = []
            for tb in rnd.tables:
                game_id = games.get((number, tb.number))
                if game_id is None or statuses.get(game_id) == FINISHED:
                    continue
                for seat, player_id in enumerate(row.config.seats(t, tb)):
                    token, seat_token = new_seat_token(
                        seat, player_id, player_id, expires_at=expires
                    )
                    new.append((game_id, seat_token))
                    tokens[(number, tb.number, seat)] = token
            await self.repo.add_seat_tokens(new)
        show = deck_shown(t, number, games, statuses)
        return RoundShown(row.config, t, rnd, games, tokens, show, expires)

    async def _start_all(self, game_ids: Sequence[str], *, best_effort: bool) -> None:
        """Start the games, a few at a time; unless ``best_effort``, the first failure
        is raised once every start has ended (none is left half-way)."""
        gate = asyncio.Semaphore(CONCURRENT_STARTS)

        async def one(game_id: str) -> None:
            async with gate:
                await self._start(game_id, best_effort=best_effort)

        done = await asyncio.gather(*(one(g) for g in game_ids), return_exceptions=True)
        for outcome in done:
            if isinstance(outcome, BaseException):
                raise outcome

    async def _start(self, game_id: str, *, best_effort: bool) -> None:
        try:
            await self.matches.start(game_id)
        except GameError as exc:
            if exc.reason in ("GAME_STARTED", "GAME_OVER"):
                return  # a concurrent retry started it
            if not best_effort:
                raise
            log.warning("tournament_game_not_started", game_id=game_id, reason=exc.reason)
        except Exception:
            if not best_effort:
                raise
            # Logged, not raised: the seats' tokens must reach the caller; a retry of
            # StartRound starts the game.
            log.exception("tournament_game_not_started", game_id=game_id)

    def _round_games(
        self, row: TournamentRow, t: Tournament, rnd: Round, expires_at: int
    ) -> tuple[list[TableGame], TokensBySeat]:
        """Each table's new game with every seat joined, and the seats' tokens (valid
        until ``expires_at``, epoch ms)."""
        config = row.config
        rules = config.game_rules(t.is_knockout_round(rnd.number))
        table = TableOptions.from_dict(config.table)
        dup = config.duplicate_round(rnd.number)
        start_deadline = turn_deadline(now_ms() + config.start_deadline_seconds * 1000)
        games: list[TableGame] = []
        tokens: TokensBySeat = {}
        for tb in rnd.tables:
            setup = table_setup(rules, config.table_size, table, dup, config.spectators)
            game_id = uuid.uuid4().hex
            label = f"tournament {row.id} round {rnd.number} table {tb.number}"
            new = NewGame(row.app_id, setup, new_game(setup), label, None, game_id)
            state = new_game(setup)
            joins: list[GameChange] = []
            seats = config.seats(t, tb)
            for seat, player_id in enumerate(seats):
                join = Action("join", seat, name=player_id, player_id=player_id)
                apply_action(state, join, seat + 1)
                token, seat_token = new_seat_token(
                    seat, player_id, player_id, expires_at=expires_at
                )
                tokens[(rnd.number, tb.number, seat)] = token
                # Each change keeps the game as that join left it (a state of its own).
                after = GameState.from_dict(state.to_dict(with_setup=False), setup)
                # The entrant's "round ready", written with its seat (and so with the
                # round): no round without its events, no event without its round.
                ready = PlayerEvent(
                    player_id,
                    EventKind.TOURNAMENT_ROUND_READY,
                    game_id,
                    {
                        "tournament_id": row.id,
                        "round": rnd.number,
                        "table": tb.number,
                        "seat": seat,
                        "game_id": game_id,
                    },
                )
                # The last join sets the table's start deadline: a game still waiting
                # then is closed by whichever replica's sweeper claims it (a no-show;
                # its start replaces the deadline with the first turn's, or the sweeper
                # clears it).
                last = seat == len(seats) - 1
                joins.append(
                    GameChange(
                        game_id,
                        seat,
                        after,
                        join,
                        new_token=seat_token,
                        deadline_set=last,
                        deadline_at=start_deadline if last else None,
                        events=(ready,),
                    )
                )
            games.append(TableGame(rnd.number, tb.number, new, joins))
        return games, tokens


__all__ = [
    "CAS_ATTEMPTS",
    "MAX_PLAYER_ID",
    "GameResult",
    "GamesByTable",
    "NewTournament",
    "RoundShown",
    "TableGame",
    "TableOfGame",
    "TokensBySeat",
    "TournamentConflict",
    "TournamentQuery",
    "TournamentRepository",
    "TournamentResults",
    "TournamentRow",
    "TournamentShown",
    "TournamentSummary",
    "Tournaments",
    "Written",
    "count_chips",
    "decided_by_forfeit",
    "deck_shown",
    "game_result",
    "record_game_result",
    "table_setup",
    "tournament_config",
    "write_game_result",
]
