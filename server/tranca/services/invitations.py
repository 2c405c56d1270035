"""Invitations to a table (InvitationService): invite a player to a seat or to
watch, accept (a seat taken through ``Games.join``, so every check of a join holds),
decline, cancel, and a paged list of one's invitations.

Who may invite whom, where an invitation stands and what an answer does are the
domain's (``platform/invitations.py``); this use case says who acts (a player's
session for itself, or the app's key for any of its players), reads the table, the
owner and the pair of players, and has the store write the invitation (under a lock
on the table and the invitee, so that two invitations at once make one) or its
answer with the events that tell the other player, in one transaction.

Each event is a ``table_invitation`` event (``table/events.py``) with the JSON
payload the contract describes (invitations.proto): to the invitee when invited or
cancelled, to the inviter when accepted or declined.

A private table's admission (``Games``' ``PrivateTableGuests``) is the store's
``admitted``: a pending or accepted invitation, the owner, or the owner's friend.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from ..platform.friendships import Pair
from ..platform.invitations import (
    ANSWERED,
    Answer,
    InvitationKind,
    InvitationRefused,
    InvitePolicy,
    Status,
    Table,
    TableStage,
    answer,
    check_counts,
    check_invite,
    effective_status,
    expiry_seconds,
)
from ..reasons import Reason
from ..table.events import Event, EventKind
from ..table.game import FINISHED, WAITING, GameState, removed_from_game
from .access import Access, Credentials, require_app
from .errors import NotFound, Refusal, Refused, game_not_found, malformed
from .game_values import Joining, Seated
from .games import Games
from .paging import Position
from .player_rewrite import refuse_pseudonym
from .policy import AppPolicies, AppPolicy
from .ports import EventHints, GameRecord, player_key
from .profiles import PublicProfile
from .sessions import Clock

MAX_PLAYER_ID = 128
MAX_GAME_ID = 64
DEFAULT_PAGE = 50
MAX_PAGE = 200


class Direction(StrEnum):
    BOTH = "both"
    RECEIVED = "received"
    SENT = "sent"


@dataclass(frozen=True)
class InvitationRecord:
    """An invitation as stored (its status as written: never expired)."""

    id: str
    app_id: str
    game_id: str
    inviter_id: str
    invitee_id: str
    kind: InvitationKind
    status: Status
    created_ms: int
    expires_ms: int
    answered_ms: int | None = None


@dataclass(frozen=True)
class TableFacts:
    """What a list shows of an invitation's table, and its stage."""

    preset: str
    players: int
    label: str
    stage: TableStage


@dataclass(frozen=True)
class Invitation:
    """An invitation as the caller sees it: its status now, both players' profiles
    and its table's facts (None: the table is gone)."""

    record: InvitationRecord
    status: Status
    table: TableFacts | None
    inviter: PublicProfile | None = None
    invitee: PublicProfile | None = None


@dataclass(frozen=True)
class Invited:
    invitation: Invitation
    changed: bool


@dataclass(frozen=True)
class Accepted:
    invitation: Invitation
    seated: Seated
    changed: bool


@dataclass(frozen=True)
class InvitationPage:
    invitations: tuple[Invitation, ...]
    next_page_token: str


# The store's check under its lock: the inviter's pending invitations and the
# invitee's (each counted at ``now``), or ``InvitationRefused``.
CheckCounts = Callable[[int, int], None]
Events = Callable[[InvitationRecord], Sequence[Event]]


class InvitationsRepository(Protocol):
    async def player_known(self, app_id: str, player_id: str) -> bool:
        """Whether the app has a player of that id (a session or a profile)."""
        ...

    async def pair(self, app_id: str, player_id: str, other_id: str) -> Pair:
        """The relations between two players: ``mine`` is ``player_id``'s to the
        other, ``theirs`` the other's to them."""
        ...

    async def owner_of(self, game_id: str) -> str | None:
        """The table's owner (None: none)."""
        ...

    async def add_invitation(
        self, new: InvitationRecord, check: CheckCounts, events: Events, now: int
    ) -> tuple[InvitationRecord, bool]:
        """Under a lock on (table, invitee): the invitee's invitation to that table
        still pending at ``now`` if there is one (and False); else ``check`` the
        counts, then ``new`` and its ``events`` written in one transaction (and
        True). ``InvitationRefused`` from ``check`` writes nothing."""
        ...

    async def invitation(self, app_id: str, invitation_id: str) -> InvitationRecord | None: ...

    async def set_status(
        self, invitation_id: str, status: Status, now: int, events: Events
    ) -> InvitationRecord | None:
        """The invitation, still pending, now ``status`` (answered at ``now``), with
        its ``events`` in one transaction; None, and nothing written, when it was no
        longer pending."""
        ...

    async def invitations(
        self,
        app_id: str,
        player_id: str,
        direction: Direction,
        status: Status | None,
        now: int,
        before: Position | None,
        limit: int,
    ) -> list[InvitationRecord]:
        """The player's invitations (received, sent or both) newest first, below
        ``before``; of a stored ``status`` (pending ones not past their expiry at
        ``now`` for PENDING, and those past it for EXPIRED)."""
        ...

    async def tables(self, game_ids: Sequence[str]) -> dict[str, TableFacts]:
        """Each existing game's facts."""
        ...

    async def profiles_of(self, app_id: str, player_ids: Sequence[str]) -> dict[str, PublicProfile]:
        """Public profiles (or the names of the latest sessions)."""
        ...


