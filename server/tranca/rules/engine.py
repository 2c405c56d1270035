"""The rules engine: legal moves, validation and application of moves to a deal.

Pure and deterministic: no I/O, no clock, no randomness after the deal (which is
seeded). ``legal_moves`` lists every atomic move open to the player to act, in a
canonical order; ``apply`` accepts a move exactly when it is in that list (the
property tests check both directions) and otherwise raises a typed error,
leaving the state unchanged.
"""

from __future__ import annotations

from collections import Counter

from .cards import ALL_NATURAL_CARDS, JOKER, TWO, card_text, is_black_three, is_red_three
from .errors import InvalidMove, Reason, RuleViolation
from .melds import (
    ACE_TO_ACE,
    BLACK_THREES,
    CLEAN,
    HIGH,
    REAL,
    SET,
    Meld,
    Problem,
    Shape,
    canastra_kind,
    classify,
)
from .moves import ADD, DISCARD, DRAW, MELD, NO_MELD, REPLACE, TAKE, Move, check_shape
from .presets import Rules, StockOut
from .state import (
    DRAW_PHASE,
    END_BATIDA,
    END_NO_MOVE,
    END_STOCK_OUT,
    NOBODY,
    OVER,
    PLAY_PHASE,
    DealState,
    deal_cards,
)

VALID_CARDS = frozenset((*ALL_NATURAL_CARDS, JOKER))
CLEAN_KINDS = frozenset((CLEAN, REAL, ACE_TO_ACE))


def new_deal(
    rules: Rules,
    n_players: int,
    *,
    seed: int = 0,
    dealer: int = 0,
    deck: list[int] | None = None,
) -> DealState:
    """Deal the cards and start the first turn (laying the first player's red threes)."""
    s = deal_cards(rules, n_players, seed=seed, dealer=dealer, deck=deck)
    _start_turn(s, s.turn)
    return s


# ----- questions about a position ----------------------------------------------------


def morto_available(s: DealState, side: int) -> bool:
    return s.mortos[side] is not None


def has_required_canastra(
    s: DealState, side: int, changed: int = NO_MELD, shape: Shape | None = None, size: int = 0
) -> bool:
    """Whether ``side`` holds the canastra needed to go out (and, in 003, for red
    threes to count): a clean one, or any, as the preset says. ``changed`` is a
    meld id (or NO_MELD for a new meld) whose shape and size would be ``shape`` and
    ``size`` after the move under validation."""
    rules = s.rules
    need_clean = rules.going_out_needs_clean_canastra
    if shape is not None:
        dirty_before = changed != NO_MELD and s.melds[changed].dirty_canastra
        kind = canastra_kind(shape, size, dirty_before, rules)
        if kind is not None and (not need_clean or kind in CLEAN_KINDS):
            return True
    for m in s.melds:
        if m.side != side or m.id == changed:
            continue
        kind = m.canastra_kind(rules)
        if kind is not None and (not need_clean or kind in CLEAN_KINDS):
            return True
    return False


def side_canastra_kinds(s: DealState, side: int) -> list[str]:
    out = []
    for m in s.melds:
        if m.side == side:
            kind = m.canastra_kind(s.rules)
            if kind is not None:
                out.append(kind)
    return out


def pile_locked(s: DealState) -> bool:
    return bool(s.pile) and s.rules.black_three_locks_pile and is_black_three(s.pile[-1])


def _no_canastra_reason(rules: Rules) -> Reason:
    if rules.going_out_needs_clean_canastra:
        return Reason.CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA
    return Reason.CANNOT_GO_OUT_WITHOUT_CANASTRA


