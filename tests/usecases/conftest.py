"""The use cases wired to the in-memory repository (``fakes.py``), as ``server.py``
wires them to a database: fast, and the same code the service runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict, Unpack

import pytest

from tranca.services.access import Access, Credentials, FailedAuthThrottle
from tranca.services.games import Games, Joining, NewTable
from tranca.services.limits import DEFAULT_TOKEN_LIFETIME, RateLimiter, WatchCounts
from tranca.services.lobby import Lobby
from tranca.services.matches import Matches
from tranca.services.matchmaker import Matchmaker
from tranca.services.moves import Moves
from tranca.services.ports import AppRecord
from tranca.services.presence import Presence
from tranca.services.quick_play import QuickPlay
from tranca.services.sessions import Sessions
from tranca.services.tables import Tables
from tranca.table.game import TableOptions

from .fakes import InMemoryRepository, Notes


class TableSettings(TypedDict, total=False):
    """World.table's settings besides the preset and the players."""

    table: TableOptions | None
    seed: int
    spectators: bool
    overrides: dict[str, object] | None


@dataclass
class World:
    repo: InMemoryRepository
    notes: Notes
    access: Access
    moves: Moves
    matches: Matches
    games: Games
    tables: Tables
    app: AppRecord
    key: str
    sessions: Sessions
    lobby: Lobby
    quick_play: QuickPlay
    matchmaker: Matchmaker

    def as_app(self, key: str | None = None) -> Credentials:
        return Credentials(api_key=key or self.key, peer=lambda: "10.0.0.1")

    @staticmethod
    def as_player(token: str, peer: str = "10.0.0.2") -> Credentials:
        return Credentials(token=token, peer=lambda: peer)

    async def table(
        self,
        preset: str = "tranca-000",
        players: int = 2,
        *,
        table: TableOptions | None = None,
        seed: int = 7,
        spectators: bool = False,
        overrides: dict[str, object] | None = None,
    ) -> str:
        game, _ = await self.games.create(
            self.as_app(),
            NewTable(
                preset,
                dict(overrides or {}),
                players,
                table or TableOptions(),
                seed,
                spectators_allowed=spectators,
            ),
        )
        return game.id

    async def seated(
        self, preset: str = "tranca-000", players: int = 2, **options: Unpack[TableSettings]
    ) -> tuple[str, list[str]]:
        """A started game and its seats' tokens."""
        game_id = await self.table(preset, players, **options)
        tokens = []
        for seat in range(players):
            seated = await self.games.join(
                self.as_app(), game_id, Joining(seat, f"p{seat}", player_id=f"id{seat}")
            )
            tokens.append(seated.token)
        await self.games.start(self.as_app(), game_id)
        return game_id, tokens


def make_world(
    *, rate_per_token: float = 0, rate_per_app: float = 0, failures_per_peer: float = 5.0
) -> World:
    repo = InMemoryRepository()
    notes = Notes()
    access = Access(
        repo,
        FailedAuthThrottle(failures_per_peer, 4 * failures_per_peer),
        token_limiter=RateLimiter(rate_per_token, 2 * rate_per_token),
        app_limiter=RateLimiter(rate_per_app, 2 * rate_per_app),
        clock=lambda: repo.now,
    )
    moves = Moves(repo, notes, clock=lambda: repo.now)
    matches = Matches(moves, repo)
    games = Games(
        repo,
        access,
        moves,
        matches,
        Presence(repo),
        WatchCounts(4, 3),
        notes,
        notes,
        DEFAULT_TOKEN_LIFETIME,
    )
    app, key = repo.add_app("app", frozenset({"fixed_deck"}))
    sessions = Sessions(repo, access, clock=lambda: repo.now)
    lobby = Lobby(repo, access)
    quick_play = QuickPlay(repo, access, matches, repo, lambda: repo.now, DEFAULT_TOKEN_LIFETIME)
    matchmaker = Matchmaker(repo, notes, clock=lambda: repo.now)
    return World(
        repo,
        notes,
        access,
        moves,
        matches,
        games,
        Tables(games),
        app,
        key,
        sessions,
        lobby,
        quick_play,
        matchmaker,
    )


@pytest.fixture
def world() -> World:
    return make_world()