@dataclass(frozen=True)
class Actor:
    app_id: str
    player_id: str
    policy: InvitePolicy
    session: bool


def stage_of(state: GameState) -> TableStage:
    if state.status == WAITING:
        return TableStage.WAITING
    return TableStage.OVER if state.status == FINISHED else TableStage.PLAYING


class Invitations:
    def __init__(
        self,
        access: Access,
        repo: InvitationsRepository,
        games: Games,
        policies: AppPolicies,
        clock: Clock,
        event_hints: EventHints | None = None,
    ) -> None:
        self.access = access
        self.repo = repo
        self.games = games
        self.policies = policies
        self.clock = clock
        self.event_hints = event_hints

    async def actor(self, credentials: Credentials, acting_player_id: str) -> Actor:
        """Who acts: a session for its own player, the app's key for the player it
        names."""
        caller = await self.access.identify(credentials)
        session = caller.session
        if session is not None:
            if acting_player_id and acting_player_id != session.player_id:
                raise Refused(
                    Refusal.FORBIDDEN,
                    Reason.NOT_YOUR_PLAYER,
                    "a session acts for its own player (leave acting_player_id empty)",
                )
            policy = InvitePolicy(session.policy.invitations)
            return Actor(session.app_id, session.player_id, policy, True)
        if caller.player is not None:
            raise Refused(
                Refusal.FORBIDDEN,
                Reason.SESSION_TOKEN_REQUIRED,
                "invitations are a player's: call with the player's session token",
            )
        app = require_app(caller)
        _check_id(acting_player_id, "acting_player_id")
        found = await self.policies.app_policy(app.id) or AppPolicy()
        return Actor(app.id, acting_player_id, InvitePolicy(found.invitations), False)

    async def invite(
        self,
        credentials: Credentials,
        game_id: str,
        player_id: str,
        kind: InvitationKind,
        expires_in_seconds: int,
        acting: str = "",
    ) -> Invited:
        """The acting player invites ``player_id`` to ``game_id``."""
        actor = await self.actor(credentials, acting)
        if not game_id or len(game_id) > MAX_GAME_ID:
            raise malformed(f"game_id is 1 to {MAX_GAME_ID} characters")
        _check_id(player_id, "player_id")
        if player_id == actor.player_id:
            raise malformed("player_id is another player: not oneself")
        seconds = expiry_seconds(expires_in_seconds)
        if seconds is None:
            raise malformed("expires_in_seconds is 60 to 3600 (0: 600)")
        game = await self._game(actor.app_id, game_id)
        state = game.state
        if not await self.repo.player_known(actor.app_id, player_id):
            raise Refused(
                Refusal.NOT_FOUND, Reason.PLAYER_NOT_FOUND, "no player of this app has that id"
            )
        if player_id in state.removed_players:
            raise removed_from_game()
        table = Table(
            stage_of(state),
            state.setup.spectators_allowed,
            sum(1 for s in state.seats if not s.taken),
            await self.repo.owner_of(game_id),
            frozenset(s.player_id for s in state.seats if s.player_id),
        )
        pair = await self.repo.pair(actor.app_id, actor.player_id, player_id)
        now = self.clock()
        record = InvitationRecord(
            _new_id(),
            actor.app_id,
            game_id,
            actor.player_id,
            player_id,
            kind,
            Status.PENDING,
            now,
            now + seconds * 1000,
        )
        facts = TableFacts(state.setup.rules.name, state.setup.players, game.label, table.stage)
        profiles = await self.repo.profiles_of(actor.app_id, [actor.player_id, player_id])

        def events(made: InvitationRecord) -> list[Event]:
            return [_event(made, made.invitee_id, "invited", profiles, facts)]

        try:
            check_invite(
                actor.player_id, player_id, kind, table, actor.policy, pair.mine, pair.theirs
            )
            stored, changed = await self.repo.add_invitation(record, check_counts, events, now)
        except InvitationRefused as exc:
            raise _refused(exc) from None
        if changed:
            self._hint(stored.invitee_id)
        return Invited(await self._shown(stored), changed)

    async def accept(
        self,
        credentials: Credentials,
        invitation_id: str,
        acting: str = "",
        token_lifetime_seconds: int = 0,
    ) -> Accepted:
        """The invitee takes the seat (or the spectator's place) offered, with a seat
        token of their own."""
        actor = await self.actor(credentials, acting)
        record = await self._received(actor, invitation_id)
        status = await self._status(record)
        try:
            fresh = answer(status, Answer.ACCEPT)
        except InvitationRefused as exc:
            raise _refused(exc) from None
        watch = record.kind == InvitationKind.WATCH
        if not fresh and not watch and not actor.session:
            # A seat token is shown once: the app's key gets no second one for a seat
            # (its player's session does, JoinGame's new token for a held seat).
            raise Refused(
                Refusal.PRECONDITION,
                Reason.INVITATION_ANSWERED,
                "the invitation was accepted already: the player holds its seat",
            )
        name = ""
        if not actor.session:
            profiles = await self.repo.profiles_of(actor.app_id, [actor.player_id])
            found = profiles.get(actor.player_id)
            name = found.display_name if found is not None else actor.player_id
        wanted = Joining(
            seat=-1,
            player_name=name,
            player_id="" if actor.session else actor.player_id,
            spectator=watch,
            token_lifetime_seconds=token_lifetime_seconds,
        )
        # Every check of a join holds: a free seat, the chips of a stake, the policy's
        # limits, a player the app removed refused; a private table admits the
        # invitee by this invitation, still pending.
        seated = await self.games.join(credentials, record.game_id, wanted)
        if not fresh:
            return Accepted(await self._shown(record), seated, False)
        done = await self._answer(record, Status.ACCEPTED, "accepted", record.inviter_id)
        return Accepted(done or await self._shown(record), seated, True)

    async def decline(
        self, credentials: Credentials, invitation_id: str, acting: str = ""
    ) -> Invited:
        """The invitee turns the invitation away; the inviter is told."""
        actor = await self.actor(credentials, acting)
        record = await self._received(actor, invitation_id)
        return await self._close(record, Answer.DECLINE, record.inviter_id)

    async def cancel(
        self, credentials: Credentials, invitation_id: str, acting: str = ""
    ) -> Invited:
        """The inviter withdraws the invitation; the invitee is told."""
        actor = await self.actor(credentials, acting)
        record = await self._load(actor, invitation_id)
        if record.inviter_id != actor.player_id:
            raise _not_found()
        return await self._close(record, Answer.CANCEL, record.invitee_id)

    async def list(
        self,
        credentials: Credentials,
        acting: str,
        direction: Direction,
        status: Status | None,
        page_size: int,
        page_token: str,
    ) -> InvitationPage:
        """A page of the acting player's invitations, newest first."""
        actor = await self.actor(credentials, acting)
        if page_size < 0:
            raise malformed("page_size is 0 (the default) or more")
        size = min(page_size or DEFAULT_PAGE, MAX_PAGE)
        before = Position.parse(page_token)
        now = self.clock()
        rows = await self.repo.invitations(
            actor.app_id, actor.player_id, direction, status, now, before, size + 1
        )
        more = len(rows) > size
        rows = rows[:size]
        shown = await self._all_shown(actor.app_id, rows, now)
        if status is not None:
            # A pending invitation whose table started or ended reads expired.
            shown = tuple(s for s in shown if s.status == status)
        token = Position(rows[-1].created_ms, rows[-1].id).token() if more else ""
        return InvitationPage(shown, token)

    # ----- the parts -----------------------------------------------------------------

    async def _game(self, app_id: str, game_id: str) -> GameRecord:
        try:
            game = await self.games.repo.game(game_id)
        except NotFound:
            raise game_not_found() from None
        if game.app_id != app_id:
            raise game_not_found()
        return game

    async def _load(self, actor: Actor, invitation_id: str) -> InvitationRecord:
        if len(invitation_id) != 32 or any(c not in "0123456789abcdef" for c in invitation_id):
            raise malformed("invitation_id is the 32 hexadecimal digits an invitation has")
        record = await self.repo.invitation(actor.app_id, invitation_id)
        if record is None:
            raise _not_found()
        return record

    async def _received(self, actor: Actor, invitation_id: str) -> InvitationRecord:
        record = await self._load(actor, invitation_id)
        if record.invitee_id != actor.player_id:
            raise _not_found()
        return record

    async def _status(self, record: InvitationRecord) -> Status:
        facts = (await self.repo.tables([record.game_id])).get(record.game_id)
        stage = None if facts is None else facts.stage
        return effective_status(record.status, record.kind, record.expires_ms, self.clock(), stage)

    async def _close(self, record: InvitationRecord, how: Answer, told: str) -> Invited:
        try:
            fresh = answer(await self._status(record), how)
        except InvitationRefused as exc:
            raise _refused(exc) from None
        if not fresh:
            return Invited(await self._shown(record), False)
        change = "declined" if how == Answer.DECLINE else "cancelled"
        done = await self._answer(record, ANSWERED[how], change, told)
        if done is None:
            # Answered otherwise at the same moment: what stands now is refused so.
            again = await self.repo.invitation(record.app_id, record.id)
            assert again is not None
            try:
                answer(await self._status(again), how)
            except InvitationRefused as exc:
                raise _refused(exc) from None
            return Invited(await self._shown(again), False)
        return Invited(done, True)

    async def _answer(
        self, record: InvitationRecord, status: Status, change: str, told: str
    ) -> Invitation | None:
        """The pending invitation answered (``status``), ``told`` told; None when it
        was no longer pending."""
        facts = (await self.repo.tables([record.game_id])).get(record.game_id)
        ids = [record.inviter_id, record.invitee_id]
        profiles = await self.repo.profiles_of(record.app_id, ids)

        def events(done: InvitationRecord) -> list[Event]:
            return [_event(done, told, change, profiles, facts)]

        done = await self.repo.set_status(record.id, status, self.clock(), events)
        if done is None:
            return None
        self._hint(told)
        return Invitation(done, status, facts, profiles.get(ids[0]), profiles.get(ids[1]))

    async def _shown(self, record: InvitationRecord) -> Invitation:
        return (await self._all_shown(record.app_id, [record], self.clock()))[0]

    async def _all_shown(
        self, app_id: str, rows: Sequence[InvitationRecord], now: int
    ) -> tuple[Invitation, ...]:
        tables = await self.repo.tables(sorted({r.game_id for r in rows}))
        ids = sorted({p for r in rows for p in (r.inviter_id, r.invitee_id)})
        profiles = await self.repo.profiles_of(app_id, ids)

        def shown(r: InvitationRecord) -> Invitation:
            facts = tables.get(r.game_id)
            stage = None if facts is None else facts.stage
            status = effective_status(r.status, r.kind, r.expires_ms, now, stage)
            return Invitation(
                r, status, facts, profiles.get(r.inviter_id), profiles.get(r.invitee_id)
            )

        return tuple(shown(r) for r in rows)

    def _hint(self, player_id: str) -> None:
        if self.event_hints is not None:
            self.event_hints.publish(player_key(player_id))