def _hand_after_problem(
    s: DealState, side: int, remaining: int, changed: int, shape: Shape, size: int
) -> RuleViolation | None:
    """A meld may empty the hand, or leave one card to discard, only when the player
    may then take the morto or go out."""
    if remaining >= 2 or morto_available(s, side):
        if shape.kind == BLACK_THREES:
            return _black_threes_problem(s, side, remaining, changed, shape, size)
        return None
    if has_required_canastra(s, side, changed, shape, size):
        if shape.kind == BLACK_THREES:
            return _black_threes_problem(s, side, remaining, changed, shape, size)
        return None
    if remaining == 0:
        return RuleViolation(
            _no_canastra_reason(s.rules),
            "this would empty your hand, and your side cannot go out yet",
        )
    return RuleViolation(
        Reason.MUST_KEEP_A_CARD_TO_DISCARD,
        "this would leave one card, which you could only discard by going out, "
        "and your side cannot go out yet",
    )


def _black_threes_problem(
    s: DealState, side: int, remaining: int, changed: int, shape: Shape, size: int
) -> RuleViolation | None:
    if (
        remaining <= 1
        and not morto_available(s, side)
        and has_required_canastra(s, side, changed, shape, size)
    ):
        return None
    return RuleViolation(
        Reason.BLACK_THREES_ONLY_WHEN_GOING_OUT,
        "black threes may be melded only as the play that takes you out",
    )


# ----- legal moves -------------------------------------------------------------------


def legal_moves(s: DealState) -> list[Move]:
    """Every atomic move open to the player to act, in canonical (sorted) order."""
    if s.phase == OVER:
        return []
    if s.phase == DRAW_PHASE:
        moves = [Move(DRAW)] if s.stock else []
        moves += _take_moves(s)
        return moves
    seat = s.turn
    hand = s.hands[seat]
    side = s.side_of(seat)
    rules = s.rules
    counts = Counter(hand)
    moves = _meld_moves(s, hand, counts, side)
    n = len(hand)
    for m in s.melds:
        if m.side != side:
            continue
        acc = m.accepts(rules)
        for card in counts:
            rep = acc.get(card)
            if rep is None or (rep and not rules.wild_replacement):
                continue
            if n <= 2 or m.shape.kind == BLACK_THREES:
                new = classify([*m.cards, card], rules)
                assert not isinstance(new, Problem)
                if _hand_after_problem(s, side, n - 1, m.id, new, len(m.cards) + 1):
                    continue
            moves.append(Move(REPLACE if rep else ADD, m.id, (card,)))
    can_empty = n > 1 or morto_available(s, side) or has_required_canastra(s, side)
    if can_empty:
        moves += [Move(DISCARD, NO_MELD, (c,)) for c in counts]
    moves.sort()
    return moves


def _take_moves(s: DealState) -> list[Move]:
    if not s.pile or pile_locked(s):
        return []
    seat = s.turn
    side = s.side_of(seat)
    hand = s.hands[seat]
    top = s.pile[-1]
    rest = len(s.pile) - 1
    moves: list[Move] = []
    for m in s.melds:
        if m.side != side:
            continue
        if _take_onto_meld_problem(s, side, m, top, rest) is None:
            moves.append(Move(TAKE, m.id, ()))
    if s.pile_frozen:
        return moves
    counts = Counter(hand)
    compat = sorted(c for c in counts if _compatible(c, top))
    for i, a in enumerate(compat):
        for b in compat[i:]:
            if a == b and counts[a] < 2:
                continue
            cards = (a, b)
            if _take_new_meld_problem(s, side, top, cards, rest) is None:
                moves.append(Move(TAKE, NO_MELD, cards))
    return moves


def _compatible(card: int, top: int) -> bool:
    """Cheap filter: could ``card`` share a three-card meld with ``top``?"""
    if card == JOKER or top == JOKER or (card & 15) == TWO or (top & 15) == TWO:
        return True
    if (card & 15) == (top & 15):
        return True
    if (card >> 4) != (top >> 4):
        return False
    a, b = card & 15, top & 15
    d = abs(a - b)
    return d <= 2 or d >= 11  # an ace next to a king or a queen


