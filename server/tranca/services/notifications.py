"""A player's events: read a page of them, follow them as they come, and write the
kinds that no change of a game makes (``publish``).

The events of a change of a game are decided by ``app.notifications`` and written by
``Moves`` in the change's own transaction; a tournament round's by the round's
write. Each event is a row of ``player_events`` with an id that grows with every
event written, so a reader resumes after the last id it saw (``after_id``): a
stream that breaks loses nothing.

Who may read a player's events is decided in one place, ``Notifications.reader``:
today the app's API key, for any of its players.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..reasons import Reason
from ..table.events import EVENT_KINDS, Event
from .access import Access, Credentials, require_app
from .errors import Refusal, Refused, malformed
from .limits import WatchCounts
from .ports import Wakeup, player_key

MAX_PLAYER_ID = 128  # as JoinGameRequest.player_id
DEFAULT_PAGE = 50
MAX_PAGE = 500
# A stream re-reads on this timer as well as on this process's hints: the events of
# a change made by another replica send no hint here.
POLL_SECONDS = 1.0
MAX_PUBLISH = 1000  # events per publish call


@dataclass(frozen=True)
class StoredEvent:
    """An event as stored: its id (increasing), and when it was written (epoch ms)."""

    id: int
    player_id: str
    kind: str
    game_id: str | None
    payload: dict[str, Any]
    created_at: int


@dataclass(frozen=True)
class EventPage:
    """Events in the order written; ``next_after_id`` is the id to read after next
    (the last event's, or the request's own when the page is empty)."""

    events: tuple[StoredEvent, ...]
    next_after_id: int


class EventRepository(Protocol):
    async def player_events(
        self, app_id: str, player_id: str, after_id: int, limit: int
    ) -> list[StoredEvent]:
        """Up to ``limit`` of the player's events with ids above ``after_id``, in order."""
        ...

    async def publish_events(self, app_id: str, events: Sequence[Event]) -> list[int]:
        """The events written in one transaction, each with its webhook delivery if
        the app has an enabled webhook; their ids."""
        ...


class EventHintSource(Protocol):
    """This process's hints (``store/hints.py``'s hub, keyed by ``player_key``)."""

    def subscribe(self, key: str) -> contextlib.AbstractContextManager[Wakeup]: ...


@dataclass(frozen=True)
class Reader:
    """Whose events a call may read: one player of one app."""

    app_id: str
    player_id: str
    # The key its open streams count against (WatchCounts), and their cap.
    watch_key: str
    watch_cap: int
    # The player's own session reads (their open stream shows them present).
    by_player: bool = False


def check_player_id(player_id: str) -> None:
    if not player_id:
        raise malformed("player_id is required")
    if len(player_id) > MAX_PLAYER_ID:
        raise malformed(f"player_id is at most {MAX_PLAYER_ID} characters")


class Notifications:
    def __init__(
        self,
        repo: EventRepository,
        access: Access,
        hints: EventHintSource,
        watches: WatchCounts,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.repo = repo
        self.access = access
        self.hints = hints
        self.watches = watches
        self.poll_seconds = poll_seconds

    async def reader(self, credentials: Credentials, player_id: str) -> Reader:
        """The one decision of who may read ``player_id``'s events: the app's API key,
        for any player of the app; a player's session, for its own player only (its
        ``player_id`` left empty, or its own)."""
        caller = await self.access.identify(credentials)
        session = caller.session
        if session is not None:
            if player_id and player_id != session.player_id:
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.NOT_YOUR_PLAYER,
                    "a session reads its own player's events only (leave player_id empty)",
                )
            return Reader(
                session.app_id,
                session.player_id,
                f"events-session:{session.session_id}",
                self.watches.per_token,
                by_player=True,
            )
        app = require_app(caller)
        check_player_id(player_id)
        return Reader(app.id, player_id, f"events-app:{app.id}", self.watches.per_app)

    async def page(
        self, credentials: Credentials, player_id: str, after_id: int, page_size: int
    ) -> EventPage:
        """A page of the player's events after ``after_id``, oldest first."""
        reader = await self.reader(credentials, player_id)
        if after_id < 0:
            raise malformed("after_id must be 0 or more")
        if page_size < 0:
            raise malformed("page_size must be 0 or more")
        size = min(page_size or DEFAULT_PAGE, MAX_PAGE)
        rows = await self.repo.player_events(reader.app_id, reader.player_id, after_id, size)
        return EventPage(tuple(rows), rows[-1].id if rows else after_id)

    async def watch(
        self, credentials: Credentials, player_id: str, after_id: int
    ) -> AsyncIterator[StoredEvent]:
        """Every event of the player after ``after_id``, in order, as they are written,
        for as long as the caller reads. Woken by this process's changes at once and by
        other replicas' within ``poll_seconds``."""
        reader = await self.reader(credentials, player_id)
        if after_id < 0:
            raise malformed("after_id must be 0 or more")
        with (
            self.watches.hold(reader.watch_key, reader.watch_cap),
            self.hints.subscribe(player_key(reader.player_id)) as hint,
        ):
            last = after_id
            while True:
                hint.clear()
                # The player's own open stream keeps them present (throttled there).
                sightings = self.access.sightings
                if reader.by_player and sightings is not None:
                    await sightings.seen(reader.app_id, reader.player_id)
                rows = await self.repo.player_events(
                    reader.app_id, reader.player_id, last, MAX_PAGE
                )
                for row in rows:
                    last = row.id
                    yield row
                if len(rows) == MAX_PAGE:
                    continue  # more are waiting: read on at once
                await hint.wait(self.poll_seconds)

    async def publish(self, app_id: str, events: Sequence[Event]) -> list[int]:
        """Write events that no change of a game carries (a match found, an invitation)
        for the app's players, with their webhook deliveries; their ids. For the use
        cases that make them, on behalf of an app they have already authorised."""
        if len(events) > MAX_PUBLISH:
            raise malformed(f"at most {MAX_PUBLISH} events at once")
        for event in events:
            check_player_id(event.player_id)
            if event.kind not in EVENT_KINDS:
                raise Refused(Refusal.MALFORMED, Reason.UNKNOWN_EVENT_KIND, "no such kind of event")
        if not events:
            return []
        return await self.repo.publish_events(app_id, events)
