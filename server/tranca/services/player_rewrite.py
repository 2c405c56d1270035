"""One player's id, and where wanted the names they went by, replaced wherever the
server keeps them: an erasure (``player_erasure.py``: id and names become a drawn
pseudonym) and a merge of two accounts (``account_merge.py``: the merged account's
id becomes the kept account's; the names seats were taken with stay). Pure: it
rewrites the stored documents (JSON as loaded) and the keys; the store applies it
to its rows, the fakes to theirs. With it, what both actions refuse: a player still
in play, a record that changed meanwhile, and ids that are an erasure's pseudonyms.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import malformed
from .ports import Notifier

# An erasure's pseudonyms start so; no app may give a player such an id (it would
# take the erased player's records over): ``refuse_pseudonym``.
PSEUDONYM_PREFIX = "erased-"

# In a JSON document, the members that name a player end with one of these (a
# "player_id", an inviter's "from_player_id"), and the members beside them with the
# same beginning hold that player's name ("name", "from_display_name").
ID_SUFFIXES = ("player_id", "player", "entrant")
NAME_SUFFIXES = ("name", "display_name", "player_name")
# A stored key or reference is at most this long (chip entries' references).
MAX_KEY = 128


def refuse_pseudonym(player_id: str, field: str = "player_id") -> None:
    """``Refused`` (MALFORMED_REQUEST) for an id an app may not give a player."""
    if player_id.startswith(PSEUDONYM_PREFIX):
        raise malformed(f"{field}: ids starting {PSEUDONYM_PREFIX!r} are erased players'")


@dataclass(frozen=True)
class StillPlaying:
    """Where a player still plays: unfinished (or not yet settled) games whose seat
    they hold, unfinished tournaments they are entered in, and whether they wait in
    quick play."""

    games: tuple[str, ...] = ()
    tournaments: tuple[str, ...] = ()
    queued: bool = False

    def __bool__(self) -> bool:
        return bool(self.games or self.tournaments or self.queued)

    def describe(self) -> str:
        parts = []
        if self.games:
            parts.append(f"at the games {', '.join(self.games)}, not yet over and settled")
        if self.tournaments:
            parts.append(f"in the unfinished tournaments {', '.join(self.tournaments)}")
        if self.queued:
            parts.append("waiting in quick play")
        return "; ".join(parts)


class PlayerStillPlaying(Exception):
    """Raised by an erasure's or a merge's repository when its transaction finds the
    player still in play (and then changes nothing)."""

    def __init__(self, where: StillPlaying) -> None:
        super().__init__(where.describe())
        self.where = where


@dataclass(frozen=True)
class Rewritten:
    """What an erasure or a merge changed: rows by table, and the games that gained
    a change (their watchers are woken)."""

    rows: dict[str, int]
    games: tuple[str, ...] = ()


def wake(notifier: Notifier | None, games: Sequence[str]) -> None:
    """This process's watchers of ``games`` read them again: each gained a change
    outside the move path. (The write's own hint reaches the other replicas, as a
    move's does; through the change feed, this publish does.)"""
    if notifier is not None:
        for game_id in games:
            notifier.publish(game_id, None)


class ChangedMeanwhile(Exception):
    """Raised by an erasure's or a merge's repository when a game or tournament it
    rewrites changed during it (which then changes nothing): the caller may retry."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} changed meanwhile")
        self.what = what


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
        player's id (a map by player), and, with ``names``, the name members beside
        each member that names the player (``ID_SUFFIXES``, ``NAME_SUFFIXES``)."""
        if isinstance(document, str):
            return self.replacement if document == self.player_id else document
        if isinstance(document, list):
            return [self.value(v) for v in document]
        if isinstance(document, dict):
            names = self._name_members(document) if self.names else frozenset()
            return {
                self.value(k): self.replacement
                if k in names and isinstance(v, str)
                else self.value(v)
                for k, v in document.items()
            }
        return document

    def _name_members(self, document: dict[str, Any]) -> frozenset[str]:
        """The members of ``document`` that hold the player's name."""
        starts = {
            key[: -len(suffix)]
            for key, value in document.items()
            if value == self.player_id
            for suffix in ID_SUFFIXES
            if isinstance(key, str) and key.endswith(suffix)
        }
        return frozenset(start + suffix for start in starts for suffix in NAME_SUFFIXES)

    def key(self, text: str) -> str:
        """A key or reference the app made with the player's id in it (a chip grant's
        id, "g-ana-500"): the id where it stands as a whole word, between characters
        that are not letters or digits. Past ``MAX_KEY`` characters, the replacement
        and a digest of the key (unique as the key was)."""
        renamed = self._word.sub(self.replacement, text)
        if renamed != text and len(renamed) > MAX_KEY:
            return f"{self.replacement}:{hashlib.sha256(text.encode()).hexdigest()[:32]}"
        return renamed

    @property
    def _word(self) -> re.Pattern[str]:
        return re.compile(rf"(?<![0-9A-Za-z]){re.escape(self.player_id)}(?![0-9A-Za-z])")

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


__all__ = [
    "ID_SUFFIXES",
    "MAX_KEY",
    "NAME_SUFFIXES",
    "PSEUDONYM_PREFIX",
    "ChangedMeanwhile",
    "PlayerRewrite",
    "PlayerStillPlaying",
    "Rewritten",
    "StillPlaying",
    "refuse_pseudonym",
    "wake",
]
