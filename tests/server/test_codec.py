"""The store's codec keeps the stored text of the log and of snapshots byte for byte:
an ``Action`` carries its ``Move`` since the typed vocabulary, but a log row is still
the JSON the earlier releases wrote (the move in the text notation), and a snapshot
still stores the status, the phase and the end reason as the same strings."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from tranca.store.codec import action_from_text, action_text, state_from_text, state_text
from tranca.table.game import (
    BY_TIMEOUT,
    Action,
    GameStatus,
    Setup,
    apply_action,
    new_game,
    play_action,
    rebuild,
)
from tranca_rules.engine import legal_moves
from tranca_rules.errors import InvalidMove
from tranca_rules.moves import Move, move_text, parse_move
from tranca_rules.presets import PRESETS
from tranca_rules.state import EndReason, Phase

# Rows as the releases before the typed vocabulary wrote them (``Action.to_dict``).
LOGGED = [
    '{"kind":"join","seat":0,"name":"ana"}',
    '{"kind":"join","seat":1,"name":"bo","player_id":"p-17"}',
    '{"kind":"join","seat":2,"name":"robot 2","by":"robot"}',
    '{"kind":"leave","seat":1}',
    '{"kind":"entropy","seat":0,"text":"alice: 1234"}',
    '{"kind":"start","seat":-1}',
    '{"kind":"move","seat":1,"move":"draw"}',
    '{"kind":"move","seat":1,"move":"take @3"}',
    '{"kind":"move","seat":1,"move":"take 5H 6H"}',
    '{"kind":"move","seat":0,"move":"meld 4H 5H 6H"}',
    '{"kind":"move","seat":0,"move":"add @2 7H"}',
    '{"kind":"move","seat":0,"move":"replace @2 6H"}',
    '{"kind":"move","seat":3,"move":"discard JK","by":"timeout"}',
    '{"kind":"move","seat":2,"move":"discard 9C","by":"robot"}',
    '{"kind":"resign","seat":1}',
    '{"kind":"robot","seat":1}',
    '{"kind":"return","seat":1}',
    '{"kind":"annul_vote","seat":0}',
]


def _old_action_text(kind: str, seat: int, move: str = "", **rest: str) -> str:
    """The earlier releases' writer: ``Action.to_dict`` with the move as text."""
    d: dict[str, Any] = {"kind": kind, "seat": seat}
    if move:
        d["move"] = move
    for key in ("name", "player_id", "by", "text"):
        if rest.get(key):
            d[key] = rest[key]
    return orjson.dumps(d).decode()


@pytest.mark.parametrize("row", LOGGED)
def test_a_row_of_the_earlier_format_reads_and_writes_back_the_same(row: str) -> None:
    action = action_from_text(row)
    stored = orjson.loads(row)
    if "move" in stored:
        assert isinstance(action.move, Move)
        assert action.move == parse_move(stored["move"])
    else:
        assert action.move is None
    assert action_text(action) == row
    assert action_from_text(action_text(action)) == action


def test_the_rows_of_whole_games_are_the_earlier_releases_bytes() -> None:
    """Every move of random playouts of every preset: logged as before, read back to
    the same action, and a game rebuilt from the old rows is the game played."""
    for preset in sorted(PRESETS):
        rules = PRESETS[preset]
        players = rules.player_counts[-1]
        rng = random.Random(preset)
        setup = Setup(rules, players, 7)
        g = new_game(setup)
        log = [Action("join", seat, name=f"p{seat}") for seat in range(players)]
        log.append(Action("start"))
        for version, action in enumerate(log, start=1):
            apply_action(g, action, version)
        old_rows = [_old_action_text("join", s, name=f"p{s}") for s in range(players)]
        old_rows.append(_old_action_text("start", -1))
        while g.status == GameStatus.PLAYING and len(log) < 300:
            deal = g.deal
            assert deal is not None
            seat, move = deal.turn, rng.choice(legal_moves(deal))
            by = BY_TIMEOUT if len(log) % 3 == 0 else ""
            action = play_action(seat, move, by)
            assert action.move is move  # carried as it is: no text on the way
            apply_action(g, action, len(log) + 1)
            log.append(action)
            old_rows.append(_old_action_text("move", seat, move_text(move), by=by))
        assert [action_text(a) for a in log] == old_rows
        read = [action_from_text(row) for row in old_rows]
        assert read == log
        assert rebuild(setup, read).to_dict() == g.to_dict()


def test_an_unreadable_logged_move_is_refused_when_read() -> None:
    with pytest.raises(InvalidMove):
        action_from_text('{"kind":"move","seat":0,"move":"juggle 3H"}')


def test_a_move_action_without_a_move_is_refused() -> None:
    g = new_game(Setup(PRESETS["tranca-000"], 2, 1))
    for version, action in enumerate(
        [Action("join", 0), Action("join", 1), Action("start")], start=1
    ):
        apply_action(g, action, version)
    with pytest.raises(InvalidMove):
        apply_action(g, Action("move", g.deal.turn if g.deal else 0), 4)


def test_snapshots_store_the_status_phase_and_end_reason_as_before() -> None:
    setup = Setup(PRESETS["tranca-000"], 2, 3)
    g = new_game(setup)
    text = state_text(g)
    assert orjson.loads(text)["status"] == "waiting"
    for version, action in enumerate(
        [Action("join", 0), Action("join", 1), Action("start")], start=1
    ):
        apply_action(g, action, version)
    stored = orjson.loads(state_text(g))
    assert stored["status"] == "playing"
    assert stored["match"]["deal"]["phase"] == "draw"
    assert stored["match"]["deal"]["end_reason"] == ""
    back = state_from_text(state_text(g), orjson.dumps(setup.to_dict()).decode())
    assert back.status is GameStatus.PLAYING
    assert back.deal is not None
    assert back.deal.phase is Phase.DRAW
    assert back.deal.end_reason is EndReason.NONE
    assert state_text(back) == state_text(g)
    assert [s.value for s in GameStatus] == ["waiting", "playing", "finished"]
    assert [p.value for p in Phase] == ["draw", "play", "over"]
    assert [r.value for r in EndReason] == ["", "batida", "stock_out", "no_legal_move"]
