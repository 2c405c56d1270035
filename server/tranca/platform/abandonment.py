"""Who abandoned a finished rated match, and what that costs them (003: "las fichas
apostadas son devueltas a cada jugador (excepto si han sido penalizados por
abandono)"; "un robot lo sustituye hasta que vuelve a entrar. El jugador tiene un
margen de unos minutos para regresar a la partida").

A player abandons a rated (competitive) match by

- leaving it under way (LeaveGame: a "resign" by the seat's own player; the app's
  removal, AdminService.RemoveSeat, is the app's decision, not the player's), or
- being away: a robot that took their silent seat (a "robot" by the sweeper) held it
  for longer than the app's abandonment grace, counted from the takeover to the
  player's return or to the match's end, whichever came first.

A seat in automatic mode (a "robot" by the seat's own player, ``BY_AUTO``) is the
player's choice, not an absence: never an abandonment, however long. A robot's seat
from the start (practice tables only) has no player to penalise.

Pure: the finished game's state, the seat changes of its log with their times, and
the app's grace in; the abandonments out. The settlement (services/settlement.py,
services/abandonment.py) applies the penalty, exactly once with the match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..table.action_kinds import ActionKind
from ..table.game import BY_APP, BY_AUTO, NOT_STARTED, GameState

LEFT = "left"  # the player left the match under way
AWAY = "away"  # a robot held their seat for longer than the grace


@dataclass(frozen=True)
class SeatChange:
    """A logged change of who plays a seat: a "robot" (``by``: "" the sweeper's
    takeover, "auto" automatic mode, "app" a removal) or a "return", at ``at_ms``."""

    seat: int
    kind: str
    by: str
    at_ms: int


@dataclass(frozen=True)
class Abandonment:
    seat: int
    player_id: str
    how: str  # LEFT or AWAY


def longest_absences(changes: Sequence[SeatChange], ended_ms: int) -> dict[int, int]:
    """Each seat's longest stretch (ms) held by a robot that took it over from a
    silent player, up to its return or ``ended_ms``. Automatic mode and the app's
    removals are no absence."""
    since: dict[int, int] = {}
    longest: dict[int, int] = {}
    for change in sorted(changes, key=lambda c: c.at_ms):
        if change.kind == ActionKind.ROBOT and change.by not in (BY_AUTO, BY_APP):
            since.setdefault(change.seat, change.at_ms)
        elif change.kind == ActionKind.RETURN and change.seat in since:
            held = change.at_ms - since.pop(change.seat)
            longest[change.seat] = max(longest.get(change.seat, 0), held)
    for seat, start in since.items():
        longest[seat] = max(longest.get(seat, 0), ended_ms - start)
    return longest


def abandonments(
    g: GameState, changes: Sequence[SeatChange], ended_ms: int, grace_ms: int
) -> list[Abandonment]:
    """The seats whose players abandoned the finished match ``g``, in seat order;
    none at a practice table or a match that never started."""
    if not g.setup.table.competitive or g.result_reason == NOT_STARTED:
        return []
    away = longest_absences(changes, ended_ms)
    out: list[Abandonment] = []
    for seat, held in enumerate(g.seats):
        player = held.player_id
        if not player or player in g.removed_players or seat in g.removed_seats:
            continue  # no one to penalise, or the app removed them
        if held.resigned:
            out.append(Abandonment(seat, player, LEFT))
        elif away.get(seat, 0) > grace_ms:
            out.append(Abandonment(seat, player, AWAY))
    return out


__all__ = ["AWAY", "LEFT", "Abandonment", "SeatChange", "abandonments", "longest_absences"]
