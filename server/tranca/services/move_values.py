"""Moves as a request carries them and an answer shows them: card texts, a meld id
and the move's kind by name (``MoveValue``), read into the engine's ``Move`` here and
written back from it, so that no transport reads a card or knows a move's shape.

A move that cannot be read is not refused at once: the use case refuses it only once
it knows the caller (a malformed move from a caller without a seat is refused for the
seat), so reading gives a ``ChosenMove`` (or a ``ChosenTurn``) that holds either the
move or its refusal."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tranca_rules.cards import card_text, parse_card
from tranca_rules.errors import InvalidMove
from tranca_rules.moves import (
    ADD,
    DISCARD,
    DRAW,
    KIND_NAMES,
    MELD,
    NO_MELD,
    REPLACE,
    TAKE,
    Move,
    check_shape,
    move_text,
)

from .errors import MoveRefused, malformed

__all__ = [
    "KIND_NAMES",
    "ChosenMove",
    "ChosenTurn",
    "Move",
    "MoveValue",
    "move_value",
    "move_values",
    "read_move",
    "read_turn",
]


@dataclass(slots=True)
class MoveValue:
    """A move in a request's or an answer's terms. ``kind``: one of ``KIND_NAMES``
    ("" when the request sets none); ``meld_id``: the meld it names, None when it
    names none (a pile taken with cards, a new meld, a draw, a discard); ``cards``:
    card texts; ``text``: the move's canonical text (answers only).

    Not frozen, as a request's move is read into one on every move (a frozen
    dataclass sets each field through ``object.__setattr__``), and not hashable;
    never changed: ``move_value`` hands the same value to every answer."""

    kind: str
    meld_id: int | None = None
    cards: tuple[str, ...] = ()
    text: str = ""


@dataclass(slots=True)
class ChosenMove:
    """A move read from a request, or the refusal of it (see the module's docstring)."""

    move: Move | None
    refusal: Exception | None = None

    def get(self) -> Move:
        if self.refusal is not None:
            raise self.refusal
        assert self.move is not None
        return self.move


@dataclass(frozen=True, slots=True)
class ChosenTurn:
    """A turn's moves read from a request, or the refusal of the first that could not
    be read (a ``MoveRefused`` naming its place)."""

    moves: tuple[Move, ...]
    refusal: Exception | None = None

    def get(self) -> tuple[Move, ...]:
        if self.refusal is not None:
            raise self.refusal
        return self.moves


def _card(text: str) -> int:
    try:
        return parse_card(text)
    except ValueError as exc:
        raise InvalidMove(str(exc)) from None


# A move's kind by its name: a request's kind is looked up once, not compared with
# each kind's name in turn.
_KINDS = {name: kind for kind, name in enumerate(KIND_NAMES)}


def _parsed(value: MoveValue) -> Move:
    kind = _KINDS.get(value.kind)
    cards = value.cards
    if kind == DISCARD:
        move = Move(DISCARD, NO_MELD, (_card(cards[0]),) if cards else ())
    elif kind == DRAW:
        move = Move(DRAW)
    elif kind == TAKE:
        if value.meld_id is not None:
            if cards:
                raise InvalidMove("take_pile sets either meld_id or cards, not both")
            move = Move(TAKE, value.meld_id, ())
        else:
            move = Move(TAKE, NO_MELD, tuple(sorted(_card(c) for c in cards)))
    elif kind == MELD:
        move = Move(MELD, NO_MELD, tuple(sorted(_card(c) for c in cards)))
    elif kind in (ADD, REPLACE):
        meld_id = value.meld_id if value.meld_id is not None else 0
        move = Move(kind, meld_id, (_card(cards[0]),) if cards else ())
    else:  # no kind set ("" or a name no kind has)
        raise InvalidMove("the move sets none of its kinds")
    if move.meld < NO_MELD:
        raise InvalidMove("meld ids are 0 or more")
    return check_shape(move)


def read_move(value: MoveValue | None) -> ChosenMove:
    """The move a request carries (None: it carries none, MALFORMED_REQUEST)."""
    if value is None:
        return ChosenMove(None, malformed("move is required"))
    try:
        return ChosenMove(_parsed(value))
    except InvalidMove as exc:
        return ChosenMove(None, exc)


def read_turn(values: Sequence[MoveValue]) -> ChosenTurn:
    """A turn's moves, in order; the first that cannot be read refuses the turn."""
    moves = []
    for index, value in enumerate(values, start=1):
        try:
            moves.append(_parsed(value))
        except InvalidMove as exc:
            return ChosenTurn((), MoveRefused(index, exc))
    return ChosenTurn(tuple(moves))


# Each distinct move's value, kept: the same few moves recur in every game, and an
# answer's legal moves are looked up here one by one. A dict, not an lru_cache: a
# hit is a hash of the move, without the cache's key tuple and its order kept;
# bounded as the transports' kept messages are (cleared when full).
_MOVE_VALUES: dict[Move, MoveValue] = {}
_MOVE_VALUES_KEPT = 65_536


def move_value(move: Move) -> MoveValue:
    """A move as an answer shows it: the same value for the same move while it is
    kept (a transport may keep what it writes of it)."""
    value = _MOVE_VALUES.get(move)
    if value is None:
        if len(_MOVE_VALUES) >= _MOVE_VALUES_KEPT:
            _MOVE_VALUES.clear()
        kind, meld_id, cards = move
        value = _MOVE_VALUES[move] = MoveValue(
            KIND_NAMES[kind],
            None if meld_id == NO_MELD else meld_id,
            tuple(card_text(c) for c in cards),
            move_text(move),
        )
    return value


def move_values(moves: Sequence[Move]) -> list[MoveValue]:
    kept = _MOVE_VALUES.get
    return [kept(m) or move_value(m) for m in moves]
