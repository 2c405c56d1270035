"""What one seat knows of a deal: its information set, as plain public data.

A bot that searches (``expert.py``) takes an ``Information`` and nothing else: the
seat's own hand, everything on the table (melds, red threes, the pile as far as the
seat has seen it), the counts of the hidden piles (every hand, the stock, each
morto), the turn's public flags, and the cards the seat knows to be in another hand
because it saw them taken from the discard pile. It never holds another hand, the
stock's order or a face-down morto: ``information_of`` is the one place that reads
a ``DealState`` for it, and the tests deal two positions that differ only in hidden
cards and check that both give the same ``Information`` (and the same move).

The pile and the cards taken from it are public history, not state: a ``Memory``
follows the deal's public events (``public_event``: who played which move, and the
pile's top and size just before it, which everyone sees) and remembers the pile's
cards and who took which. Without a memory (a robot that takes over a seat mid-deal)
the seat knows the pile's top only (or all of it where the preset lays it open),
and the cards hidden in other hands are sampled from every unseen card.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

from .cards import full_deck, parse_card
from .melds import DIRTY, Meld, Problem, classify
from .moves import ADD, DISCARD, MELD, REPLACE, TAKE, Move
from .presets import PileView, Rules
from .state import NOBODY, DealState, EndReason, Phase
from .views import SeatView

UNKNOWN = -1  # a pile card the seat has not seen


class PublicEvent(NamedTuple):
    """One move as every seat sees it: the move itself (a draw carries no card), who
    played it, the pile's top and size before it, and which mortos were taken after."""

    seat: int
    move: Move
    pile_top: int  # UNKNOWN when the pile was empty
    pile_size: int
    morto_taken: tuple[bool, ...]


def event_before(s: DealState, seat: int, move: Move) -> tuple[int, Move, int, int]:
    """The part of a public event read before the move is applied."""
    return (seat, move, s.pile[-1] if s.pile else UNKNOWN, len(s.pile))


def event_after(part: tuple[int, Move, int, int], s: DealState) -> PublicEvent:
    """The public event, completed after the move is applied."""
    seat, move, top, size = part
    return PublicEvent(seat, move, top, size, tuple(s.morto_taken))


class Memory:
    """What a seat remembers of the deal's public events: the pile's cards (bottom to
    top; ``UNKNOWN`` where it has not seen one) and the cards it saw go into each hand
    from the pile that have not come out again."""

    __slots__ = ("known", "morto_taken", "pile")

    def __init__(self, n_players: int) -> None:
        self.pile: list[int] = []
        self.known: list[Counter[int]] = [Counter() for _ in range(n_players)]
        self.morto_taken: tuple[bool, ...] = ()

    def see(self, e: PublicEvent) -> None:
        pile = self.pile
        # The pile as it stood before the move: its top is public, and a pile longer
        # than remembered (a memory started mid-deal) has cards below it unseen.
        if e.pile_size > len(pile):
            pile[:0] = [UNKNOWN] * (e.pile_size - len(pile))
        elif e.pile_size < len(pile):
            del pile[: len(pile) - e.pile_size]
        if pile:
            pile[-1] = e.pile_top
        known = self.known[e.seat]
        kind = e.move.kind
        if kind == DISCARD:
            _forget(known, e.move.cards)
            pile.append(e.move.cards[0])
        elif kind == TAKE:
            _forget(known, e.move.cards)
            for c in pile[:-1]:
                if c != UNKNOWN:
                    known[c] += 1
            pile.clear()
        elif kind in (MELD, ADD, REPLACE):
            _forget(known, e.move.cards)
        side = e.seat % len(e.morto_taken) if e.morto_taken else 0
        if self.morto_taken and e.morto_taken[side] and not self.morto_taken[side]:
            known.clear()  # the morto replaced the mover's emptied hand
        self.morto_taken = e.morto_taken


def _forget(known: Counter[int], cards: tuple[int, ...]) -> None:
    for c in cards:
        if known[c] > 0:
            known[c] -= 1
            if not known[c]:
                del known[c]


