"""Invitations to a table (pure: no I/O): who may invite whom, where an invitation
stands, and what an answer does to it.

003's room: "Mesa privada: sólo podrán sentarse jugadores que hayas invitado o
amigos" and "Cómo invitar a otros jugadores a jugar en tu mesa". So:

- **who invites**: a player seated at the table, or its owner (the player whose
  session created it, or the one the app named): "tu mesa" is the table one plays
  at or made;
- **whom**: under the app's policy, the inviter's friends (the default: a private
  table is for "invitados o amigos", and a stranger's invitation is the spam a room
  of friends does not want) or any player of the app; never across a block, either
  way (a blocked player cannot invite, issue 39: "a blocked player cannot ...
  invite");
- **to what**: a seat, while the table waits for players and has one free, or a
  spectator's place ("Permitir público"), while the table allows spectators and is
  not over;
- **until when**: the expiry (10 minutes by default: an invitation is to play now),
  or the table's start for a seat (no seat is left to take) and its end for both.
  Such an invitation *reads* expired: nothing needs to write it so, and an answer to
  it is refused.

An invitation's life: pending, then accepted, declined (by the invitee) or cancelled
(by the inviter), once. Answering again what already holds changes nothing (a retry
after a lost answer); answering otherwise an invitation already answered is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..reasons import Reason
from .friendships import Relation

DEFAULT_EXPIRY_SECONDS = 10 * 60
MIN_EXPIRY_SECONDS = 60
MAX_EXPIRY_SECONDS = 60 * 60
# Invitations pending at once from one player, and to one player: a table fills with
# a few; no player floods an app, and no player is flooded.
MAX_PENDING_SENT = 50
MAX_PENDING_RECEIVED = 100


class InvitationKind(StrEnum):
    SEAT = "seat"
    WATCH = "watch"


class Status(StrEnum):
    """Where an invitation stands; the values are the stored and shown ones (expired
    is never stored: it is read from the clock and the table)."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


class InvitePolicy(StrEnum):
    """Whom an app's players may invite (``AppPolicy.invitations``)."""

    FRIENDS = "friends"
    ANYONE = "anyone"


class Answer(StrEnum):
    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"


# Each answer's status, and who may give it.
ANSWERED = {Answer.ACCEPT: Status.ACCEPTED, Answer.DECLINE: Status.DECLINED}
ANSWERED[Answer.CANCEL] = Status.CANCELLED


class TableStage(StrEnum):
    """The table as an invitation sees it."""

    WAITING = "waiting"  # waiting for players
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True)
class Table:
    """What inviting to a table depends on: its stage, whether it allows spectators,
    whether a seat is free, who owns it (None: no one) and who sits at it."""

    stage: TableStage
    spectators_allowed: bool
    free_seats: int
    owner_id: str | None
    seated: frozenset[str]


