"""QuickPlayService: protobuf in, a use case of ``services.quick_play.QuickPlay``,
protobuf out. Nothing else happens here."""

from __future__ import annotations

from collections.abc import AsyncIterator

from ..services.quick_play import Asked, QuickPlay, TicketShown, TicketStatus
from ..v1 import quick_play_pb2 as pb
from ..v1 import quick_play_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .servicer import rpc, stream_rpc

STATUS = {
    TicketStatus.FORMING: pb.TICKET_STATUS_FORMING,
    TicketStatus.WAITING: pb.TICKET_STATUS_WAITING,
    TicketStatus.MATCHED: pb.TICKET_STATUS_MATCHED,
    TicketStatus.CANCELLED: pb.TICKET_STATUS_CANCELLED,
}


def ticket_pb(shown: TicketShown) -> pb.Ticket:
    t = shown.ticket
    return pb.Ticket(
        ticket_id=t.id,
        status=STATUS[t.status],
        reason=t.reason,
        preset=t.preset,
        players=t.players,
        competitive=t.competitive,
        stake=t.stake,
        player_ids=list(t.player_ids),
        created_at_ms=t.created_ms,
        ended_at_ms=t.ended_ms or 0,
        game_id=t.game_id or "",
        seats=[
            pb.MatchedSeat(
                player_id=s.player_id,
                seat=s.seat,
                player_token=s.token,
                token_expires_at_ms=s.expires_at,
            )
            for s in shown.seats
        ],
    )


class QuickPlayService(pb_grpc.QuickPlayServiceServicer):
    def __init__(self, quick_play: QuickPlay) -> None:
        self.quick_play = quick_play

    @rpc("AskQuickPlay")
    async def AskQuickPlay(
        self, request: pb.AskQuickPlayRequest, context: Ctx
    ) -> pb.AskQuickPlayResponse:
        asked = Asked(
            preset=request.preset,
            players=request.players,
            competitive=request.competitive,
            stake=request.stake,
            player_ids=tuple(request.player_ids),
            display_names=tuple(request.display_names),
            request_id=request.request_id,
            partner_id=request.partner_player_id,
        )
        shown = await self.quick_play.ask(credentials(context), asked)
        return pb.AskQuickPlayResponse(ticket=ticket_pb(shown))

    @rpc("JoinParty")
    async def JoinParty(self, request: pb.JoinPartyRequest, context: Ctx) -> pb.JoinPartyResponse:
        shown = await self.quick_play.join_party(credentials(context), request.ticket_id)
        return pb.JoinPartyResponse(ticket=ticket_pb(shown))

    @rpc("GetTicket")
    async def GetTicket(self, request: pb.GetTicketRequest, context: Ctx) -> pb.GetTicketResponse:
        shown = await self.quick_play.get(credentials(context), request.ticket_id)
        return pb.GetTicketResponse(ticket=ticket_pb(shown))

    @rpc("CancelTicket")
    async def CancelTicket(
        self, request: pb.CancelTicketRequest, context: Ctx
    ) -> pb.CancelTicketResponse:
        shown = await self.quick_play.cancel(credentials(context), request.ticket_id)
        return pb.CancelTicketResponse(ticket=ticket_pb(shown))

    @rpc("ListQuickPlayTickets")
    async def ListQuickPlayTickets(
        self, request: pb.ListQuickPlayTicketsRequest, context: Ctx
    ) -> pb.ListQuickPlayTicketsResponse:
        page = await self.quick_play.list_tickets(
            credentials(context), request.player_id, request.page_size, request.page_token
        )
        return pb.ListQuickPlayTicketsResponse(
            tickets=[ticket_pb(TicketShown(t)) for t in page.tickets],
            next_page_token=page.next_page_token,
        )

    @stream_rpc("WatchTicket")
    async def WatchTicket(
        self, request: pb.WatchTicketRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchTicketResponse]:
        async for shown in self.quick_play.watch(credentials(context), request.ticket_id):
            yield pb.WatchTicketResponse(ticket=ticket_pb(shown))
