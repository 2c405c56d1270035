"""An app's players: their ratings, ranking points, leaderboards and chips.

Every call needs the app's API key (``Access.calling_app``) and sees only that app's
players: a player is (app, player_id), the id the app gave at JoinGame or GrantChips.
A player the app has never named reads as a newcomer (the initial rating, no chips,
no points), not as NOT_FOUND: an app's players exist as soon as it names them, and
nothing here creates a player row.

The repository (the port below, ``store/players_store.py`` on a database) reads the
totals, pages and rows; what they mean is decided here and in the pure platform
modules (the ranks and periods of ``platform.ranking``, the ratings' ordinal of
``platform.ratings``, the grant's rules of ``platform.chips``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Protocol

from .. import metrics
from ..platform import chips, ranking, ratings
from ..reasons import Reason
from .access import Access, Credentials
from .errors import Refusal, Refused, malformed
from .paging import before_token, parse_before
from .player_rewrite import refuse_pseudonym
from .tournaments import MAX_PLAYER_ID

MAX_GRANT_ID = 128
MAX_GRANT = 10**12  # chips per grant: the balances stay far from 64-bit limits
DEFAULT_PAGE = 50
MAX_PAGE = 500


class LeaderboardKind(StrEnum):
    RANKING_POINTS = "ranking_points"
    RATING = "rating"


# ----- what crosses the repository port ---------------------------------------------------


@dataclass(frozen=True)
class PlayerTotals:
    """What is stored of a player: its rating and competitive matches won (None and 0
    if never rated), its ranking points of all time and its chip balance."""

    rating: ratings.Rating | None
    wins: int
    ranking_points: int
    chips: int


@dataclass(frozen=True)
class PointsTotal:
    """A player's ranking points over a period, with the matches they came from."""

    points: int
    player_id: str
    wins: int
    games: int


@dataclass(frozen=True)
class RatedRow:
    """A rated player, with its rating's ordinal as the leaderboard's query sorted it."""

    ordinal: float
    player_id: str
    rating: ratings.Rating
    wins: int


@dataclass(frozen=True)
class ChipEntryRow:
    """One entry of a player's chip account; ``at`` in seconds since the epoch."""

    id: int
    amount: int
    purpose: str
    reference: str
    at: int
    balance: int


@dataclass(frozen=True)
class ChipEntryPage:
    """A page of entries, newest first; ``next_before`` is the id to read the next
    page before (None on the last page)."""

    entries: tuple[ChipEntryRow, ...]
    next_before: int | None

    @property
    def next_page_token(self) -> str:
        return before_token(self.next_before)


class PlayersRepository(Protocol):
    """The reads and the one write (a grant) of PlayerService."""

    async def player_totals(self, app_id: str, player_id: str) -> PlayerTotals: ...

    async def points_totals(
        self, app_id: str, between: tuple[datetime, datetime] | None, limit: int
    ) -> list[PointsTotal]:
        """Up to ``limit`` players' ranking points awarded within ``between`` (from
        its start, before its end; None: of all time), most points first, ties by
        player id."""
        ...

    async def rated_players(self, app_id: str, limit: int) -> list[RatedRow]:
        """Up to ``limit`` rated players (a match or more), by the rating's ordinal
        (``ratings.ORDINAL_Z``), highest first, ties by player id."""
        ...

    async def grant_chips(
        self, app_id: str, grant_id: str, player_id: str, amount: int
    ) -> tuple[int, bool]:
        """Grant ``amount`` chips once per ``grant_id``: the player's balance, and
        whether this call posted the grant (False for a retry). Raises
        ``chips.Conflict`` for a grant id used for another grant and
        ``chips.InvalidRequest`` for a grant the ledger refuses."""
        ...

    async def chip_entries(
        self, app_id: str, player_id: str, size: int, before: int | None
    ) -> ChipEntryPage:
        """Up to ``size`` entries of the player's account, newest first, with ids
        below ``before`` if given."""
        ...


# ----- what the use cases give ------------------------------------------------------------


@dataclass(frozen=True)
class PlayerSummary:
    """A player's rating (the initial one if never rated), competitive matches won,
    ranking points of all time and chip balance."""

    player_id: str
    rating: ratings.Rating
    wins: int
    ranking_points: int
    chips: int


@dataclass(frozen=True)
class LeaderboardRow:
    """A leaderboard's entry. ``rating`` is set on the rating leaderboard only, where
    ``points`` is the rating's ordinal rounded down."""

    rank: int
    player_id: str
    points: int
    wins: int
    games: int
    rating: ratings.Rating | None = None


# ----- the request's fields ---------------------------------------------------------------


def player_id_of(value: str) -> str:
    player = value.strip()
    if not player:
        raise malformed(f"player_id is required (1 to {MAX_PLAYER_ID} characters)")
    return player


