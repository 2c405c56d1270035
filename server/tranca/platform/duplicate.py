"""Duplicate deals: every table of a round plays the same cards. Pure: no I/O.

The organiser fixes a round's deck order, drawn from a seed (``round_from_seed``) or
given card by card (``round_from_deck``). Every table of the round is set up with that
order as its first deal's fixed deck and with the round's match seed, so the first
dealer (drawn from the match seed) and every later deal of the match (shuffled from
it) are the same at every table too. ``check_tables`` then confirms from each table's
setup and log that its first deal was dealt from the round's deck.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tranca_rules.cards import cards_text, full_deck, shuffled_deck
from tranca_rules.engine import new_deal
from tranca_rules.errors import RuleViolation
from tranca_rules.presets import Rules

from ..table.game import WAITING, Action, GameError, Setup, apply_action, new_game


def round_seed(event_seed: int, round_no: int) -> int:
    """A round's seed, fixed by the event's seed alone (as ``match.deal_seed`` does)."""
    return random.Random(f"{event_seed}:duplicate:{round_no}").getrandbits(63)


@dataclass(frozen=True)
class DuplicateRound:
    """The deck order (first card dealt first) and the match seed of one round."""

    number: int
    jokers: bool
    deck: tuple[int, ...]
    match_seed: int

    def deck_text(self) -> str:
        return cards_text(self.deck)

    def setup(self, rules: Rules, players: int, *, spectators_allowed: bool = False) -> Setup:
        """The setup of one of the round's tables."""
        if rules.jokers != self.jokers:
            raise ValueError(f"{rules.name} does not use this round's {len(self.deck)}-card deck")
        return Setup(rules, players, self.match_seed, list(self.deck), spectators_allowed)

    def setups(self, rules: Rules, players: int, tables: int) -> list[Setup]:
        return [self.setup(rules, players) for _ in range(tables)]


def round_from_seed(number: int, jokers: bool, seed: int) -> DuplicateRound:
    """The round's deck is ``shuffled_deck(jokers, seed)``; the match seed is ``seed``."""
    return DuplicateRound(number, jokers, tuple(shuffled_deck(jokers, seed)), seed)


def round_from_deck(
    number: int, jokers: bool, deck: Sequence[int], match_seed: int
) -> DuplicateRound:
    """A deck order the organiser gives (e.g. parsed with ``parse_cards``)."""
    if sorted(deck) != sorted(full_deck(jokers)):
        size = 108 if jokers else 104
        raise ValueError(f"the deck must hold exactly the {size} cards of the preset's deck")
    return DuplicateRound(number, jokers, tuple(deck), match_seed)


@dataclass(frozen=True)
class TableCheck:
    table: str
    problems: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.problems


def check_table(rnd: DuplicateRound, table: str, setup: Setup, log: Sequence[Action]) -> TableCheck:
    """Whether a table's game was set up for the round and its log started with a deal
    from the round's deck. Folds the log up to its start; refused actions are problems."""
    problems: list[str] = []
    if setup.rules.jokers != rnd.jokers:
        problems.append("the table's preset uses another deck size")
    if setup.deck is None or tuple(setup.deck) != rnd.deck:
        problems.append("the table's first deck is not the round's deck")
    if setup.seed != rnd.match_seed:
        problems.append("the table's match seed is not the round's: later deals differ")
    if problems:
        return TableCheck(table, tuple(problems))
    try:
        game = new_game(setup)
        for version, action in enumerate(log, start=1):
            apply_action(game, action, version)
            if game.status != WAITING:
                break
    except (GameError, RuleViolation, ValueError) as exc:  # a failed check, not a crash
        return TableCheck(table, (f"the log does not replay: {exc}",))
    if game.match is None or game.deal_number == 0:
        return TableCheck(table, ("the log never started the game",))
    first = game.match.deal
    expected = new_deal(
        setup.rules, setup.players, dealer=game.match.first_dealer, deck=list(rnd.deck)
    )
    if first.to_dict() != expected.to_dict():
        problems.append("the first deal was not dealt from the round's deck")
    return TableCheck(table, tuple(problems))


def check_tables(
    rnd: DuplicateRound, tables: Mapping[str, tuple[Setup, Sequence[Action]]]
) -> list[TableCheck]:
    """``check_table`` for every table of the round, by table name; all are also checked
    to share one preset and player count."""
    checks = [check_table(rnd, name, setup, log) for name, (setup, log) in tables.items()]
    kinds = {(s.rules, s.players) for s, _ in tables.values()}
    if len(kinds) > 1:
        checks = [
            TableCheck(c.table, (*c.problems, "the round's tables differ in preset or players"))
            for c in checks
        ]
    return checks
