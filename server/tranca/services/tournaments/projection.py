"""The tournament its events leave: rebuilt, its standings, what a change writes beside
its events (``written``) and whether a duplicate round's deck may be shown. The
heavy parts run in a worker thread for a large event (``compute.off_loop_if_large``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...platform.tournament_events import (
    Event,
    TournamentConfig,
    next_due,
    round_dealt_out,
    status_of,
)
from ...platform.tournaments import (
    Standing,
    Tournament,
)
from ..compute import off_loop_if_large
from .notices import notices
from .ports import GamesByTable, TournamentRow, Written
from .prize_money import money_moved


async def rebuilt(row: TournamentRow) -> Tournament:
    """``row.rebuild()``, in a worker thread for a large event (linear in the events:
    milliseconds for a thousand entrants; a fraction of one for 64, done here:
    ``compute.off_loop_if_large``)."""
    return await off_loop_if_large(len(row.events), row.rebuild)


async def standings_of(t: Tournament) -> list[Standing]:
    """``t.standings()``, in a worker thread for a large event (linear in the tables)."""
    return await off_loop_if_large(sum(len(r.tables) for r in t.rounds), t.standings)


async def written(
    row: TournamentRow | str, config: TournamentConfig, t: Tournament, new: Sequence[Event]
) -> Written:
    """``Written`` for ``t`` as ``row``'s events and the ``new`` ones left it (``row``:
    the tournament's id for a new one); its standings computed in a worker thread."""
    old = row.events if isinstance(row, TournamentRow) else []
    tid = row.id if isinstance(row, TournamentRow) else row
    standings = await standings_of(t)
    status = status_of(t)
    return Written(
        status,
        standings,
        next_due(config, t, [*old, *new]),
        len(t.ids) - len(t.withdrawn),
        notices(tid, t, new, standings),
        money_moved(row, config, t, new, status, standings),
    )


def deck_shown(t: Tournament, round_no: int, games: GamesByTable, statuses: dict[str, str]) -> bool:
    """Whether a duplicate round's deck may be shown: once every table of the round has
    a result and every game of the round is finished. Before, the deck is the cards
    still in play at some table (GUARANTEES: "an app sees no hand"), including a table
    whose game goes on after the organiser recorded a forfeit."""
    return t.round_complete(round_no) and round_dealt_out(round_no, games, statuses)
