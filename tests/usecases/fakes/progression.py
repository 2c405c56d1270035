"""Progression's store in memory (``services.progression.ProgressionWork`` per match,
``ProgressionReads`` for the reads), with the database's keys: one counted row per
app, match and player, one unlock per app, player and achievement."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tranca.platform.progression import Achievement, Progress, Rules
from tranca.table.events import Event


@dataclass
class ProgressionMemory:
    rules: Rules = field(default_factory=Rules)
    progress: dict[tuple[str, str], Progress] = field(default_factory=dict)
    unlocks: dict[tuple[str, str, str], int] = field(default_factory=dict)
    counted: dict[tuple[str, str, str], int] = field(default_factory=dict)  # app, game, player
    events: list[Event] = field(default_factory=list)
    clock: int = 0

    def work(
        self, app_id: str, game_id: str, deals: Sequence[dict[str, Any]] = ()
    ) -> ProgressionMatch:
        return ProgressionMatch(self, app_id, game_id, list(deals))

    async def progress_of(self, app_id: str, player_id: str) -> tuple[Progress, dict[str, int]]:
        unlocked = {
            a: at for (app, p, a), at in self.unlocks.items() if (app, p) == (app_id, player_id)
        }
        return self.progress.get((app_id, player_id), Progress()), unlocked


@dataclass
class ProgressionMatch:
    """One settlement's view, writing straight through (a test's transaction)."""

    memory: ProgressionMemory
    app_id: str
    game_id: str
    deals: list[dict[str, Any]]

    async def progression_rules(self) -> Rules:
        return self.memory.rules

    async def deal_results(self) -> list[dict[str, Any]]:
        return list(self.deals)

    async def count_match(self, player: str, xp: int, counted_id: str = "") -> bool:
        key = (self.app_id, counted_id or self.game_id, player)
        if key in self.memory.counted:
            return False
        self.memory.counted[key] = xp
        return True

    async def lock_progress(self, players: Sequence[str]) -> dict[str, Progress]:
        out: dict[str, Progress] = {}
        for p in players:
            found = self.memory.progress.get((self.app_id, p), Progress())
            unlocked = frozenset(
                a for (app, who, a) in self.memory.unlocks if (app, who) == (self.app_id, p)
            )
            out[p] = Progress(found.xp, dict(found.counters), unlocked)
        return out

    async def write_progress(
        self, player: str, progress: Progress, level: int, unlocked: Sequence[Achievement]
    ) -> list[Achievement]:
        self.memory.clock += 1
        self.memory.progress[(self.app_id, player)] = Progress(progress.xp, dict(progress.counters))
        written = []
        for a in unlocked:
            key = (self.app_id, player, a.id)
            if key not in self.memory.unlocks:
                self.memory.unlocks[key] = self.memory.clock
                written.append(a)
        return written

    async def publish(self, events: Sequence[Event]) -> None:
        self.memory.events.extend(events)
