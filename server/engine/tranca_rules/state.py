"""The state of one deal, its creation from a seed (or a fixed deck order), and
its plain-data form for snapshots.

Seats are numbered in playing order (clockwise). In a 4-player game partners sit
opposite each other: seats 0 and 2 are side 0, seats 1 and 3 side 1. With 2 or 3
players every seat is its own side. There is one morto per side.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from .cards import is_red_three, is_wild, shuffled_deck
from .melds import Meld
from .presets import Rules, rules_from_dict


class Phase(StrEnum):
    """Where the player to act stands in the turn; the values are the stored ones."""

    DRAW = "draw"  # must draw from the stock or take the discard pile
    PLAY = "play"  # has drawn: melds, adds, then discards
    OVER = "over"  # the deal is over


class EndReason(StrEnum):
    """Why a deal ended; the values are the stored ones (and the API's)."""

    NONE = ""  # not over
    BATIDA = "batida"  # a player went out
    STOCK_OUT = "stock_out"  # the stock ran out
    NO_MOVE = "no_legal_move"  # the player to act had no legal move


# The names the engine has always used (Final: mypyc loads them as constants).
DRAW_PHASE: Final = Phase.DRAW
PLAY_PHASE: Final = Phase.PLAY
OVER: Final = Phase.OVER
END_BATIDA: Final = EndReason.BATIDA
END_STOCK_OUT: Final = EndReason.STOCK_OUT
END_NO_MOVE: Final = EndReason.NO_MOVE
NOBODY = -1

# Stored value -> member: a snapshot is loaded on every request, and a dict lookup
# costs a small part of ``Phase(value)``'s.
_PHASES: dict[str, Phase] = {p.value: p for p in Phase}
_END_REASONS: dict[str, EndReason] = {r.value: r for r in EndReason}


def phase_of(value: str) -> Phase:
    """The phase stored as ``value``; ``ValueError`` for anything else."""
    phase = _PHASES.get(value)
    return Phase(value) if phase is None else phase


def end_reason_of(value: str) -> EndReason:
    """The end reason stored as ``value``; ``ValueError`` for anything else."""
    reason = _END_REASONS.get(value)
    return EndReason(value) if reason is None else reason


SNAPSHOT_VERSION = 1


def side_of_seat(seat: int, n_players: int) -> int:
    """The side ``seat`` plays for: partners opposite with four players."""
    return seat % (2 if n_players == 4 else n_players)


class DealState:
    """Everything about one deal. Mutable: the engine applies moves in place (see
    ``engine.apply``), and ``copy`` gives an independent state."""

    __slots__ = (
        "dealer",
        "end_reason",
        "first_player",
        "hands",
        "has_melded",
        "melded_this_turn",
        "melds",
        "morto_pending",
        "morto_taken",
        "mortos",
        "move_count",
        "n_players",
        "new_melds_this_turn",
        "phase",
        "pile",
        "pile_frozen",
        "red_threes",
        "red_unreplaced",
        "rules",
        "stock",
        "turn",
        "went_out",
    )

    def __init__(self, rules: Rules, n_players: int) -> None:
        self.rules = rules
        self.n_players = n_players
        self.dealer = 0
        self.first_player = 0
        self.hands: list[list[int]] = [[] for _ in range(n_players)]
        self.stock: list[int] = []  # the top is the last element
        self.pile: list[int] = []  # the top is the last element
        self.mortos: list[list[int] | None] = []  # per side; None once taken or gone
        self.morto_taken: list[bool] = []
        self.morto_pending: list[int] = []  # per side: seat that took it indirectly, not yet used
        self.melds: list[Meld] = []
        self.red_threes: list[list[int]] = []
        self.red_unreplaced: list[int] = []
        self.turn = 0
        self.phase: Phase = DRAW_PHASE
        self.pile_frozen = False
        self.has_melded: list[bool] = [False] * n_players
        self.melded_this_turn = False
        self.new_melds_this_turn = 0  # new melds laid in this turn (one_meld_per_turn)
        self.went_out = NOBODY
        self.end_reason: EndReason = EndReason.NONE
        self.move_count = 0

    @property
    def n_sides(self) -> int:
        return 2 if self.n_players == 4 else self.n_players

    def side_of(self, seat: int) -> int:
        return side_of_seat(seat, self.n_players)

    def seats_of(self, side: int) -> list[int]:
        return [s for s in range(self.n_players) if s % self.n_sides == side]

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def copy(self) -> DealState:
        new = DealState(self.rules, self.n_players)
        new.dealer = self.dealer
        new.first_player = self.first_player
        new.hands = [list(h) for h in self.hands]
        new.stock = list(self.stock)
        new.pile = list(self.pile)
        new.mortos = [None if m is None else list(m) for m in self.mortos]
        new.morto_taken = list(self.morto_taken)
        new.morto_pending = list(self.morto_pending)
        new.melds = [m.copy() for m in self.melds]
        new.red_threes = [list(r) for r in self.red_threes]
        new.red_unreplaced = list(self.red_unreplaced)
        new.turn = self.turn
        new.phase = self.phase
        new.pile_frozen = self.pile_frozen
        new.has_melded = list(self.has_melded)
        new.melded_this_turn = self.melded_this_turn
        new.new_melds_this_turn = self.new_melds_this_turn
        new.went_out = self.went_out
        new.end_reason = self.end_reason
        new.move_count = self.move_count
        return new

    def all_cards(self) -> list[int]:
        """Every card of the deal wherever it lies (for the accounting invariant)."""
        out: list[int] = []
        for h in self.hands:
            out += h
        out += self.stock
        out += self.pile
        for m in self.mortos:
            if m is not None:
                out += m
        for meld in self.melds:
            out += meld.cards
        for r in self.red_threes:
            out += r
        return out

    # ----- plain data, for snapshots -------------------------------------------------

    def to_dict(self, with_rules: bool = True) -> dict[str, Any]:
        """``with_rules=False`` leaves the rules out, for a container that stores them
        once and passes them back to ``from_dict``."""
        out: dict[str, Any] = {
            "snapshot_version": SNAPSHOT_VERSION,
            "n_players": self.n_players,
            "dealer": self.dealer,
            "first_player": self.first_player,
            "hands": [list(h) for h in self.hands],
            "stock": list(self.stock),
            "pile": list(self.pile),
            "mortos": [None if m is None else list(m) for m in self.mortos],
            "morto_taken": list(self.morto_taken),
            "morto_pending": list(self.morto_pending),
            "melds": [
                {
                    "side": m.side,
                    "cards": list(m.cards),
                    "wilds": m.shape.wilds,
                    # The rest of the shape, so a load need not classify every meld.
                    "kind": m.shape.kind,
                    "key": m.shape.key,
                    "naturals": list(m.shape.naturals),
                    "dirty_canastra": m.dirty_canastra,
                }
                for m in self.melds
            ],
            "red_threes": [list(r) for r in self.red_threes],
            "red_unreplaced": list(self.red_unreplaced),
            "turn": self.turn,
            "phase": self.phase,
            "pile_frozen": self.pile_frozen,
            "has_melded": list(self.has_melded),
            "melded_this_turn": self.melded_this_turn,
            "new_melds_this_turn": self.new_melds_this_turn,
            "went_out": self.went_out,
            "end_reason": self.end_reason,
            "move_count": self.move_count,
        }
        if with_rules:
            out["rules"] = self.rules.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], rules: Rules | None = None) -> DealState:
        from .melds import Problem, Shape, classify

        version = data.get("snapshot_version")
        if version != SNAPSHOT_VERSION:
            raise ValueError(f"unsupported deal snapshot version {version!r}")
        if rules is None:
            rules = rules_from_dict(data["rules"])
        s = cls(rules, int(data["n_players"]))
        s.dealer = int(data["dealer"])
        s.first_player = int(data["first_player"])
        s.hands = [list(h) for h in data["hands"]]
        s.stock = list(data["stock"])
        s.pile = list(data["pile"])
        s.mortos = [None if m is None else list(m) for m in data["mortos"]]
        s.morto_taken = list(data["morto_taken"])
        s.morto_pending = list(data["morto_pending"])
        for i, m in enumerate(data["melds"]):
            shape: Shape | Problem
            if "kind" in m:
                naturals = tuple(int(n) for n in m["naturals"])
                shape = Shape(int(m["kind"]), int(m["key"]), naturals, int(m["wilds"]))
            else:  # written before shapes were stored
                shape = classify(list(m["cards"]), rules, int(m["wilds"]))
            if isinstance(shape, Problem):
                raise ValueError(f"stored meld {i} is not a meld: {shape.message}")
            meld = Meld(i, int(m["side"]), list(m["cards"]), shape)
            meld.dirty_canastra = bool(m["dirty_canastra"])
            s.melds.append(meld)
        s.red_threes = [list(r) for r in data["red_threes"]]
        s.red_unreplaced = list(data["red_unreplaced"])
        s.turn = int(data["turn"])
        s.phase = phase_of(data["phase"])
        s.pile_frozen = bool(data["pile_frozen"])
        s.has_melded = list(data["has_melded"])
        s.melded_this_turn = bool(data["melded_this_turn"])
        # Absent from snapshots written before the knob: no meld counted yet.
        s.new_melds_this_turn = int(data.get("new_melds_this_turn", 0))
        s.went_out = int(data["went_out"])
        s.end_reason = end_reason_of(data["end_reason"])
        s.move_count = int(data["move_count"])
        return s


