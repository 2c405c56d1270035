"""Stored text: snapshots, setups and log entries are JSON.

orjson reads and writes a game's snapshot several times faster than the standard
library, and a move reads one snapshot and writes one, so the codec is on every
move's path. Keys are always strings and integers fit in 64 bits (seeds are
unsigned 64-bit at most), which is all orjson asks.
"""

from __future__ import annotations

from typing import Any

import orjson

from tranca_rules.moves import move_text, parse_move

from ..reasons import Reason
from ..table.game import (
    PLATFORM_SCHEMA_VERSION,
    Action,
    GameError,
    GameState,
    Setup,
)


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def loads(text: str | bytes) -> Any:
    return orjson.loads(text)


def state_text(state: GameState, schema: int = PLATFORM_SCHEMA_VERSION) -> str:
    """The snapshot column: the state without its setup, which has a column of its own
    and never changes. ``schema=1`` writes what releases that read only schema 1
    expect (the setup inside; they take the rules from it), for a rolling upgrade
    from such a release (``tranca serve --snapshot-schema 1``)."""
    if schema < PLATFORM_SCHEMA_VERSION and state.uses_platform:
        # A replica of an earlier release may still run (``--snapshot-schema`` below 3
        # says so); it could not read this game, so it is not written.
        raise GameError(
            Reason.PLATFORM_NOT_ENABLED,
            "table options and player ids are enabled once every replica runs this release",
        )
    if schema == 1:
        return dumps({**state.to_dict(with_setup=True), "schema": 1})
    return dumps(state.to_dict(with_setup=False))


def state_from_text(text: str | bytes, setup_text: str) -> GameState:
    return GameState.from_dict(orjson.loads(text), setup_from_text(setup_text))


_SETUPS: dict[str, Setup] = {}
_SETUPS_KEPT = 4096


def setup_from_text(text: str) -> Setup:
    """Memoised by the stored text: every move reads its game's setup, and decoding its
    rules is a good part of a snapshot load. ``Setup`` is never mutated after the
    game is created, so one instance per distinct text is shared; the bound keeps
    the memory flat whatever the number of games."""
    setup = _SETUPS.get(text)
    if setup is None:
        if len(_SETUPS) >= _SETUPS_KEPT:
            _SETUPS.clear()
        setup = _SETUPS[text] = Setup.from_dict(orjson.loads(text))
    return setup


# ----- the log: one action per row -------------------------------------------------
#
# An action is stored as a compact JSON object with its fields in this order, each
# left out when it has its default (the seat is always written):
#
#     {"kind":"move","seat":1,"move":"meld 4H 5H 6H","by":"robot"}
#
# A move is written in the text notation (``rules.moves``): the only place where a
# logged move is text. The format is the log's since its first release; stored logs
# are read back as they are (tests/server/test_codec.py).


def action_text(action: Action) -> str:
    d: dict[str, Any] = {"kind": action.kind, "seat": action.seat}
    if action.move is not None:
        d["move"] = move_text(action.move)
    if action.name:
        d["name"] = action.name
    if action.player_id:
        d["player_id"] = action.player_id
    if action.by:
        d["by"] = action.by
    if action.text:
        d["text"] = action.text
    return dumps(d)


def action_from_text(text: str | bytes) -> Action:
    """The logged action; ``InvalidMove`` when its move is not in the notation."""
    d = orjson.loads(text)
    move = d.get("move")
    return Action(
        str(d["kind"]),
        int(d.get("seat", -1)),
        parse_move(str(move)) if move else None,
        str(d.get("name", "")),
        str(d.get("player_id", "")),
        str(d.get("by", "")),
        str(d.get("text", "")),
    )
