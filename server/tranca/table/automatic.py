"""Automatic mode (003, "Tiempo por turno": "Véase también: Juego en modo automático"):
a seated player asks the server to play for them, and takes the seat back whenever
they like. It is a robot holding the seat, as when a silent player is taken over
(``robots`` of the game), logged as a "robot" action by ``BY_AUTO`` (the seat's own
player), taken back by the ordinary "return". Unlike a takeover it is the player's
choice: it is allowed at any table under way, with or without robots for silent
players, and it is never an abandonment (``platform/abandonment.py``).

Pure: the game's state in, the state changed or a ``GameError``, nothing changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..reasons import Reason
from .errors import GameError


class _Seat(Protocol):
    @property
    def taken(self) -> bool: ...

    @property
    def resigned(self) -> bool: ...


class GameState(Protocol):
    """What automatic mode reads and changes of a game (``table.game.GameState``,
    which imports this module)."""

    @property
    def status(self) -> str: ...

    @property
    def seats(self) -> Sequence[_Seat]: ...

    @property
    def robots(self) -> set[int]: ...

    @property
    def automatic(self) -> dict[int, str]: ...

    @property
    def were_automatic(self) -> set[int]: ...

    @property
    def annul_votes(self) -> set[int]: ...


def switch_on(g: GameState, seat: int, max_level: str) -> None:
    """The seat's player hands it to the server's robot, which plays at the table's
    level, at most ``max_level`` (the app's bound, "" for none). Refused at a game
    not under way, at a seat that is no one's, resigned, or already played by a
    robot (automatic mode already on, a takeover, a robot's seat, a removal)."""
    if g.status != "playing":
        reason = Reason.GAME_OVER if g.status == "finished" else Reason.GAME_NOT_STARTED
        raise GameError(reason, f"the game is {g.status}")
    held = g.seats[seat]
    if not held.taken or held.resigned:
        raise GameError(Reason.SEAT_NOT_HELD, f"seat {seat} is not played by its player")
    if seat in g.automatic:
        raise GameError(Reason.AUTOMATIC_ALREADY_ON, f"seat {seat} is in automatic mode already")
    if seat in g.robots:
        raise GameError(Reason.ROBOT_SEATED, f"a robot plays seat {seat}: call ReclaimSeat")
    g.robots.add(seat)
    g.automatic[seat] = max_level
    g.were_automatic.add(seat)
    g.annul_votes.discard(seat)  # 003: "El robot no se tiene en cuenta en las votaciones"


def switch_off(g: GameState, seat: int) -> None:
    """The seat is its player's again (a "return"): no longer in automatic mode."""
    g.automatic.pop(seat, None)


__all__ = ["GameState", "switch_off", "switch_on"]
