"""When a finished deal's whole table is withheld (services/boards.py): only at a
table of a duplicate tournament round while the round plays, the same cards being
dealt at its other tables; and which deal a logged change ended."""

from __future__ import annotations

import random

from tranca.api.convert import public_view_to_pb
from tranca.services.boards import board_hidden, fold
from tranca.table.game import Action, GameState, Setup, apply_action, new_game, play_action
from tranca_rules.cards import full_deck
from tranca_rules.engine import legal_moves
from tranca_rules.presets import make_rules


class Rounds:
    """The one read the rule makes: whether the game's duplicate round plays."""

    def __init__(self, in_play: bool) -> None:
        self.in_play = in_play
        self.asked: list[str] = []

    async def duplicate_round_in_play(self, game_id: str) -> bool:
        self.asked.append(game_id)
        return self.in_play


def _single_deal(deck: list[int] | None) -> tuple[GameState, list[int]]:
    """A single deal played out by random moves; the deals each change ended."""
    g = new_game(Setup(make_rules("tranca-000", {"target_score": 0}), 2, 4, deck))
    ended: list[int] = []
    version = 0
    for action in (Action("join", 0, name="a"), Action("join", 1, name="b"), Action("start")):
        version += 1
        ended.append(fold(g, action, version))
    rng = random.Random(4)
    while g.status == "playing":
        deal = g.deal
        assert deal is not None
        version += 1
        ended.append(fold(g, play_action(deal.turn, rng.choice(legal_moves(deal))), version))
    return g, ended


async def test_a_game_without_a_fixed_deck_never_asks_and_shows_its_board() -> None:
    g, ended = _single_deal(None)
    assert ended.count(1) == 1 and ended[-1] == 1 and set(ended) == {0, 1}
    rounds = Rounds(in_play=True)
    assert not await board_hidden(rounds, "g", g)
    assert rounds.asked == []  # no duplicate round deals from a random deck
    assert public_view_to_pb("g", 9, g).HasField("final_board")


async def test_a_duplicate_rounds_table_withholds_its_board_while_the_round_plays() -> None:
    deck = full_deck(False)
    random.Random(1).shuffle(deck)
    g, _ = _single_deal(deck)
    assert await board_hidden(Rounds(in_play=True), "g", g)
    assert not public_view_to_pb("g", 9, g, board_hidden=True).HasField("final_board")
    assert not await board_hidden(Rounds(in_play=False), "g", g)


async def test_no_board_no_question() -> None:
    deck = full_deck(False)
    g = new_game(Setup(make_rules("tranca-000"), 2, 4, deck))
    for version, action in enumerate(
        (Action("join", 0, name="a"), Action("join", 1, name="b"), Action("start")), start=1
    ):
        apply_action(g, action, version)
    rounds = Rounds(in_play=True)
    assert not await board_hidden(rounds, "g", g)  # a deal under way has no board
    assert rounds.asked == []
