"""The tournaments' use cases' common ground: a tournament loaded and shown, the latest
shown kept, and a change applied as a compare-and-swap on its version, retried when
another change won (``TournamentCore._change``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import replace

from ... import metrics
from ...platform.chips import InsufficientChips
from ...platform.tournament_events import (
    Event,
)
from ...platform.tournaments import (
    Standing,
    Tournament,
)
from ...table.action_kinds import ActionKind
from ...table.game import (
    WAITING,
    Action,
    GameError,
)
from ..access import Access
from ..compute import Compute
from ..errors import malformed
from ..limits import DEFAULT_TOKEN_LIFETIME
from ..matches import Matches
from ..moves import now_ms
from ..ports import AppRecord
from ..robots import EXPERT
from .dtos import TournamentShown
from .errors import busy, cannot_pay, not_found
from .ports import GamesByTable, TournamentRepository, TournamentRow
from .prize_money import count_chips, shown_money
from .projection import deck_shown, rebuilt, standings_of, written

# Tournaments whose latest read this process keeps (``Tournaments.get``): at most
# a few megabytes each (a thousand entrants' events and rounds).
SHOWN_KEPT = 32
# How often a change re-reads and retries after losing the compare-and-swap to
# another change of the same tournament before giving up (each retry sees the
# winner's change, so this is reached only under a storm of concurrent changes).
CAS_ATTEMPTS = 8


class TournamentCore:
    """What every tournament use case stands on: its repository, the app's access, the
    games (``Matches``), loading and showing a tournament, and a change applied as a
    compare-and-swap (``_change``)."""

    def __init__(
        self,
        repo: TournamentRepository,
        access: Access,
        matches: Matches,
        token_lifetime_seconds: int = DEFAULT_TOKEN_LIFETIME,
        compute: Compute | None = None,
        clock: Callable[[], int] = now_ms,
        robot_max_level: str = EXPERT,
    ) -> None:
        self.repo = repo
        self.access = access
        self.matches = matches
        # The most expensive robot level a table may ask for (the operator's).
        self.robot_max_level = robot_max_level
        self.compute = compute or Compute()
        # Epoch ms; a test may run it ahead to find a round's clock run out.
        self.clock = clock
        self.token_lifetime_ms = token_lifetime_seconds * 1000
        # The latest tournaments this process showed (``get``), by id.
        self._kept: OrderedDict[str, TournamentShown] = OrderedDict()

    # ----- reading -----------------------------------------------------------------

    async def _load(self, app: AppRecord | str, tournament_id: str) -> TournamentRow:
        """The app's tournament (``app``: the app or its id); other apps' tournaments
        are invisible (NOT_FOUND)."""
        if not tournament_id:
            raise malformed("tournament_id is required")
        app_id = app if isinstance(app, str) else app.id
        row = await self.repo.load_tournament(tournament_id, app_id)
        if row is None:
            raise not_found()
        return row

    async def _shown(
        self, row: TournamentRow, t: Tournament, standings: Sequence[Standing] | None = None
    ) -> TournamentShown:
        """The tournament as shown: its standings as stored (``standings``: those a
        change just computed), computed here only for a row stored before they were
        kept."""
        if standings is None:
            standings = row.standings if row.standings is not None else await standings_of(t)
        games = await self.repo.table_games(row.id)
        shown = await self._decks_shown(row, t, games)
        pool, prizes = shown_money(row, t, standings)
        return TournamentShown(row, t, games, standings, shown, pool, prizes)

    async def _decks_shown(
        self, row: TournamentRow, t: Tournament, games: GamesByTable
    ) -> frozenset[int]:
        """A duplicate tournament's rounds whose deck may be shown (``deck_shown``)."""
        if not row.config.duplicate:
            return frozenset()
        statuses = await self.repo.game_statuses(list(games.values()))
        return frozenset(r.number for r in t.rounds if deck_shown(t, r.number, games, statuses))

    async def refresh_running_gauge(self) -> None:
        """tranca_tournaments_running from the database (every replica sets the same)."""
        metrics.TOURNAMENTS_RUNNING.set(await self.repo.count_running())

    def _keep(self, shown: TournamentShown) -> None:
        """Keep ``shown`` as its tournament's latest (unless a newer one is kept)."""
        key = shown.row.id
        kept = self._kept.get(key)
        if kept is not None and kept.row.version > shown.row.version:
            return
        self._kept[key] = shown
        self._kept.move_to_end(key)
        while len(self._kept) > SHOWN_KEPT:
            self._kept.popitem(last=False)

    # ----- changing ----------------------------------------------------------------

    async def _change(
        self,
        app: AppRecord | str,
        tournament_id: str,
        change: Callable[[TournamentRow, Tournament], list[Event]],
    ) -> TournamentShown:
        """Apply ``change`` (the events to append, after checks that raise) to the
        tournament as it is now, retrying on a lost compare-and-swap."""
        for _ in range(CAS_ATTEMPTS):
            row = await self._load(app, tournament_id)
            t = await rebuilt(row)
            new = change(row, t)
            if not new:
                return await self._shown(row, t)
            done = await written(row, row.config, t, new)
            try:
                swapped = await self.repo.append_events(row, new, done)
            except InsufficientChips as exc:
                raise cannot_pay(exc) from None
            if swapped:
                count_chips(done.chips)
                await self.refresh_running_gauge()
                after = replace(
                    row,
                    version=row.version + 1,
                    events=[*row.events, *new],
                    standings=list(done.standings),
                    status=done.status,
                )
                return await self._shown(after, t, done.standings)
        raise busy()

    async def _close_unstarted(self, game_id: str | None) -> bool:
        """Close a decided table's game that never started (a ``no_show``): a table is
        over once it has a result and its game is finished, and a game left waiting
        would hold a duplicate round's deck back for ever, or could still be started
        (and dealt the round's cards) after they were shown. True if it closed it."""
        if game_id is None:
            return False
        statuses = await self.repo.game_statuses([game_id])
        if statuses.get(game_id) != WAITING:
            return False
        try:
            await self.matches.moves.apply(game_id, Action(ActionKind.NO_SHOW))
        except GameError:
            return False  # started (or closed) meanwhile: its own end releases the round
        return True
