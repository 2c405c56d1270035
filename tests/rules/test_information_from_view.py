"""A seat's information read from its view alone (``information_from_view``): what
an API client's bot (the SDK's expert) searches from. It must be the information a
robot taking the seat mid-deal has (``information_of`` without a memory), except the
few facts the view does not show and only the scoring reads, and it must give the
seat to act exactly its legal moves in every deal sampled from it.
"""

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.rules.test_expert import GAMES, SMALL, advance
from tranca_rules.engine import legal_moves, new_deal
from tranca_rules.expert import search
from tranca_rules.information import (
    Information,
    information_from_view,
    information_of,
    sample_state,
    unseen_cards,
)
from tranca_rules.presets import make_rules
from tranca_rules.views import SPECTATOR, view_of

# Facts the view does not show; information_from_view assumes them (its docstring).
ASSUMED = ("has_melded", "melded_this_turn", "red_unreplaced", "morto_pending")


def comparable(info: Information) -> tuple[object, ...]:
    """The information's key with the melds' cards in one order (a view lays a run out
    in rank order; the deal keeps them in the order they were laid)."""
    key = list(info.key())
    key[11] = tuple(
        (m.id, m.side, tuple(sorted(m.cards)), m.shape, m.dirty_canastra) for m in info.melds
    )
    return tuple(key)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(GAMES),
    seed=st.integers(0, 10_000),
    moves=st.integers(0, 150),
    shuffle=st.integers(0, 2**32),
)
def test_a_views_information_is_the_seats_and_gives_its_legal_moves(
    game: tuple[str, int], seed: int, moves: int, shuffle: int
) -> None:
    name, players = game
    s, _ = advance(name, players, seed, moves)
    for seat in range(players):
        info = information_of(s, seat)
        from_view = information_from_view(view_of(s, seat), s.rules, s.move_count)
        assumed = {f: getattr(info, f) for f in ASSUMED}
        assert comparable(dataclasses.replace(from_view, **assumed)) == comparable(info)
    if s.is_over or not legal_moves(s):
        return
    seat = s.turn
    info = information_from_view(view_of(s, seat), s.rules, s.move_count)
    pool = list(unseen_cards(info).elements())
    random.Random(shuffle).shuffle(pool)
    world = sample_state(info, pool)
    legal = legal_moves(s)
    assert legal_moves(world) == legal
    assert search(info, legal, seed, SMALL)[0] in legal


def test_a_spectators_view_or_another_presets_rules_give_no_information() -> None:
    s = new_deal(make_rules("tranca-000"), 2, seed=1)
    with pytest.raises(ValueError):
        information_from_view(view_of(s, SPECTATOR), s.rules)
    with pytest.raises(ValueError):
        information_from_view(view_of(s, 0), make_rules("canasta-002"))
