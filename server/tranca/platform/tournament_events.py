"""A tournament as it is kept: what it was created with (``TournamentConfig``) and
every change since, as events, from which the pure ``Tournament`` of
``platform.tournaments`` is rebuilt. Pure: no I/O, no clock (each event's time is
given).

The events are plain dicts (the store keeps them as a JSON list, oldest first), typed
here as ``TypedDict`` shapes (``Event`` is any of them):

- ``{"type": "pair", "round": r, "tables": [[a, b], ...], "byes": [...]}``: round
  ``r`` was paired and its games created (``PairEvent``);
- ``{"type": "result", "round": r, "table": t, "outcome": "a_wins", "source":
  "game" | "forfeit" | "clock"}``: a table's result (``ResultEvent``);
- ``{"type": "withdraw", "entrant": e}``;
- ``{"type": "register", "entrant": e, "players": [...]}``: a registration (an
  open tournament's), the entrant last in seed order;
- ``{"type": "unregister", "entrant": e}``: a registration withdrawn before the
  start (the entrant leaves the field as if it had never entered);
- ``{"type": "check_in", "entrant": e}``;
- ``{"type": "cancel", "reason": "..."}``: the organiser cancelled the tournament;
- ``{"type": "correction", "round": r, "table": t, "outcome": ..., "previous": ...,
  "reason": "..."}``: the organiser corrected a result after the fact (the audit
  trail: every correction stays, with the result it replaced and why);
- ``{"type": "drop", "entrants": [...]}``: the entrants not checked in, dropped
  when round 1 starts (written with its ``pair`` event).

Pairing is deterministic given the config (its seed) and the events before it. A
Swiss pairing searches (a backtracking search whose cost grows quickly with the
field and its score groups: seconds for a thousand entrants), so it is done once,
when the round is started (``pair_round``, which the service runs in a worker
process), and ``rebuild`` takes the stored pairs as they are; a round robin's and a
knockout's rounds, which pair without searching, are paired again and checked
against the stored pairs.

Also here: which seats a table's entrants take (with duplicate deals, side B sits on
the game's side 0 at even tables), a game's winner as the table's outcome, and
whether every game of a round is over (until then a duplicate round's deck is still
in play).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal, NotRequired, TypedDict

from tranca_rules.presets import Rules, TieBreak, rules_from_dict

from ..reasons import Reason
from ..table.game import FINISHED as GAME_FINISHED
from .duplicate import DuplicateRound, round_from_deck, round_from_seed, round_seed
from .entry_fees import PrizeRules
from .tournaments import (
    DEFAULT_TIE_BREAKS,
    Entrant,
    Format,
    KnockoutTie,
    Outcome,
    Points,
    Table,
    TieBreaker,
    Tournament,
    outcome_of_game,
)

# A tournament's status, as stored beside its events and shown to its organiser.
REGISTERED, RUNNING, FINISHED = "registered", "running", "finished"
CANCELLED = "cancelled"


# ----- the events' shapes: each as stored (JSON), every time in epoch ms -----------------


class PairEvent(TypedDict):
    """Round ``round`` paired: its tables (side A, side B) and byes."""

    type: Literal["pair"]
    round: int
    tables: list[list[str]]
    byes: list[str]
    at: int
    seeds: NotRequired[list[str]]  # a play-off's first round: its field, as drawn
    manual: NotRequired[bool]  # the organiser's pairing


class ResultEvent(TypedDict):
    """A table's result; ``source``: "game" (its game's settlement), "forfeit" (the
    organiser's RecordForfeit) or "clock" (the round's deadline)."""

    type: Literal["result"]
    round: int
    table: int
    outcome: str  # an ``Outcome``'s value
    source: str
    at: int
    game_id: NotRequired[str]  # a game's result: the game
    reason: NotRequired[str]  # a game's result: how the game ended
    tie_break: NotRequired[str]  # a level knockout table: the ``KnockoutTie`` applied


class CorrectionEvent(TypedDict):
    """The organiser's correction of a table's result (``previous``: "" for none)."""

    type: Literal["correction"]
    round: int
    table: int
    outcome: str
    previous: str
    reason: str
    at: int


class EntrantEvent(TypedDict):
    """An entrant withdrawn, its registration withdrawn, or checked in."""

    type: Literal["withdraw", "unregister", "check_in"]
    entrant: str
    at: int


class RegisterEvent(TypedDict):
    """An entrant registered, last in seed order."""

    type: Literal["register"]
    entrant: str
    players: list[str]
    at: int


class CancelEvent(TypedDict):
    """The organiser cancelled the tournament."""

    type: Literal["cancel"]
    reason: str
    at: int


class DropEvent(TypedDict):
    """The entrants not checked in, dropped as round 1 starts."""

    type: Literal["drop"]
    entrants: list[str]
    at: int


Event = (
    PairEvent
    | ResultEvent
    | CorrectionEvent
    | EntrantEvent
    | RegisterEvent
    | CancelEvent
    | DropEvent
)

# A table's game not started this long after its round was (a start refused for a
# seat short of the chips for the stake, and never retried) is closed as a double
# no-show: long enough for an organiser to top up chips and retry StartRound, short
# enough that a round does not wait an evening on a table nobody will play.
DEFAULT_START_DEADLINE_SECONDS = 600
MAX_START_DEADLINE_SECONDS = 86_400


class RoundTimeout(StrEnum):
    """How the tables of a round still without a result at the round's deadline
    (``round_time_limit_seconds`` after the round started) are settled.

    DOUBLE_NO_SHOW
        Both sides lose (neither finished in time): the default, as a table
        nobody showed up at.
    DRAW
        A draw (at a knockout table, the tournament's ``knockout_tie`` rule
        gives it a winner: a knockout table must have one).
    """

    DOUBLE_NO_SHOW = "double_no_show"
    DRAW = "draw"


# How long a replica's sweeper holds a claimed tournament before another may claim
# it again (a replica that died while starting a round).
SCHEDULE_LEASE_MS = 30_000


class PairingMismatch(Exception):
    """A stored round's pairs are not what the rebuilt tournament pairs (the pairing
    code changed under a running tournament): refuse rather than guess."""


@dataclass(frozen=True)
class TournamentConfig:
    """What a tournament was created with."""

    format: Format
    entrants: tuple[Entrant, ...]
    table_size: int
    seed: int
    rounds: int | None  # Swiss only; None: the format's own count
    rules: dict[str, Any]  # Rules.to_dict() of every game (express / point limit applied)
    table: dict[str, Any]  # TableOptions.to_dict()
    duplicate: bool = False
    round_decks: tuple[tuple[int, ...], ...] = ()  # the organiser's first-deal decks
    # A knockout's rule for a table whose game ended level (a tournament stored
    # before the rule existed reads as the default).
    knockout_tie: KnockoutTie = KnockoutTie.HIGHER_SEED
    # How long a table's game may wait to start before it is closed as a double
    # no-show (seconds from the round's start).
    start_deadline_seconds: int = DEFAULT_START_DEADLINE_SECONDS
    # A scheduled tournament runs itself: round 1 starts at ``start_at`` (epoch ms;
    # 0: not scheduled, the organiser's StartRound starts every round), each later
    # round ``round_break_seconds`` after the round before is over, and a round not
    # over ``round_time_limit_seconds`` after it started (0: no limit) has its
    # unfinished tables settled by ``round_timeout``.
    start_at: int = 0
    round_break_seconds: int = 0
    round_time_limit_seconds: int = 0
    round_timeout: RoundTimeout = RoundTimeout.DOUBLE_NO_SHOW
    # Registration: whether entrants may register (``register`` events) besides
    # those given at creation; at most ``max_entrants`` (0: the server's limit);
    # between ``registration_opens_at`` and ``registration_closes_at`` (epoch ms; 0:
    # from creation, until the start); in a Swiss, also late, until round
    # ``late_registration_rounds`` has started (0: not after the start).
    # ``check_in_seconds``: a scheduled tournament's check-in opens this long before
    # its start, and the entrants not checked in by then are dropped (0: none).
    registration: bool = False
    max_entrants: int = 0
    late_registration_rounds: int = 0
    check_in_seconds: int = 0
    registration_opens_at: int = 0
    registration_closes_at: int = 0
    # Scoring and ranking: the points of a win, a draw, a loss and a bye, the
    # tie-breaks in order, and a Swiss's play-off (a knockout of its top N; 0: none).
    points: Points = field(default_factory=Points)
    tie_breaks: tuple[TieBreaker, ...] = DEFAULT_TIE_BREAKS
    playoff: int = 0
    # Whether spectators may watch the tables' games (JoinGame as a spectator).
    spectators: bool = False
    # The entry fee, the payout by place and the house share (``entry_fees``).
    prizes: PrizeRules = field(default_factory=PrizeRules)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format.value,
            "entrants": [{"id": e.id, "players": list(e.players)} for e in self.entrants],
            "table_size": self.table_size,
            "seed": self.seed,
            "rounds": self.rounds,
            "rules": self.rules,
            "table": self.table,
            "duplicate": self.duplicate,
            "round_decks": [list(d) for d in self.round_decks],
            "knockout_tie": self.knockout_tie.value,
            "start_deadline_seconds": self.start_deadline_seconds,
            "start_at": self.start_at,
            "round_break_seconds": self.round_break_seconds,
            "round_time_limit_seconds": self.round_time_limit_seconds,
            "round_timeout": self.round_timeout.value,
            "registration": self.registration,
            "max_entrants": self.max_entrants,
            "late_registration_rounds": self.late_registration_rounds,
            "check_in_seconds": self.check_in_seconds,
            "registration_opens_at": self.registration_opens_at,
            "registration_closes_at": self.registration_closes_at,
            "points": {
                "win": self.points.win,
                "draw": self.points.draw,
                "loss": self.points.loss,
                "bye": self.points.bye,
            },
            "tie_breaks": [b.value for b in self.tie_breaks],
            "playoff": self.playoff,
            "spectators": self.spectators,
            "prizes": self.prizes.to_dict(),
        }

    def sides_swapped(self, table_no: int) -> bool:
        """Whether side B sits on the game's side 0 at table ``table_no``: at every
        even-numbered table of a duplicate round, as duplicate bridge turns the boards
        between rooms, so a deck that favours the game's side 0 favours side A at half
        the tables and side B at the other half, and the luck cancels out."""
        return self.duplicate and table_no % 2 == 0

    def seats(self, t: Tournament, table: Table) -> tuple[str, ...]:
        """The table's players in seat order: side A on the even seats (the game's
        side 0) and B on the odd ones, swapped at a duplicate round's even tables."""
        seats = t.seats(table)
        if not self.sides_swapped(table.number):
            return seats
        # seats is A, B, A, B...: each consecutive pair swapped gives B, A, B, A...
        return tuple(p for i in range(0, len(seats), 2) for p in (seats[i + 1], seats[i]))

    def outcome_of_game(self, table_no: int, winner_side: int) -> Outcome:
        """The table's outcome for A and B from its game's winning side."""
        if winner_side in (0, 1) and self.sides_swapped(table_no):
            winner_side = 1 - winner_side
        return outcome_of_game(winner_side)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentConfig:
        return cls(
            Format(d["format"]),
            tuple(Entrant(e["id"], tuple(e["players"])) for e in d["entrants"]),
            int(d["table_size"]),
            int(d["seed"]),
            None if d.get("rounds") is None else int(d["rounds"]),
            dict(d["rules"]),
            dict(d.get("table") or {}),
            bool(d.get("duplicate", False)),
            tuple(tuple(int(c) for c in deck) for deck in d.get("round_decks") or ()),
            KnockoutTie(d.get("knockout_tie") or KnockoutTie.HIGHER_SEED),
            int(d.get("start_deadline_seconds") or DEFAULT_START_DEADLINE_SECONDS),
            int(d.get("start_at") or 0),
            int(d.get("round_break_seconds") or 0),
            int(d.get("round_time_limit_seconds") or 0),
            RoundTimeout(d.get("round_timeout") or RoundTimeout.DOUBLE_NO_SHOW),
            bool(d.get("registration", False)),
            int(d.get("max_entrants") or 0),
            int(d.get("late_registration_rounds") or 0),
            int(d.get("check_in_seconds") or 0),
            int(d.get("registration_opens_at") or 0),
            int(d.get("registration_closes_at") or 0),
            Points(**{k: float(v) for k, v in (d.get("points") or {}).items()}),
            tuple(TieBreaker(b) for b in d.get("tie_breaks") or DEFAULT_TIE_BREAKS),
            int(d.get("playoff") or 0),
            bool(d.get("spectators", False)),
            PrizeRules.from_dict(d.get("prizes")),
        )

    def registration_refused(self, t: Tournament, now: int, limit: int) -> Reason | None:
        """Why a registration is refused now (a reason), or None: registration
        closed (not an open tournament, outside its window, started without late
        registration or past its last round for it, over) or the field full
        (``max_entrants``, else ``limit``)."""
        if not self.registration or t.is_over:
            return Reason.REGISTRATION_CLOSED
        if self.registration_opens_at and now < self.registration_opens_at:
            return Reason.REGISTRATION_CLOSED
        if t.rounds:
            if self.format != Format.SWISS or len(t.rounds) >= self.late_registration_rounds:
                return Reason.REGISTRATION_CLOSED
        elif self.registration_closes_at and now >= self.registration_closes_at:
            return Reason.REGISTRATION_CLOSED
        active = len(t.ids) - len(t.withdrawn)
        if active >= (self.max_entrants or limit):
            return Reason.TOURNAMENT_FULL
        return None

    def check_in_refused(self, t: Tournament, now: int) -> Reason | None:
        """Why a check-in is refused now, or None: a tournament without check-in, or
        outside its window (``check_in_seconds`` before the start, until round 1)."""
        if not self.check_in_seconds or not self.scheduled:
            return Reason.NO_CHECK_IN
        if t.rounds or now < self.start_at - self.check_in_seconds * 1000:
            return Reason.CHECK_IN_CLOSED
        return None

    @property
    def scheduled(self) -> bool:
        return self.start_at > 0

    def timeout_outcome(self, t: Tournament, table: Table) -> Outcome:
        """The result of a table still playing at its round's deadline."""
        if self.round_timeout == RoundTimeout.DOUBLE_NO_SHOW:
            return Outcome.DOUBLE_NO_SHOW
        if t.is_knockout_round(table.round):
            return t.knockout_tie_winner(table)
        return Outcome.DRAW

    def game_rules(self, knockout: bool | None = None) -> Rules:
        """A table's rules: the tournament's, except that a knockout round's
        (``knockout``; None: a single elimination's) played with play-off deals
        (``KnockoutTie.PLAY_OFF``) settles a level match with another deal where the
        preset would draw it."""
        rules = rules_from_dict(self.rules)
        if knockout is None:
            knockout = self.format == Format.SINGLE_ELIMINATION
        if (
            knockout
            and self.knockout_tie == KnockoutTie.PLAY_OFF
            and rules.tie_break == TieBreak.DRAW
        ):
            return replace(rules, tie_break=TieBreak.EXTRA_DEAL)
        return rules

    def outcome_of_level_game(self, t: Tournament, table_no: int) -> Outcome | None:
        """The outcome of a table whose game ended level (drawn or annulled): a
        knockout's is decided by its ``knockout_tie`` rule, as a knockout table must
        produce a winner; None elsewhere (the caller records a draw, or nothing)."""
        if not t.is_knockout_round(len(t.rounds)):
            return None
        return t.knockout_tie_winner(t.rounds[-1].tables[table_no - 1])

    def new_tournament(self) -> Tournament:
        """The tournament before any event (raises ValueError for a bad config)."""
        return Tournament(
            self.format,
            self.entrants,
            table_size=self.table_size,
            seed=self.seed,
            rounds=self.rounds,
            open_field=self.registration,
            points=self.points,
            tie_breaks=self.tie_breaks,
            playoff=self.playoff,
        )

    def duplicate_round(self, round_no: int) -> DuplicateRound | None:
        """The deck and match seed every table of round ``round_no`` is dealt, with
        duplicate deals; None otherwise. The organiser's deck for the round if it gave
        one, else a deck shuffled from the round's seed (fixed by the tournament's)."""
        if not self.duplicate:
            return None
        jokers = self.game_rules().jokers
        seed = round_seed(self.seed, round_no)
        if round_no <= len(self.round_decks):
            return round_from_deck(round_no, jokers, self.round_decks[round_no - 1], seed)
        return round_from_seed(round_no, jokers, seed)


