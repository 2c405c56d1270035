"""Friends and blocks between an app's players (SocialService): ask, accept,
decline, cancel, remove, block, unblock, and a paged list of one's relations.

The pair's state and what an operation does to it are the domain's
(``platform/friendships.py``); this use case says who acts (a player's session for
itself, or the app's key for any of its players), checks the other player exists,
and has the store apply the operation to the pair as it stands (``change_pair``:
read, decide and write under one lock on the pair, so two players asking each other
at once become friends, never two crossed requests) with the events that tell both
players, in the same transaction.

Each event is a ``friendship`` event (``table/events.py``) with the JSON payload
{"player_id": the other player, "relation": the receiver's relation now, "change",
"by": who made it}. The blocked player is never told of a block: where they lose a
friend or a request by it they are told "removed"; otherwise nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..platform.friendships import (
    Change,
    Counts,
    FriendModel,
    FriendshipRefused,
    Operation,
    Outcome,
    Pair,
    Relation,
    apply,
)
from ..platform.presence import Shown
from ..reasons import Reason
from ..table.events import Event, EventKind
from .access import Access, Credentials, require_app
from .errors import Refusal, Refused, malformed
from .paging import parse_text_token, text_token
from .player_rewrite import refuse_pseudonym
from .policy import AppPolicies, AppPolicy
from .ports import EventHints, player_key
from .profiles import PublicProfile
from .sessions import Clock

MAX_PLAYER_ID = 128
DEFAULT_PAGE = 50
MAX_PAGE = 200

# The store's decision callback: the pair as it stands (the actor's side first) and
# both players' counts, to the outcome (or ``FriendshipRefused``).
Decide = Callable[[Pair, Counts, Counts], Outcome]


@dataclass(frozen=True)
class Relationship:
    """One relation as the acting player's list shows it: the other player, the
    relation, since when (epoch ms; 0 for none) and their public profile if set."""

    player_id: str
    relation: Relation
    since_ms: int
    profile: PublicProfile | None = None
    # Their presence as the acting player may see it (ListFriends; None elsewhere).
    presence: Shown | None = None


@dataclass(frozen=True)
class Changed:
    """An operation's answer: the relation now and whether it changed."""

    relationship: Relationship
    changed: bool


@dataclass(frozen=True)
class RelationPage:
    relationships: tuple[Relationship, ...]
    next_page_token: str


@dataclass(frozen=True)
class Applied:
    """What the store did: the pair before and the outcome (its change None when
    nothing was written), and when the actor's side took its state."""

    before: Pair
    outcome: Outcome
    since_ms: int


class FriendsRepository(Protocol):
    async def player_known(self, app_id: str, player_id: str) -> bool:
        """Whether the app has a player of that id (one that has had a session or a
        profile)."""
        ...

    async def change_pair(
        self,
        app_id: str,
        actor: str,
        other: str,
        decide: Decide,
        events: Callable[[Pair, Outcome], Sequence[Event]],
        now: int,
    ) -> Applied:
        """Under a lock on the pair: read it and both players' counts, ``decide``, and
        where the outcome changes it write both sides and ``events(before, outcome)``
        in one transaction. ``FriendshipRefused`` from ``decide`` writes nothing."""
        ...

    async def relations(
        self,
        app_id: str,
        player_id: str,
        kinds: frozenset[Relation],
        after: str,
        limit: int,
    ) -> list[Relationship]:
        """The player's relations of those kinds (every kind but none, when empty),
        by the other player's id above ``after``; at most ``limit``, no profiles."""
        ...

    async def profiles_of(self, app_id: str, player_ids: Sequence[str]) -> dict[str, PublicProfile]:
        """The public profiles of those of ``player_ids`` who set one."""
        ...


class PresenceViews(Protocol):
    async def views(self, app_id: str, viewer: str, player_ids: Sequence[str]) -> dict[str, Shown]:
        """Each player's presence as ``viewer`` may see it (services/player_presence.py)."""
        ...


@dataclass(frozen=True)
class Actor:
    app_id: str
    player_id: str
    model: FriendModel


async def acting_player(
    access: Access,
    policies: AppPolicies,
    credentials: Credentials,
    acting_player_id: str,
    what: str = "friends are",
) -> Actor:
    """Who acts in a social call (friends, presence): a session for its own player,
    the app's key for the player it names; never a seat's token. The friend model is
    the app's policy's."""
    caller = await access.identify(credentials)
    session = caller.session
    if session is not None:
        if acting_player_id and acting_player_id != session.player_id:
            raise Refused(
                Refusal.FORBIDDEN,
                Reason.NOT_YOUR_PLAYER,
                "a session acts for its own player (leave acting_player_id empty)",
            )
        model = FriendModel(session.policy.friend_model)
        return Actor(session.app_id, session.player_id, model)
    if caller.player is not None:
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.SESSION_TOKEN_REQUIRED,
            f"{what} a player's: call with the player's session token",
        )
    app = require_app(caller)
    check_player_id(acting_player_id, "acting_player_id")
    policy = await policies.app_policy(app.id) or AppPolicy()
    return Actor(app.id, acting_player_id, FriendModel(policy.friend_model))