def new_player_id_of(value: str) -> str:
    """A player id an app may give a player (a grant's): not an erasure's pseudonym."""
    player = player_id_of(value)
    refuse_pseudonym(player)
    return player


def page_limit(value: int, what: str) -> int:
    if value == 0:
        return DEFAULT_PAGE
    if not 1 <= value <= MAX_PAGE:
        raise malformed(f"{what} is 1 to {MAX_PAGE} (0: {DEFAULT_PAGE})")
    return value


# ----- the use cases ---------------------------------------------------------------------


class Players:
    def __init__(self, repo: PlayersRepository, access: Access) -> None:
        self.repo = repo
        self.access = access

    async def player(self, credentials: Credentials, player_id: str) -> PlayerSummary:
        app = await self.access.calling_app(credentials)
        player = player_id_of(player_id)
        found = await self.repo.player_totals(app.id, player)
        rating = found.rating if found.rating is not None else ratings.Rating()
        wins = found.wins if found.rating is not None else 0
        return PlayerSummary(player, rating, wins, found.ranking_points, found.chips)

    async def leaderboard(
        self,
        credentials: Credentials,
        kind: LeaderboardKind | None,
        period: ranking.Period | None,
        limit: int,
    ) -> list[LeaderboardRow]:
        """The ranking points over a period (``period``: the UTC day, week from
        Monday or month that holds now, or all time), or the ratings; None for a kind
        or a period this server does not know."""
        app = await self.access.calling_app(credentials)
        size = page_limit(limit, "limit")
        if kind is None:
            raise malformed("unknown leaderboard kind")
        if period is None:
            raise malformed("unknown period")
        if kind == LeaderboardKind.RATING:
            return await self._rating_leaderboard(app.id, size)
        return await self._points_leaderboard(app.id, period, size)

    async def _points_leaderboard(
        self, app_id: str, period: ranking.Period, limit: int
    ) -> list[LeaderboardRow]:
        """Ties share a rank, as in ``ranking.leaderboard``."""
        between = None
        if period != ranking.Period.ALL_TIME:
            between = ranking.period_bounds(period, datetime.now(UTC))
        rows = await self.repo.points_totals(app_id, between, limit)
        ranks = ranking.shared_ranks([r.points for r in rows])
        return [
            LeaderboardRow(rank, r.player_id, r.points, r.wins, r.games)
            for rank, r in zip(ranks, rows, strict=True)
        ]

    async def _rating_leaderboard(self, app_id: str, limit: int) -> list[LeaderboardRow]:
        """By the rating's ordinal (mu - 3 sigma), as ``ratings.leaderboard``."""
        rows = await self.repo.rated_players(app_id, limit)
        ranks = ranking.shared_ranks([r.ordinal for r in rows])
        return [
            LeaderboardRow(
                rank,
                r.player_id,
                math.floor(r.rating.ordinal),
                r.wins,
                r.rating.games,
                r.rating,
            )
            for rank, r in zip(ranks, rows, strict=True)
        ]

    async def grant(
        self, credentials: Credentials, player_id: str, amount: int, grant_id: str
    ) -> int:
        """New chips for a player, once per ``grant_id`` (a retry posts nothing): the
        player's balance."""
        app = await self.access.calling_app(credentials)
        player = new_player_id_of(player_id)
        if not 0 < amount <= MAX_GRANT:
            raise malformed(f"amount is 1 to {MAX_GRANT} chips")
        if not grant_id:
            raise malformed(f"grant_id is required (1 to {MAX_GRANT_ID} characters)")
        try:
            balance, posted = await self.repo.grant_chips(app.id, grant_id, player, amount)
        except chips.Conflict:
            raise Refused(
                Refusal.EXISTS, Reason.GRANT_ID_REUSED, "grant_id was used for another grant"
            ) from None
        except chips.InvalidRequest as exc:
            raise malformed(exc.message) from None
        if posted:
            metrics.CHIPS_MOVED.labels(chips.Purpose.GRANT.value).inc(amount)
        return balance

    async def chip_entries(
        self, credentials: Credentials, player_id: str, page_size: int, page_token: str
    ) -> ChipEntryPage:
        """A page of the player's chip entries, newest first (entries are append-only,
        so a page never shifts as new ones arrive)."""
        app = await self.access.calling_app(credentials)
        player = player_id_of(player_id)
        size = page_limit(page_size, "page_size")
        before = parse_before(page_token)
        return await self.repo.chip_entries(app.id, player, size, before)


__all__: Sequence[str] = [
    "ChipEntryPage",
    "ChipEntryRow",
    "LeaderboardKind",
    "LeaderboardRow",
    "PlayerSummary",
    "PlayerTotals",
    "Players",
    "PlayersRepository",
    "PointsTotal",
    "RatedRow",
]
