"""The rules of invitations to a table (platform/invitations.py, pure): who invites
whom to what, where an invitation stands with the clock and its table, and what an
answer does to it."""

from __future__ import annotations

import pytest

from tranca.platform.friendships import Relation
from tranca.platform.invitations import (
    DEFAULT_EXPIRY_SECONDS,
    MAX_PENDING_RECEIVED,
    MAX_PENDING_SENT,
    Answer,
    InvitationKind,
    InvitationRefused,
    InvitePolicy,
    Status,
    Table,
    TableStage,
    admits,
    answer,
    check_counts,
    check_invite,
    effective_status,
    expiry_seconds,
)

SEAT, WATCH = InvitationKind.SEAT, InvitationKind.WATCH
FRIENDS, ANYONE = InvitePolicy.FRIENDS, InvitePolicy.ANYONE
NONE, FRIEND, BLOCKED = Relation.NONE, Relation.FRIEND, Relation.BLOCKED
OPEN = Table(TableStage.WAITING, True, 1, "ana", frozenset({"ana"}))


def reason_of(**changes: object) -> str:
    """The refusal of bia invited by ``inviter`` (ana) under the changes given."""
    args: dict[str, object] = {
        "inviter": "ana",
        "invitee": "bia",
        "kind": SEAT,
        "table": OPEN,
        "policy": FRIENDS,
        "mine": FRIEND,
        "theirs": FRIEND,
    }
    args.update(changes)
    with pytest.raises(InvitationRefused) as caught:
        check_invite(**args)  # type: ignore[arg-type]
    return str(caught.value.reason)


def test_a_seated_player_or_the_owner_invites_a_friend_to_a_free_seat() -> None:
    check_invite("ana", "bia", SEAT, OPEN, FRIENDS, FRIEND, FRIEND)
    owner_away = Table(TableStage.WAITING, True, 2, "ana", frozenset())
    check_invite("ana", "bia", SEAT, owner_away, FRIENDS, FRIEND, FRIEND)
    seated = Table(TableStage.WAITING, True, 1, None, frozenset({"cid"}))
    check_invite("cid", "bia", SEAT, seated, ANYONE, NONE, NONE)
    assert reason_of(inviter="dan") == "NOT_AT_TABLE"


def test_the_policy_and_blocks_choose_whom() -> None:
    assert reason_of(mine=NONE, theirs=NONE) == "NOT_FRIENDS"
    check_invite("ana", "bia", SEAT, OPEN, ANYONE, NONE, NONE)
    # A block holds whatever the policy, either way, and is named for who made it.
    assert reason_of(policy=ANYONE, mine=BLOCKED, theirs=NONE) == "PLAYER_BLOCKED"
    assert reason_of(policy=ANYONE, mine=NONE, theirs=BLOCKED) == "INVITATION_REFUSED"


def test_a_seat_needs_a_waiting_table_with_one_free_a_watch_needs_spectators() -> None:
    playing = Table(TableStage.PLAYING, True, 0, "ana", frozenset({"ana", "cid"}))
    assert reason_of(table=playing) == "GAME_STARTED"
    check_invite("ana", "bia", WATCH, playing, FRIENDS, FRIEND, FRIEND)
    full = Table(TableStage.WAITING, False, 0, "ana", frozenset({"ana", "cid"}))
    assert reason_of(table=full) == "GAME_FULL"
    assert reason_of(table=full, kind=WATCH) == "NO_SPECTATORS"
    assert reason_of(invitee="cid", table=full) == "PLAYER_SEATED"
    over = Table(TableStage.OVER, True, 0, "ana", frozenset({"ana"}))
    assert reason_of(table=over, kind=WATCH) == "GAME_OVER"


def test_the_caps_count_pending_invitations_both_ways() -> None:
    check_counts(MAX_PENDING_SENT - 1, MAX_PENDING_RECEIVED - 1)
    for sent, received in ((MAX_PENDING_SENT, 0), (0, MAX_PENDING_RECEIVED)):
        with pytest.raises(InvitationRefused) as caught:
            check_counts(sent, received)
        assert (caught.value.kind, caught.value.reason) == ("exhausted", "INVITATION_LIMIT_REACHED")


def test_an_invitation_expires_with_time_and_with_its_table() -> None:
    assert expiry_seconds(0) == DEFAULT_EXPIRY_SECONDS
    assert expiry_seconds(60) == 60 and expiry_seconds(3600) == 3600
    assert expiry_seconds(59) is None and expiry_seconds(3601) is None
    waiting, playing = TableStage.WAITING, TableStage.PLAYING
    pending = Status.PENDING
    assert effective_status(pending, SEAT, 1000, 999, waiting) == Status.PENDING
    assert effective_status(pending, SEAT, 1000, 1000, waiting) == Status.EXPIRED
    # A seat invitation ends with the start; a watch invitation with the end.
    assert effective_status(pending, SEAT, 1000, 0, playing) == Status.EXPIRED
    assert effective_status(pending, WATCH, 1000, 0, playing) == Status.PENDING
    assert effective_status(pending, WATCH, 1000, 0, TableStage.OVER) == Status.EXPIRED
    assert effective_status(pending, WATCH, 1000, 0, None) == Status.EXPIRED
    # An answered invitation stays as it was answered.
    assert effective_status(Status.DECLINED, SEAT, 1000, 5000, None) == Status.DECLINED


def test_an_answer_changes_a_pending_invitation_once() -> None:
    assert answer(Status.PENDING, Answer.ACCEPT)
    assert not answer(Status.ACCEPTED, Answer.ACCEPT)
    assert not answer(Status.CANCELLED, Answer.CANCEL)
    for status, how, reason in (
        (Status.EXPIRED, Answer.ACCEPT, "INVITATION_EXPIRED"),
        (Status.DECLINED, Answer.ACCEPT, "INVITATION_ANSWERED"),
        (Status.ACCEPTED, Answer.CANCEL, "INVITATION_ANSWERED"),
    ):
        with pytest.raises(InvitationRefused) as caught:
            answer(status, how)
        assert caught.value.reason == reason


def test_a_seat_invitation_admits_to_a_seat_or_to_watch_a_watch_one_to_watch() -> None:
    assert admits(SEAT, spectator=False) and admits(SEAT, spectator=True)
    assert admits(WATCH, spectator=True) and not admits(WATCH, spectator=False)