class Friends:
    def __init__(
        self,
        access: Access,
        repo: FriendsRepository,
        policies: AppPolicies,
        clock: Clock,
        event_hints: EventHints | None = None,
        presence: PresenceViews | None = None,
    ) -> None:
        self.access = access
        self.presence = presence
        self.repo = repo
        self.policies = policies
        self.clock = clock
        self.event_hints = event_hints

    async def actor(self, credentials: Credentials, acting_player_id: str) -> Actor:
        """Who acts (``acting_player``)."""
        return await acting_player(self.access, self.policies, credentials, acting_player_id)

    async def change(
        self, credentials: Credentials, operation: Operation, player_id: str, acting: str = ""
    ) -> Changed:
        """The acting player's ``operation`` on their relation to ``player_id``."""
        actor = await self.actor(credentials, acting)
        check_player_id(player_id, "player_id")
        if player_id == actor.player_id:
            raise malformed("player_id is another player: not oneself")
        if not await self.repo.player_known(actor.app_id, player_id):
            raise Refused(
                Refusal.NOT_FOUND, Reason.PLAYER_NOT_FOUND, "no player of this app has that id"
            )

        def decide(pair: Pair, mine: Counts, theirs: Counts) -> Outcome:
            return apply(operation, pair, actor.model, mine, theirs)

        def events(before: Pair, outcome: Outcome) -> list[Event]:
            return _events(actor.player_id, player_id, before, outcome)

        try:
            applied = await self.repo.change_pair(
                actor.app_id, actor.player_id, player_id, decide, events, self.clock()
            )
        except FriendshipRefused as exc:
            kind = Refusal.EXHAUSTED if exc.cap else Refusal.PRECONDITION
            raise Refused(kind, exc.reason, exc.message) from None
        if applied.outcome.change is not None and self.event_hints is not None:
            for event in events(applied.before, applied.outcome):
                self.event_hints.publish(player_key(event.player_id))
        profiles = await self.repo.profiles_of(actor.app_id, [player_id])
        mine = applied.outcome.after.mine
        since = applied.since_ms if mine != Relation.NONE else 0
        return Changed(
            Relationship(player_id, mine, since, profiles.get(player_id)),
            applied.outcome.change is not None,
        )

    async def list(
        self,
        credentials: Credentials,
        acting: str,
        kinds: frozenset[Relation],
        page_size: int,
        page_token: str,
    ) -> RelationPage:
        """A page of the acting player's relations, by the other player's id."""
        actor = await self.actor(credentials, acting)
        if page_size < 0:
            raise malformed("page_size is 0 (the default) or more")
        if Relation.NONE in kinds:
            raise malformed("relations lists kinds a list holds: not none")
        size = min(page_size or DEFAULT_PAGE, MAX_PAGE)
        after = parse_text_token(token=page_token, max_chars=MAX_PLAYER_ID)
        rows = await self.repo.relations(actor.app_id, actor.player_id, kinds, after, size + 1)
        more = len(rows) > size
        rows = rows[:size]
        ids = [r.player_id for r in rows]
        profiles = await self.repo.profiles_of(actor.app_id, ids)
        presence: dict[str, Shown] = {}
        if self.presence is not None and ids:
            presence = await self.presence.views(actor.app_id, actor.player_id, ids)
        shown = tuple(
            Relationship(
                r.player_id,
                r.relation,
                r.since_ms,
                profiles.get(r.player_id),
                presence.get(r.player_id),
            )
            for r in rows
        )
        return RelationPage(shown, text_token(rows[-1].player_id) if more else "")


def check_player_id(player_id: str, field: str) -> None:
    if not player_id:
        raise malformed(f"{field} is required")
    if len(player_id) > MAX_PLAYER_ID:
        raise malformed(f"{field} is at most {MAX_PLAYER_ID} characters")
    refuse_pseudonym(player_id, field)


def _events(actor: str, other: str, before: Pair, outcome: Outcome) -> list[Event]:
    """What each side is told of a change: the actor always; the other where their
    side changed (a block told as a removal)."""
    change = outcome.change
    if change is None:
        return []
    out = [_event(actor, other, outcome.after.mine, change, actor)]
    told = outcome.told_other(before)
    if told is not None:
        out.append(_event(other, actor, outcome.after.theirs, told, actor))
    return out


def _event(to: str, about: str, relation: Relation, change: Change, by: str) -> Event:
    payload = {"player_id": about, "relation": relation.value, "change": change.value, "by": by}
    return Event(to, EventKind.FRIENDSHIP, None, payload)


__all__ = [
    "Actor",
    "Applied",
    "Changed",
    "FriendModel",
    "Friends",
    "FriendsRepository",
    "Operation",
    "PresenceViews",
    "Relation",
    "RelationPage",
    "Relationship",
    "acting_player",
    "check_player_id",
]