def deal_cards(
    rules: Rules,
    n_players: int,
    *,
    seed: int = 0,
    dealer: int = 0,
    deck: list[int] | None = None,
) -> DealState:
    """A new deal: hands, one morto per side, the stock and the discard pile.

    ``deck`` fixes the order of the cards (the first card is dealt first), for
    duplicate tournaments and reproducible tests; otherwise the deck is shuffled
    from ``seed``. The player to the dealer's left plays first.
    """
    from .cards import full_deck

    if n_players not in rules.player_counts:
        allowed = ", ".join(str(n) for n in rules.player_counts)
        raise ValueError(f"{rules.name} is played by {allowed} players, not {n_players}")
    if deck is None:
        order = shuffled_deck(rules.jokers, seed)
    else:
        if sorted(deck) != sorted(full_deck(rules.jokers)):
            raise ValueError("a fixed deck must hold exactly the cards of this preset's deck")
        order = list(deck)
    s = DealState(rules, n_players)
    s.dealer = dealer % n_players
    s.first_player = (s.dealer + 1) % n_players
    cards = iter(order)
    # One card at a time, starting left of the dealer, as the documents deal.
    for _ in range(rules.hand_size):
        for k in range(n_players):
            s.hands[(s.first_player + k) % n_players].append(next(cards))
    s.mortos = [[next(cards) for _ in range(rules.morto_size)] for _ in range(s.n_sides)]
    s.morto_taken = [False] * s.n_sides
    s.morto_pending = [NOBODY] * s.n_sides
    s.red_threes = [[] for _ in range(s.n_sides)]
    s.red_unreplaced = [0] * s.n_sides
    rest = list(cards)
    rest.reverse()  # the next card to deal is the top of the stock (the last element)
    s.stock = rest
    if rules.first_discard_turned:
        _turn_first_discard(s)
    s.turn = s.first_player
    return s


def _turn_first_discard(s: DealState) -> None:
    """002: turn the top card; a wild or a red three is buried in the middle of the
    stock and another card turned."""
    while True:
        card = s.stock.pop()
        if is_wild(card) or is_red_three(card):
            s.stock.insert(len(s.stock) // 2, card)
            continue
        s.pile.append(card)
        return
