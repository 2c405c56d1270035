"""Abandonment's penalty, applied in a finished match's settlement (called from
``services/settlement.py``, inside its one transaction: exactly once per match).

Who abandoned is ``platform/abandonment.py``'s decision; what it costs is the app's
policy (``AppPolicy.abandonment_penalty``, the defaults and the passages of 003 they
rest on in docs/platform/automatic-and-abandonment.md):

- ranking points taken from the player's award for the match (a rated result only:
  an annulled match "no suma ni resta puntos");
- rated as a loss whatever their side's result (their partner keeps the side's);
- their stake kept by the house when the match is annulled (003: "las fichas
  apostadas son devueltas a cada jugador (excepto si han sido penalizados por
  abandono)");
- a cooldown before quick play gives them another ticket;
- and every abandonment counted per player (GetProfile's ``abandonments``).

The app's policy also says whether a match in which a seat was in automatic mode
counts as rated (``automatic_rated``); when it does not, nobody is rated and no
ranking points move, the stakes still going to the winners.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Protocol

from .. import metrics
from ..platform import DRAWN, PlayerId, ranking, ratings, sides
from ..platform.abandonment import Abandonment, SeatChange, abandonments
from ..reasons import Reason
from ..table.game import GameState
from .errors import Refusal, Refused
from .policy import AbandonmentPenalty, AppPolicy


@dataclass(frozen=True)
class AbandonmentRecord:
    """One player's abandonment of one match, as the store keeps it."""

    player_id: PlayerId
    game_id: str
    how: str  # platform.abandonment's LEFT or AWAY
    at: datetime  # when the match ended
    cooldown_until: datetime  # quick play refuses them a ticket until then


class AbandonmentWork(Protocol):
    """What the penalty reads and writes inside the settlement's transaction."""

    @property
    def game_id(self) -> str: ...

    @property
    def state(self) -> GameState: ...

    async def app_policy(self) -> AppPolicy:
        """The game's app's policy (the defaults where it set none)."""
        ...

    async def seat_changes(self) -> list[SeatChange]:
        """The game's logged "robot" and "return" actions, with their times."""
        ...

    async def ended_at(self) -> datetime: ...

    async def record_abandonments(self, records: Sequence[AbandonmentRecord]) -> None:
        """The match's abandonments, each once (a repeat is ignored)."""
        ...


@dataclass(frozen=True)
class Penalties:
    """A settled match's abandonments and the app's penalty for them."""

    abandoned: tuple[Abandonment, ...] = ()
    penalty: AbandonmentPenalty = field(default_factory=AbandonmentPenalty)
    # False: a seat was in automatic mode and the app does not rate such matches.
    rated: bool = True

    @property
    def players(self) -> frozenset[PlayerId]:
        return frozenset(a.player_id for a in self.abandoned)

    def kept_stakes(self) -> frozenset[PlayerId]:
        """The players whose stakes an annulment does not give back."""
        return self.players if self.penalty.stake_kept else frozenset()

    def rated_losers(self) -> frozenset[PlayerId]:
        return self.players if self.penalty.rated_loss else frozenset()

    def awards(
        self, awards: Sequence[ranking.Award], game_id: str, at: datetime
    ) -> list[ranking.Award]:
        """The match's ranking points less the penalty of each who abandoned (an
        award of its own, negative, where the match gave them none)."""
        points = self.penalty.ranking_points
        if not points or not self.abandoned:
            return list(awards)
        out = [
            replace(a, points=a.points - points, won=False) if a.player in self.players else a
            for a in awards
        ]
        given = {a.player for a in awards}
        out += [ranking.Award(game_id, p, -points, False, at) for p in sorted(self.players - given)]
        return out


async def assess(work: AbandonmentWork, state: GameState) -> Penalties:
    """Who abandoned the claimed (competitive) match, and the app's penalty."""
    policy = await work.app_policy()
    ended = await work.ended_at()
    found = abandonments(
        state,
        await work.seat_changes(),
        int(ended.timestamp() * 1000),
        policy.abandonment_grace_seconds * 1000,
    )
    # A seat its own player put in automatic mode unrates the match where the app says
    # so, unless that player abandoned it: an abandoner's automatic mode does not
    # spare them the penalty that only a rated match carries.
    abandoners = {a.seat for a in found}
    rated = policy.automatic_rated or not (state.were_automatic - abandoners)
    return Penalties(tuple(found), policy.abandonment_penalty, rated)


async def record(work: AbandonmentWork, penalties: Penalties) -> None:
    """Count each abandonment, with the cooldown it starts."""
    if not penalties.abandoned:
        return
    at = await work.ended_at()
    cooldown = timedelta(seconds=penalties.penalty.cooldown_seconds)
    await work.record_abandonments(
        [
            AbandonmentRecord(a.player_id, work.game_id, a.how, at, at + cooldown)
            for a in penalties.abandoned
        ]
    )
    for a in penalties.abandoned:
        metrics.ABANDONMENTS.labels(a.how).inc()


@dataclass(frozen=True)
class PlayerAbandonments:
    """A player's abandonments: how many, and the end of their latest cooldown."""

    count: int = 0
    cooldown_until: datetime | None = None

    def cooldown_ms(self) -> int:
        """The latest cooldown's end (epoch ms), 0 for none."""
        until = self.cooldown_until
        return 0 if until is None else int(until.timestamp() * 1000)


class AbandonmentReader(Protocol):
    async def abandonments(self, app_id: str, player_id: PlayerId) -> PlayerAbandonments:
        """The player's abandonments (none: a count of 0, no cooldown)."""
        ...


async def check_cooldown(
    reader: AbandonmentReader, app_id: str, player_ids: Sequence[PlayerId], now_ms: int
) -> None:
    """Quick play's check: ABANDONMENT_COOLDOWN (FAILED_PRECONDITION, with the time
    left as ``retry_after_ms``) for a player whose last abandonment's cooldown runs."""
    for player in player_ids:
        until = (await reader.abandonments(app_id, player)).cooldown_ms()
        if until > now_ms:
            left = until - now_ms
            raise Refused(
                Refusal.PRECONDITION,
                Reason.ABANDONMENT_COOLDOWN,
                f"player {player} abandoned a rated match: quick play again in "
                f"{-(-left // 1000)} s",
                {
                    "player_id": player,
                    "retry_after_ms": str(left),
                    "cooldown_until_ms": str(until),
                    "detail": f"{-(-left // 60000)} min",
                },
            )


def rate_with_losses(
    book: ratings.RatingBook,
    players: Sequence[PlayerId],
    winner: int,
    losers: frozenset[PlayerId],
) -> ratings.RatingBook:
    """The match rated as it ended, except that each of ``losers`` (who abandoned)
    whose side did not lose is rated as having lost; everyone else as the match
    ended."""
    teams = sides(players)
    after = ratings.rate_match(book, teams, winner)
    out = dict(after.ratings)
    for side, team in enumerate(teams):
        penalised = [p for p in team if p in losers]
        if not penalised or (winner != DRAWN and winner != side):
            continue  # nobody to penalise, or the side lost already
        as_loss = ratings.rate_match(book, teams, (side + 1) % len(teams))
        for p in penalised:
            out[p] = as_loss[p]
    return ratings.RatingBook(out, after.mu, after.sigma)


__all__ = [
    "AbandonmentReader",
    "AbandonmentRecord",
    "AbandonmentWork",
    "Penalties",
    "PlayerAbandonments",
    "assess",
    "check_cooldown",
    "rate_with_losses",
    "record",
]
