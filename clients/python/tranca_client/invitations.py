"""Invitations to a table (``tranca.v1.InvitationService``) for both clients: a
player seated at a table (or its owner) invites a friend to a seat or to watch
(``invite_to_table``); the invitee accepts (``accept_invitation``: a seat, or a
spectator's place, with a seat token of their own), declines, or lets it expire;
the inviter cancels; and either pages their invitations (``invitations``, or
``all_invitations`` for the whole of them).

The credentials are a player's session token (``client.with_token(access_token)``:
the session's own player) or the app's key, naming who acts (``acting_player_id``).
``accept_invitation`` answers a client for the seat (``AcceptedSeat.client``), as
``join`` does.

Inviting again a player already invited to that table, declining a declined
invitation or cancelling a cancelled one answers ``changed == False`` and changes
nothing, so these are retried after UNAVAILABLE or DEADLINE_EXCEEDED like a read; an
acceptance is retried too (the session's second acceptance is a new token for the
same seat). A refusal is a ``RuleRejected`` whose ``reason`` says which:
``NOT_FRIENDS``, ``PLAYER_BLOCKED``, ``INVITATION_REFUSED``, ``PLAYER_SEATED``,
``GAME_STARTED``, ``GAME_FULL``, ``INVITATION_EXPIRED``, ``INVITATION_ANSWERED``; a
``NotFound`` with ``INVITATION_NOT_FOUND``, ``PLAYER_NOT_FOUND`` or
``GAME_NOT_FOUND``; a ``PermissionDenied`` with ``NOT_AT_TABLE``. Each invitation
and answer reaches the other player as a ``table_invitation`` event
(``watch_player_events``).
"""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ._auth import ANY
from .v1 import invitations_pb2 as ipb
from .v1 import invitations_pb2_grpc as ipb_grpc

if TYPE_CHECKING:
    from .async_client import AsyncTrancaClient
    from .sync_client import TrancaClient

T = TypeVar("T")

__all__ = ["AcceptedSeat", "AsyncInvitations", "Invitations"]


@dataclass(frozen=True)
class AcceptedSeat:
    """An accepted invitation: its answer (the seat, -1 for a spectator's place, and
    the token) and a client that plays (or watches) with that token."""

    response: ipb.AcceptInvitationResponse
    client: Any  # AsyncTrancaClient, or TrancaClient from the blocking client


class AsyncInvitations:
    """The invitations' calls of ``AsyncTrancaClient``."""

    if TYPE_CHECKING:
        _invitations: ipb_grpc.InvitationServiceAsyncStub

        async def _unary(
            self, method: Any, request: Any, auth: str, *, retry: bool, conflicts: bool = False
        ) -> Any: ...

        def with_token(self, token: str) -> AsyncTrancaClient: ...

    async def invite_to_table(
        self,
        game_id: str,
        player_id: str,
        *,
        watch: bool = False,
        expires_in_seconds: int = 0,
        acting_player_id: str = "",
    ) -> ipb.InviteToTableResponse:
        """Invite ``player_id`` to a seat at ``game_id`` (``watch``: to watch it). The
        invitation expires after ``expires_in_seconds`` (60 to 3600; 0: 600) unless
        answered, or when the table starts (a seat) or ends."""
        request = ipb.InviteToTableRequest(
            game_id=game_id,
            player_id=player_id,
            kind=ipb.INVITATION_KIND_WATCH if watch else ipb.INVITATION_KIND_SEAT,
            expires_in_seconds=expires_in_seconds,
            acting_player_id=acting_player_id,
        )
        out: ipb.InviteToTableResponse = await self._unary(
            self._invitations.InviteToTable, request, ANY, retry=True
        )
        return out

    async def accept_invitation(
        self, invitation_id: str, *, acting_player_id: str = "", token_lifetime_seconds: int = 0
    ) -> AcceptedSeat:
        """Accept an invitation received: the seat (or spectator's place) and a client
        that plays it with its own token."""
        request = ipb.AcceptInvitationRequest(
            invitation_id=invitation_id,
            acting_player_id=acting_player_id,
            token_lifetime_seconds=token_lifetime_seconds,
        )
        out: ipb.AcceptInvitationResponse = await self._unary(
            self._invitations.AcceptInvitation, request, ANY, retry=True
        )
        return AcceptedSeat(out, self.with_token(out.player_token))

    async def decline_invitation(
        self, invitation_id: str, *, acting_player_id: str = ""
    ) -> ipb.DeclineInvitationResponse:
        """Turn an invitation received away; the inviter is told."""
        request = ipb.DeclineInvitationRequest(
            invitation_id=invitation_id, acting_player_id=acting_player_id
        )
        out: ipb.DeclineInvitationResponse = await self._unary(
            self._invitations.DeclineInvitation, request, ANY, retry=True
        )
        return out

    async def cancel_invitation(
        self, invitation_id: str, *, acting_player_id: str = ""
    ) -> ipb.CancelInvitationResponse:
        """Withdraw an invitation sent; the invitee is told."""
        request = ipb.CancelInvitationRequest(
            invitation_id=invitation_id, acting_player_id=acting_player_id
        )
        out: ipb.CancelInvitationResponse = await self._unary(
            self._invitations.CancelInvitation, request, ANY, retry=True
        )
        return out

    async def invitations(
        self,
        *,
        direction: ipb.InvitationDirection.ValueType = ipb.INVITATION_DIRECTION_UNSPECIFIED,
        status: ipb.InvitationStatus.ValueType = ipb.INVITATION_STATUS_UNSPECIFIED,
        page_size: int = 0,
        page_token: str = "",
        acting_player_id: str = "",
    ) -> ipb.ListInvitationsResponse:
        """One page of your invitations (received, sent or both; of one status, when
        given), newest first; pass ``next_page_token`` back for the next."""
        request = ipb.ListInvitationsRequest(
            acting_player_id=acting_player_id,
            direction=direction,
            status=status,
            page_size=page_size,
            page_token=page_token,
        )
        out: ipb.ListInvitationsResponse = await self._unary(
            self._invitations.ListInvitations, request, ANY, retry=True
        )
        return out

    async def all_invitations(
        self,
        *,
        direction: ipb.InvitationDirection.ValueType = ipb.INVITATION_DIRECTION_UNSPECIFIED,
        status: ipb.InvitationStatus.ValueType = ipb.INVITATION_STATUS_UNSPECIFIED,
        acting_player_id: str = "",
    ) -> list[ipb.TableInvitation]:
        """Every one of your invitations (as ``invitations`` filters them), page after
        page."""
        found: list[ipb.TableInvitation] = []
        token = ""
        while True:
            page = await self.invitations(
                direction=direction,
                status=status,
                page_size=200,
                page_token=token,
                acting_player_id=acting_player_id,
            )
            found += page.invitations
            token = page.next_page_token
            if not token:
                return found


