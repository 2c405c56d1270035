"""Starting a match: the start action, and at a staked competitive table every seat's
stake, in one transaction.

003: "Si en una mesa se están apostando fichas de juego, necesitarás disponer de
suficientes fichas para cubrir la apuesta". The stakes are taken when the match
starts (not when a player sits down), so a player who leaves before the start has
staked nothing; a seat that cannot cover the stake keeps the match from starting
(FAILED_PRECONDITION, reason INSUFFICIENT_CHIPS) and nothing is written: neither the
start nor any other seat's stake.
"""

from __future__ import annotations

from typing import Protocol

from .. import metrics
from ..platform import chips
from ..reasons import Reason
from ..table.game import GameError, GameState
from .moves import Moves
from .ports import Committed, Stake
from .table_builder import DEAL


class ChipBalances(Protocol):
    async def chip_balance(self, app_id: str, player_id: str) -> int:
        """A player's chips now (0 for a player the app never granted any)."""
        ...


def _cannot_cover(player_id: str, stake: int) -> GameError:
    # Ids only in the message: never another player's balance.
    return GameError(
        Reason.INSUFFICIENT_CHIPS, f"player {player_id} cannot cover the stake of {stake} chips"
    )


class Matches:
    def __init__(self, moves: Moves, balances: ChipBalances) -> None:
        self.moves = moves
        self.balances = balances

    async def start(self, game_id: str) -> Committed:
        """Deal the first deal of ``game_id`` (every seat taken); at a competitive table
        with a stake, take every seat's stake into the match's pot with it."""
        game = await self.moves.repo.game(game_id)

        def stakes(started: GameState) -> Stake | None:
            # The stake of the game as it starts, read again on a lost race: the table
            # head may have changed it (every seat then agreed to it: ``unconsented``).
            now = started.setup.table
            if not (now.competitive and now.stake > 0):
                return None
            seats = tuple(s.player_id for s in started.seats)
            if not all(seats):  # JoinGame refuses a competitive seat without a player id
                raise GameError(
                    Reason.PLAYER_ID_REQUIRED, "a staked table needs every seat's player_id"
                )
            return Stake(game.app_id, seats, now.stake)

        try:
            done = await self.moves.apply(game_id, DEAL, stake=stakes)
        except chips.InsufficientChips as exc:
            raise _cannot_cover(exc.player, exc.needed) from None
        started = done.state.setup.table
        if started.competitive:
            metrics.CHIPS_STAKED.inc(started.stake * len(done.state.seats))
        return done

    async def check_can_cover(self, app_id: str, player_id: str, stake: int) -> None:
        """At JoinGame: refuse a seat at a staked table to a player who cannot cover the
        stake now (003: "necesitarás disponer de suficientes fichas para cubrir la
        apuesta"). The start checks again, in its transaction: chips may move meanwhile."""
        if stake <= 0:
            return
        if await self.balances.chip_balance(app_id, player_id) < stake:
            raise _cannot_cover(player_id, stake)
