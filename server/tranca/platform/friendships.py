"""Friends between two players of an app: the relation each holds to the other, and
how a player's request changes it (pure: no I/O).

A pair of players is two relations, one seen from each side (``Pair``): ``NONE``,
``FRIEND``, ``REQUEST_SENT`` / ``REQUEST_RECEIVED`` (a request waiting, seen from its
sender and from its receiver) and ``BLOCKED`` (this side blocked the other). They
hold together: a friend's friend side is a friend, a sent request is received on the
other side, and a side that blocked faces ``NONE`` (the blocked player is not told)
or a block of its own.

Two models, chosen by the app (003: "tus amigos"; Nakama and the portals ask and
accept, Twitter-like rooms follow):

- **requests** (the default): a player asks, the other accepts or declines; until
  then nothing is shared. Removing a friend ends the friendship on both sides.
- **mutual follow**: a request is a follow that holds at once (``REQUEST_SENT`` reads
  "following", ``REQUEST_RECEIVED`` "follower"); two players who follow each other
  are friends. Removing a friend unfollows them: they still follow you. Declining
  removes a follower.

Each operation either changes the pair, names the change (what both sides are told)
and returns it, or leaves it as it is: asking twice is no second change, so a call
retried after a lost answer changes nothing more. What the pair's state forbids is
a ``FriendshipRefused`` with the reason the API gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..reasons import Reason

# The most friends a player has, and the most requests (or follows) waiting from
# them and blocks they keep: a list a client shows whole, and no way to spam a whole
# app with requests.
MAX_FRIENDS = 1000
MAX_PENDING_SENT = 200
MAX_BLOCKED = 1000


class Relation(StrEnum):
    """One player's relation to another; the values are the stored and shown ones."""

    NONE = "none"
    FRIEND = "friend"
    REQUEST_SENT = "request_sent"
    REQUEST_RECEIVED = "request_received"
    BLOCKED = "blocked"


class FriendModel(StrEnum):
    """How an app's players become friends."""

    REQUESTS = "requests"
    MUTUAL_FOLLOW = "mutual_follow"


class Operation(StrEnum):
    ADD = "add"  # ask (or follow); accepts a request the other already sent
    ACCEPT = "accept"
    DECLINE = "decline"  # a request received (or a follower) turned away
    CANCEL = "cancel"  # one's own request withdrawn (or an unfollow)
    REMOVE = "remove"  # a friend no longer
    BLOCK = "block"
    UNBLOCK = "unblock"


class Change(StrEnum):
    """What happened to a pair, as both players are told (the ``friendship`` event)."""

    REQUESTED = "requested"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    REMOVED = "removed"
    BLOCKED = "blocked"
    UNBLOCKED = "unblocked"


@dataclass(frozen=True)
class Pair:
    """A pair of players as one of them (the actor) sees it: ``mine`` is the actor's
    relation to the other, ``theirs`` the other's to the actor."""

    mine: Relation = Relation.NONE
    theirs: Relation = Relation.NONE


@dataclass(frozen=True)
class Counts:
    """A player's relations by kind, for the caps."""

    friends: int = 0
    pending_sent: int = 0
    blocked: int = 0


@dataclass(frozen=True)
class Outcome:
    """The pair after an operation, and what changed (None: nothing did). The other
    player is told only where their side changed (``told_other``), and then as a
    removal where the change was a block, which they are never told of."""

    after: Pair
    change: Change | None

    def told_other(self, before: Pair) -> Change | None:
        if self.change is None or self.after.theirs == before.theirs:
            return None
        return Change.REMOVED if self.change == Change.BLOCKED else self.change


