"""Friends, blocks and presence (``tranca.v1.SocialService``) for both clients: a
player asks another to be friends (``add_friend``), accepts or declines a request,
withdraws their own, removes a friend, blocks and unblocks a player, and pages their
list (``friends``, or ``all_friends`` for the whole of it, each friend with their
presence); ``presence`` asks whether up to 100 players are online, away or offline,
when they were last seen and at which tables they sit (as far as each lets the
caller see), and ``set_presence`` says one is away or back, and who may see it.

The credentials are a player's session token (``client.with_token(access_token)``:
the session's own player) or the app's key, naming who acts (``acting_player_id``).
Under the app's policy a request may be a follow instead (mutual follow): the same
calls, with the meanings the contract gives.

Every change is idempotent (a second request, an accept of a friend, an unblock of
a player not blocked answer ``changed == False`` and change nothing), so each is
retried after UNAVAILABLE or DEADLINE_EXCEEDED like a read. A refusal is a
``RuleRejected`` whose ``reason`` says which: ``PLAYER_BLOCKED``,
``FRIEND_REQUEST_REFUSED``, ``NO_FRIEND_REQUEST``, ``NOT_FRIENDS``; a
``NotFound`` with ``PLAYER_NOT_FOUND``; ``FRIEND_LIMIT_REACHED`` at a cap.
Each change reaches both players as a ``friendship`` event: ``player_events`` reads
a page of a player's events, ``watch_player_events`` follows them as they come
(``tranca.v1.NotificationService``), reopening a broken stream after the last event
received, so that none is skipped or repeated.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ._auth import ANY
from ._streams import resumed
from .v1 import notifications_pb2 as npb
from .v1 import notifications_pb2_grpc as npb_grpc
from .v1 import social_pb2 as sopb
from .v1 import social_pb2_grpc as sopb_grpc

if TYPE_CHECKING:
    from .client import AsyncTrancaClient, RetryPolicy


T = TypeVar("T")

__all__ = ["AsyncSocial", "Social"]


class AsyncSocial:
    """The friends' calls of ``AsyncTrancaClient``."""

    if TYPE_CHECKING:
        retry: RetryPolicy
        _social: sopb_grpc.SocialServiceAsyncStub
        _notifications: npb_grpc.NotificationServiceAsyncStub

        def _metadata(self, auth: str) -> tuple[tuple[str, str], ...]: ...

        async def _unary(
            self, method: Any, request: Any, auth: str, *, retry: bool, conflicts: bool = False
        ) -> Any: ...

    async def _pair(self, method: Any, request: Any) -> sopb.Friend:
        out = await self._unary(method, request, ANY, retry=True)
        friend: sopb.Friend = out.friend
        return friend

    async def add_friend(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """Ask ``player_id`` to be friends (or follow them); where they asked first,
        you are friends at once. The relation now."""
        request = sopb.AddFriendRequest(player_id=player_id, acting_player_id=acting_player_id)
        return await self._pair(self._social.AddFriend, request)

    async def accept_friend(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """Accept ``player_id``'s request."""
        request = sopb.AcceptFriendRequest(player_id=player_id, acting_player_id=acting_player_id)
        return await self._pair(self._social.AcceptFriend, request)

    async def decline_friend(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """Turn ``player_id``'s request away (or remove a follower)."""
        request = sopb.DeclineFriendRequest(player_id=player_id, acting_player_id=acting_player_id)
        return await self._pair(self._social.DeclineFriend, request)

    async def cancel_friend_request(
        self, player_id: str, *, acting_player_id: str = ""
    ) -> sopb.Friend:
        """Withdraw your request to ``player_id`` (or unfollow them)."""
        request = sopb.CancelFriendRequestRequest(
            player_id=player_id, acting_player_id=acting_player_id
        )
        return await self._pair(self._social.CancelFriendRequest, request)

    async def remove_friend(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """End the friendship with ``player_id``."""
        request = sopb.RemoveFriendRequest(player_id=player_id, acting_player_id=acting_player_id)
        return await self._pair(self._social.RemoveFriend, request)

    async def block_player(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """Block ``player_id``: a friendship or request between you ends, and they can
        no longer ask you. They are not told."""
        request = sopb.BlockPlayerRequest(player_id=player_id, acting_player_id=acting_player_id)
        return await self._pair(self._social.BlockPlayer, request)

    async def unblock_player(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """Lift your block of ``player_id``."""
        request = sopb.UnblockPlayerRequest(player_id=player_id, acting_player_id=acting_player_id)
        return await self._pair(self._social.UnblockPlayer, request)

    async def friends(
        self,
        *,
        relations: Sequence[sopb.Relation.ValueType] = (),
        page_size: int = 0,
        page_token: str = "",
        acting_player_id: str = "",
    ) -> sopb.ListFriendsResponse:
        """One page of your relations (only ``relations``, when given), by the other
        player's id; pass ``next_page_token`` back for the next."""
        request = sopb.ListFriendsRequest(
            acting_player_id=acting_player_id,
            relations=list(relations),
            page_size=page_size,
            page_token=page_token,
        )
        out: sopb.ListFriendsResponse = await self._unary(
            self._social.ListFriends, request, ANY, retry=True
        )
        return out

    async def all_friends(
        self,
        *,
        relations: Sequence[sopb.Relation.ValueType] = (),
        acting_player_id: str = "",
    ) -> list[sopb.Friend]:
        """Every one of your relations (only ``relations``, when given), page after
        page."""
        found: list[sopb.Friend] = []
        token = ""
        while True:
            page = await self.friends(
                relations=relations,
                page_size=200,
                page_token=token,
                acting_player_id=acting_player_id,
            )
            found += page.friends
            token = page.next_page_token
            if not token:
                return found

    async def presence(
        self, player_ids: Sequence[str], *, acting_player_id: str = ""
    ) -> list[sopb.Presence]:
        """Each player's presence (1 to 100 ids), in the order asked, as you may see
        it: ``visible`` False (and nothing else) where their choice hides it from you."""
        request = sopb.GetPresenceRequest(
            player_ids=list(player_ids), acting_player_id=acting_player_id
        )
        out: sopb.GetPresenceResponse = await self._unary(
            self._social.GetPresence, request, ANY, retry=True
        )
        return list(out.presences)

    async def set_presence(
        self,
        *,
        away: bool | None = None,
        visibility: sopb.PresenceVisibility.ValueType = sopb.PRESENCE_VISIBILITY_UNSPECIFIED,
        seen: bool = False,
        acting_player_id: str = "",
    ) -> sopb.Presence:
        """Say you are away (or back, ``away=False``) and who may see your presence;
        what is left out stays. ``seen``: the player is here now (for the app's key
        acting for them). Your presence now."""
        request = sopb.SetPresenceRequest(
            acting_player_id=acting_player_id, visibility=visibility, seen=seen
        )
        if away is not None:
            request.away = away
        out: sopb.SetPresenceResponse = await self._unary(
            self._social.SetPresence, request, ANY, retry=True
        )
        return out.presence

    async def player_events(
        self, player_id: str = "", *, after_id: int = 0, page_size: int = 0
    ) -> npb.ListPlayerEventsResponse:
        """A page of a player's events after ``after_id``, oldest first (a session:
        its own, ``player_id`` left empty; the app's key: the player it names)."""
        request = npb.ListPlayerEventsRequest(
            player_id=player_id, after_id=after_id, page_size=page_size
        )
        out: npb.ListPlayerEventsResponse = await self._unary(
            self._notifications.ListPlayerEvents, request, ANY, retry=True
        )
        return out

    async def watch_player_events(
        self, player_id: str = "", *, after_id: int = 0
    ) -> AsyncGenerator[npb.PlayerEvent, None]:
        """A player's events after ``after_id`` and each new one as it is written, for
        as long as you read. A broken stream is reopened after the last event
        received, with the retry policy's backoff; after ``retry.max_attempts``
        failures in a row the error is raised."""

        def open_after(last: int) -> Any:
            request = npb.WatchPlayerEventsRequest(player_id=player_id, after_id=last)
            return self._notifications.WatchPlayerEvents(request, metadata=self._metadata(ANY))

        updates = resumed(open_after, _event_id, after_id, self.retry, "the event stream ended")
        async for update in updates:
            yield update.event


def _event_id(update: npb.WatchPlayerEventsResponse) -> int:
    return int(update.event.id)


class Social:
    """The friends' calls of the blocking ``TrancaClient`` (see ``AsyncSocial``)."""

    if TYPE_CHECKING:

        @property
        def aio(self) -> AsyncTrancaClient: ...

        def _run(self, coro: Coroutine[Any, Any, T]) -> T: ...

    def add_friend(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """See ``AsyncTrancaClient.add_friend``."""
        return self._run(self.aio.add_friend(player_id, acting_player_id=acting_player_id))

    def accept_friend(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """See ``AsyncTrancaClient.accept_friend``."""
        return self._run(self.aio.accept_friend(player_id, acting_player_id=acting_player_id))

    def decline_friend(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """See ``AsyncTrancaClient.decline_friend``."""
        return self._run(self.aio.decline_friend(player_id, acting_player_id=acting_player_id))

    def cancel_friend_request(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """See ``AsyncTrancaClient.cancel_friend_request``."""
        return self._run(
            self.aio.cancel_friend_request(player_id, acting_player_id=acting_player_id)
        )

    def remove_friend(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """See ``AsyncTrancaClient.remove_friend``."""
        return self._run(self.aio.remove_friend(player_id, acting_player_id=acting_player_id))

    def block_player(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """See ``AsyncTrancaClient.block_player``."""
        return self._run(self.aio.block_player(player_id, acting_player_id=acting_player_id))

    def unblock_player(self, player_id: str, *, acting_player_id: str = "") -> sopb.Friend:
        """See ``AsyncTrancaClient.unblock_player``."""
        return self._run(self.aio.unblock_player(player_id, acting_player_id=acting_player_id))

    def friends(
        self,
        *,
        relations: Sequence[sopb.Relation.ValueType] = (),
        page_size: int = 0,
        page_token: str = "",
        acting_player_id: str = "",
    ) -> sopb.ListFriendsResponse:
        """See ``AsyncTrancaClient.friends``."""
        return self._run(
            self.aio.friends(
                relations=relations,
                page_size=page_size,
                page_token=page_token,
                acting_player_id=acting_player_id,
            )
        )

    def all_friends(
        self, *, relations: Sequence[sopb.Relation.ValueType] = (), acting_player_id: str = ""
    ) -> list[sopb.Friend]:
        """See ``AsyncTrancaClient.all_friends``."""
        return self._run(
            self.aio.all_friends(relations=relations, acting_player_id=acting_player_id)
        )

    def presence(
        self, player_ids: Sequence[str], *, acting_player_id: str = ""
    ) -> list[sopb.Presence]:
        """See ``AsyncTrancaClient.presence``."""
        return self._run(self.aio.presence(player_ids, acting_player_id=acting_player_id))

    def set_presence(
        self,
        *,
        away: bool | None = None,
        visibility: sopb.PresenceVisibility.ValueType = sopb.PRESENCE_VISIBILITY_UNSPECIFIED,
        seen: bool = False,
        acting_player_id: str = "",
    ) -> sopb.Presence:
        """See ``AsyncTrancaClient.set_presence``."""
        return self._run(
            self.aio.set_presence(
                away=away, visibility=visibility, seen=seen, acting_player_id=acting_player_id
            )
        )

    def player_events(
        self, player_id: str = "", *, after_id: int = 0, page_size: int = 0
    ) -> npb.ListPlayerEventsResponse:
        """See ``AsyncTrancaClient.player_events``."""
        return self._run(self.aio.player_events(player_id, after_id=after_id, page_size=page_size))
