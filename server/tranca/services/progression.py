"""Experience, levels and achievements granted by a settled competitive match, and a
player's progress read back (GetProgression).

The settlement (``services/settlement.py``) calls ``grant`` inside the match's own
transaction, for a rated match only (003: practice tables "no conseguirás logros y
no subirás de nivel"; an annulled match "no cuenta ... en las estadísticas"). Each
player's match is counted once: ``count_match`` writes one row per app, match and
player and says whether it was new, and each achievement is one row per app, player
and achievement. So a settlement run twice, on one replica or two, in any order,
grants nothing twice, on top of the game's own settled flag.

What a match grants is decided by ``platform.progression`` from the app's figures
(``AppPolicy.progression``); the unlocks and level-ups are the player's events
(``achievement_unlocked``, ``level_up``), with their webhook deliveries, written in
the same transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..platform import DRAWN, PlayerId, side_of
from ..platform.progression import (
    Achievement,
    Granted,
    MatchFacts,
    Progress,
    Rules,
    StakeTier,
    achievement_progress,
    apply_match,
    apply_tournament_won,
    level_of,
    level_threshold,
    side_deals,
)
from ..platform.ranking import game_type
from ..table.events import Event, EventKind
from ..table.game import GameState
from .access import Access, Credentials, require_app
from .errors import malformed
from .policy import AppPolicies, AppPolicy


class ProgressionWork(Protocol):
    """A settlement's reads and writes for progression, in its transaction."""

    async def progression_rules(self) -> Rules:
        """The app's figures (its policy's, or the defaults)."""
        ...

    async def deal_results(self) -> list[dict[str, Any]]:
        """Every deal's result of the match, in order (``GameState.last_deal`` as each
        deal ended)."""
        ...

    async def count_match(self, player: PlayerId, xp: int, counted_id: str = "") -> bool:
        """Record that the match (or ``counted_id``: a tournament won) counted for
        ``player`` (with its XP): False when it was counted already, and then nothing
        is written."""
        ...

    async def lock_progress(self, players: Sequence[PlayerId]) -> dict[PlayerId, Progress]:
        """The players' progress, a player without any read as new; locked in player
        id order until the transaction ends (PostgreSQL)."""
        ...

    async def write_progress(
        self, player: PlayerId, progress: Progress, level: int, unlocked: Sequence[Achievement]
    ) -> list[Achievement]:
        """The player's progress, and the achievements newly unlocked (one row each,
        never twice): those actually written."""
        ...

    async def publish(self, events: Sequence[Event]) -> None:
        """The players' events and their webhook deliveries, in the transaction."""
        ...


@dataclass(frozen=True)
class PlayerGrant:
    player: PlayerId
    granted: Granted


async def grant(
    work: ProgressionWork,
    state: GameState,
    players: Sequence[PlayerId],
    *,
    scored: bool,
    abandoned: frozenset[PlayerId] = frozenset(),
) -> list[PlayerGrant]:
    """The XP, level and achievements a settled rated match grants its players
    (nothing when two seats shared a network address: "No se puntúa si 2 jugadores
    de la mesa comparten la misma IP", which would let one person farm them). A
    player who abandoned the match (services/abandonment.py) counts it as lost,
    whatever their side's result: no winner's XP, no win, their streak ended."""
    if not scored or not state.setup.table.competitive:
        return []
    rules = await work.progression_rules()
    deals = await work.deal_results()
    kind = game_type(state.setup.rules.target_score)
    winner = state.winner
    count = len(players)
    game_id = _game_id(work)
    facts: dict[PlayerId, MatchFacts] = {}
    for seat, player in enumerate(players):
        side = side_of(seat, count)
        facts[player] = MatchFacts(
            game_id=game_id,
            kind=kind,
            stake=state.setup.table.stake,
            won=winner != DRAWN and side == winner and player not in abandoned,
            drawn=winner == DRAWN and player not in abandoned,
            deals=side_deals(deals, side),
        )
    before = await work.lock_progress(sorted(players))
    out: list[PlayerGrant] = []
    events: list[Event] = []
    for player in sorted(players):
        after, granted = apply_match(before[player], facts[player], rules)
        if not await work.count_match(player, granted.xp):
            continue  # counted already: a settlement run again
        written = await work.write_progress(player, after, granted.level_after, granted.unlocked)
        granted = Granted(granted.xp, granted.level_before, granted.level_after, tuple(written))
        out.append(PlayerGrant(player, granted))
        events.extend(_events(player, game_id, after, granted))
    await work.publish(events)
    return out


