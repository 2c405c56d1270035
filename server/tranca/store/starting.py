"""Starting a match: the start action, and at a staked competitive table every seat's
stake, in one transaction."""

from __future__ import annotations

from ..app.game import Action
from .repository import Committed, Store


async def start_match(store: Store, game_id: str) -> Committed:
    """Deal the first deal of ``game_id`` (every seat taken)."""
    return await store.commit_action(game_id, Action("start"), expected_version=None)
