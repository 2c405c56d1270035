"""A seat's presence: whether its player is there, on tables with robots.

A seat whose player is silent for longer than the table's grace period is played by a
robot (``services/timers.py``) until the player takes it back (``ReclaimSeat``).

A player shows they are there by any call with their seat's token: a move (the move
log has its time), a heartbeat, GetView or ListLegalMoves, or an open WatchGame
stream. Only tables with robots (``robot_grace_seconds`` > 0) record presence, and
each process writes a seat's presence at most once every few seconds (``Presence``),
so that reads do not turn into a write each.
"""

from __future__ import annotations

import time
from typing import Protocol

from ..table.game import PLAYING, GameState
from .errors import Unavailable

# A seat's presence is written at most this often per process (seconds), and at
# least three times per grace period so that a present player is never taken over.
PRESENCE_EVERY = 5.0
MIN_PRESENCE_EVERY = 0.25
MAX_TRACKED = 50_000
HEARTBEAT_EVERY = 1.0  # seconds: the most often a Heartbeat writes a seat's presence


class PresenceRepository(Protocol):
    async def touch_presence(self, game_id: str, seat: int) -> None:
        """The seat's player showed they are there, now."""
        ...


def presence_interval(grace_seconds: int) -> float:
    """How often an open watch or a stream of calls refreshes a seat's presence."""
    return max(MIN_PRESENCE_EVERY, min(PRESENCE_EVERY, grace_seconds / 3))


class Presence:
    """This process's record of when it last wrote each seat's presence."""

    def __init__(self, store: PresenceRepository) -> None:
        self.store = store
        self._written: dict[tuple[str, int], float] = {}

    async def touch(
        self, game_id: str, seat: int, state: GameState, *, force: bool = False
    ) -> None:
        """Record that the seat's player is there, if the table has robots and the
        last record (from this process) is older than the interval. Best effort: a
        database that cannot take it now costs the caller nothing."""
        grace = state.setup.table.robot_grace_seconds
        await self.touch_seat(game_id, seat, grace, state.status, force=force)

    async def touch_seat(
        self, game_id: str, seat: int, grace: int, status: str, *, force: bool = False
    ) -> None:
        """``touch`` for a caller that keeps the table's grace period and the game's
        status rather than the game (an open watch stream)."""
        if not grace or seat < 0 or status != PLAYING:
            return
        key = (game_id, seat)
        now = time.monotonic()
        # A heartbeat writes at most about once a second (a third of the grace period on
        # tables with a shorter one): a client calling it in a loop must not take
        # SQLite's one writer from the moves.
        every = min(HEARTBEAT_EVERY, grace / 3) if force else presence_interval(grace)
        if now - self._written.get(key, -1e9) < every:
            return
        if len(self._written) >= MAX_TRACKED:
            self._written.clear()  # at worst one extra write per seat
        self._written[key] = now
        try:
            await self.store.touch_presence(game_id, seat)
        except Unavailable:
            self._written.pop(key, None)