def _take_onto_meld_problem(
    s: DealState, side: int, m: Meld, top: int, rest: int
) -> RuleViolation | None:
    rules = s.rules
    if m.side != side:
        return RuleViolation(Reason.NOT_YOUR_MELD, f"meld @{m.id} belongs to the other side")
    rep = m.accepts(rules).get(top)
    if rep is None or (rep and not rules.wild_replacement):
        return RuleViolation(
            Reason.TOP_CARD_NOT_USED, f"the top card {card_text(top)} does not fit meld @{m.id}"
        )
    top_is_wild = top == JOKER or (top & 15) == TWO
    if s.pile_frozen and (
        top_is_wild or m.shape.kind != SET or m.shape.wilds or m.dirty_canastra or rep
    ):
        return RuleViolation(
            Reason.DISCARD_PILE_FROZEN,
            "the pile is frozen: its top card may only go on a meld of natural cards of its rank",
        )
    new = classify([*m.cards, top], rules)
    assert not isinstance(new, Problem)
    n = len(s.hands[s.turn])
    return _hand_after_problem(s, side, n + rest, m.id, new, len(m.cards) + 1)


def _take_new_meld_problem(
    s: DealState, side: int, top: int, cards: tuple[int, int], rest: int
) -> RuleViolation | None:
    if s.pile_frozen:
        return RuleViolation(
            Reason.DISCARD_PILE_FROZEN,
            "the pile is frozen: its top card may only go on a meld of natural cards of its rank",
        )
    shape = classify([top, *cards], s.rules)
    if isinstance(shape, Problem):
        return RuleViolation(
            Reason.TOP_CARD_NOT_USED,
            f"the top card {card_text(top)} does not make a meld with "
            f"{card_text(cards[0])} {card_text(cards[1])}: {shape.message}",
        )
    n = len(s.hands[s.turn])
    return _hand_after_problem(s, side, n - 2 + rest, NO_MELD, shape, 3)


def _multisets(items: list[tuple[int, int]], k: int) -> list[tuple[int, ...]]:
    """All multisets of size ``k`` drawn from (value, available count) pairs."""
    out: list[tuple[int, ...]] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if left == 0:
            out.append(tuple(acc))
            return
        if i == len(items):
            return
        value, count = items[i]
        for take_n in range(min(count, left), -1, -1):
            rec(i + 1, left - take_n, acc + [value] * take_n)

    rec(0, k, [])
    return out


def _meld_candidates(hand_counts: Counter[int], rules: Rules) -> set[tuple[int, ...]]:
    wilds = [(c, n) for c, n in hand_counts.items() if c == JOKER or (c & 15) == TWO]
    by_rank: dict[int, list[tuple[int, int]]] = {}
    by_suit: dict[int, dict[int, int]] = {}
    for c, n in hand_counts.items():
        if c == JOKER:
            continue
        r = c & 15
        by_rank.setdefault(r, []).append((c, n))
        by_suit.setdefault(c >> 4, {})[r] = c
    out: set[tuple[int, ...]] = set()
    max_w = min(rules.max_wilds_per_meld, 3 - rules.min_naturals)
    if rules.sets:
        for r, naturals in by_rank.items():
            if r == TWO:
                if rules.twos_set:
                    out.update(_multisets(naturals, 3))
                continue
            if r == 3:
                if rules.black_threes_when_going_out:
                    blacks = [(c, n) for c, n in naturals if is_black_three(c)]
                    out.update(_multisets(blacks, 3))
                continue
            total = sum(n for _, n in naturals)
            for n_w in range(0, max_w + 1):
                if total < 3 - n_w:
                    continue
                for nat in _multisets(naturals, 3 - n_w):
                    if n_w == 0:
                        out.add(nat)
                    else:
                        for w in _multisets(wilds, n_w):
                            out.add(tuple(sorted(nat + w)))
    elif rules.black_threes_when_going_out and 3 in by_rank:
        blacks = [(c, n) for c, n in by_rank[3] if is_black_three(c)]
        out.update(_multisets(blacks, 3))
    if rules.sequences:
        low = rules.run_low
        for suit_cards in by_suit.values():
            pos: dict[int, int] = {}
            for r, c in suit_cards.items():
                if r == 1:
                    pos[HIGH] = c
                    if low == 1:
                        pos[1] = c
                elif r == TWO:
                    if low <= TWO:
                        pos[TWO] = c
                elif r >= low:
                    pos[r] = c
            for p in range(low, HIGH - 1):
                present = [pos[q] for q in (p, p + 1, p + 2) if q in pos]
                if len(present) == 3:
                    out.add(tuple(sorted(present)))
                elif len(present) == 2 and max_w >= 1:
                    for wild, _ in wilds:
                        out.add(tuple(sorted([*present, wild])))
    return out


