"""The expert bot and the information it searches from (tranca_rules/information.py,
tranca_rules/expert.py).

No peeking: the expert's choice depends only on what its seat may see. Two
positions that differ only in cards the seat cannot see (the other hands beyond the
cards it saw taken from the pile, the stock, face-down mortos) give the same
``Information`` and, with the same seed and an iteration budget, the same move; the
bot is handed the whole ``DealState`` in both, so a leak anywhere in it would show.
What a seat may see is the views' rule (docs/ENGINE.md, ``views.py``: "no other
hand, no stock card, no face-down morto card, no buried pile card"); a buried pile
card the seat watched being discarded is history it saw, and it is kept.
"""

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tranca_rules.bots import RandomBot
from tranca_rules.cards import full_deck
from tranca_rules.engine import apply_unchecked, legal_moves, new_deal
from tranca_rules.expert import Budget, ExpertBot, search
from tranca_rules.information import (
    UNKNOWN,
    Memory,
    event_after,
    event_before,
    information_of,
    sample_state,
    unseen_cards,
)
from tranca_rules.levels import LEVELS, make_bot
from tranca_rules.presets import PRESETS, PileView, make_rules
from tranca_rules.simulate import play_deal
from tranca_rules.state import DealState

GAMES = [(name, n) for name, r in sorted(PRESETS.items()) for n in r.player_counts]
SMALL = Budget(iterations=6, seconds=None)


def advance(name: str, players: int, seed: int, moves: int) -> tuple[DealState, list[Memory]]:
    """A deal after up to ``moves`` random moves, with every seat's memory of it."""
    s = new_deal(make_rules(name), players, seed=seed, dealer=seed % players)
    memories = [Memory(4) for _ in range(players)]
    bot = RandomBot(seed)
    for _ in range(moves):
        if s.is_over:
            break
        legal = legal_moves(s)
        if not legal:
            break
        seat = s.turn
        move = bot.choose(s, legal)
        part = event_before(s, seat, move)
        apply_unchecked(s, seat, move)
        event = event_after(part, s)
        for m in memories:
            m.see(event)
    return s, memories


def hidden_twin(s: DealState, seat: int, memory: Memory, rng: random.Random) -> DealState:
    """``s`` with the cards ``seat`` cannot see shuffled among their places: the
    other hands (except the cards the seat saw go into them), the stock and the
    face-down mortos. Built apart from ``sample_state`` on purpose."""
    twin = s.copy()
    info = information_of(s, seat, memory)
    pool: list[int] = []
    keep: list[list[int]] = []
    for k, hand in enumerate(twin.hands):
        if k == seat:
            keep.append(list(hand))
            continue
        known = Counter(info.known[k])
        kept, hidden = [], []
        for c in hand:
            if known[c] > 0:
                known[c] -= 1
                kept.append(c)
            else:
                hidden.append(c)
        keep.append(kept)
        pool += hidden
    pool += twin.stock
    face_down = not s.rules.mortos_face_up
    if face_down:
        for m in twin.mortos:
            if m is not None:
                pool += m
    buried = [i for i, c in enumerate(info.pile) if c == UNKNOWN]
    pool += [twin.pile[i] for i in buried]
    rng.shuffle(pool)
    for k in range(s.n_players):
        extra = len(s.hands[k]) - len(keep[k])
        twin.hands[k] = keep[k] + [pool.pop() for _ in range(extra)]
    twin.stock = [pool.pop() for _ in twin.stock]
    if face_down:
        twin.mortos = [None if m is None else [pool.pop() for _ in m] for m in twin.mortos]
    for i in buried:
        twin.pile[i] = pool.pop()
    assert not pool
    return twin


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(GAMES),
    seed=st.integers(0, 10_000),
    moves=st.integers(0, 120),
    shuffle=st.integers(0, 2**32),
)
def test_the_expert_chooses_the_same_from_positions_that_differ_only_in_hidden_cards(
    game: tuple[str, int], seed: int, moves: int, shuffle: int
) -> None:
    name, players = game
    s, memories = advance(name, players, seed, moves)
    if s.is_over or not legal_moves(s):
        return
    seat = s.turn
    twin = hidden_twin(s, seat, memories[seat], random.Random(shuffle))
    # The twin is a different deal wherever there is something hidden to shuffle.
    assert sorted(twin.all_cards()) == sorted(s.all_cards())
    assert twin.hands[seat] == s.hands[seat]
    assert information_of(twin, seat, memories[seat]).key() == (
        information_of(s, seat, memories[seat]).key()
    )
    # The bot is handed each whole deal: what it chooses must not tell them apart.
    choices = []
    for position in (s, twin):
        bot = ExpertBot(seed=seed, budget=SMALL, horizon=12)
        bot.memory = memories[seat]
        choices.append(bot.choose(position, legal_moves(position)))
    assert choices[0] == choices[1]


