"""Settling finished matches: what each counts for (ratings, ranking points, chips,
its tournament table's result), exactly once per match.

What a match counts for (003), decided here from the pure platform modules
(``platform.ratings``, ``platform.ranking``, ``platform.chips`` through the ledger,
``services.tournaments.record_game_result``):

- a tournament table the organiser decided with a forfeit (RecordForfeit) before
  its game ended: the forfeit is the table's result, so the game counts for no one,
  as an annulment (stakes back, no rating, no ranking points): a player is never
  credited a forfeit win in the tournament and a rated loss for the same table.
- practice table: nothing ("Desactiva esta opción para practicar (no ganarás puntos
  ni fichas...)"); its tournament result is still recorded.
- annulled ("la partida se anula... los jugadores no suman ni restan puntos, y esa
  partida no cuenta en la clasificación ni en las estadísticas. Además, las fichas
  apostadas son devueltas"): the stakes go back, no rating, no ranking points, no
  match counted.
- otherwise (a win, including by resignation: the resigning side loses, or a
  draw): ratings (both partners of a pair move together), ranking points ("40
  puntos / 20 puntos" for a win by game type, "Los jugadores que pierden una
  partida, suman 5 puntos", none when "2 jugadores de la mesa comparten la misma
  IP"), and the pot to the winning side less the house's 25% (a draw splits it
  between every seat).
- abandonment (``services/abandonment.py``): a player who left the rated match
  under way, or whose seat a robot held past the app's grace, pays the app's
  penalty with this settlement (an annulment keeps their stake, "excepto si han sido
  penalizados por abandono"); and a match a seat played partly in automatic mode is
  not rated where the app says so (``UNRATED``: no ratings, no ranking points, the
  pot still paid).
- and, for a rated match, its players' XP, levels and achievements
  (``services/progression.py``: "no conseguirás logros y no subirás de nivel" at a
  practice table), the win's ranking points and XP weighted by the stake ("Los puntos
  ganados dependen del tipo de juego y la apuesta inicial"); a tournament finished
  by the game counts for the players of its first entrant.

Exactly once: the repository (the port below, ``store/settlement.py`` on a
database) settles each finished, unsettled game in one transaction of its own. It
claims the game's row (PostgreSQL: ``FOR UPDATE SKIP LOCKED``, so replicas sweeping
at the same time settle different games; SQLite: the process's one writer and the
file's write lock), runs this module's decision with the reads and writes it asks
for (``SettlementWork``, all inside that transaction), and marks the game settled
(``WHERE settled = false``): a second settlement of the same game finds nothing to
do, and a failed one writes nothing and is tried again at the next sweep. Practice
games outside tournaments, for which settling writes nothing but the flag, are
settled together in one statement of the same kind.

Every replica's sweeper (``services/timers.py``) calls ``Settlement.settle_pending``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

import structlog

from .. import metrics
from ..platform import DRAWN, PlayerId, chips, ranking, ratings, winners_of
from ..platform.entry_fees import ChipMoves
from ..platform.progression import stake_percent
from ..platform.tournament_events import FINISHED as TOURNAMENT_FINISHED
from ..table.game import NO_RESULT, GameState, Setup
from . import abandonment, progression
from .abandonment import AbandonmentWork, Penalties
from .errors import Unavailable
from .tournaments import (
    TournamentResults,
    count_chips,
    decided_by_forfeit,
    game_result,
    write_game_result,
)

log = structlog.get_logger("tranca.settlement")

RATED, ANNULLED_OUTCOME, PRACTICE = "rated", "annulled", "practice"
FORFEITED = "forfeited"  # a tournament table decided by a forfeit: counts for no one
UNRATED = "unrated"  # automatic mode at a table of an app that does not rate it
BATCH = 20  # games settled per sweep


@dataclass(frozen=True)
class Settled:
    game_id: str
    outcome: str  # RATED, UNRATED, ANNULLED_OUTCOME, FORFEITED or PRACTICE
    entries: tuple[chips.Entry, ...]  # the chips it moved
    # What its tournament result moved through the prize pool (prizes at the finish).
    tournament_chips: ChipMoves = field(default_factory=ChipMoves)


@dataclass(frozen=True)
class PendingGame:
    """A finished game not settled yet: its setup, and whether it is a tournament's."""

    game_id: str
    setup: Setup
    in_tournament: bool

    @property
    def plain_practice(self) -> bool:
        """A practice game outside tournaments: settling it writes nothing but its
        flag, so it is settled with the others in one statement."""
        return not self.in_tournament and not self.setup.table.competitive


@dataclass(frozen=True)
class RatedPlayer:
    """A player's rating and competitive matches won, as stored."""

    rating: ratings.Rating
    wins: int


