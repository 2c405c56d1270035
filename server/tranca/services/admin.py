"""The app owner's view of its games: inspect one (its seats with their players and
when each was last seen, its last change, its timers), end a stuck game, and remove
a player from a seat. Every call needs the app's API key and sees only its games;
listing the games is ListGames, listing sessions is ListPlayerSessions.

Ending a game is a change like any other (an "end" in its log, through ``Moves``):
the game finishes with no result, so it counts for no one and the settlement
returns every stake (as for an annulment). Removing a seat revokes the seat's tokens
with the change that frees it: before the start the seat is simply free again;
during a practice match with robots a robot plays it on; otherwise the seat's side
resigns (a rated match needs its player).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..app.game import FINISHED, WAITING, Action
from .access import Access, Credentials, require_app
from .errors import Refusal, Refused, game_not_found, malformed
from .moves import Moves
from .ports import Committed, GameRecord, LogRecord


class AdminRepository(Protocol):
    async def game(self, game_id: str) -> GameRecord: ...

    async def log(
        self, game_id: str, after: int = 0, upto: int | None = None
    ) -> list[LogRecord]: ...

    async def last_seen_ms(self, game_id: str, seat: int) -> int: ...


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
        return await self.moves.apply(game.id, Action("end"), request_id=request_id or None)

    async def remove_seat(
        self, credentials: Credentials, game_id: str, seat: int, request_id: str
    ) -> tuple[str, Committed]:
        """The seat's player leaves the table, its tokens revoked (see the module)."""
        game = await self._game(credentials, game_id)
        state = game.state
        if not 0 <= seat < state.setup.players:
            raise malformed(f"seat is 0..{state.setup.players - 1}")
        if not state.seats[seat].taken:
            raise Refused(Refusal.PRECONDITION, "SEAT_FREE", f"seat {seat} is free")
        if state.status == FINISHED:
            raise Refused(Refusal.PRECONDITION, "GAME_OVER", "the game is over")
        table = state.setup.table
        if state.status == WAITING:
            outcome, action = RemoveOutcome.FREED, Action("leave", seat)
        elif table.robot_grace_seconds and not table.competitive:
            outcome, action = RemoveOutcome.ROBOT, Action("robot", seat)
        else:
            outcome, action = RemoveOutcome.RESIGNED, Action("resign", seat)
        done = await self.moves.apply(
            game.id, action, request_id=request_id or None, revoke_seat=seat
        )
        return outcome, done


__all__ = ["Admin", "GameInspection", "RemoveOutcome", "SeatInspection"]
