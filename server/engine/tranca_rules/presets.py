"""The rules of a table: one ``Rules`` type whose fields are the knobs, and a named
preset for every rule document the project started from (docs/RULES.md lists them).

Every knob value of every preset is justified, with the passage it rests on, in
``docs/RULES.md``; the comments here only name the document.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .errors import RulesError, quoted


class StockOut(StrEnum):
    """What happens when a player must draw and the stock is empty."""

    END_DEAL = "end_deal"  # the deal ends (000, 001, 004)
    PLAY_ON = "play_on"  # play goes on without drawing: take the pile or the deal ends (002)
    MORTO_TO_STOCK = "morto_to_stock"  # untaken mortos become the stock (003)


class PileView(StrEnum):
    TOP = "top"  # only the top card of the discard pile is visible
    ALL = "all"  # the whole pile is face up and visible


class TieBreak(StrEnum):
    EXTRA_DEAL = "extra_deal"  # another deal is played
    FIRST_PLAYER = "first_player"  # the side that played first in the match wins (003)
    DRAW = "draw"  # the match is drawn


# Card values indexed by rank: 0 = joker, 1 = ace .. 13 = king.
FLAT_TEN: tuple[int, ...] = (10,) * 14
CANASTA_VALUES: tuple[int, ...] = (50, 20, 20, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)


@dataclass(frozen=True, slots=True)
class CanastraBonus:
    clean: int = 200
    dirty: int = 100
    real: int = 0  # clean run from 2 to the high ace (003)
    all_wilds: int = 0  # seven or more 2s (003)
    ace_to_ace: int = 0  # clean run from the low ace to the high ace (003)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every knob of a Tranca rule set. Build one with ``make_rules``."""

    name: str
    description: str
    player_counts: tuple[int, ...] = (2, 4)
    # Deck and deal
    jokers: bool = False
    hand_size: int = 11
    morto_size: int = 11
    mortos_face_up: bool = False
    first_discard_turned: bool = False
    # Melds
    sequences: bool = True
    sets: bool = True
    ace_low: bool = False  # runs may use A-2-3 below the 4, with natural 2s and 3s in place
    max_wilds_per_meld: int = 1
    min_naturals: int = 2
    twos_set: bool = False  # a meld of 2s only is allowed (the all-wild canastra of 003)
    black_threes_when_going_out: bool = False  # a pure meld of 3-4 black threes, going out (002)
    # With the low ace, a black 3 of a run's suit stands natural in its place (003 as
    # the project reads it); false: threes are never melded (003's letter)
    threes_in_runs: bool = True
    aces_wild: bool = False  # an ace may serve as a wild outside its own place (002's letter)
    one_meld_per_turn: bool = False  # at most one new meld a turn; adds unlimited (004's letter)
    wild_replacement: bool = False
    canastra_size: int = 7
    set_canastras: bool = True  # sets can become canastras (otherwise only runs)
    dirty_stays_dirty: bool = True
    # The discard pile
    pile_view: PileView = PileView.TOP
    black_three_locks_pile: bool = True
    wild_freezes_pile: bool = False
    # The frozen pile thaws when a card that is not a wild covers the wild (002's letter)
    pile_unfreezes_when_covered: bool = False
    # Threes
    red_three_replacement: bool = False
    red_three_value: int = 100
    red_three_needs_clean_canastra: bool = False
    all_red_threes_value: int = 0  # 0: no special value for all four
    unreplaced_red_three_value: int = 0  # 0: same as a replaced one
    three_in_hand_penalty: int = 0  # 0: a three in hand counts its card value
    # Going out and the morto
    going_out_needs_clean_canastra: bool = True
    batida_bonus: int = 100
    concealed_batida_bonus: int = 0  # 0: none
    morto_penalty: int = 100
    # A morto never taken costs morto_penalty; false: only one taken and unused does (003's letter)
    untaken_morto_is_penalised: bool = True
    morto_after_discard_plays_on: bool = False  # 002: the turn goes on after an indirect batida
    unused_morto_is_penalised: bool = True
    unused_morto_cards_count: bool = False
    untaken_morto_cards_count: bool = False
    # Scoring
    card_values: tuple[int, ...] = FLAT_TEN
    canastra_bonus: CanastraBonus = field(default_factory=CanastraBonus)
    stock_out: StockOut = StockOut.END_DEAL
    # Match
    target_score: int = 0  # 0: a single deal
    tie_break: TieBreak = TieBreak.EXTRA_DEAL

    @property
    def run_low(self) -> int:
        """The lowest rank position a run may reach (1 = the low ace)."""
        return 1 if self.ace_low else 4

    def to_dict(self) -> dict[str, Any]:
        return rules_to_dict(self)


