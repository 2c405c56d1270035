"""Quick play's matching, pure: which waiting tickets make a table, and where each
player sits.

A ticket is one player, or a party of two partners (4-player tables only), asking for
a table of one kind: the app, the preset, 2 or 4 players, rated or practice, the
stake. Tickets of the same kind are matched oldest first: the oldest waiting ticket
(the anchor) takes tickets that fill its table's seats exactly, every pair of them
within the rating window of both, the closest to it in rating first; a ticket's
window widens with its wait, so nobody waits for ever for a perfect match. Where the
app allows it, robots take the seats still empty once the anchor has waited
``robots_after_ms``, at practice tables without a stake only (003: robots never play
for points or chips).

A round leaves no table unmade (``match``): when it is over, no set of the tickets
still waiting could fill a table.

Two players one of whom blocked the other (``apart``: services/friends.py) never
share a table: the issue's "a blocked player cannot ... be seated at one's table by
quick play"; they are simply not compatible, and each waits for another table.

Seats at a 4-player table: partners sit across (seats 0 and 2, 1 and 3). A party
keeps its partners together; four single players are split into the two most even
pairs by rating (the strongest with the weakest).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from heapq import merge
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


# Two players of an app who must not share a table: (app id, one id, the other), the
# two ids in sorted order (``apart_key``).
Apart = frozenset[tuple[str, str, str]]


def apart_key(app_id: str, a: str, b: str) -> tuple[str, str, str]:
    low, high = sorted((a, b))
    return (app_id, low, high)


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


class _Pool:
    """The waiting tickets of one kind during a round: oldest first (the anchors'
    order), and by rating (a ticket's candidates are the tickets within its window),
    each with its window now, computed once."""

    def __init__(self, waiting: Sequence[Ticket], now: int, apart: Apart = frozenset()) -> None:
        self.apart = apart
        self.oldest_first = list(waiting)
        self.by_rating = sorted(waiting, key=_by_rating)
        self.keys = [_by_rating(t) for t in self.by_rating]
        self.ratings = [t.rating for t in self.by_rating]
        self.window = {t.id: t.window(now) for t in waiting}

    def __bool__(self) -> bool:
        return bool(self.oldest_first)

    def fits(self, a: Ticket, b: Ticket) -> bool:
        """``compatible(a, b, now)``, with the windows of the round, and no player of
        one kept apart from a player of the other."""
        if abs(a.rating - b.rating) > min(self.window[a.id], self.window[b.id]):
            return False
        if self.apart:
            app = a.kind.app_id
            for p in a.player_ids:
                for q in b.player_ids:
                    if apart_key(app, p, q) in self.apart:
                        return False
        return True

    def remove(self, tickets: Iterable[Ticket]) -> None:
        gone = set()
        for t in tickets:
            i = bisect_left(self.keys, _by_rating(t))
            del self.by_rating[i], self.keys[i], self.ratings[i]
            gone.add(t.id)
        self.oldest_first = [t for t in self.oldest_first if t.id not in gone]

    def near(self, anchor: Ticket, most: int) -> Iterator[Ticket]:
        """The other tickets of at most ``most`` players compatible with the anchor,
        closest in rating first (then oldest first), found as they are read: the
        ratings below the anchor's and those from it up, merged by distance."""
        rating, reach = anchor.rating, self.window[anchor.id]
        split = bisect_left(self.ratings, rating)
        below = self.by_rating[:split]
        up = self.by_rating[split:]

        def downwards() -> Iterator[Ticket]:
            # Nearest first; among equal ratings, oldest first.
            for _, same in groupby(reversed(below), key=lambda t: t.rating):
                yield from reversed(list(same))

        def distance(t: Ticket) -> tuple[float, int, str]:
            return (abs(t.rating - rating), t.created_ms, t.id)

        for t in merge(downwards(), up, key=distance):
            if abs(t.rating - rating) > reach:
                return  # and so are all the rest: beyond the anchor's window
            if t.id != anchor.id and len(t.player_ids) <= most and self.fits(anchor, t):
                yield t

    def fill(self, anchor: Ticket, seats: int) -> list[Ticket] | None:
        """The anchor and other tickets that fill exactly ``seats`` seats, each
        compatible with every other; None only if no such set exists in the pool.

        The search is exhaustive: a greedy pick can block the only table there is (the
        single closest to a party's rating takes one of its two free seats, and the
        other party waiting beside it no longer fits). It tries the tickets closest in
        rating to the anchor first, so the set it returns is the first in that
        order."""
        free = seats - len(anchor.player_ids)
        found = self._complete(_Candidates(self.near(anchor, free)), free)
        return None if found is None else [anchor, *found]

    def _complete(self, candidates: _Candidates, free: int) -> list[Ticket] | None:
        """The first tickets of ``candidates`` (in their order) filling exactly
        ``free`` seats, each compatible with every other; None if none do. Each
        candidate is compatible with every ticket chosen before this call."""
        if free == 0:
            return []
        i = 0
        while (t := candidates.at(i)) is not None:
            i += 1
            size = len(t.player_ids)
            if size > free:
                continue
            left = free - size
            rest = _Candidates(
                u for u in candidates.after(i) if len(u.player_ids) <= left and self.fits(t, u)
            )
            found = self._complete(rest, left)
            if found is not None:
                return [t, *found]
        return None

    def with_robots(self, anchor: Ticket, seats: int) -> list[Ticket]:
        """The anchor and whoever fits with it, oldest first; robots take the rest of
        the seats."""
        chosen = [anchor]
        free = seats - len(anchor.player_ids)
        for t in self.oldest_first:
            if t.id == anchor.id or len(t.player_ids) > free:
                continue
            if all(self.fits(t, c) for c in chosen):
                chosen.append(t)
                free -= len(t.player_ids)
        return chosen


class _Candidates:
    """Tickets drawn from an iterator only as far as they are read: the first table
    found usually needs the first few, and the search reads on only when it fails."""

    def __init__(self, source: Iterator[Ticket]) -> None:
        self._source = source
        self._read: list[Ticket] = []

    def at(self, i: int) -> Ticket | None:
        while len(self._read) <= i:
            t = next(self._source, None)
            if t is None:
                return None
            self._read.append(t)
        return self._read[i]

    def after(self, i: int) -> Iterator[Ticket]:
        """The tickets from the i-th on."""
        while (t := self.at(i)) is not None:
            yield t
            i += 1


def _by_rating(t: Ticket) -> tuple[float, int, str]:
    return (t.rating, t.created_ms, t.id)


def match(tickets: Iterable[Ticket], now: int, apart: Apart = frozenset()) -> list[Table]:
    """The tables the waiting ``tickets`` make now: each ticket in at most one table,
    the oldest tickets served first.

    The guarantee: once the round is over, no set of the tickets still waiting could
    make a table (tickets of one kind, pairwise compatible and not kept ``apart``,
    filling its seats exactly;
    or, where robots may play, a ticket that has waited the app's time). Each ticket,
    oldest first, anchors a search over every set of the tickets still waiting that
    would seat it; a ticket that none would seat waits, and takes no further part in
    the round: later tables only take tickets away, so none would seat it later."""
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
        pool = _Pool([t for t in group if len(t.player_ids) <= kind.players], now, apart)
        while pool:
            anchor = pool.oldest_first[0]
            chosen = pool.fill(anchor, kind.players)
            if chosen is None and (
                robots_allowed(kind)
                and anchor.robots_after_ms > 0
                and anchor.waited(now) >= anchor.robots_after_ms
            ):
                chosen = pool.with_robots(anchor, kind.players)
            if chosen is None:
                pool.remove([anchor])  # the anchor waits on; the next oldest tries
                continue
            ratings = [t.rating for t in chosen]
            tables.append(
                Table(kind, tuple(chosen), seat_order(kind, chosen), max(ratings) - min(ratings))
            )
            pool.remove(chosen)
    return tables


__all__ = [
    "WIDEN_PER_SECOND",
    "WINDOW_BASE",
    "Apart",
    "Kind",
    "Table",
    "Ticket",
    "apart_key",
    "compatible",
    "match",
    "robots_allowed",
    "seat_order",
]