def rebuild(config: TournamentConfig, events: Sequence[Mapping[str, Any]]) -> Tournament:
    """The tournament as its events left it."""
    t = config.new_tournament()
    for event in events:
        kind = event["type"]
        if kind == "pair":
            stored = [(str(p[0]), str(p[1])) for p in event["tables"]]
            byes = [str(e) for e in event.get("byes") or ()]
            seeds = [str(e) for e in event.get("seeds") or ()]
            try:
                t.restore_round(int(event["round"]), stored, byes, seeds)
            except ValueError as exc:
                raise PairingMismatch(str(exc)) from None
        elif kind == "result":
            t.record(int(event["round"]), int(event["table"]), Outcome(event["outcome"]))
        elif kind == "withdraw":
            t.withdraw(str(event["entrant"]))
        elif kind == "register":
            t.add_entrant(Entrant(str(event["entrant"]), tuple(event["players"])))
        elif kind == "unregister":
            t.remove_entrant(str(event["entrant"]))
        elif kind == "cancel":
            t.cancelled = True
        elif kind == "correction":
            t.correct(int(event["round"]), int(event["table"]), Outcome(event["outcome"]))
        elif kind == "check_in":
            t.checked_in.add(str(event["entrant"]))
        elif kind == "drop":
            for entrant in event["entrants"]:
                t.remove_entrant(str(entrant))
    return t