class FriendshipRefused(Exception):
    """The pair's state (or a cap) forbids the operation."""

    def __init__(self, reason: Reason, message: str, *, cap: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.cap = cap  # a limit reached rather than a state refused


_SAME = None  # an operation that changes nothing


def apply(
    operation: Operation,
    pair: Pair,
    model: FriendModel,
    mine: Counts = Counts(),
    theirs: Counts = Counts(),
) -> Outcome:
    """The pair after the actor's ``operation``, with the actor's and the other's
    counts for the caps; ``FriendshipRefused`` where the pair forbids it."""
    unchanged = Outcome(pair, _SAME)
    if operation == Operation.BLOCK:
        if pair.mine == Relation.BLOCKED:
            return unchanged
        if mine.blocked >= MAX_BLOCKED:
            raise _cap(f"a player blocks at most {MAX_BLOCKED} players")
        # The blocked side loses whatever it had (a friend, a request) but its own
        # block, if it blocked first.
        theirs_after = Relation.BLOCKED if pair.theirs == Relation.BLOCKED else Relation.NONE
        return Outcome(Pair(Relation.BLOCKED, theirs_after), Change.BLOCKED)
    if operation == Operation.UNBLOCK:
        if pair.mine != Relation.BLOCKED:
            return unchanged
        return Outcome(Pair(Relation.NONE, pair.theirs), Change.UNBLOCKED)
    if pair.mine == Relation.BLOCKED:
        if operation in (Operation.ADD, Operation.ACCEPT):
            raise FriendshipRefused(
                Reason.PLAYER_BLOCKED, "you blocked that player: unblock them first"
            )
        return unchanged
    if operation == Operation.ADD:
        return _add(pair, model, mine, theirs)
    if operation == Operation.ACCEPT:
        if pair.mine == Relation.FRIEND:
            return unchanged
        if pair.mine != Relation.REQUEST_RECEIVED:
            raise FriendshipRefused(
                Reason.NO_FRIEND_REQUEST, "that player has not asked to be your friend"
            )
        return _befriend(mine, theirs)
    if operation == Operation.DECLINE:
        return _withdraw(pair, Relation.REQUEST_RECEIVED, Change.DECLINED)
    if operation == Operation.CANCEL:
        return _withdraw(pair, Relation.REQUEST_SENT, Change.CANCELLED)
    # REMOVE
    if pair.mine == Relation.NONE:
        return unchanged
    if model == FriendModel.MUTUAL_FOLLOW and pair.mine == Relation.REQUEST_RECEIVED:
        # Unfollowed already (they still follow the actor): a second removal is none.
        return unchanged
    if pair.mine != Relation.FRIEND:
        raise FriendshipRefused(Reason.NOT_FRIENDS, "that player is not your friend")
    if model == FriendModel.MUTUAL_FOLLOW:
        # An unfollow: the other still follows the actor.
        return Outcome(Pair(Relation.REQUEST_RECEIVED, Relation.REQUEST_SENT), Change.REMOVED)
    return Outcome(Pair(), Change.REMOVED)


def _add(pair: Pair, model: FriendModel, mine: Counts, theirs: Counts) -> Outcome:
    if pair.mine in (Relation.FRIEND, Relation.REQUEST_SENT):
        return Outcome(pair, _SAME)
    if pair.theirs == Relation.BLOCKED:
        # Said as it is: the request will never be delivered, and a client that
        # showed it as sent would mislead its player for ever.
        raise FriendshipRefused(
            Reason.FRIEND_REQUEST_REFUSED, "that player does not take your requests"
        )
    if pair.mine == Relation.REQUEST_RECEIVED:
        return _befriend(mine, theirs)
    limit = MAX_FRIENDS if model == FriendModel.MUTUAL_FOLLOW else MAX_PENDING_SENT
    if mine.pending_sent >= limit:
        raise _cap(f"at most {limit} requests wait for an answer: cancel some first")
    return Outcome(Pair(Relation.REQUEST_SENT, Relation.REQUEST_RECEIVED), Change.REQUESTED)


def _befriend(mine: Counts, theirs: Counts) -> Outcome:
    if mine.friends >= MAX_FRIENDS or theirs.friends >= MAX_FRIENDS:
        raise _cap(f"a player has at most {MAX_FRIENDS} friends")
    return Outcome(Pair(Relation.FRIEND, Relation.FRIEND), Change.ACCEPTED)


def _withdraw(pair: Pair, expected: Relation, change: Change) -> Outcome:
    if pair.mine == Relation.NONE:
        return Outcome(pair, _SAME)
    if pair.mine != expected:
        reason = Reason.NO_FRIEND_REQUEST
        what = "received" if expected == Relation.REQUEST_RECEIVED else "sent"
        raise FriendshipRefused(reason, f"there is no request {what} to withdraw")
    return Outcome(Pair(), change)


def _cap(message: str) -> FriendshipRefused:
    return FriendshipRefused(Reason.FRIEND_LIMIT_REACHED, message, cap=True)


def holds(pair: Pair) -> bool:
    """Whether the two sides agree (the invariant every stored pair keeps)."""
    mine, theirs = pair.mine, pair.theirs
    if Relation.BLOCKED in (mine, theirs):
        return {mine, theirs} <= {Relation.BLOCKED, Relation.NONE}
    match mine:
        case Relation.NONE:
            return theirs == Relation.NONE
        case Relation.FRIEND:
            return theirs == Relation.FRIEND
        case Relation.REQUEST_SENT:
            return theirs == Relation.REQUEST_RECEIVED
        case Relation.REQUEST_RECEIVED:
            return theirs == Relation.REQUEST_SENT
    return False


__all__ = [
    "MAX_BLOCKED",
    "MAX_FRIENDS",
    "MAX_PENDING_SENT",
    "Change",
    "Counts",
    "FriendModel",
    "FriendshipRefused",
    "Operation",
    "Outcome",
    "Pair",
    "Relation",
    "apply",
    "holds",
]
