"""Merging two accounts of one person (AdminService.MergePlayers): an administrator's
explicit action, never a side effect of signing in (an identity linked elsewhere is
refused, IDENTITY_ALREADY_LINKED). The merged account's player is folded into the
kept one, in one transaction with its audit entry:

- **identities** move to the kept player: each signs in as the kept player from then on;
- **sessions** of the merged player end (every token with them);
- **profile**: the kept player's stays; where the kept player has none, the merged
  player's becomes theirs;
- **seats** (the games' snapshots, logged joins, seat tokens; a ``merge`` change in
  each game whose seat the merged player holds), **ranking points**, **tournament
  entries and standings**, **quick-play tickets** and **events** name the kept
  player; the names seats were taken with stay (as after a rename);
- **chips**: the merged player's balance moves to the kept player by one ledger
  transfer (purpose "merge"), so every sum still balances and each account's history
  stays whole;
- **rating**: one estimate of one player's skill: the better informed of the two
  (more games rated) is kept, with both players' games and wins added up. The other
  is the estimate of fewer games; averaging two estimates of one person would be
  neither.

Refused when either player still plays (PLAYER_STILL_PLAYING), and when the two sat
at one table or entered one tournament (ACCOUNTS_SHARED_A_TABLE): merged, one player
would hold two seats of it, which no game allows (and which may be one person
playing against themselves: an administrator should look, not merge). Merging an id
that holds nothing changes nothing (a retry of a merge that went through); audited
too. The app's key only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..reasons import Reason
from .access import Access, Credentials, require_app
from .audit import AuditAction, AuditEntry
from .errors import Refusal, Refused, malformed
from .player_rewrite import (
    ChangedMeanwhile,
    PlayerRewrite,
    PlayerStillPlaying,
    Rewritten,
    refuse_pseudonym,
    wake,
)
from .ports import Notifier

MAX_PLAYER_ID = 128


class AccountsSharedATable(Exception):
    """Raised by ``MergeRepository.merge_players`` when the two players sat at one
    table or entered one tournament (and then nothing changes)."""

    def __init__(self, games: tuple[str, ...], tournaments: tuple[str, ...]) -> None:
        where = [f"the games {', '.join(games)}"] if games else []
        where += [f"the tournaments {', '.join(tournaments)}"] if tournaments else []
        super().__init__("; ".join(where))
        self.games = games
        self.tournaments = tournaments


@dataclass(frozen=True)
class Merge:
    """What a merge did: how many rows of each kind it changed (by table)."""

    merged: str
    kept: str
    rows: dict[str, int]


@dataclass(frozen=True)
class RatingRecord:
    """A player's rating as kept: the estimate and the games and wins it is of."""

    mu: float
    sigma: float
    games: int
    wins: int


def merged_rating(merged: RatingRecord, kept: RatingRecord) -> RatingRecord:
    """One rating of one person (the module docstring): the estimate of more games
    rated (the kept player's on a tie), with both accounts' games and wins added."""
    best = merged if merged.games > kept.games else kept
    return RatingRecord(best.mu, best.sigma, merged.games + kept.games, merged.wins + kept.wins)


class MergeRepository(Protocol):
    async def merge_players(
        self, app_id: str, rewrite: PlayerRewrite, entry: AuditEntry
    ) -> Rewritten:
        """In one transaction: ``PlayerStillPlaying`` if either player still plays,
        ``AccountsSharedATable`` if they shared a table or a tournament,
        ``ChangedMeanwhile`` if a game changed meanwhile; else fold ``rewrite.player_id``
        into ``rewrite.replacement`` as the module docstring says and write
        ``entry`` (its detail gains the rows changed); the rows changed, by table, and the
        games that gained a change."""
        ...


class AccountMerge:
    def __init__(
        self,
        access: Access,
        merges: MergeRepository,
        now_ms: Callable[[], int],
        notifier: Notifier | None = None,
    ) -> None:
        self.access = access
        self.merges = merges
        self.now_ms = now_ms
        self.notifier = notifier

    async def merge(self, credentials: Credentials, merged: str, kept: str) -> Merge:
        app = require_app(await self.access.identify(credentials))
        merged, kept = merged.strip(), kept.strip()
        for name, value in (("merged_player_id", merged), ("kept_player_id", kept)):
            if not value or len(value) > MAX_PLAYER_ID:
                raise malformed(f"{name} is 1 to {MAX_PLAYER_ID} characters")
        if merged == kept:
            raise malformed("an account is merged into another: the two ids differ")
        refuse_pseudonym(merged, "merged_player_id")
        refuse_pseudonym(kept, "kept_player_id")
        entry = AuditEntry(
            AuditAction.MERGE_PLAYERS, "app", kept, {"merged": merged}, self.now_ms()
        )
        try:
            done = await self.merges.merge_players(
                app.id, PlayerRewrite(merged, kept, names=False), entry
            )
        except PlayerStillPlaying as still:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.PLAYER_STILL_PLAYING,
                f"a player to merge is still playing: {still.where.describe()}",
            ) from None
        except AccountsSharedATable as shared:
            raise Refused(
                Refusal.PRECONDITION,
                Reason.ACCOUNTS_SHARED_A_TABLE,
                f"the two players played together, in {shared}: merged, one player would"
                " hold two seats",
            ) from None
        except ChangedMeanwhile as moved:
            raise Refused(
                Refusal.CONFLICT, Reason.VERSION_CONFLICT, f"{moved}; nothing was merged: retry"
            ) from None
        wake(self.notifier, done.games)
        return Merge(merged, kept, done.rows)


__all__ = [
    "AccountMerge",
    "AccountsSharedATable",
    "Merge",
    "MergeRepository",
    "RatingRecord",
    "merged_rating",
]
