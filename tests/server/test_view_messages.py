"""The view's meld messages are kept between answers (api/convert.py): what every
view shows must still be each meld laid out afresh, move after move, in every
preset, and no caller can change what a later view shows."""

from __future__ import annotations

import random

import pytest

from tranca.api import convert
from tranca.api.convert import CANASTRA, MELD_KIND, view_to_pb
from tranca.table.game import Action, GameState, Setup, apply_action, new_game, play_action
from tranca.v1 import game_pb2 as pb
from tranca_rules.engine import legal_moves
from tranca_rules.presets import PRESETS
from tranca_rules.views import meld_view


def _fresh_melds(g: GameState) -> list[pb.Meld]:
    deal = g.deal
    assert deal is not None
    out = []
    for i in range(len(deal.melds)):
        mv = meld_view(deal, i)
        # Each wild is marked, and only a card that can be one.
        assert len(mv["wild_indexes"]) == mv["wilds"]
        assert all(mv["cards"][k][0] == "2" or mv["cards"][k] == "JK" for k in mv["wild_indexes"])
        out.append(
            pb.Meld(
                id=mv["id"],
                side=mv["side"],
                kind=MELD_KIND[mv["kind"]],
                cards=mv["cards"],
                wilds=mv["wilds"],
                canastra=CANASTRA[mv["canastra"]],
                wild_indexes=mv["wild_indexes"],
            )
        )
    return out


def _started(preset: str, players: int, seed: int) -> tuple[GameState, int]:
    g = new_game(Setup(PRESETS[preset], players, seed))
    version = 0
    for seat in range(players):
        version += 1
        apply_action(g, Action("join", seat), version)
    version += 1
    apply_action(g, Action("start", 0), version)
    return g, version


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_view_shows_each_meld_as_laid_out_afresh(preset: str) -> None:
    rules = PRESETS[preset]
    players = 4 if 4 in rules.player_counts else rules.player_counts[0]
    rng = random.Random(preset)
    melds_seen = 0
    for seed in range(3):
        g, version = _started(preset, players, seed)
        for _ in range(400):
            deal = g.deal
            if g.status != "playing" or deal is None:
                break
            if seed == 1 and version % 50 == 0:
                convert._MELD_MESSAGES.clear()  # as when the bound is reached
            view = view_to_pb("g", version, g, deal.turn)
            assert list(view.melds) == _fresh_melds(g)
            melds_seen += len(view.melds)
            version += 1
            apply_action(g, play_action(deal.turn, rng.choice(legal_moves(deal))), version)
    assert melds_seen > 0  # the playouts laid melds down


def test_a_caller_changing_its_view_changes_no_later_view() -> None:
    rng = random.Random(3)
    g, version = _started("tranca-000", 2, 11)
    while g.deal is not None and not g.deal.melds:
        version += 1
        apply_action(g, play_action(g.deal.turn, rng.choice(legal_moves(g.deal))), version)
    assert g.deal is not None
    first = view_to_pb("g", version, g, 0)
    shown = list(first.melds[0].cards)
    first.melds[0].cards.append("XX")
    first.melds[0].side = 7
    again = view_to_pb("g", version, g, 0)
    assert list(again.melds[0].cards) == shown and again.melds[0].side != 7
