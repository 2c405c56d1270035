"""The game model's part of a rematch (table/game.py): a finished match records each
seat's confirmation and its next match; a next match holds its seats for the last
match's players until a join by the rematch claims each or a release frees them; every
snapshot reads back as written and the log, replayed, rebuilds it."""

from __future__ import annotations

import pytest

from tranca.table.action_kinds import ActionKind
from tranca.table.errors import GameError
from tranca.table.game import (
    FINISHED,
    REMATCH_CLAIM,
    Action,
    GameState,
    Setup,
    apply_action,
    new_game,
    rebuild,
    rematch_text,
)
from tranca_rules.presets import PRESETS


def finished_match() -> tuple[GameState, list[Action]]:
    setup = Setup(PRESETS["tranca-000"], 2, 7)
    actions = [
        Action(ActionKind.JOIN, 0, name="a", player_id="pa"),
        Action(ActionKind.JOIN, 1, name="b", player_id="pb"),
        Action(ActionKind.START),
        Action(ActionKind.RESIGN, 0),
    ]
    return rebuild(setup, actions), actions


def roundtrip(g: GameState) -> GameState:
    return GameState.from_dict(g.to_dict())


def test_a_finished_match_records_each_confirmation_once() -> None:
    g, actions = finished_match()
    assert g.status == FINISHED
    confirm = Action(ActionKind.REMATCH, 1, text=rematch_text("next", 12_000))
    apply_action(g, confirm, 5)
    assert g.next_game_id == "next" and g.rematch_seats == {1} and g.rematch_until == 12_000
    with pytest.raises(GameError) as twice:
        apply_action(g, confirm, 6)
    assert twice.value.reason == "REMATCH_CONFIRMED"
    with pytest.raises(GameError) as other:
        apply_action(g, Action(ActionKind.REMATCH, 0, text=rematch_text("elsewhere", 1)), 6)
    assert other.value.reason == "MALFORMED_REQUEST"
    back = roundtrip(g)
    assert (back.next_game_id, back.rematch_seats, back.rematch_until) == ("next", {1}, 12_000)
    assert rebuild(g.setup, [*actions, confirm]).to_dict() == g.to_dict()


def test_a_match_under_way_has_no_rematch() -> None:
    setup = Setup(PRESETS["tranca-000"], 2, 7)
    g = new_game(setup)
    with pytest.raises(GameError) as early:
        apply_action(g, Action(ActionKind.REMATCH, 0, text=rematch_text("n", 1)), 1)
    assert early.value.reason == "MATCH_NOT_OVER"


def test_held_seats_take_only_the_rematch_claim_until_released() -> None:
    rules = PRESETS["tranca-000"]
    setup = Setup(rules, 4, 9, table_id="t", match_number=2, held=(0, 1, 3), hold_until=5_000)
    g = new_game(setup)
    assert g.held == {0, 1, 3} and setup.number == 2
    assert Setup.from_dict(setup.to_dict()) == setup
    with pytest.raises(GameError) as held:
        apply_action(g, Action(ActionKind.JOIN, 0, name="x", player_id="x"), 1)
    assert held.value.reason == "SEAT_HELD"
    claim = Action(ActionKind.JOIN, 0, name="a", player_id="pa", text=REMATCH_CLAIM)
    free = Action(ActionKind.JOIN, 2, name="c", player_id="pc")
    release = Action(ActionKind.RELEASE)
    for version, action in enumerate([claim, free, release], start=1):
        apply_action(g, action, version)
    assert not g.held and roundtrip(g).to_dict() == g.to_dict()
    with pytest.raises(GameError):
        apply_action(g, release, 4)
    late = Action(ActionKind.JOIN, 1, name="y", player_id="y")
    apply_action(g, late, 4)
    assert rebuild(setup, [claim, free, release, late]).to_dict() == g.to_dict()
