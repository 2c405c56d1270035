"""The domain's words the tournaments' use cases take and give, named here so that a
transport speaks to the use cases alone: the formats, a table's outcomes, the
knockout tie and round timeout rules, the tie-breakers, the points, an entrant, and
a tournament's statuses.
"""

from __future__ import annotations

from ...platform.tournament_events import (
    CANCELLED,
    FINISHED,
    REGISTERED,
    RUNNING,
    RoundTimeout,
)
from ...platform.tournaments import Entrant, Format, KnockoutTie, Outcome, Points, TieBreaker

__all__ = [
    "CANCELLED",
    "FINISHED",
    "REGISTERED",
    "RUNNING",
    "Entrant",
    "Format",
    "KnockoutTie",
    "Outcome",
    "Points",
    "RoundTimeout",
    "TieBreaker",
]
