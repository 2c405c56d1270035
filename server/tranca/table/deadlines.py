"""When a timed table's sweeper must look at a game next (``games.deadline_at``):
pure arithmetic on a game's state, in milliseconds since the epoch.

A write that starts a turn sets the turn's deadline (``next_deadline``); a sweeper
that claims an overdue game holds it with a lease (``lease_deadline``). A deadline is
even and a lease odd, so that the one is never mistaken for the other.
"""

from __future__ import annotations

from .action_kinds import ActionKind
from .game import BY_APP, BY_AUTO, FINISHED, PLAYING, Action, GameState

TurnPoint = tuple[str, int, int]


def turn_point(g: GameState) -> TurnPoint:
    """Status, deal number and seat to act: a turn starts when this changes."""
    deal = g.deal
    return (g.status, g.deal_number, -1 if deal is None else deal.turn)


def turn_deadline(ms: int) -> int:
    """A deadline a write sets is even, a sweeper's lease odd (``lease_deadline``), so
    that a sweeper never mistakes a new turn's deadline for its own lease (they could
    otherwise fall on the same millisecond: a 30 s turn and a 30 s lease)."""
    return ms & ~1


def lease_deadline(ms: int) -> int:
    """See ``turn_deadline``."""
    return ms | 1


def next_deadline(
    before: TurnPoint, g: GameState, action: Action, now: int
) -> tuple[bool, int | None]:
    """games.deadline_at after ``action`` took the game from ``before`` to ``g``:
    (whether to set it, the value). Only called for tables with timers, and for
    tables without them while a seat is in automatic mode (or switches to it): there
    the deadline is a robot's turn's (now) or none.

    A finished game needs no sweeper (None). A new turn (the game started, the turn
    passed, a new deal, the player to act took their seat back from a robot, or the
    app removed them and handed their seat to a robot) starts a clock: none for a
    robot's turn (it plays at once), else the turn's time, else the robot grace
    period. Anything else within a turn leaves the deadline alone, which also keeps a
    sweeper's lease while it plays a turn's moves (its own robot takeover
    included)."""
    status = g.status
    if status == FINISHED:
        return True, None
    if status != PLAYING:
        return False, None
    point = turn_point(g)
    turn = point[2]
    if point == before and not (action.seat == turn and changes_hands(action)):
        return False, None
    if turn in g.robots:
        return True, turn_deadline(now)
    table = g.setup.table
    if table.turn_seconds:
        return True, turn_deadline(now + table.turn_seconds * 1000)
    if table.robot_grace_seconds:
        return True, turn_deadline(now + table.robot_grace_seconds * 1000)
    # A table without timers, a seat of which is in automatic mode: a person's turn
    # needs no sweeper.
    return True, None


def changes_hands(action: Action) -> bool:
    """Whether ``action`` gives its seat a new player within the turn, whose clock then
    starts: the player's return, the app's removal handing the seat to a robot, or
    the player switching automatic mode on (the robot plays the turn at once)."""
    return action.kind == ActionKind.RETURN or (
        action.kind == ActionKind.ROBOT and action.by in (BY_APP, BY_AUTO)
    )
