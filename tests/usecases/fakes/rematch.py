"""The fake of the rematch's port (services/rematch.py): a table's matches by number
over the games' fake, the next match created once per (table, number)."""

from __future__ import annotations

from tranca.services.ports import GameRecord, LogRecord
from tranca.services.rematch import NextMatch, PlayedMatch, TableInfo

from .memory import InMemoryRepository


class RematchMemory:
    """``RematchRepository`` over an ``InMemoryRepository``'s games."""

    def __init__(self, repo: InMemoryRepository, tournament_games: frozenset[str] = frozenset()):
        self.repo = repo
        self.tournament_games = tournament_games
        self.matches: dict[tuple[str, int], str] = {}  # (table, number) -> game id

    async def game(self, game_id: str) -> GameRecord:
        return await self.repo.game(game_id)

    async def log(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        return await self.repo.log(game_id, after, upto)

    async def table_info(self, game_id: str) -> TableInfo:
        g = self.repo.games.get(game_id)
        if g is None:
            return TableInfo("", None, None, False)
        return TableInfo(g.label, g.invite_hash, g.owner_id, game_id in self.tournament_games)

    async def next_match(self, table_id: str, match_number: int) -> str | None:
        return self.matches.get((table_id, match_number))

    async def create_next_match(self, match: NextMatch) -> bool:
        key = (match.table_id, match.match_number)
        if key in self.matches:
            return False
        game_id = await self.repo.create_game(match.new)
        self.matches[key] = game_id
        for join in match.joins:
            if await self.repo.commit(join) is None:
                raise RuntimeError(f"game {game_id} changed while it was written")
        return True

    async def table_matches(self, table_id: str, limit: int, offset: int) -> list[PlayedMatch]:
        ids = [table_id] + [g for (t, _), g in sorted(self.matches.items()) if t == table_id]
        return [
            PlayedMatch(await self.repo.game(game_id), self.repo.now / 1000)
            for game_id in ids[offset : offset + limit]
        ]

    async def token_origin(self, token_hash: str) -> tuple[str | None, int]:
        stored = self.repo.tokens.get(token_hash)
        if stored is None:
            return None, 0
        return stored.token.session_id, stored.token.expires_at


__all__ = ["RematchMemory"]
