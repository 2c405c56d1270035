"""What a tournament change moves through its prize pool (entry fees in and back,
the pool paid out or refunded), and the pool and prizes as shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ... import metrics
from ...platform.entry_fees import (
    ChipMoves,
    fees_held,
    field_of,
    moves_of,
    pool_and_prizes,
)
from ...platform.tournament_events import (
    CANCELLED,
    Event,
    TournamentConfig,
    status_of,
)
from ...platform.tournament_events import (
    FINISHED as FINISHED_STATUS,
)
from ...platform.tournaments import (
    Standing,
    Tournament,
)
from .ports import TournamentRow


def count_chips(moves: ChipMoves) -> None:
    """tranca_chips_moved_total for a tournament change's prize pool movements, once
    its transaction committed."""
    for purpose, amount in (
        ("entry_fee", sum(moves.pay_ins.values())),
        ("entry_refund", sum(moves.refunds.values())),
        ("house_share", moves.house),
        ("prize", sum(moves.prizes.values())),
    ):
        if amount:
            metrics.CHIPS_MOVED.labels(purpose).inc(amount)


def money_moved(
    row: TournamentRow | str,
    config: TournamentConfig,
    t: Tournament,
    new: Sequence[Event],
    status: str,
    standings: Sequence[Standing],
) -> ChipMoves:
    """What a change moves through the prize pool: the fees of entrants who entered
    (at creation too: ``row`` is then the new tournament's id) or left the field
    before the start, and the pool paid out or refunded by the change that finishes
    or cancels the tournament (its stored status moves from running or registered:
    a correction after the finish pays nothing again)."""
    rules = config.prizes
    if not rules.entry_fee:
        return ChipMoves()
    if isinstance(row, str):
        # A new tournament: its entrants given at creation pay as it is stored.
        old: Sequence[Event] = []
        before: Counter[str] = Counter()
    elif row.status in (FINISHED_STATUS, CANCELLED):
        return ChipMoves()
    else:
        old = row.events
        before = fees_held(rules, field_of(config.entrants, old))
    after = fees_held(rules, field_of(config.entrants, [*old, *new]))
    return moves_of(
        rules,
        before,
        after,
        cancelling=status == CANCELLED,
        finishing=status == FINISHED_STATUS,
        standings=standings,
        entrants=t.entrants,
    )


def shown_money(
    row: TournamentRow, t: Tournament, standings: Sequence[Standing]
) -> tuple[int, dict[str, int]]:
    """The prize pool now and, once finished, each entrant's prize (``entry_fees.
    pool_and_prizes``), for ``t`` as ``row`` holds it."""
    status = status_of(t)
    return pool_and_prizes(
        row.config.prizes,
        row.config.entrants,
        row.events,
        standings,
        finished=status == FINISHED_STATUS,
        cancelled=status == CANCELLED,
    )