@settings(max_examples=40, deadline=None)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 10_000), moves=st.integers(0, 150))
def test_a_sampled_deal_is_consistent_with_the_information(
    game: tuple[str, int], seed: int, moves: int
) -> None:
    """Every card once, and the seat would know exactly the same of the sample."""
    name, players = game
    s, memories = advance(name, players, seed, moves)
    for seat in range(players):
        info = information_of(s, seat, memories[seat])
        pool = list(unseen_cards(info).elements())
        random.Random(seed).shuffle(pool)
        sample = sample_state(info, pool)
        assert not pool
        assert sorted(sample.all_cards()) == sorted(full_deck(s.rules.jokers))
        assert information_of(sample, seat, memories[seat]).key() == info.key()
        if seat == s.turn and not s.is_over:
            assert legal_moves(sample) == legal_moves(s)


@settings(max_examples=40, deadline=None)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 10_000), moves=st.integers(0, 200))
def test_what_a_seat_remembers_is_true(game: tuple[str, int], seed: int, moves: int) -> None:
    """The cards a seat saw go into another hand from the pile are in that hand, and
    the pile it remembers is the pile."""
    name, players = game
    s, memories = advance(name, players, seed, moves)
    for seat in range(players):
        info = information_of(s, seat, memories[seat])
        for k in range(players):
            assert not Counter(info.known[k]) - Counter(s.hands[k])
        assert len(info.pile) == len(s.pile)
        assert all(c in (UNKNOWN, p) for c, p in zip(info.pile, s.pile, strict=True))
        if s.rules.pile_view == PileView.TOP:
            # Watched from the deal's start: the whole pile is known.
            assert UNKNOWN not in info.pile


def test_without_memory_a_seat_knows_only_the_top_of_a_closed_pile() -> None:
    for seed in range(30):
        s, _ = advance("tranca-000", 4, seed, 60)
        if len(s.pile) >= 2:
            info = information_of(s, s.turn)
            assert info.pile[-1] == s.pile[-1]
            assert set(info.pile[:-1]) == {UNKNOWN}
            assert info.known == ((),) * 4
            return
    pytest.fail("no deal with a pile of two cards")


def test_an_iteration_budget_makes_the_choice_reproducible() -> None:
    s, memories = advance("tranca-000", 2, 5, 9)
    seat = s.turn
    info = information_of(s, seat, memories[seat])
    moves = legal_moves(s)
    first = search(info, moves, 11, Budget(20, None))
    assert first == search(info, moves, 11, Budget(20, None))
    # The budget counts playouts: whole worlds, one playout per candidate move.
    assert 0 < first[1] <= 20 if len(moves) > 1 else first[1] == 0


def test_a_budget_needs_a_limit() -> None:
    with pytest.raises(ValueError):
        Budget(None, None)
    with pytest.raises(ValueError):
        Budget(0, None)


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_the_expert_plays_whole_deals_of_every_preset(name: str, players: int) -> None:
    rules = make_rules(name)
    bots = [
        make_bot("expert", 3 + k, iterations=3) if k % 2 == 0 else make_bot("greedy", k)
        for k in range(players)
    ]
    s, result = play_deal(rules, players, 17, bots, check=True)
    assert s.is_over
    assert result.invariant_failures == []


def test_every_level_is_made_by_name() -> None:
    assert {make_bot(level, 1).name for level in LEVELS} == set(LEVELS)
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster")


def test_the_arena_plays_duplicate_pairs_and_reports_intervals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tranca.cli import main

    code = main(
        [
            "arena",
            "--preset",
            "tranca-000",
            "--players",
            "2",
            "--a",
            "greedy",
            "--b",
            "random",
            "--pairs",
            "3",
        ]
    )
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    assert summary["pairs"] == 3 and summary["deals"] == 6
    low, high = summary["a_win_rate_ci95"]
    assert 0 <= low <= summary["a_win_rate"] <= high <= 1
    assert set(summary["move_time"]) == {"greedy", "random"}


def test_a_duplicate_pair_of_one_level_against_itself_is_even() -> None:
    """Each deck is played twice with the sides swapped: a level against itself
    (deterministic bots with the same seeds per seat) gains nothing on the pair."""
    from tranca.tools.arena import arena

    out = arena(make_rules("tranca-000"), 2, "greedy", "greedy", 2)
    assert out["a_mean_diff_per_deal"] == 0
    assert out["a_win_rate"] == 0.5  # every pair a tie
    assert out["deals"] == 4


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "3"],
        ["--pairs", "0"],
        ["--a", "grandmaster"],
        ["--iterations", "0"],
        ["--seconds", "-1"],
    ],
)
def test_the_arena_refuses_bad_arguments(argv: list[str]) -> None:
    from tranca.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["arena", "--preset", "tranca-000", *argv])
    assert exc.value.code == 2