def _meld_moves(s: DealState, hand: list[int], counts: Counter[int], side: int) -> list[Move]:
    rules = s.rules
    n = len(hand)
    if n < 3:
        return []
    moves = []
    for cards in _meld_candidates(counts, rules):
        if any(cards.count(c) > counts[c] for c in set(cards)):
            continue
        shape = classify(list(cards), rules)
        if isinstance(shape, Problem):
            continue
        if (n <= 4 or shape.kind == BLACK_THREES) and _hand_after_problem(
            s, side, n - 3, NO_MELD, shape, 3
        ):
            continue
        moves.append(Move(MELD, NO_MELD, cards))
    return moves


# ----- validation --------------------------------------------------------------------


def _check_cards_exist(move: Move) -> None:
    for c in move.cards:
        if c not in VALID_CARDS:
            raise InvalidMove(f"no such card: {c!r}")


def _require_in_hand(hand: list[int], cards: tuple[int, ...]) -> None:
    for c in set(cards):
        if hand.count(c) < cards.count(c):
            raise RuleViolation(Reason.CARD_NOT_IN_HAND, f"{card_text(c)} is not in your hand")


def _meld_of(s: DealState, side: int, meld_id: int) -> Meld:
    if not 0 <= meld_id < len(s.melds):
        raise RuleViolation(Reason.UNKNOWN_MELD, f"there is no meld @{meld_id}")
    m = s.melds[meld_id]
    if m.side != side:
        raise RuleViolation(Reason.NOT_YOUR_MELD, f"meld @{meld_id} belongs to the other side")
    return m


def validate(s: DealState, seat: int, move: Move) -> None:
    """Raise ``InvalidMove`` or ``RuleViolation`` unless ``seat`` may play ``move``."""
    if not isinstance(move, Move):
        raise InvalidMove("not a move")
    check_shape(move)
    _check_cards_exist(move)
    if s.phase == OVER:
        raise RuleViolation(Reason.DEAL_OVER, "the deal is over")
    if not 0 <= seat < s.n_players or seat != s.turn:
        raise RuleViolation(Reason.NOT_YOUR_TURN, f"it is seat {s.turn}'s turn")
    kind = move.kind
    rules = s.rules
    side = s.side_of(seat)
    hand = s.hands[seat]
    if kind in (DRAW, TAKE):
        if s.phase != DRAW_PHASE:
            raise RuleViolation(Reason.ALREADY_DREW, "you have already drawn this turn")
        if kind == DRAW:
            if not s.stock:
                raise RuleViolation(Reason.STOCK_EMPTY, "the stock is empty")
            return
        if not s.pile:
            raise RuleViolation(Reason.DISCARD_PILE_EMPTY, "the discard pile is empty")
        if pile_locked(s):
            raise RuleViolation(
                Reason.DISCARD_PILE_LOCKED, "a black three on top locks the discard pile"
            )
        _require_in_hand(hand, move.cards)
        rest = len(s.pile) - 1
        top = s.pile[-1]
        if move.meld != NO_MELD:
            m = _meld_of(s, side, move.meld)
            problem = _take_onto_meld_problem(s, side, m, top, rest)
        else:
            a, b = move.cards
            problem = _take_new_meld_problem(s, side, top, (a, b), rest)
        if problem:
            raise problem
        return
    if s.phase != PLAY_PHASE:
        raise RuleViolation(Reason.MUST_DRAW_FIRST, "draw from the stock or take the pile first")
    _require_in_hand(hand, move.cards)
    n = len(hand)
    if kind == MELD:
        shape = classify(list(move.cards), rules)
        if isinstance(shape, Problem):
            raise RuleViolation(shape.reason, shape.message)
        problem = _hand_after_problem(s, side, n - 3, NO_MELD, shape, 3)
        if problem:
            raise problem
        return
    if kind in (ADD, REPLACE):
        m = _meld_of(s, side, move.meld)
        card = move.cards[0]
        rep = m.accepts(rules).get(card)
        if rep is None:
            new = classify([*m.cards, card], rules)
            if isinstance(new, Problem) and new.reason in (
                Reason.TOO_MANY_WILDS,
                Reason.THREES_CANNOT_BE_MELDED,
            ):
                raise RuleViolation(new.reason, new.message)
            raise RuleViolation(
                Reason.CARD_DOES_NOT_FIT, f"{card_text(card)} does not fit meld @{m.id}"
            )
        if rep and not rules.wild_replacement:
            raise RuleViolation(
                Reason.WILD_REPLACEMENT_NOT_ALLOWED,
                f"{card_text(card)} would take a wild's place, which these rules forbid",
            )
        if rep and kind == ADD:
            raise RuleViolation(
                Reason.CARD_DOES_NOT_FIT,
                f"{card_text(card)} takes a wild's place in meld @{m.id}: send it as replace",
            )
        if not rep and kind == REPLACE:
            raise RuleViolation(
                Reason.NOT_A_WILD_REPLACEMENT,
                f"{card_text(card)} does not take a wild's place in meld @{m.id}: send it as add",
            )
        new = classify([*m.cards, card], rules)
        assert not isinstance(new, Problem)
        problem = _hand_after_problem(s, side, n - 1, m.id, new, len(m.cards) + 1)
        if problem:
            raise problem
        return
    # DISCARD
    if n == 1 and not morto_available(s, side) and not has_required_canastra(s, side):
        raise RuleViolation(
            _no_canastra_reason(rules), "discarding your last card would go out, and you cannot"
        )


