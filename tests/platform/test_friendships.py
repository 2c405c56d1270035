"""Friends between two players (platform/friendships.py): the relation each side holds
and how an operation changes it, under both models an app may choose (003: "tus
amigos"; requests, or mutual follow). The property: whatever the two players do, in
any order, both sides of the pair agree, and asking again changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tranca.platform.friendships import (
    MAX_FRIENDS,
    Change,
    Counts,
    FriendModel,
    FriendshipRefused,
    Operation,
    Pair,
    Relation,
    apply,
    holds,
)
from tranca.reasons import Reason

N, F, S, R, B = (
    Relation.NONE,
    Relation.FRIEND,
    Relation.REQUEST_SENT,
    Relation.REQUEST_RECEIVED,
    Relation.BLOCKED,
)


def flip(pair: Pair) -> Pair:
    return Pair(pair.theirs, pair.mine)


def test_a_request_waits_until_the_other_accepts() -> None:
    asked = apply(Operation.ADD, Pair(), FriendModel.REQUESTS)
    assert (asked.after, asked.change) == (Pair(S, R), Change.REQUESTED)
    accepted = apply(Operation.ACCEPT, flip(asked.after), FriendModel.REQUESTS)
    assert (accepted.after, accepted.change) == (Pair(F, F), Change.ACCEPTED)


def test_asking_a_player_who_asked_you_accepts_them() -> None:
    outcome = apply(Operation.ADD, Pair(R, S), FriendModel.REQUESTS)
    assert (outcome.after, outcome.change) == (Pair(F, F), Change.ACCEPTED)


def test_removing_a_friend_ends_both_sides_under_requests_and_one_under_follow() -> None:
    assert apply(Operation.REMOVE, Pair(F, F), FriendModel.REQUESTS).after == Pair(N, N)
    # Mutual follow: the remover unfollows; the other still follows them, and a
    # second removal changes nothing (found by the property below).
    unfollowed = apply(Operation.REMOVE, Pair(F, F), FriendModel.MUTUAL_FOLLOW)
    assert unfollowed.after == Pair(R, S)
    assert apply(Operation.REMOVE, unfollowed.after, FriendModel.MUTUAL_FOLLOW).change is None


def test_a_block_ends_everything_but_the_other_sides_own_block_and_is_told_as_a_removal() -> None:
    for before in (Pair(F, F), Pair(S, R), Pair(R, S)):
        outcome = apply(Operation.BLOCK, before, FriendModel.REQUESTS)
        assert outcome.after == Pair(B, N)
        assert outcome.told_other(before) == Change.REMOVED
    both = apply(Operation.BLOCK, Pair(N, B), FriendModel.REQUESTS)
    assert both.after == Pair(B, B)
    assert both.told_other(Pair(N, B)) is None  # their side did not change
    assert apply(Operation.BLOCK, Pair(), FriendModel.REQUESTS).told_other(Pair()) is None


def test_a_blocked_player_cannot_ask_and_the_blocker_must_unblock_first() -> None:
    with pytest.raises(FriendshipRefused) as refused:
        apply(Operation.ADD, Pair(N, B), FriendModel.REQUESTS)
    assert refused.value.reason == Reason.FRIEND_REQUEST_REFUSED
    with pytest.raises(FriendshipRefused) as refused:
        apply(Operation.ADD, Pair(B, N), FriendModel.REQUESTS)
    assert refused.value.reason == Reason.PLAYER_BLOCKED


def test_a_full_friends_list_takes_no_more_on_either_side() -> None:
    full = Counts(friends=MAX_FRIENDS)
    for mine, theirs in ((full, Counts()), (Counts(), full)):
        with pytest.raises(FriendshipRefused) as refused:
            apply(Operation.ACCEPT, Pair(R, S), FriendModel.REQUESTS, mine, theirs)
        assert refused.value.cap and refused.value.reason == Reason.FRIEND_LIMIT_REACHED


MOVES = st.lists(
    st.tuples(st.sampled_from(list(Operation)), st.booleans()), min_size=1, max_size=30
)


@settings(max_examples=500)
@given(MOVES, st.sampled_from(list(FriendModel)))
def test_whatever_two_players_do_both_sides_agree_and_repeats_change_nothing(
    moves: list[tuple[Operation, bool]], model: FriendModel
) -> None:
    pair = Pair()  # as the first player sees it
    for operation, by_first in moves:
        seen = pair if by_first else flip(pair)
        try:
            outcome = apply(operation, seen, model)
        except FriendshipRefused:
            continue
        after = outcome.after if by_first else flip(outcome.after)
        assert holds(after), (operation, seen, outcome)
        assert (outcome.change is None) == (outcome.after == seen)
        # The same operation again, at once, is no second change.
        assert apply(operation, outcome.after, model).change is None
        pair = after
