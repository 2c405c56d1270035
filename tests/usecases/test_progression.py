"""XP, levels and achievements are granted exactly once per match, whatever the order
and the repetition of its settlements (issue 40's property), and practice tables
grant none (003: "Desactiva esta opción para practicar (no ganarás puntos ni fichas,
no conseguirás logros y no subirás de nivel).").

The grant runs on the progression fake, whose keys are the database's (one counted
row per app, match and player; one unlock per app, player and achievement); the
same keys hold on SQLite and PostgreSQL in tests/server_platform/test_progression.py.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tranca.platform import side_of
from tranca.platform.progression import (
    BEST_STREAK,
    STREAK,
    Achievement,
    MatchFacts,
    Rules,
    counters_after,
    level_of,
    match_xp,
    side_deals,
)
from tranca.platform.ranking import game_type
from tranca.services.progression import grant
from tranca.table.game import GameState, Seat, Setup, TableOptions
from tranca_rules.match import DRAWN
from tranca_rules.presets import PRESETS

from .fakes.progression import ProgressionMemory

PLAYERS = ("ana", "bea", "cid", "dan")
RULES = Rules(
    achievements=(
        Achievement("first-batida", "First batida", "batidas", 1),
        Achievement("two-reals", "Two canastras reales", "canastra_real", 2),
        Achievement("three-wins", "Three wins", "wins", 3),
        Achievement("streak-2", "Two in a row", BEST_STREAK, 2),
        Achievement("five-matches", "Five matches", "matches", 5),
    ),
    level_step=40,
)
ORDER_FREE = {"first-batida", "two-reals", "three-wins", "five-matches"}


@dataclass(frozen=True)
class Match:
    game_id: str
    state: GameState
    players: tuple[str, ...]
    deals: tuple[dict[str, Any], ...]


def _deal(went_out: int, reals: tuple[int, int]) -> dict[str, Any]:
    return {
        "went_out": went_out,
        "scores": [
            {"side": s, "batida": 100 if s == went_out else 0, "canastra_counts": {"real": r}}
            for s, r in enumerate(reals)
        ],
    }


@st.composite
def matches(draw: st.DrawFn, index: int) -> Match:
    seats = draw(st.sampled_from((2, 4)))
    players = tuple(draw(st.permutations(PLAYERS))[:seats])
    competitive = draw(st.booleans().map(lambda b: b or index % 5 != 0))
    stake = draw(st.sampled_from((0, 0, 100, 1000, 20000)))
    express = draw(st.booleans())
    winner = draw(st.sampled_from((0, 1, 1, 0, DRAWN)))
    deals = tuple(
        _deal(draw(st.sampled_from((0, 1, -1))), (draw(st.integers(0, 2)), draw(st.integers(0, 2))))
        for _ in range(draw(st.integers(1, 3)))
    )
    rules = PRESETS["tranca-003"]
    setup = Setup(
        rules=replace(rules, target_score=0) if express else rules,
        players=seats,
        seed=index,
        table=TableOptions(competitive=competitive, stake=stake if competitive else 0),
    )
    state = GameState(setup, [Seat(p, True, False, p) for p in players], winner=winner)
    return Match(f"g{index}", state, players, deals)


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Match], list[int]]:
    """Some matches, and an order of settlements: each match at least once, some
    again, in any order."""
    count = draw(st.integers(1, 8))
    found = [draw(matches(i)) for i in range(count)]
    repeats = draw(st.lists(st.integers(0, count - 1), max_size=8))
    order = draw(st.permutations([*range(count), *repeats]))
    return found, list(order)


async def _settle(memory: ProgressionMemory, m: Match) -> None:
    await grant(memory.work("app", m.game_id, m.deals), m.state, m.players, scored=True)


def _facts(m: Match, player: str) -> MatchFacts:
    seat = m.players.index(player)
    side = side_of(seat, len(m.players))
    setup = m.state.setup
    return MatchFacts(
        m.game_id,
        game_type(setup.rules.target_score),
        setup.table.stake,
        m.state.winner != DRAWN and side == m.state.winner,
        m.state.winner == DRAWN,
        side_deals(m.deals, side),
    )


@settings(max_examples=300, deadline=None)
@given(histories())
async def test_granted_exactly_once_per_match_whatever_the_order_and_repetition(
    history: tuple[list[Match], list[int]],
) -> None:
    found, order = history
    memory = ProgressionMemory(rules=RULES)
    for i in order:
        await _settle(memory, found[i])
    rated = [m for m in found if m.state.setup.table.competitive]
    for player in PLAYERS:
        theirs = [m for m in rated if player in m.players]
        progress, unlocked = await memory.progress_of("app", player)
        # XP: each rated match's once; the level is the XP's.
        assert progress.xp == sum(match_xp(_facts(m, player), RULES) for m in theirs)
        assert level_of(progress.xp, RULES) == level_of(
            sum(memory.counted[("app", m.game_id, player)] for m in theirs), RULES
        )
        # The counts do not depend on the order (the streak does, by its nature).
        expected: dict[str, int] = {}
        for m in theirs:
            expected = counters_after(expected, _facts(m, player))
        got = dict(progress.counters)
        for name in (STREAK, BEST_STREAK):
            expected.pop(name, None), got.pop(name, None)
        assert got == {k: v for k, v in expected.items() if v}
        for a in RULES.achievements:
            if a.id in ORDER_FREE:
                assert (a.id in unlocked) == (expected.get(a.counter, 0) >= a.target), a.id
    # Each unlock once, told once; each level reached told once; practice counts for none.
    told = Counter(
        (e.player_id, e.payload["achievement_id"])
        for e in memory.events
        if e.kind == "achievement_unlocked"
    )
    assert set(told.values()) <= {1}
    assert set(told) == {(p, a) for (_, p, a) in memory.unlocks}
    levels = Counter(
        (e.player_id, e.payload["level"]) for e in memory.events if e.kind == "level_up"
    )
    assert set(levels.values()) <= {1}
    assert {g for (_, g, _) in memory.counted} == {m.game_id for m in rated}


async def test_practice_tables_grant_nothing() -> None:
    """003: "Desactiva esta opción para practicar (no ganarás puntos ni fichas, no
    conseguirás logros y no subirás de nivel)." """
    memory = ProgressionMemory(rules=RULES)
    setup = Setup(rules=PRESETS["tranca-003"], players=2, seed=1, table=TableOptions())
    state = GameState(setup, [Seat("ana", True, False, "ana"), Seat("bea", True, False, "bea")])
    state.winner = 0
    for _ in range(6):
        assert (
            await grant(
                memory.work("app", "p1", [_deal(0, (2, 0))]), state, ["ana", "bea"], scored=True
            )
            == []
        )
    assert (memory.progress, memory.unlocks, memory.events) == ({}, {}, [])
