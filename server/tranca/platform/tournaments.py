"""Tournaments: pairings, results and standings. Pure: no I/O.

Three formats, for 2-player tables (an entrant is one player) and 4-player
partnership tables (an entrant is a fixed pair; two pairs share a table, the first
pair on seats 0 and 2, the second on seats 1 and 3, as ``rules.state`` numbers
sides). Entrants are listed in seed order, strongest first (by rating, say); to seed
by lot, shuffle them first.

Round robin
    The circle method: entrant 1 stays put, the others rotate one place a round,
    so every two entrants meet exactly once in ``n - 1`` rounds (``n`` rounds, each
    entrant resting once, when ``n`` is odd).

Swiss
    Each round ranks the entrants still in by points, then seed. The highest-ranked
    unpaired entrant meets the entrant half its score group below it (1 v 5, 2 v 6
    ... in a group of eight, as the Dutch system does); an odd one out floats to the
    nearest score below. A backtracking search keeps two entrants from meeting twice
    (any table counts as a meeting, forfeited or not) whenever a pairing without
    repeats exists, and first looks, briefly, for one with the fewest tables between
    different scores. If no pairing without repeats exists (or the search runs out of
    steps) repeats are allowed, fewest first, greedily. With an odd number in, the
    bye goes to the lowest-ranked entrant that has had none (the next one up if the
    rest could not then pair without repeats); a second bye is given only once every
    entrant still in has had one. Default length: ceil(log2(n)) rounds.

Single elimination
    A seeded bracket (1 v 8, 4 v 5, 2 v 7, 3 v 6 for eight), padded to a power of
    two, so the byes fall to the top seeds. A table needs a winner: a drawn (or
    annulled) game is decided by the tournament's ``KnockoutTie`` rule, chosen at
    creation (``knockout_tie_winner``); after a double no-show neither side advances
    and the next opponent has a bye.

Results and scores. A table ends in a win for either side, a draw, a forfeit by
one side (absence or forfeit: a loss for it, a win for the other) or a double
no-show (a loss for both). By default a win or a bye is worth 1 point, a draw
1/2, a loss 0 (see ``Points``). A withdrawn entrant keeps its results and place in
the standings but is not paired again; in a round robin its remaining opponents
get a bye in its place, in a knockout its next opponent does. A round robin's rest
(odd field) is a bye too: everyone gets one, so it shifts no one's place.

Standings (round robin and Swiss) rank by points, then by the tie-breaks in the
order the organiser chose (``TieBreaker``; by default Buchholz, then
Sonneborn-Berger), then
  - a draw by lot, fixed for the whole tournament by its seed (SHA-256 of the seed
    and the entrant's id).
The tie-breaks:
  - Buchholz: the sum of the points of every opponent met at a table (forfeited
    and no-show tables count; a bye adds nothing);
  - Sonneborn-Berger: the points of the opponents beaten (forfeit wins
    included) plus half the points of those drawn;
  - wins: tables won (forfeit wins included).
A knockout's standings rank by rounds survived, then seed.

Two stages: a Swiss with a play-off (``playoff``, a power of two N) plays its Swiss
rounds, then a knockout of the top N of the Swiss standings, seeded by them (1 v N,
as a knockout's bracket). Its standings put the play-off's entrants first, by
play-off rounds survived, then Swiss rank; the rest follow in Swiss order.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tranca_rules.match import DRAWN


class Format(StrEnum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    SINGLE_ELIMINATION = "single_elimination"


class Outcome(StrEnum):
    """How a table ended, from the point of view of its sides A and B."""

    A_WINS = "a_wins"
    B_WINS = "b_wins"
    DRAW = "draw"
    A_FORFEITS = "a_forfeits"  # A absent or forfeited: B wins
    B_FORFEITS = "b_forfeits"
    DOUBLE_NO_SHOW = "double_no_show"  # both absent: both lose


class TieBreaker(StrEnum):
    """A standings tie-break (after points; the lot always decides last)."""

    BUCHHOLZ = "buchholz"
    SONNEBORN_BERGER = "sonneborn_berger"
    WINS = "wins"


DEFAULT_TIE_BREAKS = (TieBreaker.BUCHHOLZ, TieBreaker.SONNEBORN_BERGER)


class KnockoutTie(StrEnum):
    """How a knockout table whose game ended level gets its winner.

    HIGHER_SEED
        The game is played under the preset's own rules; a drawn (or annulled) game
        is recorded as won by the entrant seeded higher (listed earlier), as a seeded
        bracket already favours the top seeds with its byes. Decided at once, with no
        more play: the default.
    PLAY_OFF
        The game's rules turn a preset's drawn match (``tie_break`` ``draw``) into
        play-off deals (``extra_deal``): a match level at its end plays another deal
        until one side leads, so the table decides its own winner. A game that ends
        level all the same (an annulment) falls back to the higher seed.
    """

    HIGHER_SEED = "higher_seed"
    PLAY_OFF = "play_off"


def outcome_of_game(winner_side: int) -> Outcome:
    """The outcome of a finished game (``GameState.winner``: 0, 1 or ``DRAWN``), its
    side 0 being the table's side A."""
    if winner_side == DRAWN:
        return Outcome.DRAW
    if winner_side in (0, 1):
        return Outcome.A_WINS if winner_side == 0 else Outcome.B_WINS
    raise ValueError(f"the game has no result (winner {winner_side})")


