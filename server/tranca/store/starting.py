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

from sqlalchemy.ext.asyncio import AsyncConnection

from ..api import metrics  # a leaf module: the store uses nothing else of the API layer
from ..app.game import Action, GameError, GameState
from ..platform import chips
from . import ledger
from .repository import Committed, Store

INSUFFICIENT_CHIPS = "INSUFFICIENT_CHIPS"


def _cannot_cover(player_id: str, stake: int) -> GameError:
    # Ids only in the message: never another player's balance.
    return GameError(
        INSUFFICIENT_CHIPS, f"player {player_id} cannot cover the stake of {stake} chips"
    )


async def start_match(store: Store, game_id: str) -> Committed:
    """Deal the first deal of ``game_id`` (every seat taken); at a competitive table
    with a stake, take every seat's stake into the match's pot with it."""
    game = await store.game(game_id)
    table = game.state.setup.table
    if not (table.competitive and table.stake > 0):
        return await store.commit_action(game_id, Action("start"), expected_version=None)

    async def take_stakes(conn: AsyncConnection, app_id: str, started: GameState) -> None:
        seats = [s.player_id for s in started.seats]
        if not all(seats):  # JoinGame refuses a competitive seat without a player id
            raise GameError("PLAYER_ID_REQUIRED", "a staked table needs every seat's player_id")
        try:
            await ledger.stake(conn, app_id, game_id, seats, table.stake)
        except chips.InsufficientChips as exc:
            raise _cannot_cover(exc.player, exc.needed) from None

    done = await store.commit_action_with(game_id, Action("start"), take_stakes)
    metrics.CHIPS_STAKED.inc(table.stake * len(done.state.seats))
    return done


async def check_can_cover(store: Store, app_id: str, player_id: str, stake: int) -> None:
    """At JoinGame: refuse a seat at a staked table to a player who cannot cover the
    stake now (003: "necesitarás disponer de suficientes fichas para cubrir la
    apuesta"). The start checks again, in its transaction: chips may move meanwhile."""
    if stake <= 0:
        return
    async with store.reading() as conn:
        chips_now = await ledger.balance(conn, app_id, chips.player_account(player_id))
    if chips_now < stake:
        raise _cannot_cover(player_id, stake)
