"""The platform around the game (ratings, ranking points, the chip ledger...).

Pure domain modules (no I/O, no network, no database): the service stores and loads
their values; these modules only decide. Players are named by ``PlayerId`` strings.
This file holds only what several of them share: how seats make sides.

Sides follow the game's convention (``tranca.table.game``): with 4 seats the game is
two partnerships, seats 0 and 2 (side 0) against seats 1 and 3 (side 1); otherwise
every seat is its own side. A match's result is a side, or ``DRAWN``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tranca_rules.match import DRAWN

PlayerId = str

__all__ = ["DRAWN", "PlayerId", "n_sides", "side_of", "sides", "winners_of"]


def n_sides(n_seats: int) -> int:
    """How many sides a table of ``n_seats`` has (2 for four seats: partnerships)."""
    if n_seats < 2:
        raise ValueError(f"a table has at least 2 seats, not {n_seats}")
    return 2 if n_seats == 4 else n_seats


def side_of(seat: int, n_seats: int) -> int:
    """The side of ``seat``, as in ``tranca.table.game`` (seat % number of sides)."""
    if not 0 <= seat < n_seats:
        raise ValueError(f"there is no seat {seat} at a table of {n_seats}")
    return seat % n_sides(n_seats)


def sides(seat_players: Sequence[PlayerId]) -> list[list[PlayerId]]:
    """The players of each side, in seat order: ``[[p0, p2], [p1, p3]]`` for four seats."""
    count = len(seat_players)
    result: list[list[PlayerId]] = [[] for _ in range(n_sides(count))]
    for seat, player in enumerate(seat_players):
        result[side_of(seat, count)].append(player)
    return result


def winners_of(seat_players: Sequence[PlayerId], winner: int) -> list[PlayerId]:
    """The players of the winning side, in seat order; every player when ``DRAWN``."""
    if winner == DRAWN:
        return list(seat_players)
    teams = sides(seat_players)
    if not 0 <= winner < len(teams):
        raise ValueError(f"there is no side {winner} at a table of {len(seat_players)}")
    return teams[winner]