WIN, DRAW, LOSS = "win", "draw", "loss"

# What each outcome means for side A and side B, and whether each side was absent.
_EFFECT: dict[Outcome, tuple[str, str, bool, bool]] = {
    Outcome.A_WINS: (WIN, LOSS, False, False),
    Outcome.B_WINS: (LOSS, WIN, False, False),
    Outcome.DRAW: (DRAW, DRAW, False, False),
    Outcome.A_FORFEITS: (LOSS, WIN, True, False),
    Outcome.B_FORFEITS: (WIN, LOSS, False, True),
    Outcome.DOUBLE_NO_SHOW: (LOSS, LOSS, True, True),
}


@dataclass(frozen=True)
class Points:
    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0
    bye: float = 1.0

    def of(self, result: str) -> float:
        return {WIN: self.win, DRAW: self.draw, LOSS: self.loss}[result]


@dataclass(frozen=True)
class Entrant:
    """One player (2-player tables) or a fixed pair (4-player partnership tables)."""

    id: str
    players: tuple[str, ...]

    @classmethod
    def player(cls, name: str) -> Entrant:
        return cls(name, (name,))

    @classmethod
    def pair(cls, id: str, first: str, second: str) -> Entrant:
        return cls(id, (first, second))


@dataclass(frozen=True)
class Table:
    round: int  # 1-based
    number: int  # 1-based within the round
    a: str  # entrant ids; side A is the game's side 0
    b: str


@dataclass(frozen=True)
class Round:
    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...]


@dataclass(frozen=True)
class Standing:
    rank: int
    entrant: str
    points: float
    wins: int
    draws: int
    losses: int
    byes: int
    forfeits: int  # tables the entrant did not show up at
    buchholz: float
    sonneborn_berger: float
    lot: int
    withdrawn: bool
    survived: int  # rounds won or passed by a bye (what ranks a knockout)

    def to_dict(self) -> dict[str, object]:
        """As stored beside the tournament's events (JSON)."""
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Standing:
        return cls(
            rank=int(d["rank"]),
            entrant=str(d["entrant"]),
            points=float(d["points"]),
            wins=int(d["wins"]),
            draws=int(d["draws"]),
            losses=int(d["losses"]),
            byes=int(d["byes"]),
            forfeits=int(d["forfeits"]),
            buchholz=float(d["buchholz"]),
            sonneborn_berger=float(d["sonneborn_berger"]),
            lot=int(d["lot"]),
            withdrawn=bool(d["withdrawn"]),
            survived=int(d["survived"]),
        )