@dataclass(frozen=True, slots=True)
class Information:
    """Everything one seat knows of a deal, and nothing else (see the module's
    docstring). Cards are the engine's ints; melds are copies of the table's."""

    rules: Rules
    seat: int
    n_players: int
    dealer: int
    first_player: int
    turn: int
    phase: Phase
    move_count: int
    hand: tuple[int, ...]  # sorted
    hand_sizes: tuple[int, ...]
    known: tuple[tuple[int, ...], ...]  # by seat: cards seen going into that hand
    melds: tuple[Meld, ...]
    red_threes: tuple[tuple[int, ...], ...]
    red_unreplaced: tuple[int, ...]
    pile: tuple[int, ...]  # bottom to top, UNKNOWN where unseen
    pile_frozen: bool
    stock_size: int
    morto_sizes: tuple[int, ...]  # by side: 0 once taken or gone to the stock
    mortos_seen: tuple[tuple[int, ...] | None, ...] | None  # where dealt face up
    morto_taken: tuple[bool, ...]
    morto_pending: tuple[int, ...]
    has_melded: tuple[bool, ...]
    melded_this_turn: bool
    new_melds_this_turn: int
    went_out: int
    end_reason: EndReason

    @property
    def n_sides(self) -> int:
        return 2 if self.n_players == 4 else self.n_players

    def key(self) -> tuple[object, ...]:
        """A value equal for equal information (melds compared by content)."""
        melds = tuple((m.id, m.side, tuple(m.cards), m.shape, m.dirty_canastra) for m in self.melds)
        return (
            self.rules,
            self.seat,
            self.n_players,
            self.dealer,
            self.first_player,
            self.turn,
            self.phase,
            self.move_count,
            self.hand,
            self.hand_sizes,
            self.known,
            melds,
            self.red_threes,
            self.red_unreplaced,
            self.pile,
            self.pile_frozen,
            self.stock_size,
            self.morto_sizes,
            self.mortos_seen,
            self.morto_taken,
            self.morto_pending,
            self.has_melded,
            self.melded_this_turn,
            self.new_melds_this_turn,
            self.went_out,
            self.end_reason,
        )


def information_of(s: DealState, seat: int, memory: Memory | None = None) -> Information:
    """What ``seat`` knows of ``s``, with what ``memory`` remembers of the deal's
    public events (None: the visible pile only, nothing known of other hands)."""
    rules = s.rules
    if rules.pile_view == PileView.ALL:
        pile = tuple(s.pile)
    elif memory is not None and len(memory.pile) == len(s.pile) and s.pile:
        pile = (*memory.pile[:-1], s.pile[-1])
    else:
        pile = (*([UNKNOWN] * (len(s.pile) - 1)), s.pile[-1]) if s.pile else ()
    known: list[tuple[int, ...]] = []
    for k in range(s.n_players):
        if k == seat or memory is None:
            known.append(())
        else:
            cards = sorted(memory.known[k].elements())
            known.append(tuple(cards[: len(s.hands[k])]))
    return Information(
        rules=rules,
        seat=seat,
        n_players=s.n_players,
        dealer=s.dealer,
        first_player=s.first_player,
        turn=s.turn,
        phase=s.phase,
        move_count=s.move_count,
        hand=tuple(sorted(s.hands[seat])),
        hand_sizes=tuple(len(h) for h in s.hands),
        known=tuple(known),
        melds=tuple(m.copy() for m in s.melds),
        red_threes=tuple(tuple(r) for r in s.red_threes),
        red_unreplaced=tuple(s.red_unreplaced),
        pile=pile,
        pile_frozen=s.pile_frozen,
        stock_size=len(s.stock),
        morto_sizes=tuple(0 if m is None else len(m) for m in s.mortos),
        mortos_seen=(
            tuple(None if m is None else tuple(m) for m in s.mortos)
            if rules.mortos_face_up
            else None
        ),
        morto_taken=tuple(s.morto_taken),
        morto_pending=tuple(s.morto_pending),
        has_melded=tuple(s.has_melded),
        melded_this_turn=s.melded_this_turn,
        new_melds_this_turn=s.new_melds_this_turn,
        went_out=s.went_out,
        end_reason=s.end_reason,
    )