class SettlementWork(TournamentResults, AbandonmentWork, Protocol):
    """One claimed game's settlement inside its transaction: every read and write here
    commits with the game's settled flag, or none does."""

    @property
    def game_id(self) -> str: ...

    @property
    def app_id(self) -> str: ...

    @property
    def state(self) -> GameState:
        """The finished game, as its snapshot was claimed."""
        ...

    async def ended_at(self) -> datetime:
        """When the match ended: the time of its last logged action."""
        ...

    async def lock_ratings(self, players: Sequence[PlayerId]) -> dict[PlayerId, RatedPlayer]:
        """The players' ratings, a player never rated stored first at the initial
        rating; locked in player id order until the transaction ends (PostgreSQL), so
        two settlements that share a player rate one after the other."""
        ...

    async def write_ratings(self, rated: Mapping[PlayerId, RatedPlayer], at: datetime) -> None:
        """The players' new ratings and wins (in player id order)."""
        ...

    async def seat_addresses(self) -> dict[int, str]:
        """Each seat's network address: the one its player joined from (the seat's
        first token that is still valid; a seat left before the start has none)."""
        ...

    async def add_awards(self, awards: Sequence[ranking.Award]) -> None:
        """The match's ranking points."""
        ...

    async def lock_chip_accounts(self, accounts: Sequence[chips.Account]) -> None:
        """Lock these chip accounts in one order until the transaction ends, before a
        settlement that moves chips twice (the match's pot, its tournament's prize
        pool): each operation alone locks its accounts in order, two in a row would
        not."""
        ...

    async def refund_stakes(
        self, kept: frozenset[PlayerId] = frozenset()
    ) -> tuple[chips.Entry, ...]:
        """Every stake of the match back to its player (``ledger.refund``), except
        those of ``kept`` (penalised for abandoning it), which the house keeps."""
        ...

    async def pay_pot(self, winners: Sequence[PlayerId]) -> tuple[chips.Entry, ...]:
        """The match's pot to ``winners`` less the house share (``ledger.settle``)."""
        ...

    def progression(self) -> progression.ProgressionWork:
        """The match's XP, levels and achievements, in the same transaction."""
        ...


class SettlementRepository(Protocol):
    async def pending(self, limit: int) -> list[PendingGame]:
        """Up to ``limit`` finished, unsettled games, those that finished first first."""
        ...

    async def settle_plain(self, game_ids: Sequence[str]) -> list[str]:
        """Mark those of ``game_ids`` still finished and unsettled settled, in one
        statement, writing nothing else; the ids this call settled."""
        ...

    async def settle_game(
        self, game_id: str, settle: Callable[[SettlementWork], Awaitable[Settled]]
    ) -> Settled | None:
        """In one transaction: claim the game if it is finished and unsettled (and no
        other replica holds it), run ``settle`` on it, mark it settled. None (nothing
        written) if the game could not be claimed; if ``settle`` raises, nothing is
        written either."""
        ...


class Settlement:
    def __init__(self, repo: SettlementRepository) -> None:
        self.repo = repo

    async def settle_pending(self, limit: int = BATCH) -> int:
        """Settle up to ``limit`` finished, unsettled games; returns how many.

        Practice games outside tournaments (most games) count for nothing: settling one
        only sets its flag, so they are settled together, in one statement, without
        their snapshots being read (``settle_practice``). Every other game gets a
        transaction of its own (``settle_game``). A game whose settlement fails (a bug:
        it is logged and counted) is left for the next sweep and does not hold up the
        others; a database outage ends the sweep."""
        pending = await self.repo.pending(limit)
        practice = [g.game_id for g in pending if g.plain_practice]
        others = [g.game_id for g in pending if not g.plain_practice]
        count = await self.settle_practice(practice) if practice else 0
        for game_id in others:
            try:
                done = await self.settle_game(game_id)
            except Unavailable:
                raise
            except Exception:
                metrics.SETTLEMENT_FAILURES.inc()
                log.exception("settlement_failed", game_id=game_id)
                continue
            if done is not None:
                count += 1
                metrics.MATCHES_SETTLED.labels(done.outcome).inc()
                for e in done.entries:
                    if e.amount > 0:  # each transfer once: its receiving side
                        metrics.CHIPS_MOVED.labels(e.purpose.value).inc(e.amount)
                count_chips(done.tournament_chips)
        return count

    async def settle_practice(self, game_ids: Sequence[str]) -> int:
        """Finished practice games outside tournaments, settled in one statement: their
        flag set and nothing else written, as ``settle_game`` would settle each. Only
        games still unsettled are taken, so a game another replica settled since it was
        read is neither settled again nor counted again. Returns how many this call
        settled."""
        settled = await self.repo.settle_plain(game_ids)
        for game_id in settled:
            log.info("match_settled", game_id=game_id, outcome=PRACTICE)
        metrics.MATCHES_SETTLED.labels(PRACTICE).inc(len(settled))
        return len(settled)

    async def settle_game(self, game_id: str) -> Settled | None:
        """Settle one finished game; None if it is not finished, is settled already, or
        another replica is settling it right now."""
        done = await self.repo.settle_game(game_id, settle)
        if done is not None:
            log.info("match_settled", game_id=game_id, outcome=done.outcome)
        return done


# ----- one game, inside its transaction ---------------------------------------------------


