"""The fake of the players' port (services/players.py PlayersRepository): chip grants
posted once per grant id and the player's account, newest first; no ratings or
ranking points (a player never rated has none)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import datetime

from tranca.platform import chips
from tranca.services.players import (
    ChipEntryPage,
    ChipEntryRow,
    PlayerTotals,
    PointsTotal,
    RatedRow,
)


@dataclass
class PlayersMemory:
    """The chips' ledger of each (app, player), in memory. ``balances`` may be an
    InMemoryRepository's ``chips``, so that the games' fake sees the grants."""

    balances: dict[tuple[str, str], int] = field(default_factory=dict)
    now_s: int = 1_700_000_000
    # (app id, grant id) -> (player id, amount): a grant id names one grant.
    grants: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    entries: dict[tuple[str, str], list[ChipEntryRow]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def player_totals(self, app_id: str, player_id: str) -> PlayerTotals:
        return PlayerTotals(None, 0, 0, self.balances.get((app_id, player_id), 0))

    async def points_totals(
        self, app_id: str, between: tuple[datetime, datetime] | None, limit: int
    ) -> list[PointsTotal]:
        return []

    async def rated_players(self, app_id: str, limit: int) -> list[RatedRow]:
        return []

    async def grant_chips(
        self, app_id: str, grant_id: str, player_id: str, amount: int
    ) -> tuple[int, bool]:
        if not grant_id or not player_id:
            raise chips.InvalidRequest("a grant id and a player id are non-empty strings")
        if isinstance(amount, bool) or amount <= 0:
            raise chips.InvalidRequest(f"a grant is a positive number of chips, not {amount}")
        key = (app_id, player_id)
        earlier = self.grants.get((app_id, grant_id))
        if earlier is not None:
            if earlier != (player_id, amount):
                raise chips.Conflict(f"grant {grant_id} was another grant")
            return self.balances.get(key, 0), False
        self.grants[(app_id, grant_id)] = (player_id, amount)
        balance = self.balances.get(key, 0) + amount
        self.balances[key] = balance
        row = ChipEntryRow(next(self._ids), amount, "grant", grant_id, self.now_s, balance)
        self.entries.setdefault(key, []).append(row)
        return balance, True

    async def chip_entries(
        self, app_id: str, player_id: str, size: int, before: int | None
    ) -> ChipEntryPage:
        rows = [
            r
            for r in reversed(self.entries.get((app_id, player_id), []))
            if before is None or r.id < before
        ]
        page = tuple(rows[:size])
        return ChipEntryPage(page, page[-1].id if len(rows) > size else None)