def is_legal(s: DealState, seat: int, move: Move) -> bool:
    try:
        validate(s, seat, move)
    except (InvalidMove, RuleViolation):
        return False
    return True


# ----- application -------------------------------------------------------------------


def apply(s: DealState, seat: int, move: Move) -> None:
    """Validate and apply ``move`` for ``seat`` in place; on error nothing changes."""
    validate(s, seat, move)
    apply_unchecked(s, seat, move)


def apply_unchecked(s: DealState, seat: int, move: Move) -> None:
    """Apply a move already known to be legal (for example taken from ``legal_moves``)."""
    kind = move.kind
    rules = s.rules
    hand = s.hands[seat]
    side = s.side_of(seat)
    s.move_count += 1
    if kind == DRAW:
        card = s.stock.pop()
        hand.append(card)
        s.phase = PLAY_PHASE
        if is_red_three(card):
            _lay_red_threes(s, seat)
            _end_if_stuck(s, seat)
        return
    if kind == DISCARD:
        card = move.cards[0]
        hand.remove(card)
        s.pile.append(card)
        if rules.wild_freezes_pile and (card == JOKER or (card & 15) == TWO):
            s.pile_frozen = True
        if not hand:
            if morto_available(s, side):  # indirect batida: the morto is used next turn
                _take_morto(s, seat, side)
                s.morto_pending[side] = seat
            else:
                _end_deal(s, END_BATIDA, seat)
                return
        _end_turn(s, seat)
        return
    if kind == TAKE:
        top = s.pile.pop()
        if move.meld != NO_MELD:
            _grow_meld(s, s.melds[move.meld], top)
        else:
            for c in move.cards:
                hand.remove(c)
            _new_meld(s, side, [top, *move.cards])
        hand.extend(s.pile)
        s.pile.clear()
        s.pile_frozen = False
        s.phase = PLAY_PHASE
        _lay_red_threes(s, seat)
        _end_if_stuck(s, seat)
    elif kind == MELD:
        for c in move.cards:
            hand.remove(c)
        _new_meld(s, side, list(move.cards))
    else:  # ADD, REPLACE
        card = move.cards[0]
        hand.remove(card)
        _grow_meld(s, s.melds[move.meld], card)
    s.melded_this_turn = True
    if not hand:
        if morto_available(s, side):  # direct batida: take the morto and play on
            _take_morto(s, seat, side)
            _lay_red_threes(s, seat)
            _end_if_stuck(s, seat)
        else:
            _end_deal(s, END_BATIDA, seat)