def information_from_view(view: SeatView, rules: Rules, move_count: int = 0) -> Information:
    """What a seat knows, read from its view alone (``views.view_of``, or a client's
    ``GameView`` translated to one): what an API client's bot searches from, with no
    memory of the deal's history, as ``information_of(s, seat)`` gives a robot that
    takes a seat mid-deal.

    The view shows all that decides the seat's legal moves, in every sampled deal as
    in the real one; it does not show a few facts that only the scoring reads, and
    those are taken as follows: each seat has melded before when its side has a meld
    on the table (the concealed going-out bonus), nobody has melded in this turn yet,
    every red three was replaced, and no morto waits for an indirect going out. The
    turn's first player is the dealer's left (``new_deal``'s). ``move_count`` only
    seeds the search's choices (the API's version will do).

    One fact the view does not show decides legal moves: under ``one_meld_per_turn``,
    whether the seat already laid its new meld in this turn. It is taken as not: the
    worlds sampled mid-turn may then allow a second meld. A bot that chooses among
    the legal moves the server lists (as the SDK's expert does) still sends none."""
    if view.hand is None:
        raise ValueError("a spectator's view holds no hand: no information to search from")
    if view.preset != rules.name:
        raise ValueError(f"the view is of {view.preset}, not of {rules.name}")
    n = view.n_players
    n_sides = 2 if n == 4 else n
    melds = []
    for k, mv in enumerate(sorted(view.melds, key=lambda m: m.id)):
        if mv.id != k:
            raise ValueError(f"meld ids are 0 to {len(view.melds) - 1}, not {mv.id}")
        cards = [parse_card(c) for c in mv.cards]
        shape = classify(cards, rules, mv.wilds, mv.wilds)
        if isinstance(shape, Problem):
            raise ValueError(f"meld {mv.id} is not a meld of {rules.name}: {shape.message}")
        meld = Meld(mv.id, mv.side, cards, shape)
        meld.dirty_canastra = mv.canastra == DIRTY
        melds.append(meld)
    if view.pile is not None:
        pile = tuple(parse_card(c) for c in view.pile)
    elif view.pile_top is not None:
        pile = (*([UNKNOWN] * (view.pile_size - 1)), parse_card(view.pile_top))
    else:
        pile = ()
    side_melded = {m.side for m in melds}
    return Information(
        rules=rules,
        seat=view.seat,
        n_players=n,
        dealer=view.dealer,
        first_player=(view.dealer + 1) % n,
        turn=view.turn,
        phase=view.phase,
        move_count=move_count,
        hand=tuple(sorted(parse_card(c) for c in view.hand)),
        hand_sizes=tuple(view.hand_sizes),
        known=tuple(() for _ in range(n)),
        melds=tuple(melds),
        red_threes=tuple(tuple(parse_card(c) for c in r) for r in view.red_threes),
        red_unreplaced=(0,) * n_sides,
        pile=pile,
        pile_frozen=view.pile_frozen,
        stock_size=view.stock_size,
        morto_sizes=tuple(view.morto_sizes),
        mortos_seen=(
            None
            if view.mortos is None
            else tuple(None if m is None else tuple(parse_card(c) for c in m) for m in view.mortos)
        ),
        morto_taken=tuple(view.morto_taken),
        morto_pending=(NOBODY,) * n_sides,
        has_melded=tuple(k % n_sides in side_melded for k in range(n)),
        melded_this_turn=False,
        new_melds_this_turn=0,
        went_out=view.went_out,
        end_reason=view.end_reason,
    )


def unseen_cards(info: Information) -> Counter[int]:
    """The cards the seat has not seen anywhere: in other hands (beyond those it knows
    of), the stock, face-down mortos and the pile's unseen part."""
    rest = Counter(full_deck(info.rules.jokers))
    seen: list[int] = list(info.hand)
    for m in info.melds:
        seen += m.cards
    for r in info.red_threes:
        seen += r
    seen += [c for c in info.pile if c != UNKNOWN]
    for k in info.known:
        seen += k
    if info.mortos_seen is not None:
        for mo in info.mortos_seen:
            if mo is not None:
                seen += mo
    rest.subtract(seen)
    return +rest


def sample_state(info: Information, rng_shuffle: list[int]) -> DealState:
    """A full deal consistent with ``info``: the unseen cards (``rng_shuffle``, a
    shuffled list of them, is consumed) dealt to the hidden places, every public
    fact copied. The engine plays it like any deal."""
    n = info.n_players
    s = DealState(info.rules, n)
    s.dealer = info.dealer
    s.first_player = info.first_player
    pool = rng_shuffle
    hands: list[list[int]] = []
    for k in range(n):
        if k == info.seat:
            hands.append(list(info.hand))
            continue
        hand = list(info.known[k])
        for _ in range(info.hand_sizes[k] - len(hand)):
            hand.append(pool.pop())
        hands.append(hand)
    s.hands = hands
    s.pile = [pool.pop() if c == UNKNOWN else c for c in info.pile]
    mortos: list[list[int] | None] = []
    for side in range(info.n_sides):
        size = info.morto_sizes[side]
        if info.mortos_seen is not None:
            seen = info.mortos_seen[side]
            mortos.append(None if seen is None else list(seen))
        elif size == 0:
            mortos.append(None)
        else:
            mortos.append([pool.pop() for _ in range(size)])
    s.mortos = mortos
    s.stock = pool[: info.stock_size]
    del pool[: info.stock_size]
    s.morto_taken = list(info.morto_taken)
    s.morto_pending = list(info.morto_pending)
    s.melds = [m.copy() for m in info.melds]
    s.red_threes = [list(r) for r in info.red_threes]
    s.red_unreplaced = list(info.red_unreplaced)
    s.turn = info.turn
    s.phase = info.phase
    s.pile_frozen = info.pile_frozen
    s.has_melded = list(info.has_melded)
    s.melded_this_turn = info.melded_this_turn
    s.new_melds_this_turn = info.new_melds_this_turn
    s.went_out = info.went_out
    s.end_reason = info.end_reason
    s.move_count = info.move_count
    return s


__all__ = [
    "UNKNOWN",
    "Information",
    "Memory",
    "PublicEvent",
    "event_after",
    "event_before",
    "information_from_view",
    "information_of",
    "sample_state",
    "unseen_cards",
]
