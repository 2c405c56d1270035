"""A match: one deal, or deals until a side reaches the target score, with the
dealer rotating clockwise and the tie-breaks of each preset."""

from __future__ import annotations

import random
from typing import Any

from .engine import new_deal
from .presets import Rules, TieBreak, rules_from_dict
from .scoring import score_deal
from .state import NOBODY, DealState

DRAWN = -2  # winner value of a drawn match


def deal_seed(match_seed: int, deal_index: int) -> int:
    """The seed of deal ``deal_index`` of a match: independent per deal, and fixed by
    the match seed alone, so a whole match can be replayed from its seed."""
    return random.Random(f"{match_seed}:{deal_index}").getrandbits(63)


class Match:
    """Totals, deals played and who won. The current deal is ``self.deal``."""

    def __init__(
        self,
        rules: Rules,
        n_players: int,
        seed: int,
        first_deck: list[int] | None = None,
        *,
        restored: tuple[int, DealState] | None = None,
    ) -> None:
        """``first_deck`` fixes the order of the first deal's deck (duplicate tournaments);
        every other deal is shuffled from ``seed``. ``restored`` (the first dealer and
        the current deal) is ``from_dict``'s: a stored match is neither drawn for nor
        dealt again."""
        self.rules = rules
        self.n_players = n_players
        self.seed = seed
        n_sides = 2 if n_players == 4 else n_players
        self.totals = [0] * n_sides
        self.deal_scores: list[list[int]] = []
        self.winner = NOBODY  # a side, DRAWN, or NOBODY while the match goes on
        if restored is not None:
            self.first_dealer, self.deal = restored
            return
        # The first dealer is drawn by lot (000: "o próprio jogo fará um sorteio").
        self.first_dealer = random.Random(f"{seed}:dealer").randrange(n_players)
        self.deal = self._deal(0, first_deck)

    @property
    def n_sides(self) -> int:
        return len(self.totals)

    @property
    def is_over(self) -> bool:
        return self.winner != NOBODY

    @property
    def first_side(self) -> int:
        """The side that played first in the match (003's tie-break)."""
        return ((self.first_dealer + 1) % self.n_players) % self.n_sides

    def dealer_of(self, index: int) -> int:
        return (self.first_dealer + index) % self.n_players

    def _deal(self, index: int, deck: list[int] | None = None) -> DealState:
        return new_deal(
            self.rules,
            self.n_players,
            seed=deal_seed(self.seed, index),
            dealer=self.dealer_of(index),
            deck=deck,
        )

    def finish_deal(self, next_deck: list[int] | None = None) -> None:
        """Record the finished deal's scores; decide the match or deal the next one.
        ``next_deck`` fixes the order of the next deal's deck (a verifiable table's
        caller derives every deal's deck itself); otherwise it is shuffled from ``seed``."""
        if not self.deal.is_over:
            raise ValueError("the deal is not over")
        if self.is_over:
            raise ValueError("the match is over")
        scores = [sc.total for sc in score_deal(self.deal)]
        self.deal_scores.append(scores)
        for i, v in enumerate(scores):
            self.totals[i] += v
        self.winner = decide(self.rules, self.totals, len(self.deal_scores), self.first_side)
        if not self.is_over:
            self.deal = self._deal(len(self.deal_scores), next_deck)

    def to_dict(self, with_rules: bool = True) -> dict[str, Any]:
        """``with_rules=False`` leaves the rules out (and out of the deal), for a
        container that stores them once and passes them back to ``from_dict``."""
        out: dict[str, Any] = {"rules": self.rules.to_dict()} if with_rules else {}
        out.update(
            {
                "n_players": self.n_players,
                "seed": self.seed,
                "totals": list(self.totals),
                "deal_scores": [list(d) for d in self.deal_scores],
                "first_dealer": self.first_dealer,
                "winner": self.winner,
                "deal": self.deal.to_dict(with_rules),
            }
        )
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], rules: Rules | None = None) -> Match:
        """``rules``, when the caller already holds them, spares decoding them again."""
        rules = rules if rules is not None else rules_from_dict(data["rules"])
        deal = DealState.from_dict(data["deal"], rules)
        m = cls(
            rules,
            int(data["n_players"]),
            int(data["seed"]),
            restored=(int(data["first_dealer"]), deal),
        )
        m.totals = list(data["totals"])
        m.deal_scores = [list(d) for d in data["deal_scores"]]
        m.winner = int(data["winner"])
        return m


def decide(rules: Rules, totals: list[int], deals_played: int, first_side: int) -> int:
    """The winning side, DRAWN, or NOBODY if another deal is to be played.

    With no target the match is one deal. With a target, the match ends once a side
    reaches it; if several do, the highest total wins (000: "o jogador ou dupla que
    tiver a maior pontuação acumulada vence"). A tie for the lead is settled by the
    preset's tie-break.
    """
    if rules.target_score and max(totals) < rules.target_score:
        return NOBODY
    best = max(totals)
    leaders = [i for i, t in enumerate(totals) if t == best]
    if len(leaders) == 1:
        return leaders[0]
    if rules.tie_break == TieBreak.FIRST_PLAYER:
        return first_side if first_side in leaders else leaders[0]
    if rules.tie_break == TieBreak.DRAW:
        return DRAWN
    return NOBODY  # EXTRA_DEAL
