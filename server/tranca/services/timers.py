"""The sweeper: every replica runs one; together they fire expired turn timers, play
robots' turns and settle finished matches, each exactly once (see run_once), and
advance the scheduled tournaments that are due (``Tournaments.run_due``: claimed
through the database as games are, below).

games.deadline_at says when a game needs the sweeper next (written with every move
that starts a turn, see ``app.deadlines.next_deadline``). A sweep claims the overdue
games in one statement that also moves their deadline to a lease (PostgreSQL locks
them with SKIP LOCKED, so two replicas never claim the same game; SQLite has one
writer), then acts on each through the ordinary compare-and-swap write at the
version it claimed. If the player moved meanwhile the write is refused and the
fallback dropped: the player's own move wins. If a replica dies holding a claim,
the lease runs out and another replica claims the game again.

What a sweep does with a claimed game whose seat to act is:
- held by a robot: the robot plays the whole turn (actor "robot");
- silent for the table's robot grace period: a robot takes the seat (a "robot"
  action in the log), then plays the turn;
- out of time (the table has a turn limit): the server plays the turn for the
  player, a draw and a discard (actor "timeout"; see ``fallback_move``);
- present, on a table without a turn limit: nothing; the deadline moves to the end
  of the grace period counted from the player's last sign of life.

A claimed game still waiting for its start is a rematch's next match whose held
seats are freed (services/rematch.py), or a tournament table past its start
deadline: it is closed as a no-show.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

import structlog

from tranca_rules.bots import GreedyBot
from tranca_rules.engine import legal_moves
from tranca_rules.moves import DISCARD, DRAW, Move
from tranca_rules.state import DealState

from .. import metrics
from ..table.action_kinds import ActionKind
from ..table.game import (
    BY_ROBOT,
    BY_TIMEOUT,
    FINISHED,
    PLAYING,
    WAITING,
    Action,
    GameState,
    play_action,
)
from .errors import ServiceError, VersionConflict
from .moves import Moves, now_ms
from .ports import Claim, GameRecord
from .robots import ROBOT_LEVELS, Robots, level_within


class TimerRepository(Protocol):
    """What the sweeper reads and writes beside a game's changes."""

    async def game(self, game_id: str) -> GameRecord: ...

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[Claim]:
        """Claim up to ``limit`` overdue games for ``lease_ms`` (see ``Claim``)."""
        ...

    async def set_deadline(self, claim: Claim, version: int, deadline_at: int | None) -> bool:
        """A claimed game's next deadline, unless it changed since (False then)."""
        ...

    async def last_seen_ms(self, game_id: str, seat: int) -> int:
        """When the seat's player was last known to be there (epoch ms)."""
        ...


log = structlog.get_logger("tranca.sweeper")

LEASE_MS = 30_000  # a claim's hold on a game; a crashed replica's games come back after it
BATCH = 20  # games claimed per statement
MAX_TURN_MOVES = 200  # a turn has far fewer atomic moves; a bound against any loop
ATTEMPTS = 3  # re-reads of a claimed game after a player's write within the turn
MAX_BACKOFF = 30.0


def fallback_move(deal: DealState, seed: int) -> Move | None:
    """The move the server makes for a player whose turn's time ran out.

    003 ("Tiempo por turno"): "Si el tiempo concluye, el juego realizará la jugada
    por él". The server plays as little as it can for the player: it draws from the
    stock and discards the card the greedy bot would keep least, and lays nothing
    down (the player's hand and plans stay theirs). Where the stock cannot be drawn
    from, or no discard is open (a hand that must meld to go on), it plays the
    greedy bot's move. Always one of ``legal_moves``; None when there is none.
    """
    moves = legal_moves(deal)
    if not moves:
        return None
    draws = [m for m in moves if m.kind == DRAW]
    if draws:
        return draws[0]
    bot = GreedyBot(seed)
    discards = [m for m in moves if m.kind == DISCARD]
    return bot.choose(deal, discards or moves)


def robot_move(deal: DealState, seed: int) -> Move | None:
    """A robot's move: the greedy bot's (tranca_rules/bots.py), one of ``legal_moves``."""
    moves = legal_moves(deal)
    return GreedyBot(seed).choose(deal, moves) if moves else None


