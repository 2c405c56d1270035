"""One builder for a table: a game created with its seats taken and, where wanted,
its first deal dealt, as the changes the one commit path writes (services/moves.py:
each action applied by the game logic to the state of the version before, and the
change that writes it at the next version). A table made in one go (quick play's,
a tournament round's) is written with its changes in one transaction; a table made
by a caller (CreateGame) is created empty here and then changed through ``Moves``
one join and one start at a time, with the same actions (``join_action``,
``DEAL``).

The signature fits every maker of tables: an app id, the setup (rules, seats, seed,
table options), one ``SeatPlan`` a seat (a player's id and name, or a robot; the
seat's token and the events written with its join), the clock, a label, the game's
id (chosen by the caller where events name it; empty: the repository's), whether to
deal, and the deadline written with the last join (a table that must start by then).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..table.action_kinds import ActionKind
from ..table.events import Event, before, game_events
from ..table.game import BY_ROBOT, Action, GameState, Setup, apply_action, new_game
from .moves import apply_timed
from .ports import GameChange, NewGame, SeatToken

# The action that deals a table's first deal (StartGame, quick play's tables).
DEAL = Action(ActionKind.START)


@dataclass(frozen=True)
class SeatPlan:
    """Who takes one seat: a player (``player_id``, empty for an app's anonymous
    player, and ``name``) or a server's robot (``robot``); the seat's token written
    with its join, and the players' events written with it (no seat without its
    events, no event without its seat)."""

    player_id: str = ""
    name: str = ""
    robot: bool = False
    token: SeatToken | None = None
    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class BuiltTable:
    """The game to create and its changes, one a version from 1: every seat's join in
    seat order, then the first deal where it was dealt. ``state`` is the table as
    the last change leaves it."""

    new: NewGame
    changes: list[GameChange]
    state: GameState


def join_action(seat: int, plan: SeatPlan) -> Action:
    """The join of ``seat`` by whom ``plan`` names (a robot's seat: ``by`` BY_ROBOT,
    "robot k" unless named)."""
    if plan.robot:
        return Action(ActionKind.JOIN, seat, name=plan.name or f"robot {seat}", by=BY_ROBOT)
    return Action(ActionKind.JOIN, seat, name=plan.name, player_id=plan.player_id)


def build_table(
    app_id: str,
    setup: Setup,
    seats: Sequence[SeatPlan] = (),
    *,
    now: int = 0,
    label: str = "",
    game_id: str = "",
    deal: bool = False,
    start_by: int | None = None,
    invite_hash: str | None = None,
    owner_id: str | None = None,
) -> BuiltTable:
    """A new table of ``setup`` with ``seats`` taken (seat k by ``seats[k]``; none: a
    table waiting for players) and, ``deal``, its first deal dealt at ``now`` (the
    first turn's deadline and events with it). ``start_by``: the deadline written
    with the last join, by which the table must start. ``game_id`` may be empty only
    for a table without changes (the repository then chooses it)."""
    state = new_game(setup)
    changes: list[GameChange] = []
    version = 0
    for seat, plan in enumerate(seats):
        action = join_action(seat, plan)
        apply_action(state, action, version + 1)
        last = start_by is not None and seat == len(seats) - 1
        changes.append(
            GameChange(
                game_id,
                version,
                _copy(state),
                action,
                new_token=plan.token,
                deadline_set=last,
                deadline_at=start_by if last else None,
                events=plan.events,
            )
        )
        version += 1
    if deal:
        was = before(state)
        deadline_set, deadline_at = apply_timed(state, DEAL, version + 1, now)
        limit = deadline_at if deadline_set and setup.table.turn_seconds else None
        first_turn = () if was is None else game_events(was, game_id, state, version + 1, limit)
        changes.append(
            GameChange(
                game_id,
                version,
                _copy(state),
                DEAL,
                deadline_set=deadline_set,
                deadline_at=deadline_at,
                events=first_turn,
            )
        )
    assert game_id or not changes, "a table with changes needs its game id"
    new = NewGame(app_id, setup, new_game(setup), label, invite_hash, game_id, owner_id)
    return BuiltTable(new, changes, state)


def _copy(state: GameState) -> GameState:
    """The state as one change leaves it (each change keeps its own)."""
    return GameState.from_dict(state.to_dict(with_setup=False), state.created)


__all__ = ["DEAL", "BuiltTable", "SeatPlan", "build_table", "join_action"]
