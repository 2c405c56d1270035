"""Tables that outlive their match (``tranca.v1.TableService``) for both clients: a
seated player confirms a rematch once their match is over (``rematch``, with the
client of their seat token of that match), and anyone who may see a table pages its
matches (``table_matches``, or ``all_table_matches`` for the whole of them).

The first confirmation creates the table's next match (the same preset, options and
seats, a fresh deal); each confirming player takes the seat they had, with a new
token: ``rematch`` answers a client for it (``RematchedSeat.client``), as ``join``
does. The seats of the players who have not confirmed are held for them for the
app's ``rematch_hold_seconds`` (60 by default), then anyone may take them. The
finished match's view says who confirmed (``rematch_seats``), the next match
(``next_game_id``) and when the held seats are freed (``rematch_hold_until_ms``).

A confirmation is not retried after UNAVAILABLE or DEADLINE_EXCEEDED: a second one
of the same seat is refused (``RuleRejected`` with ``REMATCH_CONFIRMED``; the
session's ``join`` of the next match then answers a new token for the seat). Other
refusals: ``MATCH_NOT_OVER``, ``TOURNAMENT_TABLE``, ``SEAT_TAKEN`` (the hold ran
out and another player sat down).
"""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ._auth import ANY, PLAYER
from .v1 import tables_pb2 as tpb
from .v1 import tables_pb2_grpc as tpb_grpc

if TYPE_CHECKING:
    from .async_client import AsyncTrancaClient
    from .sync_client import TrancaClient

T = TypeVar("T")

__all__ = ["AsyncTables", "RematchedSeat", "Tables"]


@dataclass(frozen=True)
class RematchedSeat:
    """A confirmed rematch: its answer (the next match's game id, the seat, its token
    and the next match's view) and a client that plays the seat there."""

    response: tpb.RematchResponse
    client: Any  # AsyncTrancaClient, or TrancaClient from the blocking client


class AsyncTables:
    """The tables' calls of ``AsyncTrancaClient``."""

    if TYPE_CHECKING:
        _tables: tpb_grpc.TableServiceAsyncStub

        async def _unary(
            self, method: Any, request: Any, auth: str, *, retry: bool, conflicts: bool = False
        ) -> Any: ...

        def with_token(self, token: str) -> AsyncTrancaClient: ...

    async def rematch(self, game_id: str) -> RematchedSeat:
        """Confirm the rematch of the finished match ``game_id`` for this client's seat
        (its seat token of that match): the seat in the table's next match and a client
        that plays it."""
        out: tpb.RematchResponse = await self._unary(
            self._tables.Rematch, tpb.RematchRequest(game_id=game_id), PLAYER, retry=False
        )
        return RematchedSeat(out, self.with_token(out.player_token))

    async def table_matches(
        self, game_id: str, *, page_size: int = 0, page_token: str = ""
    ) -> tpb.ListTableMatchesResponse:
        """One page of the matches of the table of ``game_id`` (any of its matches),
        from its first; pass ``next_page_token`` back for the next."""
        request = tpb.ListTableMatchesRequest(
            game_id=game_id, page_size=page_size, page_token=page_token
        )
        out: tpb.ListTableMatchesResponse = await self._unary(
            self._tables.ListTableMatches, request, ANY, retry=True
        )
        return out

    async def all_table_matches(self, game_id: str) -> list[tpb.TableMatch]:
        """Every match of the table of ``game_id``, page after page."""
        found: list[tpb.TableMatch] = []
        token = ""
        while True:
            page = await self.table_matches(game_id, page_size=200, page_token=token)
            found += page.matches
            token = page.next_page_token
            if not token:
                return found


class Tables:
    """The tables' calls of the blocking ``TrancaClient`` (see ``AsyncTables``)."""

    if TYPE_CHECKING:

        @property
        def aio(self) -> AsyncTrancaClient: ...

        def _run(self, coro: Coroutine[Any, Any, T]) -> T: ...

        def with_token(self, token: str) -> TrancaClient: ...

    def rematch(self, game_id: str) -> RematchedSeat:
        """See ``AsyncTrancaClient.rematch`` (its client is a blocking one)."""
        done = self._run(self.aio.rematch(game_id))
        return RematchedSeat(done.response, self.with_token(done.response.player_token))

    def table_matches(
        self, game_id: str, *, page_size: int = 0, page_token: str = ""
    ) -> tpb.ListTableMatchesResponse:
        """See ``AsyncTrancaClient.table_matches``."""
        return self._run(
            self.aio.table_matches(game_id, page_size=page_size, page_token=page_token)
        )

    def all_table_matches(self, game_id: str) -> list[tpb.TableMatch]:
        """See ``AsyncTrancaClient.all_table_matches``."""
        return self._run(self.aio.all_table_matches(game_id))
