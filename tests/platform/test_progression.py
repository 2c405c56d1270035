"""Experience, levels and achievements, the pure rules (platform/progression.py).

Each test rests on a passage of the rule document 003_9ae53d0671553559.txt ("003")
quoted in its docstring, or on a figure of docs/platform/progression.md where 003
gives none.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tranca.platform.progression import (
    DEFAULT_ACHIEVEMENTS,
    Achievement,
    DealFacts,
    MatchFacts,
    Progress,
    Rules,
    StakeTier,
    apply_match,
    apply_tournament_won,
    level_of,
    level_threshold,
    match_xp,
    side_deals,
    stake_percent,
)
from tranca.platform.ranking import GameType, SeatEntry, match_awards


def facts(
    won: bool = True, kind: GameType = GameType.POINTS, stake: int = 0, **kw: object
) -> MatchFacts:
    return MatchFacts("g", kind, stake, won, **kw)  # type: ignore[arg-type]


def test_the_winner_gets_the_xp_by_game_type() -> None:
    """003: "El ganador de la partida consigue los puntos XP y las fichas apostadas"."""
    assert match_xp(facts()) == 100
    assert match_xp(facts(kind=GameType.EXPRESS)) == 50
    assert match_xp(facts(won=False)) == 0
    assert match_xp(facts(won=False), Rules(loss_xp=7)) == 7


@pytest.mark.parametrize(
    ("stake", "percent"), [(0, 100), (99, 100), (100, 150), (999, 150), (1000, 200), (10**6, 300)]
)
def test_points_depend_on_the_stake(stake: int, percent: int) -> None:
    """003: "Los puntos ganados dependen del tipo de juego y la apuesta inicial." """
    assert stake_percent(stake) == percent
    assert match_xp(facts(stake=stake)) == 100 * percent // 100
    seats = [SeatEntry("a", "1.1.1.1"), SeatEntry("b", "2.2.2.2")]
    at = datetime(2026, 1, 1, tzinfo=UTC)
    win, loss = match_awards("g", seats, 0, GameType.POINTS, at, stake_percent=percent)
    assert (win.points, loss.points) == (40 * percent // 100, 5)  # "suman 5 puntos"


def test_the_level_curve() -> None:
    assert [level_threshold(n) for n in range(1, 6)] == [0, 100, 300, 600, 1000]
    assert [level_of(xp) for xp in (0, 99, 100, 299, 300, 10**12)] == [1, 1, 2, 2, 3, 100]
    assert level_of(10**6, Rules(level_step=10, max_level=5)) == 5


def test_an_achievement_is_unlocked_once() -> None:
    rules = Rules(achievements=(Achievement("w2", "Two wins", "wins", 2),))
    p, g = apply_match(Progress(), facts(), rules)
    assert g.unlocked == () and p.counter("wins") == 1
    p, g = apply_match(p, facts(), rules)
    assert [a.id for a in g.unlocked] == ["w2"]
    p, g = apply_match(p, facts(), rules)
    assert g.unlocked == () and p.unlocked == {"w2"}


def test_a_loss_ends_the_streak_and_the_best_run_stays() -> None:
    p = Progress()
    for won in (True, True, False, True):
        p, _ = apply_match(p, facts(won=won))
    assert (p.counter("win_streak"), p.counter("best_win_streak")) == (1, 2)


def test_batidas_and_canastras_count_from_the_deals() -> None:
    """003: "Un jugador “bate” cuando se queda sin cartas en su mano"; "Canasta real:
    500 puntos"."""
    deals = [
        {
            "scores": [
                {"side": 0, "batida": 100, "canastra_counts": {"real": 1}},
                {"side": 1, "batida": 0},
            ]
        },
        {
            "scores": [
                {"side": 0, "batida": 0},
                {"side": 1, "batida": 100, "canastra_counts": {"clean": 2}},
            ]
        },
    ]
    mine = side_deals(deals, 0)
    assert mine == (DealFacts(True, {"real": 1}), DealFacts(False, {}))
    p, g = apply_match(Progress(), facts(deals=mine))
    assert {a.id for a in g.unlocked} == {"first-batida", "canastra-real", "first-win"}
    p, g = apply_match(Progress(), facts(won=False, deals=side_deals(deals, 1)))
    assert {a.id for a in g.unlocked} == {"first-batida"} and p.counter("canastra_clean") == 2


def test_a_tournament_won_counts_without_xp() -> None:
    p, g = apply_tournament_won(Progress(xp=40))
    assert (p.xp, g.xp, [a.id for a in g.unlocked]) == (40, 0, ["tournament-won"])


@pytest.mark.parametrize(
    ("rules", "why"),
    [
        (Rules(level_step=0), "level_step"),
        (Rules(max_level=0), "max_level"),
        (Rules(win_xp_points=-1), "win_xp_points"),
        (Rules(achievements=DEFAULT_ACHIEVEMENTS * 2), "once"),
        (Rules(achievements=(Achievement("ok", "", "wins", 1),)), "title"),
        (Rules(stake_tiers=()), "stake_tiers"),
        (Rules(stake_tiers=(StakeTier(0, 100), StakeTier(0, 200))), "larger"),
    ],
)
def test_incoherent_figures_are_named(rules: Rules, why: str) -> None:
    problem = rules.problem()
    assert problem is not None and why in problem
    assert Rules().problem() is None
    assert Rules.from_dict(Rules().to_dict()) == Rules()