@dataclass
class _Record:
    points: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    forfeits: int = 0
    survived: int = 0


# Backtracking budgets of a Swiss pairing: a few short searches for the fewest tables
# between different scores, then one for any pairing without repeats.
FLOAT_PASSES, FLOAT_SEARCH_STEPS, SEARCH_STEPS = 2, 2_000, 50_000


class Tournament:
    """A tournament's entrants, rounds and results; pair a round, record its tables,
    pair the next. Mutable and pure."""

    def __init__(
        self,
        fmt: Format,
        entrants: Sequence[Entrant],
        *,
        table_size: int = 2,
        seed: int = 0,
        rounds: int | None = None,
        points: Points | None = None,
        open_field: bool = False,
        tie_breaks: Sequence[TieBreaker] = DEFAULT_TIE_BREAKS,
        playoff: int = 0,
    ) -> None:
        """``open_field``: entrants register later (``add_entrant``), so fewer than two
        are allowed until the first round is paired. ``playoff``: a Swiss's second
        stage, a knockout of its top ``playoff`` (a power of two; 0: none)."""
        if table_size not in (2, 4):
            raise ValueError("tables seat 2 players, or 4 as two fixed pairs")
        size = table_size // 2
        ids = [e.id for e in entrants]
        players = [p for e in entrants for p in e.players]
        if len(ids) < 2 and not open_field:
            raise ValueError("a tournament needs at least two entrants")
        if len(set(ids)) != len(ids) or len(set(players)) != len(players):
            raise ValueError("entrants and their players must be distinct")
        if any(len(e.players) != size for e in entrants):
            raise ValueError(f"each entrant must be {size} player(s) at {table_size}-player tables")
        self.format = Format(fmt)
        self.entrants = {e.id: e for e in entrants}
        self.ids = ids
        self.table_size = table_size
        self.seed = seed
        self.points = points or Points()
        self.seed_index = {e: i for i, e in enumerate(ids)}
        self.lot = {e: _lot(seed, e) for e in ids}
        self.withdrawn: set[str] = set()
        self.rounds: list[Round] = []
        self._results: dict[tuple[int, int], Outcome] = {}
        self._schedule: list[list[tuple[str | None, str | None]]] = []
        self._slots: list[list[str | None]] = []  # knockout: bracket slots of each round
        self.checked_in: set[str] = set()
        self.cancelled = False  # the organiser cancelled it: over, with no winner
        self.tie_breaks = tuple(TieBreaker(b) for b in tie_breaks)
        if len(set(self.tie_breaks)) != len(self.tie_breaks):
            raise ValueError("a tie-break is listed once")
        if playoff and (self.format != Format.SWISS or playoff < 2 or playoff & (playoff - 1)):
            raise ValueError("a play-off follows a Swiss, with a power of two of entrants")
        self.playoff = playoff
        self.playoff_seeds: list[str] = []  # the play-off's entrants, by Swiss rank
        if rounds is not None and rounds < 1:
            raise ValueError("a tournament has at least one round")
        self._rounds_asked = rounds
        self._set_rounds()

    def _set_rounds(self) -> None:
        """The number of rounds (and a round robin's schedule) for the field as it is:
        set again whenever the field changes before the first round."""
        n, rounds = len(self.ids), self._rounds_asked
        if self.format == Format.ROUND_ROBIN:
            self._schedule = round_robin_schedule(self.ids) if n >= 2 else []
            self.total_rounds = max(1, len(self._schedule))
        elif self.format == Format.SWISS:
            self.total_rounds = rounds or max(1, math.ceil(math.log2(max(n, 2))))
        else:
            self.total_rounds = max(1, math.ceil(math.log2(max(n, 2))))
        if rounds is not None and rounds != self.total_rounds:
            raise ValueError(f"a {self.format} of {n} entrants has {self.total_rounds} rounds")
        # A play-off's rounds follow the Swiss's.
        self.swiss_rounds = self.total_rounds
        if self.playoff:
            self.total_rounds += self.playoff.bit_length() - 1

    def is_knockout_round(self, number: int) -> bool:
        """Whether round ``number`` is a knockout's (a table needs a winner)."""
        if self.format == Format.SINGLE_ELIMINATION:
            return True
        return bool(self.playoff) and number > self.swiss_rounds

    # ----- the field ----------------------------------------------------------------

    def add_entrant(self, entrant: Entrant) -> None:
        """A registration: the entrant joins the field, last in seed order. Before the
        first round in any format; afterwards (late registration) only in a Swiss,
        where it is paired from the next round on with no points for the rounds it
        missed."""
        if self.rounds and self.format != Format.SWISS:
            raise ValueError("only a Swiss takes entrants once it has started")
        size = self.table_size // 2
        if len(entrant.players) != size:
            raise ValueError(
                f"each entrant must be {size} player(s) at {self.table_size}-player tables"
            )
        taken = {p for e in self.entrants.values() for p in e.players}
        if len(set(entrant.players)) != len(entrant.players):
            raise ValueError("an entrant's players must be distinct")
        if entrant.id in self.entrants or taken & set(entrant.players):
            raise ValueError("entrants and their players must be distinct")
        self.entrants[entrant.id] = entrant
        self.seed_index[entrant.id] = len(self.ids)
        self.ids.append(entrant.id)
        self.lot[entrant.id] = _lot(self.seed, entrant.id)
        if not self.rounds:
            self._set_rounds()

    def remove_entrant(self, entrant: str) -> None:
        """A registration withdrawn before the first round (or a no-show dropped at
        the start): the entrant leaves the field as if it had never entered."""
        if self.rounds:
            raise ValueError("the tournament has started: withdraw the entrant instead")
        if entrant not in self.entrants:
            raise ValueError(f"no entrant {entrant!r}")
        del self.entrants[entrant]
        self.ids.remove(entrant)
        self.seed_index = {e: i for i, e in enumerate(self.ids)}
        del self.lot[entrant]
        self.checked_in.discard(entrant)
        self._set_rounds()

    # ----- results ------------------------------------------------------------------

    def record(self, round_no: int, table_no: int, outcome: Outcome) -> None:
        """Record (or correct) a table's result; only the latest round's tables."""
        if not self.rounds or round_no != len(self.rounds):
            raise ValueError("results are recorded for the latest round only")
        tables = self.rounds[-1].tables
        if not 1 <= table_no <= len(tables):
            raise ValueError(f"round {round_no} has no table {table_no}")
        outcome = Outcome(outcome)
        if self.is_knockout_round(round_no) and outcome == Outcome.DRAW:
            raise ValueError("a knockout table needs a winner: replay it or decide it")
        self._results[(round_no, table_no)] = outcome

    def correct(self, round_no: int, table_no: int, outcome: Outcome) -> Outcome | None:
        """Correct a table's result in any round played so far (the organiser's
        ruling after the fact); the previous result (None: it had none). Later
        pairings stand, the standings follow. A knockout round's result is fixed
        once the next round is paired (it decided who went on)."""
        if not 1 <= round_no <= len(self.rounds):
            raise ValueError(f"round {round_no} has not been played")
        tables = self.rounds[round_no - 1].tables
        if not 1 <= table_no <= len(tables):
            raise ValueError(f"round {round_no} has no table {table_no}")
        outcome = Outcome(outcome)
        if self.is_knockout_round(round_no):
            if outcome == Outcome.DRAW:
                raise ValueError("a knockout table needs a winner")
            if round_no < len(self.rounds):
                raise ValueError("the knockout has moved on from that round")
        previous = self._results.get((round_no, table_no))
        self._results[(round_no, table_no)] = outcome
        return previous

    def knockout_tie_winner(self, table: Table) -> Outcome:
        """The outcome of a knockout table whose game ended level: the entrant seeded
        higher wins (``KnockoutTie``)."""
        a_higher = self.seed_index[table.a] < self.seed_index[table.b]
        return Outcome.A_WINS if a_higher else Outcome.B_WINS

    def result(self, table: Table) -> Outcome | None:
        return self._results.get((table.round, table.number))

    def withdraw(self, entrant: str) -> None:
        """The entrant is paired no more; its results so far stand."""
        if entrant not in self.entrants:
            raise ValueError(f"no entrant {entrant!r}")
        self.withdrawn.add(entrant)

    def round_complete(self, number: int) -> bool:
        return all(self.result(t) is not None for t in self.rounds[number - 1].tables)

    @property
    def is_over(self) -> bool:
        if self.cancelled:
            return True
        return len(self.rounds) == self.total_rounds and self.round_complete(len(self.rounds))

    def seats(self, table: Table) -> tuple[str, ...]:
        """The players in seat order: side A on the even seats, side B on the odd."""
        a, b = self.entrants[table.a].players, self.entrants[table.b].players
        return tuple(p for pair in zip(a, b, strict=True) for p in pair)

    # ----- pairing ------------------------------------------------------------------

    def pair_next_round(self) -> Round:
        if len(self.rounds) >= self.total_rounds:
            raise ValueError("every round has been paired")
        if self.rounds and not self.round_complete(len(self.rounds)):
            raise ValueError(f"round {len(self.rounds)} still has tables without a result")
        number = len(self.rounds) + 1
        if len(self.ids) < 2:
            raise ValueError("fewer than two entrants are left to pair")
        if self.format == Format.ROUND_ROBIN:
            pairs, byes = self._round_robin_pairs(number)
        elif self.is_knockout_round(number):
            if self.format == Format.SINGLE_ELIMINATION:
                pairs, byes = self._knockout_pairs(number, self.ids, 1)
            else:
                first = self.swiss_rounds + 1
                if number == first and not self.playoff_seeds:
                    ranked = [s.entrant for s in self.standings() if not s.withdrawn]
                    self.playoff_seeds = ranked[: self.playoff]
                pairs, byes = self._knockout_pairs(number, self.playoff_seeds, first)
        else:
            pairs, byes = self._swiss_pairs()
        tables = tuple(Table(number, i, a, b) for i, (a, b) in enumerate(pairs, start=1))
        rnd = Round(number, tables, tuple(byes))
        self.rounds.append(rnd)
        return rnd

    def restore_round(
        self,
        number: int,
        pairs: Sequence[tuple[str, str]],
        byes: Sequence[str],
        seeds: Sequence[str] = (),
    ) -> Round:
        """Round ``number`` as it was paired and stored (the next round), without
        pairing it again: a Swiss round's pairs are taken as stored (pairing searches,
        and a stored round must not be searched for again on every load); a round
        robin's or a knockout's, which pair without searching, are paired again and
        must be the stored ones (ValueError otherwise, as for pairs that name
        unknown entrants or one entrant twice)."""
        if number != len(self.rounds) + 1:
            raise ValueError(f"round {number} is not the next round")
        if self.playoff and number == self.swiss_rounds + 1:
            # The play-off's entrants as they were drawn from the Swiss standings.
            self.playoff_seeds = list(seeds)
        if self.format != Format.SWISS or self.is_knockout_round(number):
            rnd = self.pair_next_round()
            if [(t.a, t.b) for t in rnd.tables] != [tuple(p) for p in pairs]:
                self.rounds.pop()
                if self._slots and len(self._slots) > len(self.rounds):
                    self._slots.pop()
                raise ValueError(f"round {number} does not pair as it was stored")
            return rnd
        if len(self.rounds) >= self.total_rounds:
            raise ValueError("every round has been paired")
        if self.rounds and not self.round_complete(len(self.rounds)):
            raise ValueError(f"round {len(self.rounds)} still has tables without a result")
        seen = [e for p in pairs for e in p] + list(byes)
        if len(set(seen)) != len(seen) or any(e not in self.entrants for e in seen):
            raise ValueError(f"round {number}: unknown or repeated entrants")
        tables = tuple(Table(number, i, a, b) for i, (a, b) in enumerate(pairs, start=1))
        rnd = Round(number, tables, tuple(byes))
        self.rounds.append(rnd)
        return rnd

    def _round_robin_pairs(self, number: int) -> tuple[list[tuple[str, str]], list[str]]:
        pairs: list[tuple[str, str]] = []
        byes: list[str] = []
        for a, b in self._schedule[number - 1]:
            a = None if a in self.withdrawn else a
            b = None if b in self.withdrawn else b
            if a is not None and b is not None:
                pairs.append((a, b))
            elif a is not None or b is not None:
                byes.append(a if a is not None else str(b))
        return pairs, byes

    def _swiss_pairs(self) -> tuple[list[tuple[str, str]], list[str]]:
        records = self._records()
        active = [e for e in self.ids if e not in self.withdrawn]
        if len(active) < 2:
            raise ValueError("fewer than two entrants are left to pair")
        active.sort(key=lambda e: (-records[e].points, self.seed_index[e]))
        score = {e: records[e].points for e in active}
        met: Counter[frozenset[str]] = Counter()
        a_sides: Counter[str] = Counter()
        for rnd in self.rounds:
            for t in rnd.tables:
                met[frozenset((t.a, t.b))] += 1
                a_sides[t.a] += 1
        bye: list[str] = []
        pairs: list[tuple[str, str]] | None = None
        if len(active) % 2:
            # Lowest-ranked first among those with the fewest byes.
            candidates = sorted(reversed(active), key=lambda e: records[e].byes)
            fewest = records[candidates[0]].byes
            for c in (c for c in candidates if records[c].byes == fewest):
                pairs = _pair([e for e in active if e != c], score, met, False)
                if pairs is not None:
                    bye = [c]
                    break
            if pairs is None:
                bye = [candidates[0]]
        rest = [e for e in active if e not in bye]
        if pairs is None:
            pairs = _pair(rest, score, met, False)
        if pairs is None:
            pairs = _pair(rest, score, met, True)
            assert pairs is not None  # with repeats allowed the first path always pairs
        # Side A to whoever has had it less often, else to the higher-ranked.
        balanced = [(q, p) if a_sides[p] > a_sides[q] else (p, q) for p, q in pairs]
        return balanced, bye

    def _knockout_pairs(
        self, number: int, seeds: Sequence[str], first: int
    ) -> tuple[list[tuple[str, str]], list[str]]:
        """A knockout stage's round ``number``: the stage began at round ``first``
        with ``seeds`` (strongest first) in a seeded bracket."""
        if number == first:
            n = len(seeds)
            size = 1 << (self.total_rounds - first + 1)
            slots = [seeds[s - 1] if s <= n else None for s in bracket_order(size)]
        else:
            prev = self._slots[-1]
            slots = [
                self._advancer(number - 1, prev[i], prev[i + 1]) for i in range(0, len(prev), 2)
            ]
        slots = [None if s in self.withdrawn else s for s in slots]
        self._slots.append(slots)
        pairs: list[tuple[str, str]] = []
        byes: list[str] = []
        for i in range(0, len(slots), 2):
            a, b = slots[i], slots[i + 1]
            if a is not None and b is not None:
                pairs.append((a, b))
            elif a is not None or b is not None:
                byes.append(a if a is not None else str(b))
        return pairs, byes

    def _advancer(self, number: int, a: str | None, b: str | None) -> str | None:
        if a is None or b is None:
            return a if b is None else b
        table = next(t for t in self.rounds[number - 1].tables if (t.a, t.b) == (a, b))
        outcome = self.result(table)
        effect_a, effect_b, _, _ = _EFFECT[outcome] if outcome else (LOSS, LOSS, True, True)
        return a if effect_a == WIN else b if effect_b == WIN else None

    @property
    def champion(self) -> str | None:
        """The knockout's (or the play-off's) winner, once it is over."""
        if not self.is_knockout_round(self.total_rounds) or not self.is_over or self.cancelled:
            return None
        final = self._slots[-1]
        return self._advancer(len(self.rounds), final[0], final[1])

    # ----- standings ----------------------------------------------------------------

    def _records(self) -> dict[str, _Record]:
        recs = {e: _Record() for e in self.ids}
        worth = {WIN: self.points.win, DRAW: self.points.draw, LOSS: self.points.loss}
        for rnd in self.rounds:
            for e in rnd.byes:
                recs[e].byes += 1
                recs[e].points += self.points.bye
                recs[e].survived += 1
            for t in rnd.tables:
                outcome = self.result(t)
                if outcome is None:
                    continue
                ra, rb, absent_a, absent_b = _EFFECT[outcome]
                for e, r, absent in ((t.a, ra, absent_a), (t.b, rb, absent_b)):
                    rec = recs[e]
                    rec.points += worth[r]
                    rec.wins += r == WIN
                    rec.draws += r == DRAW
                    rec.losses += r == LOSS
                    rec.forfeits += absent
                    rec.survived += r == WIN
        return recs

    def standings(self) -> list[Standing]:
        """Every entrant's place, computed from every result so far: linear in the
        tables played, but tens of milliseconds for a thousand entrants, so the
        service computes it when a result is recorded (off the event loop) and
        stores it, and a read shows what was stored."""
        recs = self._records()
        share = {WIN: 1.0, DRAW: 0.5, LOSS: 0.0}
        buchholz = dict.fromkeys(self.ids, 0.0)
        sb = dict.fromkeys(self.ids, 0.0)
        for rnd in self.rounds:
            for t in rnd.tables:
                outcome = self.result(t)
                if outcome is None:
                    continue
                ra, rb, _, _ = _EFFECT[outcome]
                for e, opp, r in ((t.a, t.b, ra), (t.b, t.a, rb)):
                    buchholz[e] += recs[opp].points
                    sb[e] += recs[opp].points * share[r]

        values = {
            TieBreaker.BUCHHOLZ: buchholz,
            TieBreaker.SONNEBORN_BERGER: sb,
            TieBreaker.WINS: {e: float(recs[e].wins) for e in self.ids},
        }
        order = [values[b] for b in self.tie_breaks]
        # A play-off's entrants rank first, by play-off rounds survived, then by
        # their Swiss rank (their play-off seed).
        playoff_seed = {e: i for i, e in enumerate(self.playoff_seeds)}
        playoff_survived = dict.fromkeys(self.playoff_seeds, 0)
        for rnd in self.rounds[self.swiss_rounds :] if self.playoff_seeds else ():
            for e in rnd.byes:
                playoff_survived[e] += 1
            for t in rnd.tables:
                outcome = self.result(t)
                if outcome is not None:
                    ra, rb, _, _ = _EFFECT[outcome]
                    playoff_survived[t.a] += ra == WIN
                    playoff_survived[t.b] += rb == WIN

        def key(e: str) -> tuple[float, ...]:
            if self.format == Format.SINGLE_ELIMINATION:
                return (-recs[e].survived, self.seed_index[e])
            base = (-recs[e].points, *(-v[e] for v in order), self.lot[e], self.seed_index[e])
            if not self.playoff_seeds:
                return base
            if e in playoff_seed:
                return (0, -playoff_survived[e], playoff_seed[e], *base)
            return (1, 0, 0, *base)

        return [
            Standing(
                rank=i,
                entrant=e,
                points=recs[e].points,
                wins=recs[e].wins,
                draws=recs[e].draws,
                losses=recs[e].losses,
                byes=recs[e].byes,
                forfeits=recs[e].forfeits,
                buchholz=buchholz[e],
                sonneborn_berger=sb[e],
                lot=self.lot[e],
                withdrawn=e in self.withdrawn,
                survived=recs[e].survived,
            )
            for i, e in enumerate(sorted(self.ids, key=key), start=1)
        ]


