"""A player's presence as other players see it (pure: no I/O): online, away or
offline from when they were last seen, the tables they hold a seat at, and who may
see any of it.

- **Status** comes from the last time the player was seen (any call with their
  session or their seat's token, an open stream of their events: the use case
  records it, ``services/player_presence.py``): ``ONLINE`` within
  ``ONLINE_WINDOW_MS`` (a client that is open keeps it so, since its stream or its
  calls are seen more often than that), ``AWAY`` past it or when the player says so,
  up to ``AWAY_WINDOW_MS``, and ``OFFLINE`` after (or never seen). The same moment
  gives the same status on every replica: nothing but the stored time and the
  player's choice goes into it.
- **Tables**: the unfinished games (waiting or playing) where a seat is still the
  player's (not left, resigned or removed by the app), each with whether it takes
  spectators, so that a friend can watch.
- **Who sees it** is the player's choice (``Visibility``): their friends (the
  default), everyone in the app, or nobody. The player always sees their own, and a
  player they blocked never sees theirs, whatever the choice. What a viewer may not
  see is shown as hidden, exactly as a player never seen by an app would be, so an
  answer tells no one that they were blocked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..table.game import PLAYING, WAITING, GameState

# Seen within this long: online. Past it (or away by choice), up to AWAY_WINDOW_MS:
# away. Past that, or never seen: offline. A client that stays open is seen every
# SEEN_EVERY_MS at most (the writes are throttled so), four times per online window.
ONLINE_WINDOW_MS = 60_000
AWAY_WINDOW_MS = 600_000
SEEN_EVERY_MS = 15_000
# The most tables a presence shows (the latest): a player holding seats at more is
# playing somewhere, and a friend needs no longer list.
MAX_TABLES = 10


class Status(StrEnum):
    OFFLINE = "offline"
    ONLINE = "online"
    AWAY = "away"


class Visibility(StrEnum):
    """Who sees a player's presence (their choice; the values are the stored ones)."""

    FRIENDS = "friends"
    EVERYONE = "everyone"
    NOBODY = "nobody"


class Audience(StrEnum):
    """A viewer as the player whose presence it asks for sees them."""

    SELF = "self"
    FRIEND = "friend"
    BLOCKED = "blocked"  # the player blocked the viewer
    OTHER = "other"


@dataclass(frozen=True)
class Settings:
    """What is stored of a player's presence: when they were last seen (epoch ms; 0:
    never), whether they said they are away, and who may see it."""

    last_seen_ms: int = 0
    away: bool = False
    visibility: Visibility = Visibility.FRIENDS


@dataclass(frozen=True)
class Table:
    """A table the player holds a seat at: its game, whether it takes spectators, and
    whether its match is under way (else it is waiting for players)."""

    game_id: str
    spectators_allowed: bool
    playing: bool


@dataclass(frozen=True)
class Shown:
    """A player's presence as one viewer sees it. Hidden (``visible`` false): no
    status, no time, no table. ``away`` and ``visibility`` are the player's own
    choices, shown to themselves only (others see ``status``)."""

    player_id: str
    visible: bool
    status: Status | None = None
    last_seen_ms: int = 0
    tables: tuple[Table, ...] = ()
    away: bool = False
    visibility: Visibility | None = None


def status_at(settings: Settings, now_ms: int) -> Status:
    """The status a player's stored presence gives at ``now_ms``."""
    if settings.last_seen_ms <= 0:
        return Status.OFFLINE
    idle = now_ms - settings.last_seen_ms
    if idle > AWAY_WINDOW_MS:
        return Status.OFFLINE
    if settings.away or idle > ONLINE_WINDOW_MS:
        return Status.AWAY
    return Status.ONLINE


def may_see(visibility: Visibility, audience: Audience) -> bool:
    """Whether a viewer (``audience``) sees a presence kept with that ``visibility``."""
    if audience == Audience.SELF:
        return True
    if audience == Audience.BLOCKED or visibility == Visibility.NOBODY:
        return False
    return visibility == Visibility.EVERYONE or audience == Audience.FRIEND


def shown(
    player_id: str,
    settings: Settings,
    audience: Audience,
    tables: Sequence[Table],
    now_ms: int,
) -> Shown:
    """The player's presence as the viewer sees it."""
    if not may_see(settings.visibility, audience):
        return Shown(player_id, visible=False)
    own = audience == Audience.SELF
    return Shown(
        player_id,
        visible=True,
        status=status_at(settings, now_ms),
        last_seen_ms=max(settings.last_seen_ms, 0),
        tables=tuple(tables[:MAX_TABLES]),
        away=settings.away if own else False,
        visibility=settings.visibility if own else None,
    )


def seated_at(game_id: str, state: GameState, player_id: str) -> Table | None:
    """The table, if a seat of this game is still ``player_id``'s and its match is
    not over: taken by them, not resigned, not removed by the app."""
    if not player_id or state.status not in (WAITING, PLAYING):
        return None
    if player_id in state.removed_players:
        return None
    for number, seat in enumerate(state.seats):
        if (
            seat.player_id == player_id
            and seat.taken
            and not seat.resigned
            and number not in state.removed_seats
        ):
            return Table(game_id, state.setup.spectators_allowed, state.status == PLAYING)
    return None


__all__ = [
    "AWAY_WINDOW_MS",
    "MAX_TABLES",
    "ONLINE_WINDOW_MS",
    "SEEN_EVERY_MS",
    "Audience",
    "Settings",
    "Shown",
    "Status",
    "Table",
    "Visibility",
    "may_see",
    "seated_at",
    "shown",
    "status_at",
]
