"""A finished deal's whole table (``GameState.deal_board``): when it may be shown,
and which deal each change of the log ended.

Once a deal is over nothing of it is hidden from its players: the views show its
final table, every hand open, until the next deal's first move, and once the match
is over; a replay shows every finished deal's. One exception: a table of a
duplicate tournament round is dealt the same cards as the round's other tables, so
while one of them plays, a finished deal's hands are its hidden cards, and they
wait as GetReplay's decks wait (``duplicate_round_in_play``).
"""

from __future__ import annotations

from typing import Protocol

from ..table.game import Action, GameState, apply_action


class BoardRepository(Protocol):
    async def duplicate_round_in_play(self, game_id: str) -> bool:
        """Whether the game is a table of a duplicate round some of whose games
        are not finished."""
        ...


async def board_hidden(repo: BoardRepository, game_id: str, state: GameState) -> bool:
    """Whether ``state``'s final table is withheld from its views now. Only a game
    dealt from a fixed deck can be a duplicate round's table, so no other game's
    view costs a read."""
    if state.setup.deck is None or state.deal_board() is None:
        return False
    return await repo.duplicate_round_in_play(game_id)


def last_deal_number(state: GameState) -> int:
    """The number of the last deal that ended in ``state``; 0 before any did."""
    last = state.last_deal
    return 0 if last is None else int(last["deal_number"])


def fold(state: GameState, action: Action, version: int) -> int:
    """Apply a logged ``action`` to ``state`` (folding the log forward) and return
    the number of the deal it ended, 0 if it ended none. (The change that ends a
    deal deals the next one, so the state's deal number after it is the next
    deal's.)"""
    before = last_deal_number(state)
    apply_action(state, action, version)
    after = last_deal_number(state)
    return after if after != before else 0
