"""Erasing a player (ErasePlayer; LGPD art. 18, IV and VI: anonymisation and
deletion of the data of a player who asks for it).

What an erasure does, in one transaction with its audit entry:

- **Deleted:** the player's identities, profile and sessions (and with the sessions
  every token they hold).
- **Pseudonymised**, wherever other players' records need the seat to stay whole:
  the seats the player held (the game snapshots, the join actions in the move log,
  the seat tokens, which are revoked), their rating and ranking points, their chip
  account with its entries (so the ledger still balances), their tournament
  entries, results and standings, their quick-play tickets and their events (and,
  inside the ids of the chip grants made to them, their id). The
  player's id and their names there become one pseudonym, "erased-" and 16 random
  hex digits, drawn for the erasure and used for all of them: the same player
  everywhere (a replay, a standing and the ledger still line up), tied to nothing
  (drawn, not derived from the id, so nobody can recompute it from the id).
- **Untouched:** every other player's data and rating, and every move: only names
  change, so every replay still plays and rebuilds each stored snapshot.
- **Audited:** an entry (``services/audit.py``) with the pseudonym, who asked (the
  app's key or the player's own session) and how many rows of each kind changed;
  never the id erased.

A player still in play is not erased (FAILED_PRECONDITION, PLAYER_STILL_PLAYING):
at an unfinished game, entered in an unfinished tournament or waiting in quick
play. The app removes them (RemoveSeat, WithdrawEntrant, CancelTicket) or the
player leaves; then the erasure goes through. Checked again inside the erasure's
transaction.

Erasing an id that holds nothing (a retry of an erasure that went through) changes
nothing and answers with no rows changed; it is audited too.

Who may: the app's key, any of its players; the player's own session where the
app's policy sets ``player_data_rights`` (as for ExportPlayerData).

Left as the app wrote them: a game's label and a pair's entrant id in a tournament,
which are the app's or organiser's own text.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..reasons import Reason
from .access import Access, Credentials
from .audit import AuditAction, AuditEntry
from .errors import Refusal, Refused
from .player_data import data_subject

PSEUDONYM_PREFIX = "erased-"

# In a JSON document, a member that names a player, and the members beside it that
# hold that player's name.
ID_MEMBERS = frozenset({"player_id", "player", "entrant"})
NAME_MEMBERS = frozenset({"name", "display_name", "player_name"})


def new_pseudonym() -> str:
    return PSEUDONYM_PREFIX + secrets.token_hex(8)


@dataclass(frozen=True)
class Pseudonymiser:
    """Rewrites what the server keeps so that ``player_id`` and the names that
    player went by read ``pseudonym``; everything else is left as it was."""

    player_id: str
    pseudonym: str

    def value(self, document: Any) -> Any:
        """A JSON document (an event's payload, a tournament's events, a chip
        operation's detail): every string and every member's name equal to the
        player's id (a map by player), and the name members of every object that
        names the player."""
        if isinstance(document, str):
            return self.pseudonym if document == self.player_id else document
        if isinstance(document, list):
            return [self.value(v) for v in document]
        if isinstance(document, dict):
            theirs = any(document.get(k) == self.player_id for k in ID_MEMBERS)
            return {
                self.value(k): self.pseudonym
                if theirs and k in NAME_MEMBERS and isinstance(v, str)
                else self.value(v)
                for k, v in document.items()
            }
        return document

    def key(self, text: str) -> str:
        """A key the app made for this player alone (a chip grant's id, which apps
        often write with the player's id in it): every occurrence of the id."""
        return text.replace(self.player_id, self.pseudonym)

    def snapshot(self, stored: dict[str, Any]) -> dict[str, Any]:
        """A game's stored state (``GameState.to_dict``): the seats the player holds,
        named and identified by the pseudonym, and the player among those removed.
        The match itself names no player and is left as it is."""
        out = dict(stored)
        ids: dict[str, str] = dict(out.get("player_ids", {}))
        seats = [list(s) for s in out.get("seats", [])]
        for i, seat in enumerate(seats):
            if ids.get(str(i)) == self.player_id:
                ids[str(i)] = self.pseudonym
                seat[0] = self.pseudonym
        out["seats"] = seats
        if ids:
            out["player_ids"] = ids
        if "removed_players" in out:
            out["removed_players"] = sorted(self.value(out["removed_players"]))
        return out

    def action(self, stored: dict[str, Any]) -> dict[str, Any]:
        """A logged action (``Action.to_dict``): a join of the player names the
        pseudonym, as its seat does."""
        if stored.get("player_id") != self.player_id:
            return stored
        out = dict(stored, player_id=self.pseudonym)
        if "name" in out:
            out["name"] = self.pseudonym
        return out


@dataclass(frozen=True)
class StillPlaying:
    """Where the player still plays: unfinished games, unfinished tournaments they
    are entered in, and whether they wait in quick play."""

    games: tuple[str, ...] = ()
    tournaments: tuple[str, ...] = ()
    queued: bool = False

    def __bool__(self) -> bool:
        return bool(self.games or self.tournaments or self.queued)

    def describe(self) -> str:
        parts = []
        if self.games:
            parts.append(f"at the unfinished games {', '.join(self.games)}")
        if self.tournaments:
            parts.append(f"in the unfinished tournaments {', '.join(self.tournaments)}")
        if self.queued:
            parts.append("waiting in quick play")
        return "; ".join(parts)


class PlayerStillPlaying(Exception):
    """Raised by ``ErasureRepository.erase_player`` when its transaction finds the
    player still in play (and then changes nothing)."""

    def __init__(self, where: StillPlaying) -> None:
        super().__init__(where.describe())
        self.where = where


class GameMovedOn(Exception):
    """Raised by ``ErasureRepository.erase_player`` when a game it changes moved on
    during the erasure (which then changes nothing): the caller may retry."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id} changed during the erasure")
        self.game_id = game_id


@dataclass(frozen=True)
class Erasure:
    """What an erasure did: the pseudonym the player's records now carry, and how
    many rows of each kind it deleted or rewrote (by the table's name)."""

    pseudonym: str
    rows: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.rows.values())


class ErasureRepository(Protocol):
    async def erase_player(
        self, app_id: str, rewrite: Pseudonymiser, entry: AuditEntry
    ) -> dict[str, int]:
        """In one transaction: ``PlayerStillPlaying`` if the player still plays,
        else delete and pseudonymise as the module docstring says, and write
        ``entry`` (its detail gains the rows changed); the rows changed, by kind."""
        ...


class PlayerErasure:
    def __init__(
        self,
        access: Access,
        erasures: ErasureRepository,
        now_ms: Callable[[], int],
        pseudonyms: Callable[[], str] = new_pseudonym,
    ) -> None:
        self.access = access
        self.erasures = erasures
        self.now_ms = now_ms
        self.pseudonyms = pseudonyms

    async def erase(self, credentials: Credentials, player_id: str) -> Erasure:
        """Erase ``player_id`` with the app's key, or the session's own player
        (``player_id`` empty or the same) with its session."""
        subject = await data_subject(self.access, credentials, player_id)
        rewrite = Pseudonymiser(subject.player_id, self.pseudonyms())
        entry = AuditEntry(
            AuditAction.ERASE_PLAYER,
            "app" if subject.session_id is None else "player",
            rewrite.pseudonym,
            {},
            self.now_ms(),
        )
        try:
            rows = await self.erasures.erase_player(subject.app_id, rewrite, entry)
        except PlayerStillPlaying as still:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.PLAYER_STILL_PLAYING,
                f"the player is still playing: {still.where.describe()}",
            ) from None
        except GameMovedOn as moved:
            raise Refused(
                Refusal.CONFLICT, Reason.VERSION_CONFLICT, f"{moved}; nothing was erased: retry"
            ) from None
        return Erasure(rewrite.pseudonym, rows)


__all__ = [
    "PSEUDONYM_PREFIX",
    "Erasure",
    "ErasureRepository",
    "GameMovedOn",
    "PlayerErasure",
    "PlayerStillPlaying",
    "Pseudonymiser",
    "StillPlaying",
    "new_pseudonym",
]