def rules_to_dict(rules: Rules) -> dict[str, Any]:
    return dict(_rules_to_dict(rules))


@functools.lru_cache(maxsize=256)
def _rules_to_dict(rules: Rules) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        if isinstance(value, CanastraBonus):
            value = dataclasses.asdict(value)
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, StrEnum):
            value = value.value
        out[f.name] = value
    return out


def rules_from_dict(data: Mapping[str, Any]) -> Rules:
    """Rebuild rules stored with ``to_dict`` (validated like any override).

    Memoised: every snapshot load rebuilds the same few rule sets, and ``Rules`` is
    immutable, so one instance per distinct content is shared."""
    key = json.dumps(data, sort_keys=True)
    rules = _RULES_CACHE.get(key)
    if rules is None:
        if len(_RULES_CACHE) > 1000:
            _RULES_CACHE.clear()
        rules = _RULES_CACHE[key] = _rules_from_dict(data)
    return rules


_RULES_CACHE: dict[str, Rules] = {}


def _rules_from_dict(data: Mapping[str, Any]) -> Rules:
    base = PRESETS.get(str(data.get("name", "")))
    if base is None:
        base = PRESETS["tranca-000"]
    overrides = {k: v for k, v in data.items() if k not in ("name", "description")}
    rules = make_rules(base.name, overrides)
    return dataclasses.replace(
        rules, name=str(data.get("name", base.name)), description=str(data.get("description", ""))
    )


_ENUMS: dict[str, type[StrEnum]] = {
    "pile_view": PileView,
    "stock_out": StockOut,
    "tie_break": TieBreak,
}


