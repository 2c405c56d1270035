"""Experience, levels and achievements (003's "puntos XP", "logros", "nivel"), and the
stake's weight in ranking points (pure: no I/O).

003: "Desactiva esta opción para practicar (no ganarás puntos ni fichas, no
conseguirás logros y no subirás de nivel)", "El ganador de la partida consigue los
puntos XP y las fichas apostadas" and "Los puntos ganados dependen del tipo de juego
y la apuesta inicial". 003 gives no figures beyond the ranking's 40/20/5; the ones
here are the defaults of ``Rules`` (an app sets its own, ``AppPolicy.progression``),
each written down in docs/platform/progression.md with the passage it rests on.

A player's progress in an app is a ``Progress``: their XP and their counters (matches,
wins, the current win streak, batidas, canastras by kind, tournaments won), and the
achievements unlocked. ``apply_match`` folds one settled competitive match into it
(``MatchFacts``: the player's side's result and what the side did in each deal) and
says what it granted: XP, a new level, achievements unlocked. Exactly once per match
is the caller's (``services/progression.py``: one row per app, match and player).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

from ..table.game import Action, GameState, Setup, apply_action, new_game
from .ranking import GameType

# The counters an achievement may be set on.
MATCHES = "matches"  # competitive matches played (won, lost or drawn)
WINS = "wins"  # competitive matches won
STREAK = "win_streak"  # matches won in a row (a loss or a draw ends the run)
BEST_STREAK = "best_win_streak"  # the longest run so far
BATIDAS = "batidas"  # deals the player's side went out in ("bater")
TOURNAMENTS_WON = "tournaments_won"  # tournaments finished first
CANASTRA_KINDS = ("clean", "dirty", "real", "all_wilds", "ace_to_ace")
CANASTRA = "canastra_"  # canastra_real, canastra_clean, ...: canastras made of a kind
COUNTERS: frozenset[str] = frozenset(
    (
        MATCHES,
        WINS,
        STREAK,
        BEST_STREAK,
        BATIDAS,
        TOURNAMENTS_WON,
        *(CANASTRA + k for k in CANASTRA_KINDS),
    )
)
MAX_ACHIEVEMENTS = 50
MAX_TIERS = 10
MAX_LEVEL = 1000
MAX_FIGURE = 10**9
_ACHIEVEMENT_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.ASCII)


@dataclass(frozen=True)
class Achievement:
    """An achievement as an app defines it: unlocked when ``counter`` reaches
    ``target``."""

    id: str  # a-z, 0-9, "_" and "-", up to 64
    title: str
    counter: str  # one of COUNTERS
    target: int  # at least 1

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "counter": self.counter, "target": self.target}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Achievement:
        return cls(str(d["id"]), str(d["title"]), str(d["counter"]), int(d["target"]))


@dataclass(frozen=True)
class StakeTier:
    """From ``min_stake`` chips on, points and XP are ``percent`` of the base."""

    min_stake: int
    percent: int


# The defaults (docs/platform/progression.md says why each).
DEFAULT_ACHIEVEMENTS = (
    Achievement("first-batida", "First batida", BATIDAS, 1),
    Achievement("canastra-real", "A canastra real", CANASTRA + "real", 1),
    Achievement("first-win", "First win", WINS, 1),
    Achievement("ten-in-a-row", "Ten wins in a row", BEST_STREAK, 10),
    Achievement("tournament-won", "A tournament won", TOURNAMENTS_WON, 1),
    Achievement("hundred-matches", "100 matches", MATCHES, 100),
)
DEFAULT_STAKE_TIERS = (
    StakeTier(0, 100),
    StakeTier(100, 150),
    StakeTier(1000, 200),
    StakeTier(10000, 300),
)


@dataclass(frozen=True)
class Rules:
    """An app's figures: XP per match won by game type, XP per match lost, the
    level curve, the achievements, and the stake's weight (on XP and ranking
    points)."""

    win_xp_points: int = 100  # "Partida a puntos"
    win_xp_express: int = 50  # "Exprés"
    loss_xp: int = 0  # 003: "El ganador de la partida consigue los puntos XP"
    # Level n (from 1) needs level_step * n * (n - 1) / 2 XP: 0, 100, 300, 600, ...
    level_step: int = 100
    max_level: int = 100
    achievements: tuple[Achievement, ...] = DEFAULT_ACHIEVEMENTS
    stake_tiers: tuple[StakeTier, ...] = DEFAULT_STAKE_TIERS

    def to_dict(self) -> dict[str, Any]:
        return {
            "win_xp_points": self.win_xp_points,
            "win_xp_express": self.win_xp_express,
            "loss_xp": self.loss_xp,
            "level_step": self.level_step,
            "max_level": self.max_level,
            "achievements": [a.to_dict() for a in self.achievements],
            "stake_tiers": [[t.min_stake, t.percent] for t in self.stake_tiers],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Rules:
        figures: dict[str, Any] = {
            name: int(d[name])
            for name in ("win_xp_points", "win_xp_express", "loss_xp", "level_step", "max_level")
            if name in d
        }
        out = replace(cls(), **figures)
        if "achievements" in d:
            out = replace(
                out, achievements=tuple(Achievement.from_dict(a) for a in d["achievements"])
            )
        if "stake_tiers" in d:
            out = replace(
                out, stake_tiers=tuple(StakeTier(int(s), int(p)) for s, p in d["stake_tiers"])
            )
        return out

    def problem(self) -> str | None:
        """What is wrong with these figures, or None."""
        for name in ("win_xp_points", "win_xp_express", "loss_xp"):
            if not 0 <= getattr(self, name) <= MAX_FIGURE:
                return f"{name} is 0 to {MAX_FIGURE}"
        if not 1 <= self.level_step <= MAX_FIGURE:
            return f"level_step is 1 to {MAX_FIGURE}"
        if not 1 <= self.max_level <= MAX_LEVEL:
            return f"max_level is 1 to {MAX_LEVEL}"
        if len(self.achievements) > MAX_ACHIEVEMENTS:
            return f"at most {MAX_ACHIEVEMENTS} achievements"
        ids = [a.id for a in self.achievements]
        if len(set(ids)) != len(ids):
            return "each achievement id once"
        for a in self.achievements:
            if _ACHIEVEMENT_ID.fullmatch(a.id) is None:
                return f"achievement id {a.id!r}: 1 to 64 of a-z, 0-9, '_' and '-'"
            if not a.title.strip() or len(a.title) > 100:
                return f"achievement {a.id!r}: a title of 1 to 100 characters"
            if a.counter not in COUNTERS:
                return f"achievement {a.id!r}: counter is one of {', '.join(sorted(COUNTERS))}"
            if not 1 <= a.target <= MAX_FIGURE:
                return f"achievement {a.id!r}: target is 1 to {MAX_FIGURE}"
        tiers = self.stake_tiers
        if not 1 <= len(tiers) <= MAX_TIERS or tiers[0].min_stake != 0:
            return f"stake_tiers: 1 to {MAX_TIERS}, the first from stake 0"
        if any(b.min_stake <= a.min_stake for a, b in pairwise(tiers)):
            return "stake_tiers: each from a larger stake than the one before"
        if any(not 100 <= t.percent <= 10000 for t in tiers):
            return "stake_tiers: each percent is 100 to 10000"
        return None


def stake_percent(stake: int, tiers: Sequence[StakeTier] = DEFAULT_STAKE_TIERS) -> int:
    """The weight of a match's stake, in percent: the last tier the stake reaches
    (100 at stake 0 by default, so 003's 40/20/5 hold at a table without chips)."""
    percent = 100
    for tier in tiers:
        if stake >= tier.min_stake:
            percent = tier.percent
    return percent


def weighted(base: int, percent: int) -> int:
    """``base`` weighted by ``percent``, rounded down."""
    return base * percent // 100


def level_threshold(level: int, rules: Rules = Rules()) -> int:
    """The XP level ``level`` (from 1) needs."""
    return rules.level_step * level * (level - 1) // 2


def level_of(xp: int, rules: Rules = Rules()) -> int:
    """The level of ``xp`` points (1 to ``max_level``)."""
    level = 1
    while level < rules.max_level and xp >= level_threshold(level + 1, rules):
        level += 1
    return level


@dataclass(frozen=True)
class DealFacts:
    """What a side did in one deal: went out (batida), canastras made by kind."""

    went_out: bool = False
    canastras: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class MatchFacts:
    """One player's settled competitive match."""

    game_id: str
    kind: GameType
    stake: int
    won: bool
    drawn: bool = False
    deals: tuple[DealFacts, ...] = ()  # the player's side's, in order


def side_deals(deal_results: Iterable[Mapping[str, Any]], side: int) -> tuple[DealFacts, ...]:
    """A side's facts from the game's deal results (``GameState.last_deal`` of each
    deal: its ``went_out`` seat and the scoring breakdown of every side)."""
    out: list[DealFacts] = []
    for deal in deal_results:
        scores = deal.get("scores") or []
        score = next((s for s in scores if int(s.get("side", -1)) == side), None)
        if score is None:
            continue
        counts = {str(k): int(v) for k, v in (score.get("canastra_counts") or {}).items()}
        out.append(DealFacts(int(score.get("batida") or 0) > 0, counts))
    return tuple(out)


def match_deal_results(
    state: GameState, setup: Setup, actions: Callable[[], Iterable[Action]]
) -> list[dict[str, Any]]:
    """Every deal's result of a finished match, in order. A snapshot keeps the last
    deal's only (``GameState.last_deal``): a match of one deal needs nothing more; a
    longer one is folded again from its log (``actions``, versions 1, 2, ...),
    keeping each deal's result as it ended."""
    if state.deal_number <= 1:
        return [state.last_deal] if state.last_deal else []
    g = new_game(setup)
    out: list[dict[str, Any]] = []
    for version, action in enumerate(actions(), start=1):
        apply_action(g, action, version)
        if g.last_deal is not None and (not out or out[-1] is not g.last_deal):
            out.append(g.last_deal)
    return out


@dataclass(frozen=True)
class Progress:
    """A player's progress in an app."""

    xp: int = 0
    counters: Mapping[str, int] = field(default_factory=dict)
    unlocked: frozenset[str] = frozenset()

    def counter(self, name: str) -> int:
        return int(self.counters.get(name, 0))


@dataclass(frozen=True)
class Granted:
    """What one match granted a player."""

    xp: int
    level_before: int
    level_after: int
    unlocked: tuple[Achievement, ...]


def match_xp(facts: MatchFacts, rules: Rules = Rules()) -> int:
    """The XP of a match: the winner's by game type, the loser's (0 by default), both
    weighted by the stake."""
    if facts.won:
        base = rules.win_xp_points if facts.kind == GameType.POINTS else rules.win_xp_express
    else:
        base = rules.loss_xp
    return weighted(base, stake_percent(facts.stake, rules.stake_tiers))


def counters_after(counters: Mapping[str, int], facts: MatchFacts) -> dict[str, int]:
    """The counters once ``facts`` is counted."""
    out = {k: int(v) for k, v in counters.items()}

    def add(name: str, n: int) -> None:
        if n:
            out[name] = out.get(name, 0) + n

    add(MATCHES, 1)
    add(WINS, 1 if facts.won else 0)
    out[STREAK] = out.get(STREAK, 0) + 1 if facts.won else 0
    out[BEST_STREAK] = max(out.get(BEST_STREAK, 0), out[STREAK])
    add(BATIDAS, sum(1 for d in facts.deals if d.went_out))
    for kind in CANASTRA_KINDS:
        add(CANASTRA + kind, sum(int(d.canastras.get(kind, 0)) for d in facts.deals))
    return out


def achievement_progress(progress: Progress, achievement: Achievement) -> int:
    """How far towards ``achievement`` the player is (its target once unlocked)."""
    if achievement.id in progress.unlocked:
        return achievement.target
    return min(progress.counter(achievement.counter), achievement.target)


def apply_match(
    progress: Progress, facts: MatchFacts, rules: Rules = Rules()
) -> tuple[Progress, Granted]:
    """``progress`` with one more settled competitive match, and what it granted.
    An achievement is unlocked once: one already unlocked is never granted again."""
    xp = match_xp(facts, rules)
    return _granted(progress, progress.xp + xp, counters_after(progress.counters, facts), rules)


def apply_tournament_won(progress: Progress, rules: Rules = Rules()) -> tuple[Progress, Granted]:
    """``progress`` with one more tournament finished first (no XP of its own: its
    matches earned theirs), and what it granted."""
    counters = {k: int(v) for k, v in progress.counters.items()}
    counters[TOURNAMENTS_WON] = counters.get(TOURNAMENTS_WON, 0) + 1
    return _granted(progress, progress.xp, counters, rules)


def _granted(
    progress: Progress, xp: int, counters: dict[str, int], rules: Rules
) -> tuple[Progress, Granted]:
    after = Progress(xp, counters, progress.unlocked)
    new = tuple(
        a
        for a in rules.achievements
        if a.id not in progress.unlocked and after.counter(a.counter) >= a.target
    )
    after = replace(after, unlocked=progress.unlocked | {a.id for a in new})
    granted = Granted(
        xp - progress.xp, level_of(progress.xp, rules), level_of(after.xp, rules), new
    )
    return after, granted


__all__ = [
    "COUNTERS",
    "DEFAULT_ACHIEVEMENTS",
    "DEFAULT_STAKE_TIERS",
    "Achievement",
    "DealFacts",
    "Granted",
    "MatchFacts",
    "Progress",
    "Rules",
    "StakeTier",
    "achievement_progress",
    "apply_match",
    "apply_tournament_won",
    "counters_after",
    "level_of",
    "level_threshold",
    "match_deal_results",
    "match_xp",
    "side_deals",
    "stake_percent",
    "weighted",
]
