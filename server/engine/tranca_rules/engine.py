"""The rules engine: legal moves, validation and application of moves to a deal.

Pure and deterministic: no I/O, no clock, no randomness after the deal (which is
seeded). ``legal_moves`` lists every atomic move open to the player to act, in a
canonical order; ``apply`` accepts a move exactly when it is in that list (the
property tests check both directions) and otherwise raises a typed error,
leaving the state unchanged.
"""

from __future__ import annotations

from collections import Counter

from .cards import (
    ALL_NATURAL_CARDS,
    JOKER,
    card_text,
    holds_red_three,
    is_black_three,
    is_red_three,
    is_wild,
    rank_of,
)
from .errors import InvalidMove, Reason, RuleViolation
from .melds import (
    ACE_TO_ACE,
    BLACK_THREES,
    CLEAN,
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
    EndReason,
    deal_cards,
)
from .triples import _add_set_triples as _add_set_triples
from .triples import _add_triples as _add_triples
from .triples import _sorted3 as _sorted3
from .triples import _triples_without_low_ace as _triples_without_low_ace
from .triples import meld_triples as meld_triples

VALID_CARDS = frozenset((*ALL_NATURAL_CARDS, JOKER))
DISCARD_MOVES = {c: Move(DISCARD, NO_MELD, (c,)) for c in VALID_CARDS}
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
        moves = _take_moves(s)
        moves.sort()
        if s.stock:
            moves.insert(0, Move(DRAW))
        return moves
    seat = s.turn
    hand = s.hands[seat]
    side = s.side_of(seat)
    rules = s.rules
    counts = Counter(hand)
    n = len(hand)
    # Built in canonical order (kind, meld, cards), so no final sort is needed.
    moves = _meld_moves(s, counts, n, side)
    replaces: list[Move] = []
    for m in s.melds:
        if m.side != side:
            continue
        acc = m.accepts(rules)
        black = m.shape.kind == BLACK_THREES
        for card in sorted(acc.keys() & counts.keys()):
            rep = acc[card]
            if rep and not rules.wild_replacement:
                continue
            if (n <= 2 or black) and _grow_problem(s, side, n - 1, m, card):
                continue
            (replaces if rep else moves).append(_grow_move(REPLACE if rep else ADD, m.id, card))
    moves += replaces
    if n > 1 or morto_available(s, side) or has_required_canastra(s, side):
        moves += [DISCARD_MOVES[c] for c in sorted(counts)]
    return moves


_GROW_MOVES: dict[tuple[int, int, int], Move] = {}


def _grow_move(kind: int, meld_id: int, card: int) -> Move:
    """Moves are immutable tuples, so the common ones are made once and shared."""
    key = (kind, meld_id, card)
    move = _GROW_MOVES.get(key)
    if move is None:
        if len(_GROW_MOVES) > 100_000:
            _GROW_MOVES.clear()
        move = _GROW_MOVES[key] = Move(kind, meld_id, (card,))
    return move


def _grow_problem(
    s: DealState, side: int, remaining: int, m: Meld, card: int
) -> RuleViolation | None:
    new = m.grown(card, s.rules)
    assert not isinstance(new, Problem)
    return _hand_after_problem(s, side, remaining, m.id, new, len(m.cards) + 1)


def _take_moves(s: DealState) -> list[Move]:
    if not s.pile or pile_locked(s):
        return []
    seat = s.turn
    side = s.side_of(seat)
    hand = s.hands[seat]
    top = s.pile[-1]
    rest = len(s.pile) - 1
    moves: list[Move] = []
    rules = s.rules
    for m in s.melds:
        # The membership test first: building a refusal just to drop it is costly.
        if (
            m.side == side
            and top in m.accepts(rules)
            and _take_onto_meld_problem(s, side, m, top, rest) is None
        ):
            moves.append(Move(TAKE, m.id, ()))
    if s.pile_frozen:
        return moves
    counts = Counter(hand)
    counts[top] += 1
    remaining = len(hand) - 2 + rest
    pairs = set()
    for triple in meld_triples(counts, s.rules, top):
        pair = list(triple)
        pair.remove(top)
        cards = (pair[0], pair[1])
        if cards in pairs:
            continue
        if remaining <= 1 or is_black_three(top):
            shape = classify(list(triple), s.rules)
            assert not isinstance(shape, Problem)
            if _hand_after_problem(s, side, remaining, NO_MELD, shape, 3):
                continue
        pairs.add(cards)
    moves += [Move(TAKE, NO_MELD, cards) for cards in sorted(pairs)]
    return moves


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
    # With aces_wild an ace on another rank's set would go on as a wild: not its rank.
    top_is_wild = is_wild(top) or (rules.aces_wild and m.shape.key != rank_of(top))
    if s.pile_frozen and (
        top_is_wild or m.shape.kind != SET or m.shape.wilds or m.dirty_canastra or rep
    ):
        return RuleViolation(
            Reason.DISCARD_PILE_FROZEN,
            "the pile is frozen: its top card may only go on a meld of natural cards of its rank",
        )
    remaining = len(s.hands[s.turn]) + rest
    if remaining <= 1 or m.shape.kind == BLACK_THREES:
        return _grow_problem(s, side, remaining, m, top)
    return None


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


