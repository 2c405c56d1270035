"""Invariants over random seeds and bot play, for every preset and player count.

- every card is accounted for after every move;
- a move is accepted exactly when it is in the legal set (checked on a wide set of
  candidate moves, legal and not, at every position of the deal);
- a rejected move changes nothing;
- every deal ends;
- every side's score equals its breakdown, recomputed here from the final position;
- a view never holds a card its reader may not see;
- a snapshot round-trips, and replaying the moves from the seed rebuilds the state.
"""

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.rules.literal_knobs import literal_rules
from tranca_rules.bots import GreedyBot, RandomBot
from tranca_rules.cards import full_deck, parse_card
from tranca_rules.engine import apply, legal_moves, new_deal, validate
from tranca_rules.errors import InvalidMove, RuleViolation
from tranca_rules.invariants import check_invariants
from tranca_rules.melds import classify
from tranca_rules.moves import ADD, DISCARD, DRAW, MELD, NO_MELD, REPLACE, TAKE, Move
from tranca_rules.presets import PRESETS, PileView, Rules
from tranca_rules.scoring import card_points, score_deal
from tranca_rules.state import DealState
from tranca_rules.views import SPECTATOR, seat_view

GAMES = [(name, n) for name, r in sorted(PRESETS.items()) for n in r.player_counts]


def candidate_moves(s: DealState, rng_pick: int) -> list[Move]:
    """Legal moves plus many that are not: every card of the deck discarded or added
    to every meld, every take, and melds drawn from the hand and beyond it."""
    deck = sorted(set(full_deck(True)))
    hand = sorted(set(s.hands[s.turn]))
    moves = {Move(DRAW)}
    moves.update(Move(DISCARD, NO_MELD, (c,)) for c in deck)
    for m in range(len(s.melds) + 1):
        moves.add(Move(TAKE, m, ()))
        for c in deck:
            moves.add(Move(ADD, m, (c,)))
            moves.add(Move(REPLACE, m, (c,)))
    for i, a in enumerate(hand):
        for b in hand[i:]:
            moves.add(Move(TAKE, NO_MELD, (a, b)))
    for i, a in enumerate(hand):
        for j, b in enumerate(hand[i:], i):
            for c in hand[j:][:4]:
                moves.add(Move(MELD, NO_MELD, (a, b, c)))
    # a few melds with cards not in the hand
    for k in range(5):
        a, b, c = deck[(rng_pick + k) % 53], deck[(rng_pick + 2 * k + 1) % 53], deck[k]
        moves.add(Move(MELD, NO_MELD, tuple(sorted((a, b, c)))))
    moves.update(legal_moves(s))
    return sorted(moves)


def check_legal_set_is_exact(s: DealState, pick: int) -> None:
    legal = set(legal_moves(s))
    before = s.to_dict()
    for i, move in enumerate(candidate_moves(s, pick)):
        try:
            validate(s, s.turn, move)
            accepted = True
        except (InvalidMove, RuleViolation):
            accepted = False
        assert accepted == (move in legal), (str(move), accepted)
        if not accepted and (i + pick) % 13 == 0:
            # A rejected move leaves the state as it was (on a sample: it is slow).
            trial = s.copy()
            with pytest.raises((InvalidMove, RuleViolation)):
                apply(trial, trial.turn, move)
            assert trial.to_dict() == before
        else:
            other = (s.turn + 1) % s.n_players
            with pytest.raises(RuleViolation):
                validate(s, other, move)  # nobody else may play it


def view_cards(view: dict[str, Any]) -> Counter[int]:
    cards: list[str] = []
    cards += view["hand"] or []
    for m in view["melds"]:
        cards += m["cards"]
    for r in view["red_threes"]:
        cards += r
    if view["pile"] is not None:
        cards += view["pile"]
    elif view["pile_top"]:
        cards.append(view["pile_top"])
    for mo in view["mortos"] or []:
        cards += mo or []
    return Counter(parse_card(c) for c in cards)


def allowed_cards(s: DealState, seat: int) -> Counter[int]:
    """Independently of views.py: what a seat may see."""
    out: Counter[int] = Counter()
    if seat >= 0:
        out.update(s.hands[seat])
    for m in s.melds:
        out.update(m.cards)
    for r in s.red_threes:
        out.update(r)
    if s.rules.pile_view == PileView.ALL:
        out.update(s.pile)
    elif s.pile:
        out[s.pile[-1]] += 1
    if s.rules.mortos_face_up:
        for mo in s.mortos:
            out.update(mo or [])
    return out