def _new_id() -> str:
    return uuid.uuid4().hex


def _check_id(player_id: str, field: str) -> None:
    if not player_id:
        raise malformed(f"{field} is required")
    if len(player_id) > MAX_PLAYER_ID:
        raise malformed(f"{field} is at most {MAX_PLAYER_ID} characters")
    refuse_pseudonym(player_id, field)


def _not_found() -> Refused:
    return Refused(
        Refusal.NOT_FOUND,
        Reason.INVITATION_NOT_FOUND,
        "no such invitation (or not yours to answer)",
    )


def _refused(exc: InvitationRefused) -> Refused:
    return Refused(Refusal(exc.kind), exc.reason, exc.message)


def _event(
    record: InvitationRecord,
    to: str,
    change: str,
    profiles: dict[str, PublicProfile],
    facts: TableFacts | None,
) -> Event:
    def name(player_id: str) -> str:
        found = profiles.get(player_id)
        return found.display_name if found is not None else ""

    payload = {
        "invitation_id": record.id,
        "game_id": record.game_id,
        "kind": record.kind.value,
        "change": change,
        "from_player_id": record.inviter_id,
        "from_display_name": name(record.inviter_id),
        "to_player_id": record.invitee_id,
        "to_display_name": name(record.invitee_id),
        "expires_ms": record.expires_ms,
        "preset": "" if facts is None else facts.preset,
        "players": 0 if facts is None else facts.players,
        "label": "" if facts is None else facts.label,
    }
    return Event(to, EventKind.TABLE_INVITATION, record.game_id, payload)


def with_status(record: InvitationRecord, status: Status, now: int) -> InvitationRecord:
    """The record answered (for the fakes and the store alike)."""
    return replace(record, status=status, answered_ms=now)


__all__ = [
    "Accepted",
    "Direction",
    "Invitation",
    "InvitationKind",
    "InvitationPage",
    "InvitationRecord",
    "Invitations",
    "InvitationsRepository",
    "InvitePolicy",
    "Invited",
    "Status",
    "TableFacts",
    "with_status",
]
