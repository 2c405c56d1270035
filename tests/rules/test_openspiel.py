"""Tranca as an OpenSpiel game (tranca/tools/openspiel.py), through OpenSpiel's own API:
its consistency checks on random playouts, its random bots and its ISMCTS bot on
whole deals of every preset, and observations that carry nothing hidden."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel  # the open_spiel package: pyproject's dev extras, installed by `make venv`
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from tests.rules.test_expert import advance, hidden_twin
from tranca.tools.openspiel import (
    GAME_NAME,
    OpenSpielISMCTS,
    TrancaState,
    action_to_move,
    move_to_action,
)
from tranca_rules.engine import legal_moves
from tranca_rules.presets import PRESETS, make_rules

GAMES = [(name, n) for name, r in sorted(PRESETS.items()) for n in r.player_counts if n != 3]


def load(name: str, players: int) -> Any:
    return pyspiel.load_game(GAME_NAME, {"preset": name, "players": players})


def play(state: TrancaState, bots: list[Any], rng: np.random.RandomState) -> TrancaState:
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            pick = rng.choice(len(outcomes), p=[p for _, p in outcomes])
            state.apply_action(outcomes[pick][0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return state


@pytest.mark.parametrize(("name", "players"), [("tranca-000", 2), ("canasta-002", 4)])
def test_openspiels_consistency_checks_pass_on_random_playouts(name: str, players: int) -> None:
    pyspiel.random_sim_test(load(name, players), num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_openspiels_random_bots_play_whole_deals(name: str, players: int) -> None:
    game = load(name, players)
    bots = [pyspiel.make_uniform_random_bot(p, 7 + p) for p in range(players)]
    state = play(game.new_initial_state(), bots, np.random.RandomState(3))
    returns = state.returns()
    assert sum(returns) == 0
    assert state.deal is not None and state.deal.is_over
    # The returns are the engine's scores: each seat's side's minus the other's.
    assert returns[0] == -returns[1]


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_openspiels_ismcts_bot_plays_whole_deals(name: str, players: int) -> None:
    game = load(name, players)
    rng = np.random.RandomState(5)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    searcher = ismcts.ISMCTSBot(
        game,
        evaluator,
        uct_c=2.0,
        max_simulations=2,
        random_state=rng,
        allow_inconsistent_action_sets=True,
    )
    bots = [searcher] + [pyspiel.make_uniform_random_bot(p, p) for p in range(1, players)]
    state = play(game.new_initial_state(), bots, rng)
    assert state.is_terminal()


def test_every_legal_move_has_an_action_and_back() -> None:
    for name, players in GAMES:
        for seed in range(3):
            s, _ = advance(name, players, seed, 40 * seed)
            if s.is_over:
                continue
            for move in legal_moves(s):
                assert action_to_move(move_to_action(move)) == move


@pytest.mark.parametrize("seed", range(12))
def test_observations_carry_nothing_hidden(seed: int) -> None:
    """A seat's observation and information-state strings and tensors are the same
    for two deals that differ only in cards it cannot see."""
    name, players = GAMES[seed % len(GAMES)]
    game = load(name, players)
    s, memories = advance(name, players, seed, 10 + 9 * seed)
    seat = s.turn
    twin = hidden_twin(s, seat, memories[seat], random.Random(seed))
    assert twin.hands != s.hands or twin.stock != s.stock
    views = []
    for deal in (s, twin):
        state = game.new_initial_state()
        state.deal = deal
        state.memories = memories
        views.append(
            (
                state.observation_string(seat),
                list(state.observation_tensor(seat)),
                list(state.information_state_tensor(seat)),
            )
        )
    assert views[0] == views[1]
    # And the seat's own hand is in them: the check is not vacuous.
    state = game.new_initial_state()
    state.deal = s
    assert sum(state.observation_tensor(seat)[-53:]) == len(s.hands[seat])


def test_a_resampled_state_keeps_the_players_information() -> None:
    game = load("tranca-003", 4)
    rng = np.random.RandomState(1)
    state = game.new_initial_state()
    bots = [pyspiel.make_uniform_random_bot(p, p) for p in range(4)]
    while state.is_chance_node() or state.move_number() < 150:
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.choice(len(outcomes))][0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(5):
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.legal_actions() == state.legal_actions()


def test_openspiels_ismcts_plays_in_our_loop_from_the_seats_information() -> None:
    from tranca_rules.levels import make_bot
    from tranca_rules.simulate import play_deal

    rules = make_rules("tranca-000")
    bots = [OpenSpielISMCTS(rules, 2, 1, 3), make_bot("greedy", 2)]
    s, result = play_deal(rules, 2, 9, bots, check=True)
    assert s.is_over and result.invariant_failures == []