def check_views(s: DealState) -> None:
    for seat in [*range(s.n_players), SPECTATOR]:
        seen = view_cards(seat_view(s, seat))
        allowed = allowed_cards(s, seat)
        assert not (seen - allowed), f"seat {seat} sees cards it may not: {seen - allowed}"
        assert seen == allowed, f"seat {seat}'s view misses cards it may see"


def check_score_breakdown(s: DealState) -> None:
    rules: Rules = s.rules
    scores = score_deal(s)
    for sc in scores:
        parts = (
            sc.table_cards
            + sum(sc.canastras.values())
            + sc.batida
            + sc.red_threes
            + sc.morto_penalty
            + sc.hand_cards
            + sc.untaken_morto_cards
        )
        assert sc.total == parts
        table = sum(
            card_points(c, rules.card_values) for m in s.melds if m.side == sc.side for c in m.cards
        )
        assert sc.table_cards == table
        went_out_side = s.side_of(s.went_out) if s.went_out >= 0 else None
        assert (sc.batida > 0) == (went_out_side == sc.side)
        assert sc.morto_penalty in (0, -rules.morto_penalty)
        assert sc.hand_cards <= 0
        if not s.morto_taken[sc.side]:
            untaken = rules.untaken_morto_is_penalised
            assert sc.morto_penalty == (-rules.morto_penalty if untaken else 0)


@pytest.mark.parametrize(("preset", "players"), GAMES)
@given(seed=st.integers(0, 2**32), greedy=st.booleans())
def test_invariants_over_whole_deals(preset: str, players: int, seed: int, greedy: bool) -> None:
    play_whole_deal(PRESETS[preset], players, seed, greedy)


# Thirty mixes of knobs and presets a run: each is a whole deal checked move by move
# (about a second), and the presets' own deals are the tests above.
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=literal_rules(), seed=st.integers(0, 2**32), greedy=st.booleans())
def test_invariants_over_whole_deals_under_the_literal_readings(
    rules: Rules, seed: int, greedy: bool
) -> None:
    """The same invariants with any mix of the literal-reading knobs on any preset: no
    move accepted that the knobs forbid, none refused that they allow."""
    players = rules.player_counts[seed % len(rules.player_counts)]
    play_whole_deal(rules, players, seed, greedy)


def play_whole_deal(rules: Rules, players: int, seed: int, greedy: bool) -> None:
    s = new_deal(rules, players, seed=seed, dealer=seed % players)
    bot_type = GreedyBot if greedy else RandomBot
    bots = [bot_type(seed + k) for k in range(players)]
    moves: list[tuple[int, Move]] = []
    while not s.is_over:
        assert len(moves) < 3000, "the deal did not end"
        assert check_invariants(s) == []
        if len(moves) % 7 == 0:
            check_legal_set_is_exact(s, seed + len(moves))
        check_views(s)
        legal = legal_moves(s)
        assert legal, "a live position has no legal move"
        assert legal == sorted(legal) and len(set(legal)) == len(legal)
        move = bots[s.turn].choose(s, legal)
        moves.append((s.turn, move))
        apply(s, s.turn, move)
    assert check_invariants(s) == []
    check_views(s)
    check_score_breakdown(s)
    # A snapshot round-trips, and the moves replayed from the seed rebuild the state.
    assert DealState.from_dict(s.to_dict()).to_dict() == s.to_dict()
    # Snapshots store each meld's shape rather than classify it again on load: the
    # stored shape must be the one classification gives.
    for meld in s.melds:
        assert classify(list(meld.cards), rules, meld.shape.wilds) == meld.shape
    replay = new_deal(rules, players, seed=seed, dealer=seed % players)
    for seat, move in moves:
        apply(replay, seat, move)
    assert replay.to_dict() == s.to_dict()


@pytest.mark.parametrize(("preset", "players"), GAMES)
def test_snapshot_round_trip_mid_deal_keeps_the_legal_moves(preset: str, players: int) -> None:
    rules = PRESETS[preset]
    s = new_deal(rules, players, seed=11)
    bots = [RandomBot(k) for k in range(players)]
    for _ in range(40):
        if s.is_over:
            break
        apply(s, s.turn, bots[s.turn].choose(s, legal_moves(s)))
        restored = DealState.from_dict(s.to_dict())
        assert legal_moves(restored) == legal_moves(s)
