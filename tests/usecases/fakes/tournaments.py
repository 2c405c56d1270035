"""The fake of the tournaments' port (services/tournaments.py TournamentRepository):
tournaments kept with their events and a version each change compares and swaps,
their rounds' games written into the games' fake, scheduled ones claimed when due."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from tranca.platform.tournament_events import RUNNING, Event, TournamentConfig
from tranca.services.ports import SeatToken
from tranca.services.tournaments import (
    GamesByTable,
    TableGame,
    TournamentQuery,
    TournamentRow,
    TournamentSummary,
    Written,
)

from .memory import InMemoryRepository


@dataclass
class StoredTournament:
    row: TournamentRow
    written: Written
    due_at: int | None


@dataclass
class TournamentsMemory:
    """The tournaments of ``games``' apps, in memory, in the order they were created."""

    games: InMemoryRepository
    tournaments: dict[str, StoredTournament] = field(default_factory=dict)
    tables: dict[str, GamesByTable] = field(default_factory=dict)

    async def create_tournament(
        self, app_id: str, name: str, config: TournamentConfig, written: Written
    ) -> str:
        tournament_id = uuid.uuid4().hex
        row = TournamentRow(
            tournament_id, app_id, name, 0, config, [], list(written.standings), written.status
        )
        self.tournaments[tournament_id] = StoredTournament(row, written, written.due_at)
        return tournament_id

    def _of_app(self, tournament_id: str, app_id: str) -> StoredTournament | None:
        found = self.tournaments.get(tournament_id)
        return found if found is not None and found.row.app_id == app_id else None

    async def load_tournament(self, tournament_id: str, app_id: str) -> TournamentRow | None:
        found = self._of_app(tournament_id, app_id)
        return None if found is None else replace(found.row, events=list(found.row.events))

    async def tournament_version(self, tournament_id: str, app_id: str) -> int | None:
        found = self._of_app(tournament_id, app_id)
        return None if found is None else found.row.version

    async def table_games(self, tournament_id: str) -> GamesByTable:
        return dict(self.tables.get(tournament_id, {}))

    async def game_statuses(self, game_ids: Sequence[str]) -> dict[str, str]:
        return {g: self.games.games[g].state.status for g in game_ids if g in self.games.games}

    async def add_seat_tokens(self, tokens: Sequence[tuple[str, SeatToken]]) -> None:
        for game_id, token in tokens:
            await self.games.add_token(game_id, token)

    async def count_running(self) -> int:
        return sum(1 for t in self.tournaments.values() if t.row.status == RUNNING)

    async def append_events(self, row: TournamentRow, new: list[Event], written: Written) -> bool:
        stored = self.tournaments.get(row.id)
        if stored is None or stored.row.version != row.version:
            return False
        stored.row = replace(
            stored.row,
            version=row.version + 1,
            events=[*stored.row.events, *new],
            standings=list(written.standings),
            status=written.status,
        )
        stored.written, stored.due_at = written, written.due_at
        return True

    async def list_tournaments(
        self, app_id: str, query: TournamentQuery, offset: int, limit: int
    ) -> list[TournamentSummary]:
        found = [
            t
            for t in self.tournaments.values()
            if t.row.app_id == app_id and (not query.status or t.row.status == query.status)
        ]
        found.sort(key=lambda t: t.row.config.start_at)  # stable: then by creation
        return [self._summary(t) for t in found[offset : offset + limit]]

    @staticmethod
    def _summary(t: StoredTournament) -> TournamentSummary:
        config = t.row.config.to_dict()
        return TournamentSummary(
            t.row.id,
            t.row.name,
            t.row.status,
            t.row.config.format.value,
            str(t.row.config.rules.get("name", "")),
            t.row.config.start_at or 0,
            t.written.entrants,
            bool(config.get("registration", False)),
            int(config.get("max_entrants") or 0),
            int((config.get("prizes") or {}).get("entry_fee") or 0),
        )

    async def claim_due(self, now: int, lease_ms: int, limit: int) -> list[tuple[str, str]]:
        due = sorted(
            (t for t in self.tournaments.values() if t.due_at is not None and t.due_at <= now),
            key=lambda t: t.due_at or 0,
        )[:limit]
        for t in due:
            t.due_at = now + lease_ms
        return [(t.row.id, t.row.app_id) for t in due]

    async def set_due(self, row: TournamentRow, due_at: int | None) -> bool:
        stored = self.tournaments.get(row.id)
        if stored is None or stored.row.version != row.version:
            return False
        stored.due_at = due_at
        return True

    async def write_round(
        self,
        row: TournamentRow,
        new: list[Event],
        games: Sequence[TableGame],
        written: Written,
    ) -> bool:
        if not await self.append_events(row, new, written):
            return False
        tables = self.tables.setdefault(row.id, {})
        for table in games:
            game_id = await self.games.create_game(table.new)
            for join in table.joins:
                await self.games.commit(replace(join, game_id=game_id))
            tables[(table.round_no, table.table_no)] = game_id
        return True
