"""The game model's part of a rematch (table/game.py): a finished match records each
seat's confirmation and its next match; a next match holds its seats for the last
match's players until a join by the rematch claims each or a release frees them; every
snapshot reads back as written and the log, replayed, rebuilds it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tranca.services.rematch import held_seats
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
from tranca.table.head import options_text
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


def test_the_table_head_stays_the_first_player_seated_at_the_table_across_a_rematch() -> None:
    # 003: "Las opciones de mesa son elegidas por el jefe de mesa (el primer jugador que
    # se ha sentado en la mesa y que tiene una estrella estrella junto a su avatar)".
    # Seat 1 sat down first: the head, in this match and in the next, even when seat 0
    # confirms the rematch first; a player who sits down only for the next match comes
    # after both.
    setup = Setup(PRESETS["tranca-000"], 4, 7)
    first = rebuild(
        setup,
        [
            Action(ActionKind.JOIN, 1, name="b", player_id="pb"),
            Action(ActionKind.JOIN, 0, name="a", player_id="pa"),
            Action(ActionKind.JOIN, 3, name="d", player_id="pd"),
            Action(ActionKind.JOIN, 2, name="c", player_id="pc"),
            Action(ActionKind.START),
            Action(ActionKind.RESIGN, 0),
        ],
    )
    assert first.head == 1
    held = held_seats(first)
    assert held == (1, 0, 3, 2)
    nxt = Setup(setup.rules, 4, 8, table_id="t", match_number=2, held=held, hold_until=9)
    actions = [
        Action(ActionKind.JOIN, 0, name="a", player_id="pa", text=REMATCH_CLAIM),
        Action(ActionKind.RELEASE),
        Action(ActionKind.JOIN, 2, name="e", player_id="pe"),  # a newcomer, in c's freed seat
        Action(ActionKind.JOIN, 1, name="b", player_id="pb", text=REMATCH_CLAIM),
    ]
    g = rebuild(nxt, actions[:1])
    assert g.head == 0  # the only player seated so far
    g = rebuild(nxt, actions)
    assert g.joins == [1, 0, 2] and g.head == 1
    assert roundtrip(g).to_dict() == g.to_dict()


def test_a_rematch_claim_agrees_anew_to_a_stake_changed_since() -> None:
    # 003: "Las opciones de mesa se pueden cambiar antes de empezar la partida o entre
    # partida y partida". The first to confirm (for now the only player, so the head)
    # makes the next match rated with a stake; the other player's claim, confirmed on
    # the last match's terms, has not agreed to it: no start until they do.
    rules = PRESETS["tranca-000"]
    nxt = Setup(rules, 2, 8, table_id="t", match_number=2, held=(0, 1), hold_until=9)
    g = new_game(nxt)
    apply_action(g, Action(ActionKind.JOIN, 1, name="b", player_id="pb", text=REMATCH_CLAIM), 1)
    rated = replace(g.setup.table, competitive=True, stake=50)
    apply_action(g, Action(ActionKind.OPTIONS, 1, text=options_text(rated, False)), 2)
    apply_action(g, Action(ActionKind.JOIN, 0, name="a", player_id="pa", text=REMATCH_CLAIM), 3)
    assert g.unconsented == {0}
    with pytest.raises(GameError) as early:
        apply_action(g, Action(ActionKind.START), 4)
    assert early.value.reason == "CONSENT_PENDING"
    apply_action(g, Action(ActionKind.CONSENT, 0), 4)
    apply_action(g, Action(ActionKind.START), 5)
    assert g.setup.table.stake == 50