class Invitations:
    """The invitations' calls of the blocking ``TrancaClient`` (see
    ``AsyncInvitations``)."""

    if TYPE_CHECKING:

        @property
        def aio(self) -> AsyncTrancaClient: ...

        def _run(self, coro: Coroutine[Any, Any, T]) -> T: ...

        def with_token(self, token: str) -> TrancaClient: ...

    def invite_to_table(
        self,
        game_id: str,
        player_id: str,
        *,
        watch: bool = False,
        expires_in_seconds: int = 0,
        acting_player_id: str = "",
    ) -> ipb.InviteToTableResponse:
        """See ``AsyncTrancaClient.invite_to_table``."""
        return self._run(
            self.aio.invite_to_table(
                game_id,
                player_id,
                watch=watch,
                expires_in_seconds=expires_in_seconds,
                acting_player_id=acting_player_id,
            )
        )

    def accept_invitation(
        self, invitation_id: str, *, acting_player_id: str = "", token_lifetime_seconds: int = 0
    ) -> AcceptedSeat:
        """See ``AsyncTrancaClient.accept_invitation`` (its client is a blocking one)."""
        done = self._run(
            self.aio.accept_invitation(
                invitation_id,
                acting_player_id=acting_player_id,
                token_lifetime_seconds=token_lifetime_seconds,
            )
        )
        return AcceptedSeat(done.response, self.with_token(done.response.player_token))

    def decline_invitation(
        self, invitation_id: str, *, acting_player_id: str = ""
    ) -> ipb.DeclineInvitationResponse:
        """See ``AsyncTrancaClient.decline_invitation``."""
        return self._run(
            self.aio.decline_invitation(invitation_id, acting_player_id=acting_player_id)
        )

    def cancel_invitation(
        self, invitation_id: str, *, acting_player_id: str = ""
    ) -> ipb.CancelInvitationResponse:
        """See ``AsyncTrancaClient.cancel_invitation``."""
        return self._run(
            self.aio.cancel_invitation(invitation_id, acting_player_id=acting_player_id)
        )

    def invitations(
        self,
        *,
        direction: ipb.InvitationDirection.ValueType = ipb.INVITATION_DIRECTION_UNSPECIFIED,
        status: ipb.InvitationStatus.ValueType = ipb.INVITATION_STATUS_UNSPECIFIED,
        page_size: int = 0,
        page_token: str = "",
        acting_player_id: str = "",
    ) -> ipb.ListInvitationsResponse:
        """See ``AsyncTrancaClient.invitations``."""
        return self._run(
            self.aio.invitations(
                direction=direction,
                status=status,
                page_size=page_size,
                page_token=page_token,
                acting_player_id=acting_player_id,
            )
        )

    def all_invitations(
        self,
        *,
        direction: ipb.InvitationDirection.ValueType = ipb.INVITATION_DIRECTION_UNSPECIFIED,
        status: ipb.InvitationStatus.ValueType = ipb.INVITATION_STATUS_UNSPECIFIED,
        acting_player_id: str = "",
    ) -> list[ipb.TableInvitation]:
        """See ``AsyncTrancaClient.all_invitations``."""
        return self._run(
            self.aio.all_invitations(
                direction=direction, status=status, acting_player_id=acting_player_id
            )
        )
