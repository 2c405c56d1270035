"""Build a position from text, for scenario tests, examples and bug reports.

A position need not hold a whole deck: it holds just the cards a scenario needs.

>>> from tranca_rules.presets import make_rules
>>> s = build_position(make_rules("tranca-000"), 2,
...     hands=["4H 5H 6H 9C", "KD KS"], melds=[(0, "7S 8S 9S")], pile="QC", stock="2C 3D")
>>> s.turn, str(s.phase), len(s.melds)
(0, 'draw', 1)
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import parse_cards
from .melds import Meld, Problem, classify
from .presets import Rules
from .state import DRAW_PHASE, NOBODY, DealState, Phase


def build_position(
    rules: Rules,
    n_players: int,
    *,
    hands: Sequence[str],
    melds: Sequence[tuple[int, str]] = (),
    pile: str = "",
    stock: str = "",
    mortos: Sequence[str | None] | None = None,
    turn: int = 0,
    phase: Phase | str = DRAW_PHASE,
    red_threes: Sequence[str] | None = None,
    pile_frozen: bool = False,
    morto_taken: Sequence[bool] | None = None,
    has_melded: Sequence[bool] | None = None,
) -> DealState:
    """A position with the given cards. ``pile`` and ``stock`` list cards bottom to
    top (the last is the top). ``mortos`` default to 11 face-down 4s of clubs; a
    morto given as None has been taken (``morto_taken`` then defaults to True)."""
    s = DealState(rules, n_players)
    if len(hands) != n_players:
        raise ValueError("one hand per seat")
    s.hands = [parse_cards(h) for h in hands]
    n_sides = s.n_sides
    if mortos is None:
        mortos = ["4C " * rules.morto_size] * n_sides
    s.mortos = [None if m is None else parse_cards(m) for m in mortos]
    s.morto_taken = list(morto_taken) if morto_taken is not None else [m is None for m in s.mortos]
    s.morto_pending = [NOBODY] * n_sides
    s.red_threes = [parse_cards(r) for r in red_threes] if red_threes else [[]] * n_sides
    s.red_threes = [list(r) for r in s.red_threes]
    s.red_unreplaced = [0] * n_sides
    for side, text in melds:
        cards = parse_cards(text)
        shape = classify(cards, rules)
        if isinstance(shape, Problem):
            raise ValueError(f"not a meld under {rules.name}: {text} ({shape.message})")
        meld = Meld(len(s.melds), side, [], shape)
        meld.set_cards(cards, shape, rules)
        s.melds.append(meld)
    s.pile = parse_cards(pile)
    s.stock = parse_cards(stock)
    s.turn = turn
    s.first_player = turn
    s.dealer = (turn - 1) % n_players
    s.phase = Phase(phase)
    s.pile_frozen = pile_frozen
    s.has_melded = list(has_melded) if has_melded is not None else [False] * n_players
    return s
