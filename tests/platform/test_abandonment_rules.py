"""Who abandoned a finished rated match (platform/abandonment.py), automatic mode in
the game model (table/automatic.py), and a penalised player rated as a loss
(services/abandonment.py's rating), on the pure domain.

003: "un robot lo sustituye hasta que vuelve a entrar. El jugador tiene un margen de
unos minutos para regresar a la partida y continuar jugando."
"""

from __future__ import annotations

import pytest

from tranca.platform import ratings, sides
from tranca.platform.abandonment import AWAY, LEFT, SeatChange, abandonments, longest_absences
from tranca.services.abandonment import rate_with_losses
from tranca.table.action_kinds import ActionKind
from tranca.table.game import (
    BY_APP,
    BY_AUTO,
    Action,
    GameError,
    GameState,
    Setup,
    TableOptions,
    apply_action,
    new_game,
    rebuild,
)
from tranca_rules.presets import make_rules

GRACE = 180_000


def started(competitive: bool = True, players: int = 2) -> tuple[GameState, list[Action]]:
    setup = Setup(
        make_rules("tranca-003"),
        players,
        7,
        table=TableOptions(competitive=competitive, robot_grace_seconds=60),
    )
    g = new_game(setup)
    log = [Action(ActionKind.JOIN, s, name=f"p{s}", player_id=f"p{s}") for s in range(players)]
    log.append(Action(ActionKind.START))
    for version, a in enumerate(log, start=1):
        apply_action(g, a, version)
    return g, log


def robot(seat: int, at: int, by: str = "") -> SeatChange:
    return SeatChange(seat, ActionKind.ROBOT, by, at)


def back(seat: int, at: int) -> SeatChange:
    return SeatChange(seat, ActionKind.RETURN, "", at)


def test_the_longest_absence_runs_from_the_takeover_to_the_return_or_the_end() -> None:
    changes = [robot(1, 0), back(1, 100_000), robot(1, 200_000), robot(0, 0, BY_AUTO)]
    # Seat 1: 100 s, then 250 s to the end; seat 0 chose automatic mode: no absence.
    assert longest_absences(changes, 450_000) == {1: 250_000}
    assert longest_absences([robot(1, 0, BY_APP)], 10**9) == {}


def test_away_past_the_grace_leaving_and_automatic_mode() -> None:
    g, _ = started(players=4)
    g.seats[2].resigned = True
    changes = [robot(1, 0), robot(3, 0, BY_AUTO), robot(0, 0), back(0, GRACE)]
    found = abandonments(g, changes, GRACE + 1, GRACE)
    assert [(a.seat, a.player_id, a.how) for a in found] == [(1, "p1", AWAY), (2, "p2", LEFT)]
    # Within the grace (exactly), nobody is away.
    assert [a.seat for a in abandonments(g, [robot(1, 0)], GRACE, GRACE)] == [2]


def test_no_abandonment_at_a_practice_table_or_by_the_apps_removal() -> None:
    g, _ = started(competitive=False)
    g.seats[0].resigned = True
    assert abandonments(g, [robot(1, 0)], 10**9, GRACE) == []
    g, _ = started()
    g.seats[0].resigned = True
    g.removed_players.add("p0")  # the app removed them (AdminService.RemoveSeat)
    assert abandonments(g, [], 10**9, GRACE) == []


def test_automatic_mode_in_the_log_replays_and_refuses_twice() -> None:
    g, log = started()
    on = Action(ActionKind.ROBOT, 0, by=BY_AUTO, text="random")
    apply_action(g, on, len(log) + 1)
    assert g.automatic == {0: "random"} and 0 in g.robots and g.were_automatic == {0}
    assert on.actor == "player"
    with pytest.raises(GameError) as twice:
        apply_action(g, on, len(log) + 2)
    assert twice.value.reason == "AUTOMATIC_ALREADY_ON"
    off = Action(ActionKind.RETURN, 0)
    apply_action(g, off, len(log) + 2)
    assert g.automatic == {} and g.robots == set() and g.were_automatic == {0}
    rebuilt = rebuild(g.setup, [*log, on, off])
    assert rebuilt.to_dict() == g.to_dict()
    assert GameState.from_dict(g.to_dict(), g.setup).to_dict() == g.to_dict()


def test_automatic_mode_at_a_table_without_robots_and_not_after_the_end() -> None:
    setup = Setup(make_rules("tranca-003"), 2, 7)
    g = new_game(setup)
    for version, a in enumerate(
        [Action(ActionKind.JOIN, 0, name="a"), Action(ActionKind.JOIN, 1, name="b")], start=1
    ):
        apply_action(g, a, version)
    with pytest.raises(GameError) as early:
        apply_action(g, Action(ActionKind.ROBOT, 0, by=BY_AUTO), 3)
    assert early.value.reason == "GAME_NOT_STARTED"
    apply_action(g, Action(ActionKind.START), 3)
    apply_action(g, Action(ActionKind.ROBOT, 1, by=BY_AUTO), 4)
    assert g.uses_platform and 1 in g.robots
    apply_action(g, Action(ActionKind.RESIGN, 0), 5)
    with pytest.raises(GameError) as late:
        apply_action(g, Action(ActionKind.ROBOT, 0, by=BY_AUTO), 6)
    assert late.value.reason == "GAME_OVER"


def test_a_penalised_player_of_a_winning_side_is_rated_as_a_loss() -> None:
    book = ratings.RatingBook({})
    players = ["a", "b", "c", "d"]  # sides: a and c against b and d
    real = ratings.rate_match(book, sides(players), 0)
    penalised = rate_with_losses(book, players, 0, frozenset({"c"}))
    assert penalised["a"] == real["a"]  # the partner keeps the side's win
    assert penalised["c"].mu < book["c"].mu < real["c"].mu
    assert penalised["b"] == real["b"] and penalised["d"] == real["d"]
    # A penalised player whose side lost is rated as it ended.
    assert rate_with_losses(book, players, 0, frozenset({"b"}))["b"] == real["b"]
