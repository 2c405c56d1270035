"""Quick play (``tranca.v1.QuickPlayService``) for both clients: ask for a table,
follow the ticket until the matchmaker seats its players, cancel it, and list a
player's tickets, so that a client that lost a ticket's id finds it again.

The credentials are a player's session token (``client.with_token(access_token)``:
the session's own player) or the app's key (which names the players). Retries:

- ``ask_quick_play`` carries a request id (a UUID unless you pass one) and reuses
  it on every retry: a lost answer's retry, or the same call sent twice at once,
  gets the one ticket the request made (never ``ALREADY_WAITING`` for it);
- ``get_ticket``, ``list_quick_play_tickets`` and ``open_ticket`` are reads, and
  ``cancel_ticket`` ends a ticket once: all are retried after UNAVAILABLE or
  DEADLINE_EXCEEDED;
- ``wait_for_ticket`` follows ``WatchTicket`` and reopens a broken stream.

A player who already waits gets ``RuleRejected`` with ``reason ==
"ALREADY_WAITING"``; ``waiting_ticket_id(error)`` is the ticket it waits in (when
the caller may see it), to follow or cancel.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import grpc

from ._auth import ANY
from .errors import TrancaError, Unavailable, error_from_rpc
from .v1 import quick_play_pb2 as qpb
from .v1 import quick_play_pb2_grpc as qpb_grpc

if TYPE_CHECKING:
    from .client import AsyncTrancaClient, RetryPolicy

T = TypeVar("T")

# The statuses of a ticket that may still change (a party forming, or waiting).
OPEN_STATUSES = frozenset({qpb.TICKET_STATUS_FORMING, qpb.TICKET_STATUS_WAITING})
# A broken ticket stream is reopened after these; other codes are the answer.
_RESUMABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
    }
)

__all__ = ["OPEN_STATUSES", "AsyncQuickPlay", "QuickPlay", "waiting_ticket_id"]


def waiting_ticket_id(error: TrancaError) -> str | None:
    """The ticket an ``ALREADY_WAITING`` refusal names (its ErrorInfo metadata
    ``ticket_id``); None for another refusal, or when the waiting player is a
    session's partner rather than its own player."""
    if error.reason != "ALREADY_WAITING":
        return None
    return error.metadata.get("ticket_id") or None


