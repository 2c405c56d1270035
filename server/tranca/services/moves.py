"""Changing a game: the one way every change is made (a player's move, a join, a
start, a leave, a resignation, a robot's or a timer's move, a vote, entropy).

The state read at some version is changed by the pure game logic
(``table.game.apply_action``, which refuses and changes nothing), and written with the
action's log row only if the game is still at that version (the repository's
compare-and-swap). A request id already in the log (the write meets its unique
index, a moved-on version, or a refusal by the rules) gets the first answer instead:
the game as that request left it, rebuilt from the log. Once written, this
process's watchers of the game are woken (the write itself hints other replicas').
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from tranca_rules.errors import InvalidMove, RuleViolation

from ..platform.chips import InsufficientChips
from ..table.action_kinds import ActionKind
from ..table.deadlines import next_deadline, turn_point
from ..table.events import Event, before, game_events
from ..table.game import Action, GameError, GameState, apply_action, rebuild
from .errors import DuplicateRequest, MoveRefused, RequestIdReused, VersionConflict
from .ports import (
    Committed,
    EventHints,
    GameChange,
    GameRepository,
    LogRecord,
    Notifier,
    SeatGame,
    SeatToken,
    Stake,
    player_key,
)

# After a write cut off without its answer, when the watchers read the log again: by
# then a COMMIT that was under way has finished (or never will).
UNKNOWN_WRITE_RECHECK_SECONDS = 1.0

# Re-reads of a game whose version moved on while an action without an expected
# version (a join, a start, a leave) was being applied to it.
ATTEMPTS = 5


def now_ms() -> int:
    return int(time.time() * 1000)


def apply_timed(
    state: GameState, action: Action, version: int, now: int
) -> tuple[bool, int | None]:
    """``apply_action`` (raising, and changing nothing, if it is refused), and the
    deadline the write must set (``next_deadline``). Tables without timers pay one
    attribute test here, and their writes two constant parameters."""
    # A table without timers needs the sweeper only for a seat in automatic mode (a
    # robot plays it), from the switch on (a "robot" action) to its return.
    timed = state.setup.table.timed or state.robots or action.kind == ActionKind.ROBOT
    before = turn_point(state) if timed else None
    apply_action(state, action, version)
    if before is None:
        return False, None
    return next_deadline(before, state, action, now)


class Moves:
    """The use case every change of a game goes through."""

    def __init__(
        self,
        repo: GameRepository,
        notifier: Notifier | None = None,
        clock: Callable[[], int] = now_ms,
        event_hints: EventHints | None = None,
    ) -> None:
        self.repo = repo
        self.notifier = notifier
        self.clock = clock
        # Wakes this process's streams of the players a change has events for.
        self.event_hints = event_hints

    async def move(
        self,
        loaded: SeatGame,
        action: Action,
        *,
        expected_version: int,
        request_id: str | None,
    ) -> Committed:
        """A player's action on the game ``loaded`` with its seat (the move path: no
        other read): applied to that state and written only if the game is still at
        that version. A stale ``expected_version`` is a ``VersionConflict``; a retry of
        a request already logged gets its first answer."""
        return await self._write(
            loaded.player.game_id,
            loaded.version,
            loaded.state,
            action,
            expected_version=expected_version,
            request_id=request_id,
            keep_state=True,
        )

    async def apply(
        self,
        game_id: str,
        action: Action,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        new_token: SeatToken | None = None,
        revoke_seat: int | None = None,
        stake: Callable[[GameState], Stake | None] | None = None,
    ) -> Committed:
        """``action`` applied to the game as it is now: joins, starts, leaves,
        resignations, votes. Without ``expected_version`` a lost race re-reads the
        game and tries again (a few times). ``new_token`` is a seat's token written
        with the action, ``revoke_seat`` a seat whose tokens are revoked with it, and
        ``stake`` what the changed game's seats stake in the same transaction.
        Raises ``NotFound``, ``VersionConflict``, ``RequestIdReused``, or the game
        logic's own errors; on any error nothing is written."""
        for attempt in range(ATTEMPTS):
            game = await self.repo.game(game_id)
            try:
                return await self._write(
                    game_id,
                    game.version,
                    game.state,
                    action,
                    expected_version=expected_version,
                    request_id=request_id,
                    new_token=new_token,
                    revoke_seat=revoke_seat,
                    stake=stake,
                )
            except VersionConflict:
                if expected_version is not None or attempt == ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable: the loop returns or raises")

    async def server_action(
        self, game_id: str, version: int, state: GameState, action: Action, actor: str
    ) -> Committed:
        """An action the server takes for a seat (a robot's or a timed-out turn's
        move, a robot taking a seat: ``actor`` "timeout" or "robot") on ``state`` read
        at ``version``: written only if the game is still there (``VersionConflict``
        otherwise). ``state`` changes."""
        return await self._write(
            game_id, version, state, action, expected_version=version, actor=actor
        )

    async def turn(
        self,
        loaded: SeatGame,
        actions: Sequence[Action],
        *,
        expected_version: int,
        request_id: str,
    ) -> Committed:
        """A seat's sequence of moves (a turn in one request) on the game ``loaded``:
        applied in order to that state and written all or none in one write, each
        move logged as its own row at its own version (``request_id`` on the last
        row, ``turn_request_ids``). A refused move is a ``MoveRefused`` naming its
        place in the sequence, and nothing is written; a retry of a turn already
        logged gets its first answer."""
        if not actions:
            raise ValueError("a turn has at least one move")
        return await self._write(
            loaded.player.game_id,
            loaded.version,
            loaded.state,
            tuple(actions),
            expected_version=expected_version,
            request_id=request_id,
            numbered=True,
            keep_state=True,
        )

    async def _write(
        self,
        game_id: str,
        version: int,
        state: GameState,
        action: Action | tuple[Action, ...],
        *,
        expected_version: int | None,
        request_id: str | None = None,
        new_token: SeatToken | None = None,
        revoke_seat: int | None = None,
        stake: Callable[[GameState], Stake | None] | None = None,
        actor: str = "player",
        numbered: bool = False,
        keep_state: bool = False,
    ) -> Committed:
        """``action`` (or a sequence of actions, applied in order) applied to
        ``state`` (read at ``version``) and written if the game is still at that
        version: the one write of every change of a game. With ``numbered`` a
        refused action of the sequence is a ``MoveRefused`` with its place in it."""
        actions = action if isinstance(action, tuple) else (action,)
        first_action = actions[0]
        if first_action.by:
            actor = first_action.actor  # the server played it: "timeout" or "robot"
        count = len(actions)
        ids = turn_request_ids(request_id, count)
        try:
            if expected_version is not None and expected_version != version:
                raise VersionConflict(version)
            # None (no seat has a player id, so no event to compute): the usual case.
            was = before(state)
            deadline_set, deadline_at = False, None
            for index, each in enumerate(actions):
                try:
                    now = self.clock()
                    moved_deadline, at = apply_timed(state, each, version + 1 + index, now)
                except (GameError, InvalidMove, RuleViolation) as exc:
                    # Refused now, but perhaps because this very request was applied
                    # already (a retry racing its first attempt, or with a fresher
                    # version): then the first answer; a reused id, REQUEST_ID_REUSED.
                    if request_id:
                        first = await self.first_answer(game_id, request_id, actions)
                        if first is not None:
                            return first
                    if numbered:
                        raise MoveRefused(index + 1, exc) from exc
                    raise
                if moved_deadline:
                    deadline_set, deadline_at = True, at
            new_version = version + count
            events: tuple[Event, ...] = ()
            if was is not None:
                # The new turn's time limit, where the table has one (a robots-only
                # table's deadline is the grace period's, no limit for the player).
                limit = deadline_at if deadline_set and state.setup.table.turn_seconds else None
                events = game_events(was, game_id, state, new_version, limit)
            change = GameChange(
                game_id,
                version,
                state,
                first_action,
                ids[0],
                actor,
                new_token,
                revoke_seat,
                deadline_set,
                deadline_at,
                stake(state) if stake is not None else None,
                events,
                tuple(zip(actions[1:], ids[1:], strict=True)),
                # A player's move: its answer is built from ``state`` at once (the
                # servicer, before it awaits anything), and the state is not used
                # after.
                keep_state,
            )
            try:
                logged_at = await self.repo.commit(change)
            except (DuplicateRequest, InsufficientChips):
                raise  # refused: nothing was written
            except BaseException:
                # Cut off when the write may have committed, or may yet (a timeout, a
                # cancelled call, a connection lost after COMMIT): every watcher reads
                # the log, now and again a moment later (hints without a version).
                self._hint_unknown(game_id)
                raise
            if logged_at is None:
                raise VersionConflict(-1)
        except (VersionConflict, DuplicateRequest) as exc:
            # A retry of a change already made (its expected version is now stale, or
            # its request id is taken): the first answer. Otherwise a lost race.
            if request_id:
                first = await self.first_answer(game_id, request_id, actions)
                if first is not None:
                    return first
            if isinstance(exc, DuplicateRequest):
                raise RequestIdReused(
                    f"request id {request_id!r} was used for another action"
                ) from None
            if exc.current >= 0:
                raise
            raise VersionConflict(await self.repo.current_version(game_id)) from None
        if self.notifier is not None:
            # The rows just logged, as the log holds them (one time for them all, the
            # write's): watchers that are at ``version`` take them without a read.
            rows = tuple(
                LogRecord(version + 1 + k, each.seat, each, ids[k], actor, logged_at)
                for k, each in enumerate(actions)
            )
            self.notifier.publish(game_id, new_version, rows)
        if events and self.event_hints is not None:
            for event in events:
                self.event_hints.publish(player_key(event.player_id))
        return Committed(new_version, state, False, deadline_set, deadline_at)

    def _hint_unknown(self, game_id: str) -> None:
        notifier = self.notifier
        if notifier is None:
            return
        notifier.publish(game_id, None)
        asyncio.get_running_loop().call_later(
            UNKNOWN_WRITE_RECHECK_SECONDS, notifier.publish, game_id, None
        )

    async def first_answer(
        self, game_id: str, request_id: str, action: Action | tuple[Action, ...]
    ) -> Committed | None:
        """The answer a logged request got: the game as that action (or the last
        action of that turn) left it, folded from the log. None if the request id is
        not logged; ``RequestIdReused`` if it was logged for another action (or
        another sequence: every row of a turn is compared)."""
        actions = action if isinstance(action, tuple) else (action,)
        logged = await self.repo.logged_request(game_id, request_id)
        if logged is None:
            return None
        version, last = logged
        if last != actions[-1]:
            raise RequestIdReused(f"request id {request_id!r} was used for another action")
        setup = await self.repo.setup_of(game_id)
        rows = await self.repo.log(game_id, 0, version)
        if len(actions) > 1:
            ids = turn_request_ids(request_id, len(actions))
            ours = rows[-len(actions) :]
            if len(ours) != len(actions) or any(
                row.action != each or row.request_id != rid
                for row, each, rid in zip(ours, actions, ids, strict=True)
            ):
                raise RequestIdReused(
                    f"request id {request_id!r} was used for another sequence of moves"
                )
        return Committed(version, rebuild(setup, [r.action for r in rows]), replayed=True)


def turn_request_ids(request_id: str | None, count: int) -> tuple[str | None, ...]:
    """The request ids a sequence of ``count`` moves is logged with: the request's own
    on the last row (so a retry finds the whole turn's answer where a single move's
    would be), and ``<id>#1``, ``<id>#2``, ... on the rows before it (the log keeps a
    request id unique per game). A single move: the request's id alone.

    >>> turn_request_ids("r", 3)
    ('r#1', 'r#2', 'r')
    """
    if request_id is None:
        return (None,) * count
    return (*(f"{request_id}#{k}" for k in range(1, count)), request_id)