def _end_if_stuck(s: DealState, seat: int) -> None:
    """A red three laid with no card to replace it can leave a player with no legal
    move (one card they may not discard, or none at all): the deal then ends, as
    002 ends it when a player "não possa jogar legalmente"."""
    if s.phase == OVER or len(s.hands[seat]) > 1:
        return
    if not s.hands[seat] or not legal_moves(s):
        _end_deal(s, END_NO_MOVE, NOBODY)


def _new_meld(s: DealState, side: int, cards: list[int]) -> None:
    shape = classify(cards, s.rules)
    assert not isinstance(shape, Problem)
    meld = Meld(len(s.melds), side, [], shape)
    meld.set_cards(cards, shape, s.rules)
    s.melds.append(meld)


def _grow_meld(s: DealState, meld: Meld, card: int) -> None:
    cards = [*meld.cards, card]
    shape = classify(cards, s.rules)
    assert not isinstance(shape, Problem)
    meld.set_cards(cards, shape, s.rules)


def _take_morto(s: DealState, seat: int, side: int) -> None:
    morto = s.mortos[side]
    assert morto is not None
    s.hands[seat] = morto
    s.mortos[side] = None
    s.morto_taken[side] = True


def _lay_red_threes(s: DealState, seat: int) -> None:
    """Red threes go face up in front of their side as soon as their holder is to
    act; where the preset says so, each is replaced from the stock."""
    hand = s.hands[seat]
    side = s.side_of(seat)
    rules = s.rules
    while True:
        reds = [c for c in hand if is_red_three(c)]
        if not reds:
            return
        for c in reds:
            hand.remove(c)
            s.red_threes[side].append(c)
        if not rules.red_three_replacement:
            return
        for _ in reds:
            if not s.stock and rules.stock_out == StockOut.MORTO_TO_STOCK:
                _mortos_to_stock(s)
            if s.stock:
                hand.append(s.stock.pop())
            else:
                s.red_unreplaced[side] += 1


def _mortos_to_stock(s: DealState) -> None:
    """003: when the stock runs out, the mortos still on the table become the stock."""
    for side, morto in enumerate(s.mortos):
        if morto is not None:
            s.stock[:0] = morto
            s.mortos[side] = None


def _end_turn(s: DealState, seat: int) -> None:
    if s.melded_this_turn:
        s.has_melded[seat] = True
        s.melded_this_turn = False
    nxt = (seat + 1) % s.n_players
    s.turn = nxt
    s.phase = DRAW_PHASE
    _start_turn(s, nxt)


def _start_turn(s: DealState, seat: int) -> None:
    rules = s.rules
    side = s.side_of(seat)
    if s.morto_pending[side] == seat:
        s.morto_pending[side] = NOBODY
    if not s.stock and rules.stock_out == StockOut.MORTO_TO_STOCK:
        _mortos_to_stock(s)
    _lay_red_threes(s, seat)
    if s.stock:
        return
    if rules.stock_out == StockOut.PLAY_ON:
        if not _take_moves(s):
            _end_deal(s, END_NO_MOVE, NOBODY)
        return
    _end_deal(s, END_STOCK_OUT, NOBODY)


def _end_deal(s: DealState, reason: str, went_out: int) -> None:
    s.phase = OVER
    s.end_reason = reason
    s.went_out = went_out
    if went_out != NOBODY and s.melded_this_turn:
        s.melded_this_turn = False
        # has_melded keeps its value from before the going-out turn (concealed bonus)


def play(s: DealState, seat: int, text: str) -> None:
    """Apply a move given in the text notation (handy in tests and the CLI)."""
    from .moves import parse_move

    apply(s, seat, parse_move(text))
