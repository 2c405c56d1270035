"""A finished game's result recorded at its tournament table, inside the settlement's
transaction (``record_game_result``), and whether a table was decided by a forfeit.
"""

from __future__ import annotations

from dataclasses import dataclass

from tranca_rules.match import DRAWN

from ...platform.entry_fees import (
    ChipMoves,
)
from ...platform.tournament_events import (
    ResultEvent,
    latest_result,
    result_event,
)
from ...platform.tournaments import (
    Outcome,
)
from ...table.game import (
    ENDED_BY_APP,
    NOT_STARTED,
)
from ..moves import now_ms
from .errors import TournamentConflict
from .ports import TournamentResults, TournamentRow, Written
from .projection import rebuilt, written

# The result events' sources: a game's settlement, the organiser's forfeit, the
# round's clock (a table without a result at the round's deadline).
FROM_GAME, FROM_FORFEIT, FROM_CLOCK = "game", "forfeit", "clock"


@dataclass(frozen=True)
class GameResult:
    """A finished game's result for its tournament table, worked out and not yet
    written: the tournament as read, the event to append and what it leaves."""

    row: TournamentRow
    event: ResultEvent
    written: Written


async def game_result(
    results: TournamentResults, game_id: str, winner: int, reason: str
) -> GameResult | None:
    """A finished game's result in its tournament, if it belongs to one and its table
    takes it (``record_game_result`` says which); None otherwise. Writes nothing."""
    found = await results.table_of_game(game_id)
    if found is None:
        return None
    row, round_no, table_no = found.row, found.round_no, found.table_no
    t = await rebuilt(row)
    if len(t.rounds) != round_no or t.cancelled:
        return None
    table = t.rounds[-1].tables[table_no - 1]
    if t.result(table) is not None:
        return None
    tie_break = False
    if winner in (0, 1):
        # At a duplicate round's even tables side B holds the game's side 0.
        outcome = row.config.outcome_of_game(table_no, winner)
    elif reason == ENDED_BY_APP:
        return None
    elif reason == NOT_STARTED:
        # Closed at its start deadline (the sweeper): nobody played the table.
        outcome = Outcome.DOUBLE_NO_SHOW
    elif (level := row.config.outcome_of_level_game(t, table_no)) is not None:
        outcome, tie_break = level, True
    elif winner == DRAWN:
        outcome = Outcome.DRAW
    else:
        return None
    t.record(round_no, table_no, outcome)
    event = result_event(round_no, table_no, outcome, FROM_GAME, now_ms())
    event["game_id"] = game_id
    event["reason"] = reason
    if tie_break:
        event["tie_break"] = row.config.knockout_tie.value
    return GameResult(row, event, await written(row, row.config, t, [event]))


async def write_game_result(results: TournamentResults, result: GameResult) -> ChipMoves:
    """Append ``game_result``'s event in the caller's transaction; what it moved
    through the prize pool (its prizes, if it finished the tournament), for the
    caller to count once its transaction commits."""
    if not await results.append_events(result.row, [result.event], result.written):
        raise TournamentConflict(f"tournament {result.row.id} kept changing")
    return result.written.chips


async def record_game_result(
    results: TournamentResults, game_id: str, winner: int, reason: str
) -> ChipMoves:
    """Record a finished game's result in its tournament, if it belongs to one, inside
    the caller's transaction (the settlement's).

    A knockout table must produce a winner: a drawn or annulled game there is recorded
    as the tournament's ``knockout_tie`` rule decides (``KnockoutTie``), so no round
    waits on it. Elsewhere, left unrecorded for the organiser to decide with
    RecordForfeit: an annulled game (``winner`` -1: 003 says an annulled match counts
    for no one, so it is neither side's win). A game the app ended (``ENDED_BY_APP``)
    is the organiser's to decide everywhere: it stopped the game to rule on the table.
    Ignored: a game of a round that is no longer the latest (the tournament moved on),
    and a table that already has a result (a forfeit recorded while it was played).
    Returns what the result moved through the prize pool (its prizes, if it finished
    the tournament), for the caller to count once its transaction commits."""
    result = await game_result(results, game_id, winner, reason)
    if result is None:
        return ChipMoves()
    return await write_game_result(results, result)


async def decided_by_forfeit(results: TournamentResults, game_id: str) -> bool:
    """Whether ``game_id`` is played at a tournament table the organiser decided with
    RecordForfeit: the forfeit is the table's result, so the game, which went on,
    counts for no one (no rating, no ranking points, its stakes back), as the
    settlement decides. Inside the caller's transaction, which locks the tournament:
    a forfeit recorded concurrently either comes first (and this sees it) or finds
    the game's result and is refused (TABLE_DECIDED)."""
    found = await results.table_of_game(game_id)
    if found is None:
        return False
    latest = latest_result(found.row.events, found.round_no, found.table_no)
    # A table settled by its round's clock is decided as a forfeit's is.
    return latest is not None and latest["source"] in (FROM_FORFEIT, FROM_CLOCK)