async def settle(work: SettlementWork) -> Settled:
    """What the claimed game counts for, written through ``work``, and its tournament
    table's result."""
    state = work.state
    # The tournament table's result first worked out (not yet written), so that the
    # chip accounts of both the match and the tournament's prize pool can be locked
    # together, in one order, before either moves.
    result = await game_result(work, work.game_id, state.winner, state.result_reason)
    if result is not None and result.written.chips:
        prize_pool = result.written.chips.accounts(result.row.id)
        await work.lock_chip_accounts([*_match_accounts(work), *prize_pool])
    if await decided_by_forfeit(work, work.game_id):
        entries = await work.refund_stakes() if state.setup.table.competitive else ()
        outcome = FORFEITED if state.setup.table.competitive else PRACTICE
    else:
        outcome, entries = await _counts(work, state)
    finished = result is not None and result.written.status == TOURNAMENT_FINISHED
    if result is not None and finished and state.setup.table.competitive:
        # The players of the entrants first at the end: a tournament won.
        first = {s.entrant for s in result.written.standings if s.rank == 1}
        members = {e.id: e.players for e in result.row.config.entrants}
        champions = sorted({p for e in first for p in members.get(e, (e,))})
        await progression.grant_tournament_won(work.progression(), result.row.id, champions)
    moved = await write_game_result(work, result) if result is not None else ChipMoves()
    return Settled(work.game_id, outcome, entries, moved)


def _match_accounts(work: SettlementWork) -> list[chips.Account]:
    """The accounts the match's stakes may move: its pot, the house, its players."""
    table = work.state.setup.table
    if not (table.competitive and table.stake):
        return []
    players = [chips.player_account(s.player_id) for s in work.state.seats if s.player_id]
    return [chips.pot_account(work.game_id), chips.HOUSE, *players]


async def _counts(work: SettlementWork, state: GameState) -> tuple[str, tuple[chips.Entry, ...]]:
    table = state.setup.table
    if not table.competitive:
        return PRACTICE, ()
    # Who abandoned the match, and the app's penalty (services/abandonment.py).
    penalties = await abandonment.assess(work, state)
    await abandonment.record(work, penalties)
    if state.result_reason in NO_RESULT:
        # No result (annulled by agreement, or ended by the app): every stake goes
        # back, except a penalised player's (003), nobody is rated.
        return ANNULLED_OUTCOME, await work.refund_stakes(penalties.kept_stakes())
    players = [s.player_id for s in state.seats]
    if not all(players) or len(set(players)) != len(players):
        # JoinGame refuses both at a competitive table; a game from before that rule
        # has nobody to rate or pay.
        log.warning("settlement_without_players", game_id=work.game_id)
        return PRACTICE, ()
    ended = await work.ended_at()
    # A match not rated (a seat played automatic where the app says so) earns no
    # ranking points, and no XP or achievements either: those are a rated match's.
    scored = False
    if penalties.rated:
        await _rate(work, players, state.winner, penalties)
        scored = await _award(work, state, players, ended, penalties)
    await progression.grant(
        work.progression(), state, players, scored=scored, abandoned=penalties.players
    )
    entries: tuple[chips.Entry, ...] = ()
    if table.stake:
        entries = await work.pay_pot(winners_of(players, state.winner))
    return (RATED if penalties.rated else UNRATED), entries


async def _rate(
    work: SettlementWork, players: list[PlayerId], winner: int, penalties: Penalties
) -> None:
    """Rate the match (each side a team, partners together) and count it; a player
    penalised for abandoning it is rated as a loss where the app says so."""
    before = await work.lock_ratings(players)
    book = ratings.RatingBook({p: r.rating for p, r in before.items()})
    losers = penalties.rated_losers()
    after = abandonment.rate_with_losses(book, players, winner, losers)
    won = set(winners_of(players, winner)) - losers if winner != DRAWN else set()
    rated = {
        p: RatedPlayer(after[p], before[p].wins + (1 if p in won else 0)) for p in sorted(players)
    }
    await work.write_ratings(rated, datetime.now(UTC))


async def _award(
    work: SettlementWork,
    state: GameState,
    players: list[PlayerId],
    ended: datetime,
    penalties: Penalties,
) -> bool:
    """The match's ranking points (none when two seats share a network address),
    the win's weighted by the stake (``progression.stake_percent``, the app's tiers);
    whether they scored."""
    addresses = await work.seat_addresses()
    seats = [
        # A seat with no address recorded shares it with nobody.
        ranking.SeatEntry(p, addresses.get(seat) or f"unknown seat {seat}")
        for seat, p in enumerate(players)
    ]
    kind = ranking.game_type(state.setup.rules.target_score)
    rules = await work.progression().progression_rules()
    percent = stake_percent(state.setup.table.stake, rules.stake_tiers)
    awards = ranking.match_awards(
        work.game_id, seats, state.winner, kind, ended, stake_percent=percent
    )
    awards = penalties.awards(awards, work.game_id, ended)
    if awards:
        await work.add_awards(awards)
    return not ranking.shared_address(s.address for s in seats)


__all__ = [
    "ANNULLED_OUTCOME",
    "FORFEITED",
    "PRACTICE",
    "RATED",
    "UNRATED",
    "PendingGame",
    "RatedPlayer",
    "Settled",
    "Settlement",
    "SettlementRepository",
    "SettlementWork",
    "settle",
]
