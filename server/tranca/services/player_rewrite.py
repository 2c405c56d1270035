"""One player's id, and where wanted the names they went by, replaced wherever the
server keeps them: an erasure (``player_erasure.py``: id and names become a drawn
pseudonym) and a merge of two accounts (``account_merge.py``: the merged account's
id becomes the kept account's; the names seats were taken with stay). Pure: it
rewrites the stored documents (JSON as loaded) and the keys; the store applies it
to its rows, the fakes to theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# In a JSON document, a member that names a player, and the members beside it that
# hold that player's name.
ID_MEMBERS = frozenset({"player_id", "player", "entrant"})
NAME_MEMBERS = frozenset({"name", "display_name", "player_name"})


@dataclass(frozen=True)
class PlayerRewrite:
    """Rewrites what the server keeps so that ``player_id`` reads ``replacement``,
    and, with ``names``, so do the names that player went by; everything else is
    left as it was."""

    player_id: str
    replacement: str
    names: bool = True

    def value(self, document: Any) -> Any:
        """A JSON document (an event's payload, a tournament's events, a chip
        operation's detail): every string and every member's name equal to the
        player's id (a map by player), and, with ``names``, the name members of
        every object that names the player."""
        if isinstance(document, str):
            return self.replacement if document == self.player_id else document
        if isinstance(document, list):
            return [self.value(v) for v in document]
        if isinstance(document, dict):
            theirs = self.names and any(document.get(k) == self.player_id for k in ID_MEMBERS)
            return {
                self.value(k): self.replacement
                if theirs and k in NAME_MEMBERS and isinstance(v, str)
                else self.value(v)
                for k, v in document.items()
            }
        return document

    def key(self, text: str) -> str:
        """A key the app made for this player alone (a chip grant's id, which apps
        often write with the player's id in it): every occurrence of the id."""
        return text.replace(self.player_id, self.replacement)

    def snapshot(self, stored: dict[str, Any]) -> dict[str, Any]:
        """A game's stored state (``GameState.to_dict``): the seat the player holds
        (its id, and with ``names`` its name), and the player among those removed.
        The match itself names no player and is left as it is."""
        out = dict(stored)
        ids: dict[str, str] = dict(out.get("player_ids", {}))
        seats = [list(s) for s in out.get("seats", [])]
        for i, seat in enumerate(seats):
            if ids.get(str(i)) == self.player_id:
                ids[str(i)] = self.replacement
                if self.names:
                    seat[0] = self.replacement
        out["seats"] = seats
        if ids:
            out["player_ids"] = ids
        if "removed_players" in out:
            out["removed_players"] = sorted(self.value(out["removed_players"]))
        return out

    def action(self, stored: dict[str, Any]) -> dict[str, Any]:
        """A logged action (``Action.to_dict``): a join of the player names the
        replacement (and, with ``names``, is named by it), as its seat does."""
        if stored.get("player_id") != self.player_id:
            return stored
        out = dict(stored, player_id=self.replacement)
        if self.names and "name" in out:
            out["name"] = self.replacement
        return out


__all__ = ["ID_MEMBERS", "NAME_MEMBERS", "PlayerRewrite"]
