"""The app owner's view of its games: inspect one (its seats with their players and
when each was last seen, its last change, its timers), end a stuck game, and remove
a player from a seat. Every call needs the app's API key and sees only its games;
listing the games is ListGames, listing sessions is ListPlayerSessions.

Ending a game is a change like any other (an "end" in its log, through ``Moves``):
the game finishes with no result, so it counts for no one and the settlement
returns every stake (as for an annulment). Removing a seat revokes the seat's tokens
with the change that frees it: before the start the seat is simply free again;
during a practice match with robots a robot plays it on; otherwise the seat's side
resigns (a rated match needs its player). The change is logged as the app's
(``BY_APP``), and the game keeps the removal (``GameState.removed_players`` and
``removed_seats``): the removed player is never seated there again, and a seat
handed to a robot is never taken back.

A retry of either with the same request id gets the first answer, rebuilt from the
log (where the request id is stored with the change), whichever replica answers it:
a removal's outcome is the kind of change it logged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..reasons import Reason
from ..table.action_kinds import ActionKind
from ..table.game import BY_APP, FINISHED, WAITING, Action
from .access import Access, Credentials, require_app
from .errors import Refusal, Refused, RequestIdReused, game_not_found, malformed
from .moves import Moves
from .ports import Committed, GameRecord, LogRecord


class AdminRepository(Protocol):
    async def game(self, game_id: str) -> GameRecord: ...

    async def log(
        self, game_id: str, after: int = 0, upto: int | None = None
    ) -> list[LogRecord]: ...

    async def last_seen_ms(self, game_id: str, seat: int) -> int: ...

    async def logged_request(self, game_id: str, request_id: str) -> tuple[int, Action] | None:
        """The version and action a request id was logged with, if it was."""
        ...


@dataclass(frozen=True)
class SeatInspection:
    seat: int
    name: str
    player_id: str
    taken: bool
    robot: bool  # a robot plays it now
    resigned: bool
    last_seen_ms: int  # its player's last call, move or join (0: never)


@dataclass(frozen=True)
class GameInspection:
    game: GameRecord
    seats: tuple[SeatInspection, ...]
    last_change: LogRecord | None  # None: nothing happened since it was created


class RemoveOutcome:
    FREED = "freed"  # before the start: the seat is free again
    ROBOT = "robot"  # a robot plays it on
    RESIGNED = "resigned"  # its side resigned


# A removal's outcome by the kind of change it is logged as (with ``by`` BY_APP).
OUTCOMES: dict[str, str] = {
    ActionKind.LEAVE: RemoveOutcome.FREED,
    ActionKind.ROBOT: RemoveOutcome.ROBOT,
    ActionKind.RESIGN: RemoveOutcome.RESIGNED,
}
KINDS = {outcome: kind for kind, outcome in OUTCOMES.items()}


@dataclass(frozen=True)
class SeatRemoved:
    outcome: str  # a RemoveOutcome
    version: int  # the game's version after the removal


class Admin:
    def __init__(self, repo: AdminRepository, access: Access, moves: Moves) -> None:
        self.repo = repo
        self.access = access
        self.moves = moves

    async def _game(self, credentials: Credentials, game_id: str) -> GameRecord:
        app = require_app(await self.access.identify(credentials))
        if not game_id:
            raise malformed("game_id is required")
        game = await self.repo.game(game_id)
        if game.app_id != app.id:
            raise game_not_found()
        return game

    async def inspect(self, credentials: Credentials, game_id: str) -> GameInspection:
        game = await self._game(credentials, game_id)
        state = game.state
        seats = []
        for i, s in enumerate(state.seats):
            seen = await self.repo.last_seen_ms(game.id, i) if s.taken else 0
            seats.append(
                SeatInspection(i, s.name, s.player_id, s.taken, i in state.robots, s.resigned, seen)
            )
        last = await self.repo.log(game.id, max(0, game.version - 1)) if game.version else []
        return GameInspection(game, tuple(seats), last[-1] if last else None)

    async def end(self, credentials: Credentials, game_id: str, request_id: str) -> Committed:
        """The game ends with no result; a retry with the same request id gets the
        first answer."""
        game = await self._game(credentials, game_id)
        return await self.moves.apply(
            game.id, Action(ActionKind.END), request_id=request_id or None
        )

    async def remove_seat(
        self, credentials: Credentials, game_id: str, seat: int, request_id: str
    ) -> SeatRemoved:
        """The seat's player leaves the table for good, its tokens revoked (see the
        module). A retry with the same request id gets the first answer, whatever the
        game became since; the same request id for another change, REQUEST_ID_REUSED."""
        game = await self._game(credentials, game_id)
        state = game.state
        if not 0 <= seat < state.setup.players:
            raise malformed(f"seat is 0..{state.setup.players - 1}")
        if request_id:
            # Before the checks of the game as it is now: once removed, the seat is
            # free, a robot's or resigned, and the first answer still stands.
            first = await self._first_removal(game.id, seat, request_id)
            if first is not None:
                return first
        if not state.seats[seat].taken:
            raise Refused(Refusal.PRECONDITION, Reason.SEAT_FREE, f"seat {seat} is free")
        if state.status == FINISHED:
            raise Refused(Refusal.PRECONDITION, Reason.GAME_OVER, "the game is over")
        table = state.setup.table
        if state.status == WAITING:
            outcome = RemoveOutcome.FREED
        elif table.robot_grace_seconds and not table.competitive:
            outcome = RemoveOutcome.ROBOT
        else:
            outcome = RemoveOutcome.RESIGNED
        # A concurrent retry that wrote first is answered by ``Moves`` from the log: the
        # same change (so the same outcome) at its version.
        done = await self.moves.apply(
            game.id,
            Action(KINDS[outcome], seat, by=BY_APP),
            request_id=request_id or None,
            revoke_seat=seat,
        )
        return SeatRemoved(outcome, done.version)

    async def _first_removal(self, game_id: str, seat: int, request_id: str) -> SeatRemoved | None:
        """The answer the removal logged with ``request_id`` got; None if the id is not
        logged; ``RequestIdReused`` if it was logged for another change."""
        logged = await self.repo.logged_request(game_id, request_id)
        if logged is None:
            return None
        version, action = logged
        if action.by != BY_APP or action.kind not in OUTCOMES or action.seat != seat:
            raise RequestIdReused(f"request id {request_id!r} was used for another change")
        return SeatRemoved(OUTCOMES[action.kind], version)


__all__ = ["Admin", "GameInspection", "RemoveOutcome", "SeatInspection", "SeatRemoved"]