# ----- the pieces ---------------------------------------------------------------------


def _lot(seed: int, entrant: str) -> int:
    digest = hashlib.sha256(f"{seed}:lot:{entrant}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def round_robin_schedule(ids: Sequence[str]) -> list[list[tuple[str | None, str | None]]]:
    """The circle method: every round's pairs, ``None`` being the rest of an odd field.
    The fixed entrant changes side every round."""
    slots: list[str | None] = [*ids, None] if len(ids) % 2 else list(ids)
    n = len(slots)
    schedule = []
    for r in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = slots[i], slots[n - 1 - i]
            pairs.append((b, a) if i == 0 and r % 2 else (a, b))
        schedule.append(pairs)
        slots = [slots[0], slots[-1], *slots[1:-1]]
    return schedule


def bracket_order(size: int) -> list[int]:
    """Seeds 1..size in bracket order, so that seed 1 meets seed ``size`` first and the
    top two seeds can only meet in the final: [1, 8, 4, 5, 2, 7, 3, 6] for eight."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def _pair(
    order: list[str],
    score: dict[str, float],
    met: Counter[frozenset[str]],
    allow_repeats: bool,
) -> list[tuple[str, str]] | None:
    """Pair ``order`` (ranked, even in number). Without repeats: first a short search
    for a pairing with the fewest tables between different scores (each odd-sized
    score group floats one entrant), then one more, then any pairing; ``None`` if
    none without repeats is found. With repeats allowed: greedily, fewest first."""
    half = len(order) // 2
    if allow_repeats:
        return _search(order, score, met, True, half, [len(order) + 1])
    least = _mixed_needed(order, score)
    for limit in range(least, min(least + FLOAT_PASSES, half)):
        budget = [FLOAT_SEARCH_STEPS]
        found = _search(order, score, met, False, limit, budget)
        if found is not None:
            return found
    return _search(order, score, met, False, half, [SEARCH_STEPS])


def _mixed_needed(entrants: list[str], score: dict[str, float]) -> int:
    """At least one member of each odd-sized score group meets another score."""
    sizes = Counter(score[e] for e in entrants)
    return sum(n % 2 for n in sizes.values()) // 2


def _search(
    order: list[str],
    score: dict[str, float],
    met: Counter[frozenset[str]],
    allow_repeats: bool,
    mixed_limit: int,
    budget: list[int],
) -> list[tuple[str, str]] | None:
    """The top unpaired entrant takes its most preferred opponent, backtracking on dead
    ends; at most ``mixed_limit`` tables between different scores. ``None`` if there
    is no such pairing or the budget of steps runs out."""
    rank = {e: i for i, e in enumerate(order)}
    unmet = {e: {o for o in order if o != e and met[frozenset((e, o))] == 0} for e in order}

    def fresh(x: str, y: str) -> bool:
        return y in unmet[x]

    def candidates(p: str, rest: list[str]) -> list[str]:
        same = [e for e in rest if score[e] == score[p]]
        half = (len(same) + 1) // 2 - 1  # the entrant half the score group below p
        preferred = same[half:] + same[:half][::-1] if same else []
        others = sorted(
            (e for e in rest if score[e] != score[p]),
            key=lambda e: (abs(score[e] - score[p]), rank[e]),
        )
        cands = preferred + others
        if allow_repeats:
            return sorted(cands, key=lambda e: met[frozenset((p, e))])  # stable
        return [e for e in cands if fresh(p, e)]

    def feasible(rest: list[str], mixed_left: int) -> bool:
        if _mixed_needed(rest, score) > mixed_left:
            return False
        pool = set(rest)
        return allow_repeats or all(not unmet[u].isdisjoint(pool) for u in rest)

    def solve(rest: list[str], mixed_left: int) -> list[tuple[str, str]] | None:
        if not rest:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        p, others = rest[0], rest[1:]
        for q in candidates(p, others):
            left = mixed_left - (score[p] != score[q])
            remaining = [e for e in others if e != q]
            if left < 0 or not feasible(remaining, left):
                continue
            sub = solve(remaining, left)
            if sub is not None:
                return [(p, q), *sub]
            if budget[0] < 0:
                return None
        return None

    return solve(list(order), mixed_limit)