def pair_round(config: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> PairEvent:
    """The next round of the tournament ``events`` left, paired: its ``pair`` event
    (``at`` 0: the caller stamps it). ``config`` is ``TournamentConfig.to_dict()``,
    so that the call crosses to a worker process as plain data. Raises ValueError
    as ``Tournament.pair_next_round`` does."""
    t = rebuild(TournamentConfig.from_dict(dict(config)), events)
    t.pair_next_round()
    return pair_event(t, 0)


def round_started_at(events: Sequence[Mapping[str, Any]], round_no: int) -> int:
    """When round ``round_no`` was paired (epoch ms; 0 if it was not)."""
    for event in events:
        if event["type"] == "pair" and int(event["round"]) == round_no:
            return int(event.get("at") or 0)
    return 0


def round_over_at(events: Sequence[Mapping[str, Any]], round_no: int) -> int:
    """When the last result of round ``round_no`` was recorded (epoch ms)."""
    at = 0
    for event in events:
        if event["type"] == "result" and int(event["round"]) == round_no:
            at = max(at, int(event.get("at") or 0))
    return at


def next_due(
    config: TournamentConfig, t: Tournament, events: Sequence[Mapping[str, Any]]
) -> int | None:
    """When a scheduled tournament needs the server next (epoch ms), as ``t`` and its
    ``events`` stand: round 1's start time; the next round's, once the current one is
    over (``round_break_seconds`` after its last result); the current round's
    deadline while it has tables without a result (if it has a time limit). None:
    nothing to do by itself (not scheduled, over, or a round without a limit)."""
    if not config.scheduled or t.is_over:
        return None
    if not t.rounds:
        return config.start_at
    current = len(t.rounds)
    if t.round_complete(current):
        return round_over_at(events, current) + config.round_break_seconds * 1000
    if config.round_time_limit_seconds:
        return round_started_at(events, current) + config.round_time_limit_seconds * 1000
    return None


def status_of(t: Tournament) -> str:
    if t.cancelled:
        return CANCELLED
    if t.is_over:
        return FINISHED
    return RUNNING if t.rounds else REGISTERED


def pair_event(t: Tournament, at: int) -> PairEvent:
    """The event of the round just paired (the latest); ``at`` in epoch ms."""
    rnd = t.rounds[-1]
    event: PairEvent = {
        "type": "pair",
        "round": rnd.number,
        "tables": [[tb.a, tb.b] for tb in rnd.tables],
        "byes": list(rnd.byes),
        "at": at,
    }
    if t.playoff and rnd.number == t.swiss_rounds + 1:
        event["seeds"] = list(t.playoff_seeds)  # the play-off's field, as drawn
    return event


def result_event(
    round_no: int, table_no: int, outcome: Outcome, source: str, at: int
) -> ResultEvent:
    """A table's result (``source`` "game" or "forfeit"); ``at`` in epoch ms."""
    return {
        "type": "result",
        "round": round_no,
        "table": table_no,
        "outcome": outcome.value,
        "source": source,
        "at": at,
    }


def latest_result(
    events: Sequence[Mapping[str, Any]], round_no: int, table_no: int
) -> Mapping[str, Any] | None:
    """The table's latest result event (its ``source``: "game", its game's
    settlement, or "forfeit", the organiser's RecordForfeit; a game's also has the
    game's ``reason``); None for a table without a result."""
    found = None
    for event in events:
        if event["type"] == "result" and (event["round"], event["table"]) == (round_no, table_no):
            found = event
    return found


def withdraw_event(entrant: str, at: int) -> EntrantEvent:
    return {"type": "withdraw", "entrant": entrant, "at": at}


def register_event(entrant: Entrant, at: int) -> RegisterEvent:
    return {"type": "register", "entrant": entrant.id, "players": list(entrant.players), "at": at}


def unregister_event(entrant: str, at: int) -> EntrantEvent:
    return {"type": "unregister", "entrant": entrant, "at": at}


def correction_event(
    round_no: int, table_no: int, outcome: Outcome, previous: Outcome | None, reason: str, at: int
) -> CorrectionEvent:
    return {
        "type": "correction",
        "round": round_no,
        "table": table_no,
        "outcome": outcome.value,
        "previous": previous.value if previous else "",
        "reason": reason,
        "at": at,
    }


def check_in_event(entrant: str, at: int) -> EntrantEvent:
    return {"type": "check_in", "entrant": entrant, "at": at}


def cancel_event(reason: str, at: int) -> CancelEvent:
    return {"type": "cancel", "reason": reason, "at": at}


def drop_no_shows(config: TournamentConfig, t: Tournament, at: int) -> DropEvent | None:
    """Round 1 of a tournament with check-in is about to be paired: the entrants not
    checked in leave the field (``t`` changed) and this is the event that says so;
    None if there is no check-in or everyone checked in."""
    if not config.check_in_seconds or t.rounds:
        return None
    missing = [e for e in t.ids if e not in t.checked_in]
    if not missing:
        return None
    for e in missing:
        t.remove_entrant(e)
    return {"type": "drop", "entrants": missing, "at": at}


def round_dealt_out(
    round_no: int, games: Mapping[tuple[int, int], str], statuses: Mapping[str, str]
) -> bool:
    """Whether every game of round ``round_no`` is finished (``games``: the game of
    every table by (round, table); ``statuses``: each game's status). Until then a
    duplicate round's deck and match seed are hidden: they are the cards still being
    played at the round's other tables. Every table of a round is written in one
    transaction with its pairing, so ``games`` holds them all."""
    return all(
        statuses.get(game_id) == GAME_FINISHED
        for (number, _), game_id in games.items()
        if number == round_no
    )


def still_entered(
    config: Mapping[str, Any], events: Sequence[Mapping[str, Any]], player_id: str
) -> bool:
    """Whether a player is still entered in a tournament, read from its stored
    configuration and events: in an entrant given at the creation or registered
    since, neither withdrawn, unregistered nor dropped since."""
    entrants = {
        str(e["id"]) for e in config.get("entrants", ()) if player_id in e.get("players", ())
    }
    for e in events:
        kind = e.get("type")
        if kind == "register" and player_id in e.get("players", ()):
            entrants.add(str(e["entrant"]))
        elif kind in ("unregister", "withdraw"):
            entrants.discard(str(e.get("entrant")))
        elif kind == "drop":
            entrants.difference_update(str(x) for x in e.get("entrants", ()))
    return bool(entrants)


def ever_entered(
    config: Mapping[str, Any], events: Sequence[Mapping[str, Any]], player_id: str
) -> bool:
    """Whether a player was ever entered (withdrawn or not: their results stand)."""
    return any(player_id in e.get("players", ()) for e in config.get("entrants", ())) or any(
        e.get("type") == "register" and player_id in e.get("players", ()) for e in events
    )


__all__ = [
    "CANCELLED",
    "DEFAULT_START_DEADLINE_SECONDS",
    "FINISHED",
    "MAX_START_DEADLINE_SECONDS",
    "REGISTERED",
    "RUNNING",
    "SCHEDULE_LEASE_MS",
    "CancelEvent",
    "CorrectionEvent",
    "DropEvent",
    "EntrantEvent",
    "Event",
    "PairEvent",
    "PairingMismatch",
    "RegisterEvent",
    "ResultEvent",
    "RoundTimeout",
    "TournamentConfig",
    "cancel_event",
    "check_in_event",
    "correction_event",
    "drop_no_shows",
    "ever_entered",
    "latest_result",
    "next_due",
    "pair_event",
    "pair_round",
    "rebuild",
    "register_event",
    "result_event",
    "round_dealt_out",
    "status_of",
    "still_entered",
    "unregister_event",
    "withdraw_event",
]