class Sweeper:
    def __init__(
        self,
        store: TimerRepository,
        moves: Moves,
        settle: Callable[[], Awaitable[int]] | None = None,
        *,
        schedule: Callable[[], Awaitable[int]] | None = None,
        lease_ms: int = LEASE_MS,
        batch: int = BATCH,
        clock: Callable[[], int] = now_ms,
        robots: Robots | None = None,
    ) -> None:
        self.store = store
        # Who plays the robots' seats (services/robots.py): at the table's level or
        # the operator's, the random or greedy bot on the event loop, or the expert
        # in worker processes.
        self.robots = robots or Robots()
        self.moves = moves
        # Settles finished matches (their ratings, points, chips, tournament results);
        # returns how many it settled.
        self.settle = settle
        # Advances the scheduled tournaments that are due (``Tournaments.run_due``:
        # rounds started, rounds' clocks run out); returns how many it advanced.
        self.schedule = schedule
        self.lease_ms = lease_ms
        self.batch = batch
        # Epoch ms; a test may run it ahead to find every clock run out at once.
        self.clock = clock

    async def run_once(self) -> int:
        """One sweep: timers and robots, then settlements; returns how many games it
        acted on (a turn played or a seat taken over, or a match settled)."""
        started = time.perf_counter()
        acted = await self.sweep_timers()
        try:
            if self.settle is not None:
                acted += await self.settle()
        except Exception:
            # Logged, never fatal to the sweep: timers must fire whatever settling does.
            log.exception("settle_failed")
        try:
            if self.schedule is not None:
                acted += await self.schedule()
        except Exception:
            log.exception("schedule_failed")
        metrics.SWEEP_SECONDS.observe(time.perf_counter() - started)
        return acted

    async def sweep_timers(self) -> int:
        """Claim the overdue games and act on each; returns on how many a turn was
        played (by a robot or for a timed-out player) or a seat taken over."""
        claims = await self.store.claim_due(self.clock(), self.lease_ms, self.batch)
        # Games are acted on one at a time, or as many at once as the robots have
        # worker processes to think in (each game's turn stays in order).
        gate = asyncio.Semaphore(self.robots.concurrency)

        async def act(claim: Claim) -> bool:
            async with gate:
                try:
                    return await self._act(claim)
                except ServiceError as exc:
                    # Still claimed: another sweep retries it when the lease ends.
                    log.warning("sweep_game_failed", game_id=claim.game_id, error=str(exc))
                except Exception:
                    # A bug (the rules refusing the server's own move, say): logged with
                    # the game, and the other claimed games still get their turn.
                    log.exception("sweep_game_bug", game_id=claim.game_id)
                return False

        if self.robots.concurrency == 1:
            done = [await act(claim) for claim in claims]
        else:
            done = list(await asyncio.gather(*(act(claim) for claim in claims)))
        return sum(done)

    async def run(self, interval: float) -> None:
        """Sweep every ``interval`` seconds until cancelled. A sweep that claimed a
        full batch is followed at once by another; a failed one (the database away)
        is logged and the next waits longer, up to ``MAX_BACKOFF``."""
        delay = interval
        while True:
            try:
                busy = await self.run_once() >= self.batch  # more may be due: at once
                metrics.SWEEPS.labels("ok").inc()
                delay = interval
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                metrics.SWEEPS.labels("error").inc()
                log.warning("sweep_failed", error=str(exc) or type(exc).__name__)
                busy = False
                delay = min(MAX_BACKOFF, max(delay * 2, interval))
            await asyncio.sleep(0 if busy else delay)

    # ----- one claimed game -----------------------------------------------------------

    async def _act(self, claim: Claim) -> bool:
        for _ in range(ATTEMPTS):
            try:
                return await self._act_once(claim)
            except VersionConflict:
                # A write since the claim. If it started a new turn it also set a new
                # deadline and the claim is void (checked on the re-read); if not (the
                # player laid down a meld, say) the turn's time is still up.
                metrics.FALLBACKS_DROPPED.inc()
        return False

    async def _act_once(self, claim: Claim) -> bool:
        store = self.store
        game = await store.game(claim.game_id)
        if game.deadline_at != claim.lease_until:
            return False  # a write since the claim set a new deadline: nothing is due
        g = game.state
        deal = g.deal
        if g.status == WAITING and g.held:
            # A rematch's next match: the seats held for the last match's players who
            # have not confirmed it are freed for anyone (services/rematch.py).
            done = await self.moves.server_action(
                claim.game_id, game.version, g, Action(ActionKind.RELEASE), BY_TIMEOUT
            )
            await store.set_deadline(claim, done.version, None)
            log.info("rematch_seats_freed", game_id=claim.game_id)
            return True
        if g.status == WAITING and g.setup.table_id:
            # A rematch's next match whose held seats were all taken: nothing is due.
            await store.set_deadline(claim, game.version, None)
            return False
        if g.status == WAITING:
            # Only a tournament table's game has a deadline before its start: its
            # start deadline (services/tournaments.py). Past it the game is closed as
            # a no-show, which its settlement records as the table's double no-show
            # (every stake back, none having been taken).
            await self.moves.server_action(
                claim.game_id, game.version, g, Action(ActionKind.NO_SHOW), BY_TIMEOUT
            )
            log.info("tournament_table_not_started", game_id=claim.game_id)
            return True
        if g.status != PLAYING or deal is None:
            await store.set_deadline(claim, game.version, None)
            return False
        seat = deal.turn
        table = g.setup.table
        if seat in g.robots:
            await self._play_turn(claim.game_id, game.version, g, BY_ROBOT)
            return True
        if table.robot_grace_seconds:
            now = self.clock()
            seen = await store.last_seen_ms(claim.game_id, seat)
            grace_ms = table.robot_grace_seconds * 1000
            if now - seen >= grace_ms:
                done = await self.moves.server_action(
                    claim.game_id, game.version, g, Action(ActionKind.ROBOT, seat), BY_ROBOT
                )
                metrics.ROBOT_TAKEOVERS.inc()
                log.info("robot_takeover", game_id=claim.game_id, seat=seat)
                if done.state.status == FINISHED:
                    # The people left had all voted to annul: robots do not vote (003),
                    # so the takeover completed the annulment.
                    metrics.ANNULMENTS.inc()
                    return True
                await self._play_turn(claim.game_id, done.version, done.state, BY_ROBOT)
                return True
            if not table.turn_seconds:
                # Present, and no turn limit: look again when the grace would end.
                await store.set_deadline(claim, game.version, max(seen + grace_ms, now + 1000))
                return False
        if table.turn_seconds:
            # Claimed means due: with a turn limit the deadline is the turn's end.
            await self._play_turn(claim.game_id, game.version, g, BY_TIMEOUT)
            # Counted once its first move is written (a player's move first drops it).
            metrics.TURN_TIMEOUTS.inc()
            log.info("turn_timeout", game_id=claim.game_id, seat=seat, due=claim.due)
            return True
        await store.set_deadline(claim, game.version, None)  # no timers: nothing to do
        return False

    def _level(self, g: GameState, seat: int) -> str:
        """The level the robot plays ``seat`` at: the table's (or the operator's); in
        automatic mode at most the app's bound when the player switched it on."""
        level = self.robots.level_for(g.setup.table.robot_level)
        cap = g.automatic.get(seat, "")
        if cap in ROBOT_LEVELS and not level_within(level, cap):
            return cap
        return level

    async def _play_turn(self, game_id: str, version: int, g: GameState, by: str) -> None:
        """Play the seat's whole turn, one atomic move per write at the version the
        last one made; stops when the turn passes, the deal or match ends, or a write
        is refused (``VersionConflict`` propagates only before the first move)."""
        deal = g.deal
        assert deal is not None
        seat = deal.turn
        deal_number = g.deal_number
        for played in range(MAX_TURN_MOVES):
            deal = g.deal
            if g.status != PLAYING or deal is None or g.deal_number != deal_number:
                return
            if deal.turn != seat or (by == BY_ROBOT) != (seat in g.robots):
                return
            seed = g.setup.seed ^ version
            if by == BY_ROBOT:
                move = await self.robots.move(deal, seed, self._level(g, seat))
            else:
                move = fallback_move(deal, seed)
            if move is None:
                log.error("no_legal_move", game_id=game_id, version=version, seat=seat)
                return
            try:
                done = await self.moves.server_action(
                    game_id, version, g, play_action(seat, move, by), by
                )
            except VersionConflict:
                if played == 0:
                    raise
                metrics.FALLBACKS_DROPPED.inc()
                return  # the player (back from the robot, or in time) moved meanwhile
            metrics.SERVER_MOVES.labels(by).inc()
            version, g = done.version, done.state
        log.error("turn_too_long", game_id=game_id, version=version, seat=seat)
