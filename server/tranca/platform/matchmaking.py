"""Quick play's matching, pure: which waiting tickets make a table, and where each
player sits.

A ticket is one player, or a party of two partners (4-player tables only), asking for
a table of one kind: the app, the preset, 2 or 4 players, rated or practice, the
stake. Tickets of the same kind are matched oldest first: the oldest waiting ticket
(the anchor) takes the tickets closest to it in rating that fit, as long as every
pair of them is within the rating window of both; a ticket's window widens with its
wait, so nobody waits for ever for a perfect match. Where the app allows it, robots
take the seats still empty once the anchor has waited ``robots_after_ms``, at
practice tables without a stake only (003: robots never play for points or chips).

Seats at a 4-player table: partners sit across (seats 0 and 2, 1 and 3). A party
keeps its partners together; four single players are split into the two most even
pairs by rating (the strongest with the weakest).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import groupby

# The rating window, in OpenSkill's mu (25 for a newcomer): 3 points at once, then a
# quarter of a point more every second of waiting (a minute: 18 points, about the
# spread of an app's whole field).
WINDOW_BASE = 3.0
WIDEN_PER_SECOND = 0.25


@dataclass(frozen=True)
class Kind:
    """What a ticket asks for: only tickets of one kind share a table."""

    app_id: str
    preset: str
    players: int
    competitive: bool
    stake: int


@dataclass(frozen=True)
class Ticket:
    id: str
    kind: Kind
    player_ids: tuple[str, ...]  # one player, or two partners
    rating: float  # the party's mean mu
    created_ms: int
    robots_after_ms: int = 0  # 0: no robots for this ticket's table

    def waited(self, now: int) -> int:
        return max(0, now - self.created_ms)

    def window(self, now: int) -> float:
        return WINDOW_BASE + WIDEN_PER_SECOND * self.waited(now) / 1000


@dataclass(frozen=True)
class Table:
    """A table made of tickets: ``seats[i]`` is the player id of seat i, or None for
    a robot's seat; ``tickets`` the tickets it takes."""

    kind: Kind
    tickets: tuple[Ticket, ...]
    seats: tuple[str | None, ...]
    rating_spread: float = field(default=0.0, compare=False)


def robots_allowed(kind: Kind) -> bool:
    return not kind.competitive and kind.stake == 0


def compatible(a: Ticket, b: Ticket, now: int) -> bool:
    """Two tickets may share a table when their ratings are within both windows."""
    return abs(a.rating - b.rating) <= min(a.window(now), b.window(now))


def seat_order(kind: Kind, tickets: Sequence[Ticket]) -> tuple[str | None, ...]:
    """Where each player sits (None: a robot's seat)."""
    if kind.players == 2:
        seats: list[str | None] = [p for t in tickets for p in t.player_ids]
        return tuple(seats + [None] * (2 - len(seats)))
    parties = [t for t in tickets if len(t.player_ids) == 2]
    singles = sorted(
        (t for t in tickets if len(t.player_ids) == 1), key=lambda t: (-t.rating, t.id)
    )
    pairs: list[tuple[str | None, str | None]] = [
        (p.player_ids[0], p.player_ids[1]) for p in parties
    ]
    if len(singles) == 4:
        # The most even split: the strongest and the weakest against the middle two.
        s = singles
        pairs = [
            (s[0].player_ids[0], s[3].player_ids[0]),
            (s[1].player_ids[0], s[2].player_ids[0]),
        ]
    else:
        alone: list[str | None] = [t.player_ids[0] for t in singles]
        alone += [None] * (2 * (2 - len(pairs)) - len(alone))
        for i in range(0, len(alone), 2):
            pairs.append((alone[i], alone[i + 1]))
    (a0, a1), (b0, b1) = pairs
    return (a0, b0, a1, b1)


def _fill(anchor: Ticket, others: Sequence[Ticket], seats: int, now: int) -> list[Ticket] | None:
    """The anchor and the tickets closest to it in rating that fill exactly ``seats``
    seats, each compatible with every other; None if they cannot."""
    chosen = [anchor]
    free = seats - len(anchor.player_ids)
    for t in sorted(others, key=lambda t: (abs(t.rating - anchor.rating), t.created_ms, t.id)):
        if free == 0:
            break
        if len(t.player_ids) > free:
            continue
        if all(compatible(t, c, now) for c in chosen):
            chosen.append(t)
            free -= len(t.player_ids)
    return chosen if free == 0 else None


def _with_robots(anchor: Ticket, others: Sequence[Ticket], seats: int, now: int) -> list[Ticket]:
    """The anchor and whoever fits with it, the rest of the seats left to robots."""
    chosen = [anchor]
    free = seats - len(anchor.player_ids)
    for t in sorted(others, key=lambda t: (t.created_ms, t.id)):
        if len(t.player_ids) <= free and all(compatible(t, c, now) for c in chosen):
            chosen.append(t)
            free -= len(t.player_ids)
    return chosen


def match(tickets: Iterable[Ticket], now: int) -> list[Table]:
    """The tables the waiting ``tickets`` make now: each ticket in at most one table,
    the oldest tickets served first."""
    tables: list[Table] = []
    ordered = sorted(
        tickets,
        key=lambda t: (
            t.kind.app_id,
            t.kind.preset,
            t.kind.players,
            t.kind.competitive,
            t.kind.stake,
            t.created_ms,
            t.id,
        ),
    )
    for kind, group in groupby(ordered, key=lambda t: t.kind):
        waiting = list(group)  # oldest first
        while waiting:
            anchor = waiting[0]
            others = [t for t in waiting[1:] if len(t.player_ids) <= kind.players]
            chosen = _fill(anchor, others, kind.players, now)
            if chosen is None and (
                robots_allowed(kind)
                and anchor.robots_after_ms > 0
                and anchor.waited(now) >= anchor.robots_after_ms
            ):
                chosen = _with_robots(anchor, others, kind.players, now)
            if chosen is None:
                waiting.pop(0)  # the anchor waits on; the next oldest tries
                continue
            ratings = [t.rating for t in chosen]
            tables.append(
                Table(kind, tuple(chosen), seat_order(kind, chosen), max(ratings) - min(ratings))
            )
            taken = {t.id for t in chosen}
            waiting = [t for t in waiting if t.id not in taken]
    return tables


__all__ = [
    "WIDEN_PER_SECOND",
    "WINDOW_BASE",
    "Kind",
    "Table",
    "Ticket",
    "compatible",
    "match",
    "robots_allowed",
    "seat_order",
]
