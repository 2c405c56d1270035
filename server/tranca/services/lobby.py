"""The lobby: the open tables an end user may join, for an app's client to list and
pick from. A table is open while it waits for players with a free seat and is public
(a private table is joined only by its invite code, never listed).

Called with a player's session, the lobby shows only the tables its app's policy lets
the session join (presets, rated play, stakes); with the app's key, every open table
of the app. Tables are listed oldest first, so that players fill the tables that have
waited longest.

The lobby reads the waiting public tables of the app (with the preset and size asked
for, which the database filters) in order and keeps those that pass the rest of the
filter (free seats, rated or practice, stake: read from each table's state). A page
scans at most ``SCAN_LIMIT`` tables, so a page may hold fewer tables than asked for:
a client goes on while ``next_page_token`` is set. The token is the position of the
last table scanned (its creation time and id: ``paging.Position``), so tables that
fill or start between two pages shift nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from ..table.game import GameState
from .access import Access, Credentials, require_app
from .errors import malformed
from .paging import Position
from .policy import AppPolicy
from .ports import GameRecord

DEFAULT_PAGE = 50
MAX_PAGE = 200
SCAN_LIMIT = 2000  # tables read for one page at most
MAX_STAKE = 10**12


class Play(StrEnum):
    ANY = "any"
    PRACTICE = "practice"
    RATED = "rated"


@dataclass(frozen=True)
class LobbyFilter:
    preset: str = ""  # empty: any preset
    players: int = 0  # 0: 2 or 4
    play: Play = Play.ANY
    min_stake: int = 0
    max_stake: int | None = None  # None: no upper bound
    min_free_seats: int = 1

    def check(self) -> LobbyFilter:
        if self.players not in (0, 2, 4):
            raise malformed("players is 0 (any), 2 or 4")
        if not 1 <= self.min_free_seats <= 4:
            raise malformed("min_free_seats is 1 to 4 (0: 1)")
        if not 0 <= self.min_stake <= MAX_STAKE:
            raise malformed(f"min_stake is 0 to {MAX_STAKE}")
        if self.max_stake is not None and not self.min_stake <= self.max_stake <= MAX_STAKE:
            raise malformed(f"max_stake is min_stake to {MAX_STAKE}")
        return self

    def keeps(self, state: GameState) -> bool:
        """Whether a waiting public table passes the rest of the filter."""
        table = state.setup.table
        if table.private:
            return False  # made private by its head after it was created public
        # A seat a rematch holds for its last player is not free (services/rematch.py).
        free = sum(1 for i, s in enumerate(state.seats) if not s.taken and i not in state.held)
        if free < self.min_free_seats:
            return False
        if self.play is Play.PRACTICE and table.competitive:
            return False
        if self.play is Play.RATED and not table.competitive:
            return False
        if table.stake < self.min_stake:
            return False
        return self.max_stake is None or table.stake <= self.max_stake


class LobbyRepository(Protocol):
    async def waiting_tables(
        self, app_id: str, preset: str, players: int, after: Position | None, limit: int
    ) -> list[tuple[GameRecord, Position]]:
        """Up to ``limit`` of the app's public tables waiting for players (of that
        preset and size, where given), after ``after``, oldest first; each with its
        position."""
        ...


def policy_keeps(policy: AppPolicy, state: GameState) -> bool:
    """Whether a session under ``policy`` may join the table."""
    setup = state.setup
    if not policy.allows_preset(setup.rules.name):
        return False
    if setup.table.competitive and not policy.competitive:
        return False
    return setup.table.stake <= policy.max_stake


class Lobby:
    def __init__(self, repo: LobbyRepository, access: Access) -> None:
        self.repo = repo
        self.access = access

    async def open_tables(
        self, credentials: Credentials, wanted: LobbyFilter, page_size: int, page_token: str
    ) -> tuple[list[GameRecord], str]:
        """A page of open tables and the next page's token (empty at the end)."""
        caller = await self.access.identify(credentials)
        policy: AppPolicy | None = None
        if caller.session is not None:
            app_id, policy = caller.session.app_id, caller.session.policy
        else:
            app_id = require_app(caller).id
        wanted.check()
        size = page_size or DEFAULT_PAGE
        if not 1 <= size <= MAX_PAGE:
            raise malformed(f"page_size is 1..{MAX_PAGE}")
        after = Position.parse(page_token)
        found: list[GameRecord] = []
        scanned = 0
        while len(found) < size and scanned < SCAN_LIMIT:
            batch = await self.repo.waiting_tables(
                app_id, wanted.preset, wanted.players, after, min(SCAN_LIMIT - scanned, 4 * size)
            )
            if not batch:
                return found, ""
            for game, position in batch:
                scanned += 1
                after = position
                state = game.state
                if wanted.keeps(state) and (policy is None or policy_keeps(policy, state)):
                    found.append(game)
                    if len(found) == size:
                        break
        assert after is not None
        return found, after.token()


__all__ = ["Lobby", "LobbyFilter", "LobbyRepository", "Play"]
