"""Scoring of a finished deal, with the breakdown apps show.

Every side's total is the sum of its breakdown's parts; the property tests check
that identity on every deal they play.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .cards import is_red_three, is_three, rank_of
from .engine import CLEAN_KINDS, side_canastra_kinds
from .state import NOBODY, DealState


@dataclass(frozen=True, slots=True)
class SideScore:
    side: int
    table_cards: int  # value of the cards in the side's melds
    canastras: dict[str, int] = field(default_factory=dict)  # bonus points by canastra kind
    canastra_counts: dict[str, int] = field(default_factory=dict)
    batida: int = 0  # bonus for going out
    red_threes: int = 0
    morto_penalty: int = 0  # negative: morto not taken, or taken and not used
    hand_cards: int = 0  # negative: cards left in the side's hands
    untaken_morto_cards: int = 0  # negative: cards of a morto never taken (002)

    @property
    def total(self) -> int:
        return (
            self.table_cards
            + sum(self.canastras.values())
            + self.batida
            + self.red_threes
            + self.morto_penalty
            + self.hand_cards
            + self.untaken_morto_cards
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["total"] = self.total
        return d


def card_points(card: int, values: tuple[int, ...]) -> int:
    return values[rank_of(card)]  # a joker's rank is 0, its index in the values


def score_deal(s: DealState) -> list[SideScore]:
    """The score of every side; meaningful once the deal is over (``s.is_over``)."""
    rules = s.rules
    values = rules.card_values
    bonus = rules.canastra_bonus
    bonus_by_kind = {
        "clean": bonus.clean,
        "dirty": bonus.dirty,
        "real": bonus.real,
        "all_wilds": bonus.all_wilds,
        "ace_to_ace": bonus.ace_to_ace,
    }
    out = []
    for side in range(s.n_sides):
        table = sum(card_points(c, values) for m in s.melds if m.side == side for c in m.cards)
        kinds = side_canastra_kinds(s, side)
        counts: dict[str, int] = {}
        for k in kinds:
            counts[k] = counts.get(k, 0) + 1
        canastras = {k: n * bonus_by_kind[k] for k, n in counts.items()}
        # Red threes: plus with the canastra the preset asks for, minus without.
        if rules.red_three_needs_clean_canastra:
            qualified = any(k in CLEAN_KINDS for k in kinds)
        else:
            qualified = bool(kinds)
        reds = len(s.red_threes[side])
        unreplaced = min(s.red_unreplaced[side], reds)
        sign = 1 if qualified else -1
        if qualified and reds == 4 and unreplaced == 0 and rules.all_red_threes_value:
            red_points = rules.all_red_threes_value
        else:
            low = rules.unreplaced_red_three_value or rules.red_three_value
            red_points = sign * ((reds - unreplaced) * rules.red_three_value + unreplaced * low)
        batida = 0
        if s.went_out != NOBODY and s.side_of(s.went_out) == side:
            concealed = rules.concealed_batida_bonus and not s.has_melded[s.went_out]
            batida = rules.concealed_batida_bonus if concealed else rules.batida_bonus
        pending = s.morto_pending[side]
        unused = pending != NOBODY and rules.unused_morto_is_penalised
        untaken_paid = not s.morto_taken[side] and rules.untaken_morto_is_penalised
        morto_penalty = -rules.morto_penalty if (untaken_paid or unused) else 0
        hand_points = 0
        for seat in s.seats_of(side):
            if unused and seat == pending and not rules.unused_morto_cards_count:
                continue  # the unused morto is paid as if never taken
            for c in s.hands[seat]:
                if rules.three_in_hand_penalty and is_three(c):
                    hand_points += rules.three_in_hand_penalty
                elif is_red_three(c):  # only from a morto not yet used: as in a morto (002)
                    hand_points += rules.red_three_value
                else:
                    hand_points += card_points(c, values)
        morto = s.mortos[side]
        untaken = 0
        if rules.untaken_morto_cards_count and morto is not None and not s.morto_taken[side]:
            untaken = -sum(card_points(c, values) for c in morto if not is_red_three(c))
            untaken -= sum(rules.red_three_value for c in morto if is_red_three(c))
        out.append(
            SideScore(
                side=side,
                table_cards=table,
                canastras=canastras,
                canastra_counts=counts,
                batida=batida,
                red_threes=red_points,
                morto_penalty=morto_penalty,
                hand_cards=-hand_points,
                untaken_morto_cards=untaken,
            )
        )
    return out
