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
at a game whose seat they hold (not one the app removed them from) that is not over
or not yet settled (the settlement reads the seat as it was), entered in an
unfinished tournament, or waiting in quick play. Checked inside the erasure's
transaction; a game or tournament that changes during it rolls it back whole
(ABORTED, VERSION_CONFLICT: ask again).

The same person's other accounts, merged into this one (account_merge.py), are
erased with it, each under a pseudonym of its own ("<pseudonym>.1", ...).

Erasing an id that holds nothing changes nothing (a retry of an erasure that went
through) and answers with no rows changed; it is audited too.

Who may: the app's key, any of its players; the player's own session where the
app's policy sets ``player_data_rights`` (as for ExportPlayerData).

Left as the app wrote them: a game's label, a pair's entrant id in a tournament and
the request ids of the app's calls, which are the app's or organiser's own text.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ..reasons import Reason
from .access import Access, Credentials
from .audit import AuditAction, AuditEntry
from .errors import Refusal, Refused
from .player_data import data_subject
from .player_rewrite import (
    PSEUDONYM_PREFIX,
    ChangedMeanwhile,
    PlayerRewrite,
    PlayerStillPlaying,
    Rewritten,
    wake,
)
from .ports import Notifier


def new_pseudonym() -> str:
    return PSEUDONYM_PREFIX + secrets.token_hex(8)


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
        self, app_id: str, rewrite: PlayerRewrite, entry: AuditEntry
    ) -> Rewritten:
        """In one transaction: ``PlayerStillPlaying`` if the player still plays,
        ``ChangedMeanwhile`` if a game or tournament it rewrites changed meanwhile,
        else delete and pseudonymise as the module docstring says, and write
        ``entry`` (its detail gains the rows changed); the rows changed, by table, and the
        games that gained a change."""
        ...


class PlayerErasure:
    def __init__(
        self,
        access: Access,
        erasures: ErasureRepository,
        now_ms: Callable[[], int],
        pseudonyms: Callable[[], str] = new_pseudonym,
        notifier: Notifier | None = None,
    ) -> None:
        self.access = access
        self.erasures = erasures
        self.now_ms = now_ms
        self.pseudonyms = pseudonyms
        self.notifier = notifier

    async def erase(self, credentials: Credentials, player_id: str) -> Erasure:
        """Erase ``player_id`` with the app's key, or the session's own player
        (``player_id`` empty or the same) with its session."""
        subject = await data_subject(self.access, credentials, player_id)
        rewrite = PlayerRewrite(subject.player_id, self.pseudonyms())
        entry = AuditEntry(
            AuditAction.ERASE_PLAYER,
            "app" if subject.session_id is None else "player",
            rewrite.replacement,
            {},
            self.now_ms(),
        )
        try:
            done = await self.erasures.erase_player(subject.app_id, rewrite, entry)
        except PlayerStillPlaying as still:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.PLAYER_STILL_PLAYING,
                f"the player is still playing: {still.where.describe()}",
            ) from None
        except ChangedMeanwhile as moved:
            raise Refused(
                Refusal.CONFLICT, Reason.VERSION_CONFLICT, f"{moved}; nothing was erased: retry"
            ) from None
        wake(self.notifier, done.games)
        return Erasure(rewrite.replacement, done.rows)


__all__ = [
    "Erasure",
    "ErasureRepository",
    "PlayerErasure",
    "new_pseudonym",
]
