"""A player's rating as an answer shows it: its mean, its uncertainty, the ordinal
the leaderboards rank by (worked out from both) and the games it counts; and the
ranking periods a leaderboard is asked for. Worked out here so that a transport only
writes the figures down."""

from __future__ import annotations

from dataclasses import dataclass

from ..platform.ranking import Period
from ..platform.ratings import Rating

__all__ = ["Period", "Rating", "RatingFigures", "rating_figures"]


@dataclass(frozen=True, slots=True)
class RatingFigures:
    mu: float
    sigma: float
    ordinal: float
    games: int


def rating_figures(r: Rating) -> RatingFigures:
    return RatingFigures(r.mu, r.sigma, r.ordinal, r.games)
