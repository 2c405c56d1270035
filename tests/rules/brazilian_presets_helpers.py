"""Running a test of the Brazilian presets for the presets whose table has its rule,
and the positions and checks their tests share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import pytest

from tests.rules.brazilian_presets_table import PRESETS, Preset
from tranca_rules.cards import card_text, full_deck, parse_cards
from tranca_rules.engine import legal_moves, play
from tranca_rules.errors import Reason, RuleViolation
from tranca_rules.moves import move_text, parse_move
from tranca_rules.position import build_position
from tranca_rules.state import DealState

# ----- running a test for the presets of a rule ------------------------------------------

_Test = TypeVar("_Test", bound=Callable[..., None])
_CHECKED: set[str] = set()  # the rules the tests below check


def _presets_with(test: Callable[..., None]) -> list[Preset]:
    """The presets whose table holds the rule ``test`` is named after."""
    rule = test.__name__.removeprefix("test_").replace("_", " ")
    presets = [p for p in PRESETS if rule in p.rules]
    if not presets:
        raise LookupError(f"{test.__name__}: no preset of the table has the rule {rule!r}")
    _CHECKED.add(rule)
    return presets


def rule(test: _Test) -> _Test:
    """Run ``test`` for every preset that has the rule it is named after."""
    presets = _presets_with(test)
    # (mypy types a mark over a Callable[..., None] as Any: hence the annotation)
    marked: _Test = pytest.mark.parametrize("preset", presets, ids=[p.name for p in presets])(test)
    return marked


def rule_at_each_table_size(test: _Test) -> _Test:
    """Run ``test`` for every preset that has its rule, at each of its table sizes."""
    pairs = [(p, n) for p in _presets_with(test) for n in p.player_counts.value]
    ids = [f"{p.name}-{n}-players" for p, n in pairs]
    marked: _Test = pytest.mark.parametrize(("preset", "n_players"), pairs, ids=ids)(test)
    return marked


# ----- helpers --------------------------------------------------------------------------

CLEAN_RUN = "4S 5S 6S 7S 8S 9S TS"  # seven naturals of one suit: a clean canastra
DIRTY_RUN = "4D 5D 6D 7D 8D 9D 2C"  # six naturals and a wild: a dirty canastra
SET_OF_SEVEN = "9C 9D 9H 9S 9C 9D 9H"  # a canastra only where sets can be canastras
SET_OF_SIX = "9C 9D 9H 9S 9C 9D"  # one card short of a canastra
MORTO_A = "4H 5H 6H 7H 8H 9H TH JH QH KH AH"
MORTO_B = "4C 5C 6C 7C 8C 9C TC JC QC KC AC"


def position(
    preset: Preset,
    n_players: int = 2,
    *,
    hands: Sequence[str],
    melds: Sequence[tuple[int, str]] = (),
    pile: str = "",
    stock: str = "",
    mortos: Sequence[str | None] | None = None,
    phase: str = "draw",
    red_threes: Sequence[str] | None = None,
) -> DealState:
    return build_position(
        preset.knobs,
        n_players,
        hands=hands,
        melds=melds,
        pile=pile,
        stock=stock,
        mortos=mortos,
        phase=phase,
        red_threes=red_threes,
    )


def rejected(s: DealState, seat: int, move: str) -> Reason:
    """Play a move that must be refused: check that it was not offered as legal and
    that nothing changed; return the reason."""
    before = s.to_dict()
    offered = legal_moves(s) if seat == s.turn and not s.is_over else []
    with pytest.raises(RuleViolation) as refused:
        play(s, seat, move)
    assert s.to_dict() == before
    assert parse_move(move) not in offered
    return refused.value.reason


def texts(cards: list[int]) -> list[str]:
    return sorted(card_text(c) for c in cards)


def legal(s: DealState) -> list[str]:
    return [move_text(m) for m in legal_moves(s)]


def kinds_of_canastras(s: DealState) -> list[str | None]:
    return [m.canastra_kind(s.rules) for m in s.melds]


def deck_with(front: str) -> list[int]:
    """A full 104-card deck in a fixed order: ``front`` first (dealt one card at a time
    from the left of the dealer), the red threes not named there last (the bottom
    of the stock)."""
    first = parse_cards(front)
    rest = full_deck(jokers=False)
    for c in first:
        rest.remove(c)
    reds = [c for c in rest if card_text(c) in ("3H", "3D")]
    return first + [c for c in rest if card_text(c) not in ("3H", "3D")] + reds


def play_out(s: DealState) -> None:
    """Play the first legal move until the deal ends."""
    for _ in range(5000):
        if s.is_over:
            return
        play(s, s.turn, legal(s)[0])
    raise AssertionError("the deal did not end")