def _meld_moves(s: DealState, counts: Counter[int], n: int, side: int) -> list[Move]:
    rules = s.rules
    if n < 3 or (rules.one_meld_per_turn and s.new_melds_this_turn):
        return []
    moves = []
    for cards in sorted(meld_triples(counts, rules)):
        if n <= 4 or is_black_three(cards[0]):
            shape = classify(list(cards), rules)
            assert not isinstance(shape, Problem)
            if _hand_after_problem(s, side, n - 3, NO_MELD, shape, 3):
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
            raise RuleViolation(
                Reason.CARD_NOT_IN_HAND,
                f"{card_text(c)} is not in your hand",
                {"card": card_text(c)},
            )


def _meld_of(s: DealState, side: int, meld_id: int) -> Meld:
    if not 0 <= meld_id < len(s.melds):
        raise RuleViolation(
            Reason.UNKNOWN_MELD, f"there is no meld @{meld_id}", {"meld": str(meld_id)}
        )
    m = s.melds[meld_id]
    if m.side != side:
        raise RuleViolation(
            Reason.NOT_YOUR_MELD,
            f"meld @{meld_id} belongs to the other side",
            {"meld": str(meld_id)},
        )
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
        raise RuleViolation(
            Reason.NOT_YOUR_TURN, f"it is seat {s.turn}'s turn", {"seat": str(s.turn)}
        )
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
        if rules.one_meld_per_turn and s.new_melds_this_turn:
            # 004's letter: "o jogador poderá baixar uma combinação de cartas".
            raise RuleViolation(
                Reason.ONE_MELD_PER_TURN, "these rules allow one new meld a turn: add to it"
            )
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
            new = m.grown(card, rules)
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
        new = m.grown(card, rules)
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
        if rules.wild_freezes_pile:
            if is_wild(card):
                s.pile_frozen = True
            elif rules.pile_unfreezes_when_covered:
                # 002's letter: "trancada sempre que um curinga ... está no topo".
                s.pile_frozen = False
        if not hand:
            if morto_available(s, side):
                _take_morto(s, seat, side)
                if rules.morto_after_discard_plays_on:
                    # 002: "O jogador compra as 11 cartas do morto e continua seu turno".
                    _lay_red_threes(s, seat)
                    _end_if_stuck(s, seat)
                    return
                s.morto_pending[side] = seat  # indirect batida: the morto is used next turn
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
            if rules.one_meld_per_turn:  # counted only where it matters: views omit it
                s.new_melds_this_turn += 1
        hand.extend(s.pile)
        s.pile.clear()
        s.pile_frozen = False
        s.phase = PLAY_PHASE
        _lay_red_threes(s, seat)
    elif kind == MELD:
        for c in move.cards:
            hand.remove(c)
        _new_meld(s, side, list(move.cards))
        if rules.one_meld_per_turn:
            s.new_melds_this_turn += 1
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
    elif kind == TAKE:
        _end_if_stuck(s, seat)


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
    shape = meld.grown(card, s.rules)
    assert not isinstance(shape, Problem)
    meld.set_cards([*meld.cards, card], shape, s.rules)


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
    while holds_red_three(hand):
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
    s.new_melds_this_turn = 0
    nxt = (seat + 1) % s.n_players
    s.turn = nxt
    s.phase = DRAW_PHASE
    _start_turn(s, nxt)


def _start_turn(s: DealState, seat: int) -> None:
    rules = s.rules
    side = s.side_of(seat)
    if not s.stock and rules.stock_out == StockOut.MORTO_TO_STOCK:
        _mortos_to_stock(s)
    if not s.stock and rules.stock_out != StockOut.PLAY_ON:
        # The deal ends before this turn begins: nothing is laid or drawn in it.
        _end_deal(s, END_STOCK_OUT, NOBODY)
        return
    _lay_red_threes(s, seat)
    if not s.stock:
        # The red threes' replacements took the last cards: the player cannot draw.
        if rules.stock_out != StockOut.PLAY_ON:
            _end_deal(s, END_STOCK_OUT, NOBODY)
            return
        if not _take_moves(s):
            _end_deal(s, END_NO_MOVE, NOBODY)
            return
    # A morto taken by an indirect batida counts as used once its taker's turn starts.
    if s.morto_pending[side] == seat:
        s.morto_pending[side] = NOBODY


def _end_deal(s: DealState, reason: EndReason, went_out: int) -> None:
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
