"""Presence and robots: Heartbeat and ReclaimSeat (GameService).

A seat whose player is silent for longer than the table's grace period is played by a
robot (``tranca.store.sweeper``) until the player takes it back here.

A player shows they are there by any call with their seat's token: a move (the move
log has its time), a heartbeat, GetView or ListLegalMoves, or an open WatchGame
stream. Only tables with robots (``robot_grace_seconds`` > 0) record presence, and
each process writes a seat's presence at most once every few seconds (``Presence``),
so that reads do not turn into a write each.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..app.game import PLAYING, Action, GameState
from ..store.repository import SeatGame, Store, Unavailable
from ..v1 import game_pb2 as pb
from . import metrics
from .auth import Caller, require_player
from .convert import view_to_pb

if TYPE_CHECKING:
    from .servicer import GameService

# A seat's presence is written at most this often per process (seconds), and at
# least three times per grace period so that a present player is never taken over.
PRESENCE_EVERY = 5.0
MIN_PRESENCE_EVERY = 0.25
MAX_TRACKED = 50_000
HEARTBEAT_EVERY = 1.0  # seconds: the most often a Heartbeat writes a seat's presence


def presence_interval(grace_seconds: int) -> float:
    """How often an open watch or a stream of calls refreshes a seat's presence."""
    return max(MIN_PRESENCE_EVERY, min(PRESENCE_EVERY, grace_seconds / 3))


class Presence:
    """This process's record of when it last wrote each seat's presence."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._written: dict[tuple[str, int], float] = {}

    async def touch(
        self, game_id: str, seat: int, state: GameState, *, force: bool = False
    ) -> None:
        """Record that the seat's player is there, if the table has robots and the
        last record (from this process) is older than the interval. Best effort: a
        database that cannot take it now costs the caller nothing."""
        grace = state.setup.table.robot_grace_seconds
        if not grace or seat < 0 or state.status != PLAYING:
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


async def _seat_of(svc: GameService, game_id: str, context: Any) -> SeatGame:
    """The caller's seat and game: a seat's token of this game (not a spectator's)."""
    loaded = await svc._seat_game(context)
    if loaded is None:
        await svc._no_player_token(context, game_id, game_first=True)
    svc._same_game(loaded, game_id)
    require_player(Caller(player=loaded.player), game_id)
    return loaded


async def heartbeat(
    svc: GameService, request: pb.HeartbeatRequest, context: Any
) -> pb.HeartbeatResponse:
    """The seat's player is there: recorded (tables with robots only) and answered
    with whether a robot holds the seat now (the player then calls ReclaimSeat)."""
    loaded = await _seat_of(svc, request.game_id, context)
    seat = loaded.player.seat
    # A heartbeat is the client's explicit word: written whatever this process wrote
    # lately (the client chooses its own pace, within the rate limit).
    await svc.presence.touch(request.game_id, seat, loaded.state, force=True)
    return pb.HeartbeatResponse(robot_seated=seat in loaded.state.robots)


async def reclaim_seat(
    svc: GameService, request: pb.ReclaimSeatRequest, context: Any
) -> pb.ReclaimSeatResponse:
    """The player takes their seat back from the robot (a "return" in the log). If it
    is their turn, the turn's clock starts again from now (``next_deadline``)."""
    loaded = await _seat_of(svc, request.game_id, context)
    seat = loaded.player.seat
    request_id = request.request_id or None
    # Present first, so that no sweep takes the seat again before the return is read.
    await svc.presence.touch(request.game_id, seat, loaded.state, force=True)
    done = await svc.store.commit_action(
        request.game_id,
        Action("return", seat),
        expected_version=None,
        request_id=request_id,
    )
    if not done.replayed:
        metrics.SEATS_RECLAIMED.inc()
    deadline = done.deadline_at if done.deadline_set else loaded.deadline_at
    view = view_to_pb(request.game_id, done.version, done.state, seat, deadline_ms=deadline)
    return pb.ReclaimSeatResponse(view=view)


__all__ = ["Presence", "heartbeat", "presence_interval", "reclaim_seat"]
