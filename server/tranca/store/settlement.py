"""Settling finished matches in the database: the reads and writes of
``services/settlement.py`` (``SettlementStore`` is its ``SettlementRepository``),
which decides what each match counts for. What this module keeps is the exactly-once
part: each game's settlement is one transaction of its own.

``settle_game`` claims the game's row (PostgreSQL: ``FOR UPDATE SKIP LOCKED``, so
replicas sweeping at the same time settle different games; SQLite: the process's
one writer and the file's write lock), runs the use case's decision on it
(``GameSettlement``: its ratings, ranking points, chips through ``ledger.py`` and
tournament result through ``tournament_store.TournamentTransaction``, all on the
claim's connection), and sets ``settled`` with ``WHERE settled = false``, all in that
transaction: a second settlement of the same game finds nothing to claim, and a
failed one (the decision raised, the database went away) writes nothing and is
tried again at the next sweep. ``settle_plain`` settles practice games outside
tournaments (nothing to write but the flag) together, in one statement of the same
kind.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime

from sqlalchemy import false, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform import PlayerId, chips, ranking, ratings
from ..platform.abandonment import SeatChange
from ..services.abandonment import AbandonmentRecord
from ..services.policy import AppPolicy
from ..services.settlement import PendingGame, RatedPlayer, Settled, SettlementWork
from ..table.action_kinds import AFTER_THE_END
from ..table.game import FINISHED, GameState, Setup
from . import abandonment_store, ledger
from .codec import action_from_text, setup_from_text, state_from_text
from .database import insert_ignoring_duplicates
from .models import Game, MoveLog, PlayerRating, PlayerToken, RankingAward, TournamentGame
from .move_path import utc_datetime
from .progression_store import ProgressionTransaction
from .repository import Store
from .tournament_store import TournamentTransaction

# The end is found among the last rows of the log, which after it hold only a few
# changes that are not the match's (AFTER_THE_END: one a seat each).
_AFTER_END_ROWS = 64

__all__ = ["GameSettlement", "SettlementStore"]


def _setup_played(setup_text: str, snapshot: str | bytes) -> Setup:
    """The setup a finished game was played by: its column's, as created, unless its
    table head changed the options before the start (rated play among them), which
    only the snapshot holds (decoded only then)."""
    text = snapshot if isinstance(snapshot, str) else snapshot.decode()
    if '"table_change"' not in text:
        return setup_from_text(setup_text)
    return state_from_text(text, setup_text).setup


class SettlementStore:
    """Settlements on one database (``services.settlement.SettlementRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def pending(self, limit: int) -> list[PendingGame]:
        """Up to ``limit`` finished, unsettled games, those that finished first first."""
        async with self.store.reading() as conn:
            rows = (
                await conn.execute(
                    select(
                        Game.id,
                        Game.setup,
                        Game.snapshot,
                        TournamentGame.game_id.label("tournament_game"),
                    )
                    .outerjoin(TournamentGame, TournamentGame.game_id == Game.id)
                    .where(Game.status == FINISHED, Game.settled == false())
                    .order_by(Game.updated_at)
                    .limit(limit)
                )
            ).all()
        return [
            PendingGame(
                str(r.id), _setup_played(r.setup, r.snapshot), r.tournament_game is not None
            )
            for r in rows
        ]

    async def settle_plain(self, game_ids: Sequence[str]) -> list[str]:
        """Set the flag of those of ``game_ids`` still finished and unsettled
        (``settled = false``), in one statement, and write nothing else: a game
        another replica settled since it was read is not settled again. The ids this
        call settled."""
        async with self.store.writing() as conn:
            return await self.store.sql.mark_settled(conn, game_ids)

    async def settle_game(
        self, game_id: str, settle: Callable[[SettlementWork], Awaitable[Settled]]
    ) -> Settled | None:
        """Claim one finished, unsettled game, ``settle`` it and mark it settled, in
        one transaction; None if it is not finished, is settled already, or another
        replica is settling it right now."""
        async with self.store.writing() as conn:
            claim = select(Game.app_id, Game.snapshot, Game.setup).where(
                Game.id == game_id, Game.status == FINISHED, Game.settled == false()
            )
            if self.store.is_postgres:
                claim = claim.with_for_update(skip_locked=True)
            row = (await conn.execute(claim)).first()
            if row is None:
                return None
            state = state_from_text(row.snapshot, row.setup)
            done = await settle(GameSettlement(conn, game_id, str(row.app_id), state))
            if await self.store.sql.mark_settled(conn, [game_id]) != [game_id]:  # pragma: no cover
                raise RuntimeError(f"game {game_id} was settled meanwhile")  # claimed above
        return done


class GameSettlement(TournamentTransaction):
    """One claimed game's reads and writes on the claim's connection
    (``services.settlement.SettlementWork``)."""

    def __init__(self, conn: AsyncConnection, game_id: str, app_id: str, state: GameState) -> None:
        super().__init__(conn)
        self._game_id = game_id
        self._app_id = app_id
        self._state = state
        self._progression = ProgressionTransaction(conn, app_id, game_id, state)

    @property
    def game_id(self) -> str:
        return self._game_id

    @property
    def app_id(self) -> str:
        return self._app_id

    @property
    def state(self) -> GameState:
        return self._state

    async def ended_at(self) -> datetime:
        """When the match ended: the time of its last logged action that belongs to
        the match. A rematch's confirmations, an erasure and a merge are logged after
        the end, before the settlement may run: they do not move it (an absence
        measured to a later end would be an abandonment it was not)."""
        rows = (
            await self.conn.execute(
                select(MoveLog.created_at, MoveLog.action)
                .where(MoveLog.game_id == self._game_id)
                .order_by(MoveLog.version.desc())
                .limit(_AFTER_END_ROWS)
            )
        ).all()
        for row in rows:
            if action_from_text(row.action).kind not in AFTER_THE_END:
                return utc_datetime(row.created_at)
        return datetime.now(UTC)  # pragma: no cover - a finished game has a log

    async def lock_ratings(self, players: Sequence[PlayerId]) -> dict[PlayerId, RatedPlayer]:
        conn, app_id = self.conn, self._app_id
        ids = sorted(players)
        # Every player's row exists first, so that the rows can be locked (PostgreSQL):
        # two settlements that share a player rate one after the other, in id order.
        await conn.execute(
            insert_ignoring_duplicates(conn, PlayerRating),
            [
                {
                    "app_id": app_id,
                    "player_id": p,
                    "mu": ratings.DEFAULT_MU,
                    "sigma": ratings.DEFAULT_SIGMA,
                    "games": 0,
                    "wins": 0,
                }
                for p in ids
            ],
        )
        rows = (
            await conn.execute(
                select(PlayerRating)
                .where(PlayerRating.app_id == app_id, PlayerRating.player_id.in_(ids))
                .order_by(PlayerRating.player_id)
                .with_for_update()
            )
        ).all()
        return {
            r.player_id: RatedPlayer(
                ratings.Rating(float(r.mu), float(r.sigma), int(r.games)), int(r.wins)
            )
            for r in rows
        }

    async def write_ratings(self, rated: Mapping[PlayerId, RatedPlayer], at: datetime) -> None:
        for p in sorted(rated):
            new = rated[p]
            await self.conn.execute(
                update(PlayerRating)
                .where(PlayerRating.app_id == self._app_id, PlayerRating.player_id == p)
                .values(
                    mu=new.rating.mu,
                    sigma=new.rating.sigma,
                    games=new.rating.games,
                    wins=new.wins,
                    updated_at=at,
                )
            )

    async def seat_addresses(self) -> dict[int, str]:
        """Each seat's network address: the one its player joined from (the seat's
        first token that is still valid; a seat left before the start has its token
        revoked)."""
        rows = (
            await self.conn.execute(
                select(PlayerToken.seat, PlayerToken.address)
                .where(
                    PlayerToken.game_id == self._game_id,
                    PlayerToken.seat >= 0,
                    PlayerToken.revoked.is_(False),
                )
                .order_by(PlayerToken.created_at)
            )
        ).all()
        out: dict[int, str] = {}
        for r in rows:
            out.setdefault(int(r.seat), str(r.address or ""))
        return out

    async def add_awards(self, awards: Sequence[ranking.Award]) -> None:
        await self.conn.execute(
            insert(RankingAward),
            [
                {
                    "app_id": self._app_id,
                    "game_id": self._game_id,
                    "player_id": a.player,
                    "points": a.points,
                    "won": a.won,
                    "awarded_at": a.at,
                }
                for a in awards
            ],
        )

    async def lock_chip_accounts(self, accounts: Sequence[chips.Account]) -> None:
        await ledger.lock_accounts(self.conn, self._app_id, accounts)

    async def refund_stakes(
        self, kept: frozenset[PlayerId] = frozenset()
    ) -> tuple[chips.Entry, ...]:
        return await ledger.refund(self.conn, self._app_id, self._game_id, sorted(kept))

    # Abandonment (services/abandonment.py; the statements are abandonment_store's).

    async def app_policy(self) -> AppPolicy:
        return await abandonment_store.app_policy(self.conn, self._app_id)

    async def seat_changes(self) -> list[SeatChange]:
        return await abandonment_store.seat_changes(self.conn, self._game_id)

    async def record_abandonments(self, records: Sequence[AbandonmentRecord]) -> None:
        await abandonment_store.record_abandonments(self.conn, self._app_id, records)

    async def pay_pot(self, winners: Sequence[PlayerId]) -> tuple[chips.Entry, ...]:
        return await ledger.settle(self.conn, self._app_id, self._game_id, winners)

    def progression(self) -> ProgressionTransaction:
        return self._progression