def _coerce(name: str, value: Any, current: Any) -> Any:
    try:
        if name in _ENUMS:
            return _ENUMS[name](value)
        if isinstance(current, CanastraBonus):
            if isinstance(value, CanastraBonus):
                return value
            parts = dict(value)
            known = {f.name for f in dataclasses.fields(CanastraBonus)}
            for part, points in parts.items():
                if part not in known:
                    raise TypeError(
                        f"no bonus {quoted(str(part))}; known: {', '.join(sorted(known))}"
                    )
                if isinstance(points, bool) or not isinstance(points, int):
                    raise TypeError(f"canastra_bonus.{part} must be an integer")
            return dataclasses.replace(current, **parts)
        if isinstance(current, bool):
            if not isinstance(value, bool):
                raise TypeError("expected true or false")
            return value
        if isinstance(current, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError("expected an integer")
            return value
        if isinstance(current, tuple):
            if isinstance(value, str | bytes) or any(
                isinstance(v, bool) or not isinstance(v, int) for v in value
            ):
                raise TypeError("expected a list of integers")
            return tuple(value)
        if isinstance(current, str):
            return str(value)
    except (TypeError, ValueError) as exc:
        raise RulesError(f"knob {quoted(name)}: {exc}") from exc
    raise RulesError(f"knob {quoted(name)} cannot be overridden")


def make_rules(preset: str, overrides: Mapping[str, Any] | None = None) -> Rules:
    """The rules of ``preset`` with ``overrides`` applied, checked for coherence."""
    base = PRESETS.get(preset)
    if base is None:
        raise RulesError(f"unknown preset {quoted(preset)}; known: {', '.join(sorted(PRESETS))}")
    if not overrides:
        return base
    names = {f.name for f in dataclasses.fields(Rules)}
    changes: dict[str, Any] = {}
    for name, value in overrides.items():
        if name not in names or name in ("name",):
            raise RulesError(f"unknown knob {quoted(name)}")
        changes[name] = _coerce(name, value, getattr(base, name))
    rules = dataclasses.replace(base, **changes)
    check_rules(rules)
    return rules


# The values each integer knob takes (each value of a list knob, each part of the
# canastra bonuses), whatever the preset: every preset and variation of the documents
# lies inside, and no score of any deal or match can come near a 64-bit integer
# (docs/RULES.md, "Knob ranges"). A knob's points reach at most 10,000 a time; a deal
# of 108 cards then stays under ten million points.
POINTS_RANGE = (0, 10_000)
KNOB_RANGES: dict[str, tuple[int, int]] = {
    "player_counts": (2, 4),
    "hand_size": (1, 20),
    "morto_size": (1, 20),
    "max_wilds_per_meld": (0, 14),
    "min_naturals": (1, 3),
    "canastra_size": (3, 14),
    "red_three_value": POINTS_RANGE,
    "all_red_threes_value": POINTS_RANGE,
    "unreplaced_red_three_value": POINTS_RANGE,
    "three_in_hand_penalty": POINTS_RANGE,
    "batida_bonus": POINTS_RANGE,
    "concealed_batida_bonus": POINTS_RANGE,
    "morto_penalty": POINTS_RANGE,
    "card_values": (0, 1_000),
    "canastra_bonus.clean": POINTS_RANGE,
    "canastra_bonus.dirty": POINTS_RANGE,
    "canastra_bonus.real": POINTS_RANGE,
    "canastra_bonus.all_wilds": POINTS_RANGE,
    "canastra_bonus.ace_to_ace": POINTS_RANGE,
    "target_score": (0, 100_000),
}


def _knob_values(rules: Rules, name: str) -> tuple[int, ...]:
    """The integer values of knob ``name`` ("canastra_bonus.clean" for a part)."""
    if name.startswith("canastra_bonus."):
        return (int(getattr(rules.canastra_bonus, name.split(".", 1)[1])),)
    value = getattr(rules, name)
    return tuple(value) if isinstance(value, tuple) else (int(value),)


def out_of_range(rules: Rules) -> list[str]:
    """Each integer knob outside its range (``KNOB_RANGES``), named with its range."""
    problems = []
    for name, (low, high) in KNOB_RANGES.items():
        values = _knob_values(rules, name)
        bad = [v for v in values if not low <= v <= high]
        if bad:
            each = "each value of " if isinstance(getattr(rules, name, None), tuple) else ""
            problems.append(f"{each}{name} is {low} to {high}, not {bad[0]}")
    return problems


def check_rules(rules: Rules) -> None:
    """Refuse incoherent combinations with a message that says what to change."""
    out = out_of_range(rules)
    if out:
        # Out of range first, alone: the coherence checks below assume sane values.
        raise RulesError("knobs out of range: " + "; ".join(out))
    problems: list[str] = []
    if not rules.player_counts or any(n not in (2, 3, 4) for n in rules.player_counts):
        problems.append("player_counts must be taken from 2, 3 and 4")
    if not (rules.sequences or rules.sets):
        problems.append("at least one of sequences and sets must be allowed")
    if rules.ace_low and not rules.sequences:
        problems.append("ace_low needs sequences")
    if rules.wild_replacement and not rules.sequences:
        problems.append("wild_replacement needs sequences (a wild in a set stands for no card)")
    if rules.min_naturals + rules.max_wilds_per_meld < 3:
        problems.append(
            "a meld of three cards must be possible: min_naturals + max_wilds_per_meld >= 3"
        )
    if rules.twos_set and not rules.sets:
        problems.append("twos_set needs sets")
    if rules.pile_unfreezes_when_covered and not rules.wild_freezes_pile:
        problems.append("pile_unfreezes_when_covered needs wild_freezes_pile")
    deck = 108 if rules.jokers else 104
    for n in rules.player_counts:
        mortos = 2 if n == 4 else n
        needed = n * rules.hand_size + mortos * rules.morto_size + 2
        if needed > deck:
            problems.append(f"{n} players need {needed} cards but the deck has {deck}")
    if len(rules.card_values) != 14:
        problems.append("card_values must list 14 values (joker, then A..K)")
    if rules.target_score and not (
        any(rules.card_values) or rules.batida_bonus or any(_knob_bonuses(rules))
    ):
        # Every deal would score nothing or less: the match could never end.
        problems.append(
            "a target_score needs points to reach it: a card value, a canastra bonus or"
            " the batida bonus above 0"
        )
    if problems:
        raise RulesError("incoherent rules: " + "; ".join(problems))


def _knob_bonuses(rules: Rules) -> tuple[int, ...]:
    b = rules.canastra_bonus
    return (b.clean, b.dirty, b.real, b.all_wilds, b.ace_to_ace)


def _preset(**kwargs: Any) -> Rules:
    rules = Rules(**kwargs)
    check_rules(rules)
    return rules


_BRAZILIAN_COMMON: dict[str, Any] = dict(
    player_counts=(2, 4),
    jokers=False,
    sequences=True,
    sets=True,
    max_wilds_per_meld=1,
    black_three_locks_pile=True,
    red_three_replacement=True,
    going_out_needs_clean_canastra=True,
    morto_penalty=100,
    unused_morto_is_penalised=True,
    card_values=FLAT_TEN,
    stock_out=StockOut.END_DEAL,
    tie_break=TieBreak.DRAW,
)

_CANASTA_STYLE: dict[str, Any] = dict(
    player_counts=(4,),
    jokers=True,
    first_discard_turned=True,
    sequences=False,
    sets=True,
    max_wilds_per_meld=2,
    min_naturals=2,
    black_threes_when_going_out=True,
    set_canastras=True,
    black_three_locks_pile=True,
    wild_freezes_pile=True,
    red_three_replacement=True,
    going_out_needs_clean_canastra=False,
    concealed_batida_bonus=200,
    morto_after_discard_plays_on=True,
    unused_morto_is_penalised=False,
    untaken_morto_cards_count=True,
    card_values=CANASTA_VALUES,
    stock_out=StockOut.PLAY_ON,
    target_score=3000,
    tie_break=TieBreak.EXTRA_DEAL,
)

PRESETS: dict[str, Rules] = {
    r.name: r
    for r in (
        _preset(
            name="tranca-000",
            description="Brazilian Tranca, 2 or 4 players, as in 000 (the blog's rules)",
            **_BRAZILIAN_COMMON,
            set_canastras=False,
        ),
        _preset(
            name="tranca-001",
            description="Tranca mano a mano, 2 players, as in 001 (with its point table)",
            **{**_BRAZILIAN_COMMON, "player_counts": (2,)},
            set_canastras=True,
        ),
        _preset(
            name="tranca-004",
            description="Brazilian Tranca, 2 or 4 players, as in 004",
            **_BRAZILIAN_COMMON,
            set_canastras=False,
        ),
        _preset(
            name="canasta-002",
            description="Canasta-style Tranca, 4 players, 108 cards, sets only, as in 002",
            **_CANASTA_STYLE,
        ),
        _preset(
            name="canasta-002-aberta",
            description="002's Tranca Aberta: the mortos are dealt face up",
            **{**_CANASTA_STYLE, "mortos_face_up": True},
        ),
        _preset(
            name="canasta-002-paulista",
            description="002's Tranca Paulista: target 5,000 and at most one wild per meld",
            **{**_CANASTA_STYLE, "target_score": 5000, "max_wilds_per_meld": 1},
        ),
        _preset(
            name="canasta-002-dois",
            description="002's Tranca para dois: 2 players, each with a morto, 10-card hands",
            **{**_CANASTA_STYLE, "player_counts": (2,), "hand_size": 10},
        ),
        _preset(
            name="canasta-002-tres",
            description="002's Tranca para tres: 3 players, each with a morto, halved "
            "canastra bonuses and target",
            **{
                **_CANASTA_STYLE,
                "player_counts": (3,),
                "canastra_bonus": CanastraBonus(clean=100, dirty=50),
                "target_score": 1500,
            },
        ),
        _preset(
            name="canasta-002-carioca",
            description="002's Tranca Carioca: sequences of one suit as well as sets",
            **{**_CANASTA_STYLE, "sequences": True},
        ),
        _preset(
            name="tranca-003",
            description="The Spanish online room's Tranca, 2 or 4 players, as in 003",
            player_counts=(2, 4),
            jokers=False,
            sequences=True,
            sets=True,
            ace_low=True,
            max_wilds_per_meld=1,
            twos_set=True,
            wild_replacement=True,
            set_canastras=False,
            dirty_stays_dirty=True,
            black_three_locks_pile=True,
            red_three_replacement=True,
            red_three_needs_clean_canastra=True,
            all_red_threes_value=800,
            unreplaced_red_three_value=10,
            three_in_hand_penalty=100,
            going_out_needs_clean_canastra=True,
            unused_morto_is_penalised=True,
            unused_morto_cards_count=True,
            card_values=FLAT_TEN,
            canastra_bonus=CanastraBonus(
                clean=200, dirty=100, real=500, all_wilds=1000, ace_to_ace=1000
            ),
            stock_out=StockOut.MORTO_TO_STOCK,
            target_score=2000,
            tie_break=TieBreak.FIRST_PLAYER,
        ),
    )
}


def preset_names() -> list[str]:
    return sorted(PRESETS)