async def grant_tournament_won(
    work: ProgressionWork, tournament_id: str, champions: Sequence[PlayerId]
) -> list[PlayerGrant]:
    """The players of the entrant first at a competitive tournament's end, counted
    once each (the tournament's id is what is counted): its achievements' counter
    (``tournaments_won``)."""
    if not champions:
        return []
    rules = await work.progression_rules()
    before = await work.lock_progress(sorted(champions))
    out: list[PlayerGrant] = []
    events: list[Event] = []
    for player in sorted(champions):
        after, granted = apply_tournament_won(before[player], rules)
        if not await work.count_match(player, 0, tournament_id):
            continue
        written = await work.write_progress(player, after, granted.level_after, granted.unlocked)
        granted = Granted(0, granted.level_before, granted.level_after, tuple(written))
        out.append(PlayerGrant(player, granted))
        events.extend(
            Event(
                player,
                EventKind.ACHIEVEMENT_UNLOCKED,
                None,
                {
                    "achievement_id": a.id,
                    "title": a.title,
                    "counter": a.counter,
                    "target": a.target,
                    "tournament_id": tournament_id,
                },
            )
            for a in written
        )
    await work.publish(events)
    return out


def _game_id(work: ProgressionWork) -> str:
    game_id = getattr(work, "game_id", "")
    return str(game_id)


def _events(player: PlayerId, game_id: str, after: Progress, granted: Granted) -> list[Event]:
    out = [
        Event(
            player,
            EventKind.ACHIEVEMENT_UNLOCKED,
            game_id,
            {"achievement_id": a.id, "title": a.title, "counter": a.counter, "target": a.target},
        )
        for a in granted.unlocked
    ]
    if granted.level_after > granted.level_before:
        out.append(
            Event(
                player,
                EventKind.LEVEL_UP,
                game_id,
                {"level": granted.level_after, "xp": after.xp, "xp_gained": granted.xp},
            )
        )
    return out


# ----- a player's progress, read back --------------------------------------------------


@dataclass(frozen=True)
class AchievementView:
    achievement: Achievement
    progress: int  # towards its target; the target once unlocked
    unlocked_ms: int  # 0: not unlocked


@dataclass(frozen=True)
class ProgressView:
    player_id: str
    xp: int
    level: int
    level_xp: int  # the XP the level needed
    next_level_xp: int  # the XP the next level needs (level_xp at the last level)
    achievements: tuple[AchievementView, ...]
    counters: Mapping[str, int]


def progress_view(
    player_id: str, progress: Progress, unlocked: Mapping[str, int], rules: Rules
) -> ProgressView:
    """What a profile shows: XP, level and the way to the next one, and every
    achievement the app defines (with its progress) plus any unlocked under a
    definition the app removed since."""
    level = level_of(progress.xp, rules)
    nxt = level + 1 if level < rules.max_level else level
    shown = Progress(progress.xp, progress.counters, frozenset(unlocked))
    views = [
        AchievementView(a, achievement_progress(shown, a), unlocked.get(a.id, 0))
        for a in rules.achievements
    ]
    known = {a.id for a in rules.achievements}
    for gone in sorted(set(unlocked) - known):
        views.append(AchievementView(Achievement(gone, gone, "", 1), 1, unlocked[gone]))
    return ProgressView(
        player_id,
        progress.xp,
        level,
        level_threshold(level, rules),
        level_threshold(nxt, rules),
        tuple(views),
        dict(progress.counters),
    )


class ProgressionReads(Protocol):
    async def progress_of(self, app_id: str, player_id: str) -> tuple[Progress, dict[str, int]]:
        """The player's progress (new if none) and the achievements it unlocked, by id,
        with when (epoch ms)."""
        ...


class Progressions:
    """GetProgression: a player's progress, as a profile shows it."""

    def __init__(self, access: Access, repo: ProgressionReads, policies: AppPolicies) -> None:
        self.access = access
        self.repo = repo
        self.policies = policies

    async def get(self, credentials: Credentials, player_id: str) -> ProgressView:
        """A player's progress: the app's key, or a session of the app (its own player
        when ``player_id`` is empty)."""
        if len(player_id) > 128:
            raise malformed("player_id is at most 128 characters")
        caller = await self.access.identify(credentials)
        if caller.session is not None:
            app_id = caller.session.app_id
            policy = caller.session.policy
            player_id = player_id or caller.session.player_id
        else:
            app_id = require_app(caller).id
            policy = await self.policies.app_policy(app_id) or AppPolicy()
        if not player_id:
            raise malformed("player_id is 1 to 128 characters")
        progress, unlocked = await self.repo.progress_of(app_id, player_id)
        return progress_view(player_id, progress, unlocked, policy.progression)


__all__ = [
    "Achievement",
    "AchievementView",
    "PlayerGrant",
    "ProgressView",
    "ProgressionReads",
    "ProgressionWork",
    "Progressions",
    "Rules",
    "StakeTier",
    "grant",
    "grant_tournament_won",
    "progress_view",
]