class InvitationRefused(Exception):
    """The rules forbid the invitation or the answer (``kind``: "forbidden",
    "precondition", "exhausted" or "not_found", the use case's refusal kinds)."""

    def __init__(self, kind: str, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.reason = reason
        self.message = message


def check_invite(
    inviter: str,
    invitee: str,
    kind: InvitationKind,
    table: Table,
    policy: InvitePolicy,
    mine: Relation,
    theirs: Relation,
) -> None:
    """Refuse an invitation the rules forbid: ``mine`` is the inviter's relation to
    the invitee, ``theirs`` the invitee's to the inviter."""
    if inviter not in table.seated and inviter != table.owner_id:
        raise InvitationRefused(
            "forbidden",
            Reason.NOT_AT_TABLE,
            "only a player seated at the table or its owner invites",
        )
    if mine == Relation.BLOCKED:
        raise InvitationRefused(
            "precondition", Reason.PLAYER_BLOCKED, "you blocked that player: unblock them first"
        )
    if theirs == Relation.BLOCKED:
        # Said as it is: the invitation would never reach them.
        raise InvitationRefused(
            "precondition", Reason.INVITATION_REFUSED, "that player does not take your invitations"
        )
    if policy == InvitePolicy.FRIENDS and mine != Relation.FRIEND:
        raise InvitationRefused(
            "precondition",
            Reason.NOT_FRIENDS,
            "this app's players invite their friends only: that player is not your friend",
        )
    if table.stage == TableStage.OVER:
        raise InvitationRefused("precondition", Reason.GAME_OVER, "the game is over")
    if kind == InvitationKind.WATCH:
        if not table.spectators_allowed:
            raise InvitationRefused(
                "forbidden", Reason.NO_SPECTATORS, "this game has no spectators"
            )
        return
    if invitee in table.seated:
        raise InvitationRefused(
            "precondition", Reason.PLAYER_SEATED, "that player holds a seat at this table already"
        )
    if table.stage != TableStage.WAITING:
        raise InvitationRefused(
            "precondition", Reason.GAME_STARTED, "the game has started: invite to watch instead"
        )
    if table.free_seats <= 0:
        raise InvitationRefused("precondition", Reason.GAME_FULL, "no free seat")


def check_counts(pending_sent: int, pending_received: int) -> None:
    """Refuse a new invitation beyond the caps (the inviter's pending invitations,
    the invitee's)."""
    if pending_sent >= MAX_PENDING_SENT:
        raise InvitationRefused(
            "exhausted",
            Reason.INVITATION_LIMIT_REACHED,
            f"at most {MAX_PENDING_SENT} invitations wait for an answer: cancel some first",
        )
    if pending_received >= MAX_PENDING_RECEIVED:
        raise InvitationRefused(
            "exhausted",
            Reason.INVITATION_LIMIT_REACHED,
            f"that player has {MAX_PENDING_RECEIVED} invitations waiting already",
        )


def expiry_seconds(asked: int) -> int | None:
    """The expiry asked for (0: the default); None when out of range."""
    if asked == 0:
        return DEFAULT_EXPIRY_SECONDS
    if MIN_EXPIRY_SECONDS <= asked <= MAX_EXPIRY_SECONDS:
        return asked
    return None


def effective_status(
    stored: Status, kind: InvitationKind, expires_ms: int, now: int, stage: TableStage | None
) -> Status:
    """The status an invitation stored as ``stored`` has now: a pending one past its
    expiry, or whose table started (a seat) or ended (both) or is gone (``stage``
    None), is expired."""
    if stored != Status.PENDING:
        return stored
    if now >= expires_ms or stage is None or stage == TableStage.OVER:
        return Status.EXPIRED
    if kind == InvitationKind.SEAT and stage != TableStage.WAITING:
        return Status.EXPIRED
    return Status.PENDING


def answer(status: Status, how: Answer) -> bool:
    """Whether ``how`` changes an invitation that now stands at ``status`` (True: it
    becomes ``ANSWERED[how]``; False: it already is, nothing to do);
    ``InvitationRefused`` where it cannot be answered so."""
    if status == Status.PENDING:
        return True
    if status == ANSWERED[how]:
        return False
    if status == Status.EXPIRED:
        raise InvitationRefused(
            "precondition",
            Reason.INVITATION_EXPIRED,
            "the invitation expired (its time ran out, or its table started or ended)",
        )
    raise InvitationRefused(
        "precondition", Reason.INVITATION_ANSWERED, f"the invitation was {status.value} already"
    )


def admits(kind: InvitationKind, spectator: bool) -> bool:
    """Whether an invitation of ``kind`` admits to a private table a player asking
    for a seat (``spectator`` False) or a spectator's place."""
    return spectator or kind == InvitationKind.SEAT


__all__ = [
    "ANSWERED",
    "DEFAULT_EXPIRY_SECONDS",
    "MAX_EXPIRY_SECONDS",
    "MAX_PENDING_RECEIVED",
    "MAX_PENDING_SENT",
    "MIN_EXPIRY_SECONDS",
    "Answer",
    "InvitationKind",
    "InvitationRefused",
    "InvitePolicy",
    "Status",
    "Table",
    "TableStage",
    "admits",
    "answer",
    "check_counts",
    "check_invite",
    "effective_status",
    "expiry_seconds",
]