class AsyncQuickPlay:
    """The quick-play calls of ``AsyncTrancaClient``."""

    if TYPE_CHECKING:
        retry: RetryPolicy
        _quick: qpb_grpc.QuickPlayServiceAsyncStub

        def _metadata(self, auth: str) -> tuple[tuple[str, str], ...]: ...

        async def _unary(
            self, method: Any, request: Any, auth: str, *, retry: bool, conflicts: bool = False
        ) -> Any: ...

    async def ask_quick_play(
        self,
        preset: str,
        players: int,
        *,
        competitive: bool = False,
        stake: int = 0,
        player_ids: Sequence[str] = (),
        display_names: Sequence[str] = (),
        partner_player_id: str = "",
        request_id: str | None = None,
    ) -> qpb.Ticket:
        """Queue for a table of ``players`` seats of ``preset``: a session for its own
        player (and, at a 4-player table, ``partner_player_id``: the ticket forms
        until the partner joins it), the app's key for ``player_ids``. The ticket,
        waiting (or forming). Retried with the same request id."""
        request = qpb.AskQuickPlayRequest(
            preset=preset,
            players=players,
            competitive=competitive,
            stake=stake,
            player_ids=list(player_ids),
            display_names=list(display_names),
            partner_player_id=partner_player_id,
            request_id=request_id or uuid.uuid4().hex,
        )
        out: qpb.AskQuickPlayResponse = await self._unary(
            self._quick.AskQuickPlay, request, ANY, retry=True
        )
        return out.ticket

    async def get_ticket(self, ticket_id: str) -> qpb.Ticket:
        """The ticket now; once matched, new seat tokens for the caller's seats."""
        out: qpb.GetTicketResponse = await self._unary(
            self._quick.GetTicket, qpb.GetTicketRequest(ticket_id=ticket_id), ANY, retry=True
        )
        return out.ticket

    async def cancel_ticket(self, ticket_id: str) -> qpb.Ticket:
        """Take the ticket out of the queue: cancelled, or matched (with the caller's
        seats) if the matchmaker seated it first."""
        out: qpb.CancelTicketResponse = await self._unary(
            self._quick.CancelTicket, qpb.CancelTicketRequest(ticket_id=ticket_id), ANY, retry=True
        )
        return out.ticket

    async def list_quick_play_tickets(
        self, *, player_id: str = "", page_size: int = 0, page_token: str = ""
    ) -> qpb.ListQuickPlayTicketsResponse:
        """A page of a player's tickets, newest first, without seat tokens (a
        session's own; the app's key names ``player_id``). ``page_size``: 1 to 50
        (0: 20); ``page_token``: the previous page's ``next_page_token``."""
        request = qpb.ListQuickPlayTicketsRequest(
            player_id=player_id, page_size=page_size, page_token=page_token
        )
        out: qpb.ListQuickPlayTicketsResponse = await self._unary(
            self._quick.ListQuickPlayTickets, request, ANY, retry=True
        )
        return out

    async def open_ticket(self, player_id: str = "") -> qpb.Ticket | None:
        """The player's ticket still forming or waiting, if any: a player has at most
        one, and it is the newest."""
        page = await self.list_quick_play_tickets(player_id=player_id, page_size=1)
        if page.tickets and page.tickets[0].status in OPEN_STATUSES:
            return page.tickets[0]
        return None

    async def wait_for_ticket(self, ticket_id: str) -> qpb.Ticket:
        """The ticket once it is matched (with the caller's seat tokens) or has ended,
        by ``WatchTicket``. A broken stream is reopened with the retry policy's
        backoff; after ``retry.max_attempts`` failures in a row the error is
        raised."""
        failures = 0
        while True:
            call = self._quick.WatchTicket(
                qpb.WatchTicketRequest(ticket_id=ticket_id), metadata=self._metadata(ANY)
            )
            try:
                async for update in call:
                    failures = 0
                    if update.ticket.status not in OPEN_STATUSES:
                        return update.ticket
                # A stream ends after the ticket's last change; one that ended early
                # (the server stopping) is read again.
                ticket = await self.get_ticket(ticket_id)
                if ticket.status not in OPEN_STATUSES:
                    return ticket
                error: TrancaError = Unavailable("the ticket stream ended early")
            except grpc.aio.AioRpcError as exc:
                error = error_from_rpc(exc)
                if error.code not in _RESUMABLE:
                    raise error from None
            finally:
                call.cancel()
            failures += 1
            if failures >= self.retry.max_attempts:
                error.attempts = failures
                raise error
            await asyncio.sleep(self.retry.delay(failures))


class QuickPlay:
    """The quick-play calls of the blocking ``TrancaClient`` (see
    ``AsyncQuickPlay``)."""

    if TYPE_CHECKING:

        @property
        def aio(self) -> AsyncTrancaClient: ...

        def _run(self, coro: Coroutine[Any, Any, T]) -> T: ...

    def ask_quick_play(self, preset: str, players: int, **kwargs: Any) -> qpb.Ticket:
        """See ``AsyncTrancaClient.ask_quick_play``."""
        return self._run(self.aio.ask_quick_play(preset, players, **kwargs))

    def get_ticket(self, ticket_id: str) -> qpb.Ticket:
        """See ``AsyncTrancaClient.get_ticket``."""
        return self._run(self.aio.get_ticket(ticket_id))

    def cancel_ticket(self, ticket_id: str) -> qpb.Ticket:
        """See ``AsyncTrancaClient.cancel_ticket``."""
        return self._run(self.aio.cancel_ticket(ticket_id))

    def list_quick_play_tickets(
        self, *, player_id: str = "", page_size: int = 0, page_token: str = ""
    ) -> qpb.ListQuickPlayTicketsResponse:
        """See ``AsyncTrancaClient.list_quick_play_tickets``."""
        return self._run(
            self.aio.list_quick_play_tickets(
                player_id=player_id, page_size=page_size, page_token=page_token
            )
        )

    def open_ticket(self, player_id: str = "") -> qpb.Ticket | None:
        """See ``AsyncTrancaClient.open_ticket``."""
        return self._run(self.aio.open_ticket(player_id))

    def wait_for_ticket(self, ticket_id: str) -> qpb.Ticket:
        """See ``AsyncTrancaClient.wait_for_ticket``."""
        return self._run(self.aio.wait_for_ticket(ticket_id))
