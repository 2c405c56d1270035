"""Skill ratings that understand partnerships (openskill's Plackett-Luce model).

A ``RatingBook`` is an immutable value: player -> ``Rating`` (mu, sigma, games played).
``rate_match`` returns a new book after one finished match; a pair's two players are
rated as one team, so a win lifts both partners and a loss lowers both.

What is rated is the caller's choice: 003 says an annulled match "no cuenta en la
clasificación ni en las estadísticas", so an annulled (or practice) match is simply
not passed to ``rate_match``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

from . import DRAWN, PlayerId
from .ranking import shared_ranks

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
ORDINAL_Z = 3.0  # ordinal = mu - 3 sigma: a rating the player is ~99.7% likely to exceed


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate that leaderboards sort by."""
        return self.mu - ORDINAL_Z * self.sigma


@dataclass(frozen=True)
class RatingBook:
    """Every rated player's ``Rating``; a player not in the book has the default one."""

    ratings: Mapping[PlayerId, Rating] = field(default_factory=dict, hash=False)
    mu: float = DEFAULT_MU  # the rating of a newcomer
    sigma: float = DEFAULT_SIGMA

    def __post_init__(self) -> None:
        # A read-only copy: a book never changes once made.
        object.__setattr__(self, "ratings", MappingProxyType(dict(self.ratings)))

    def __getitem__(self, player: PlayerId) -> Rating:
        return self.ratings.get(player) or Rating(self.mu, self.sigma, 0)

    def __contains__(self, player: object) -> bool:
        return player in self.ratings

    def __len__(self) -> int:
        return len(self.ratings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mu": self.mu,
            "sigma": self.sigma,
            "ratings": {p: [r.mu, r.sigma, r.games] for p, r in sorted(self.ratings.items())},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RatingBook:
        ratings = {
            str(p): Rating(float(mu), float(sigma), int(games))
            for p, (mu, sigma, games) in d["ratings"].items()
        }
        return cls(ratings, float(d["mu"]), float(d["sigma"]))


def _model(book: RatingBook) -> PlackettLuce:
    return PlackettLuce(mu=book.mu, sigma=book.sigma)


def _check_teams(teams: Sequence[Sequence[PlayerId]]) -> None:
    if len(teams) < 2:
        raise ValueError("a match has at least two sides")
    if any(not team for team in teams):
        raise ValueError("every side has at least one player")
    players = [p for team in teams for p in team]
    if len(set(players)) != len(players):
        raise ValueError("a player sits on one side only, once")


def rate_match(book: RatingBook, teams: Sequence[Sequence[PlayerId]], winner: int) -> RatingBook:
    """The book after a finished match between ``teams`` (sides in side order, each a
    list of player ids; see ``tranca.platform.sides``) won by side ``winner``, or
    ``DRAWN``. Only a winner is known, so every losing side shares second place."""
    _check_teams(teams)
    if winner == DRAWN:
        ranks = [1.0] * len(teams)
    elif 0 <= winner < len(teams):
        ranks = [1.0 if side == winner else 2.0 for side in range(len(teams))]
    else:
        raise ValueError(f"winner must be a side from 0 to {len(teams) - 1}, or DRAWN")
    model = _model(book)
    before = [[model.rating(book[p].mu, book[p].sigma, p) for p in team] for team in teams]
    after = model.rate(before, ranks=ranks)
    ratings = dict(book.ratings)
    for team, new_team in zip(teams, after, strict=True):
        for player, new in zip(team, new_team, strict=True):
            ratings[player] = _rating(new, book[player].games + 1)
    return RatingBook(ratings, book.mu, book.sigma)


def _rating(r: PlackettLuceRating, games: int) -> Rating:
    return Rating(float(r.mu), float(r.sigma), games)


def win_probability(book: RatingBook, teams: Sequence[Sequence[PlayerId]]) -> list[float]:
    """Each side's chance of winning a match between ``teams``, by the book."""
    _check_teams(teams)
    model = _model(book)
    return model.predict_win(
        [[model.rating(book[p].mu, book[p].sigma, p) for p in team] for team in teams]
    )


@dataclass(frozen=True)
class Standing:
    rank: int  # 1 for the best; players with the same ordinal share a rank
    player: PlayerId
    ordinal: float
    mu: float
    sigma: float
    games: int


def leaderboard(
    book: RatingBook,
    *,
    min_games: int = 0,
    limit: int | None = None,
    players: Iterable[PlayerId] | None = None,
) -> list[Standing]:
    """The rated players, best ordinal first (ties in player id order, same rank).

    ``min_games`` leaves out players with fewer rated games (a new player's ordinal is
    low and uncertain); ``players`` restricts the board (friends, a room); ``limit``
    keeps the top rows."""
    chosen = book.ratings.keys() if players is None else set(players) & book.ratings.keys()
    rows = sorted(
        ((p, book.ratings[p]) for p in chosen if book.ratings[p].games >= min_games),
        key=lambda pr: (-pr[1].ordinal, pr[0]),
    )
    board: list[Standing] = []
    ranks = shared_ranks([r.ordinal for _, r in rows])
    for rank, (player, r) in zip(ranks, rows, strict=True):
        board.append(Standing(rank, player, r.ordinal, r.mu, r.sigma, r.games))
        if limit is not None and len(board) >= limit:
            break
    return board
