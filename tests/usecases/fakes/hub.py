"""The hub's stand-in: a notifier that remembers what it was told."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from tranca.services.ports import (
    LogRecord,
)
from tranca.store.hints import Signal


class Notes:
    """The hub's stand-in: a notifier that remembers what it was told and wakes the
    watchers subscribed to the game, and watch leases that are only counted."""

    def __init__(self) -> None:
        self.published: list[tuple[str, int]] = []
        self.leases: list[str] = []
        self._watchers: dict[str, set[Signal]] = {}
        # The rows of each game's latest hint, and how many times a watcher took
        # rows from here instead of the log.
        self.rows: dict[str, Sequence[LogRecord]] = {}
        self.rows_taken = 0
        self.unversioned: list[str] = []  # hints that have every watcher read the log

    def publish(self, game_id: str, version: int | None, rows: Sequence[LogRecord] = ()) -> None:
        if version is None:
            self.unversioned.append(game_id)
        else:
            self.published.append((game_id, version))
        self.rows[game_id] = rows
        for event in self._watchers.get(game_id, ()):
            event.set()

    def rows_after(self, game_id: str, version: int) -> Sequence[LogRecord] | None:
        """As the hub's, for the latest hint's rows only."""
        rows = self.rows.get(game_id, ())
        if not rows:
            return None
        if version >= rows[-1].version:
            return ()
        if rows[0].version > version + 1:
            return None
        self.rows_taken += 1
        return rows[version + 1 - rows[0].version :]

    @contextlib.contextmanager
    def subscribe(self, game_id: str) -> Iterator[Signal]:
        event = Signal()
        self._watchers.setdefault(game_id, set()).add(event)
        try:
            yield event
        finally:
            self._watchers[game_id].discard(event)

    async def hold(self, game_id: str) -> None:
        self.leases.append(game_id)


def hub_thrice() -> tuple[Notes, Notes, Notes]:
    """One stand-in as a use case's hub, its notifier and its event hints."""
    notes = Notes()
    return notes, notes, notes
