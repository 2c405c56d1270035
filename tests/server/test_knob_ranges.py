"""Every integer rule knob has a range (docs/RULES.md, "Knob ranges"): outside it an
override is refused, naming the knob; inside it, at its extremes, a game plays to its
end and can be stored and read at every version (the snapshot, the seats' views and
the deal results all encode; no score nears a 64-bit integer)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tranca.api.convert import deal_result_to_pb, view_to_pb
from tranca.store.codec import dumps, state_from_text, state_text
from tranca.table.game import Action, Setup, apply_action, new_game, play_action
from tranca_rules.engine import legal_moves
from tranca_rules.errors import RulesError
from tranca_rules.presets import KNOB_RANGES, PRESETS, make_rules

INT64 = (-(2**63), 2**63 - 1)


def _override(knob: str, value: int) -> dict[str, object]:
    if knob.startswith("canastra_bonus."):
        return {"canastra_bonus": {knob.split(".", 1)[1]: value}}
    if knob == "card_values":
        return {knob: [value] * 14}
    if knob == "player_counts":
        return {knob: [value]}
    return {knob: value}


@pytest.mark.parametrize("knob", sorted(KNOB_RANGES))
def test_a_knob_outside_its_range_is_refused_with_its_name(knob: str) -> None:
    low, high = KNOB_RANGES[knob]
    for value in (low - 1, high + 1, *INT64):
        with pytest.raises(RulesError) as refused:
            make_rules("tranca-003", _override(knob, value))
        message = str(refused.value)
        assert f"{knob} is {low} to {high}" in message
        assert len(message) < 300


def test_a_match_to_a_target_needs_points_to_reach_it() -> None:
    nothing = {
        "card_values": [0] * 14,
        "batida_bonus": 0,
        "canastra_bonus": {"clean": 0, "dirty": 0, "real": 0, "all_wilds": 0, "ace_to_ace": 0},
    }
    with pytest.raises(RulesError, match="a target_score needs points"):
        make_rules("tranca-003", nothing)
    make_rules("tranca-003", {**nothing, "target_score": 0})  # a single deal is fine


def _play_to_the_end(preset: str, overrides: dict[str, object], seed: int) -> int:
    """Play a match with random legal moves; at every deal's end, and at the end, the
    game encodes and every seat's view and the deal's result convert. Returns the
    deals played (at most a few: a long match is cut, its deals already checked)."""
    rules = make_rules(preset, overrides)
    players = max(rules.player_counts)
    g = new_game(Setup(rules, players, seed))
    version = 0
    for seat in range(players):
        version += 1
        apply_action(g, Action("join", seat), version)
    version += 1
    apply_action(g, Action("start", 0), version)
    rng = random.Random(seed)
    deals = 0
    while g.status == "playing" and deals < 3:
        deal = g.deal
        assert deal is not None
        version += 1
        apply_action(g, play_action(deal.turn, rng.choice(legal_moves(deal))), version)
        if g.last_deal is not None and int(g.last_deal["deal_number"]) > deals:
            deals = int(g.last_deal["deal_number"])
            result = deal_result_to_pb(g.last_deal)
            for score in result.scores:
                assert INT64[0] < score.total < INT64[1]
            result.SerializeToString()
            stored = state_from_text(state_text(g), dumps(g.setup.to_dict()))
            assert stored.to_dict() == g.to_dict()
            for seat in range(-1, players):
                view_to_pb("g", version, g, seat).SerializeToString()
    return deals


@settings(max_examples=12, deadline=None)
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    extreme=st.sampled_from(["low", "high"]),
    seed=st.integers(0, 2**31),
)
def test_games_at_the_knobs_extremes_play_and_stay_readable(
    preset: str, extreme: str, seed: int
) -> None:
    """Every points knob at the bottom or the top of its range at once."""
    points = [k for k in KNOB_RANGES if k not in ("player_counts", "hand_size", "morto_size")]
    overrides: dict[str, object] = {}
    for knob in points:
        if knob in ("max_wilds_per_meld", "min_naturals", "canastra_size", "target_score"):
            continue  # shapes of play, not points: their extremes are other games
        low, high = KNOB_RANGES[knob]
        value = low if extreme == "low" else high
        for key, v in _override(knob, value).items():
            existing = overrides.get(key)
            if isinstance(v, dict) and isinstance(existing, dict):
                existing.update(v)
            else:
                overrides[key] = v
    if extreme == "low":
        overrides["target_score"] = 0  # nothing to score: one deal
    else:
        overrides["target_score"] = KNOB_RANGES["target_score"][1]
    assert _play_to_the_end(preset, overrides, seed) >= 1
