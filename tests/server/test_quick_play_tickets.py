"""Quick play's tickets through a real channel, on SQLite and PostgreSQL: the tables
the matchmaker must not leave unmade, one ticket for a request id however many calls
carry it at once, ALREADY_WAITING naming the waiting ticket, and a player's tickets
listed (ListQuickPlayTickets) so that a client that lost a ticket's id finds it
again (docs/APP_GUIDE.md, "Quick play")."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from tranca.server import Running
from tranca.v1 import quick_play_pb2 as qpb

from .api_calls import error_info, refused
from .conftest import Client
from .test_quick_play_api import Players

Code = grpc.StatusCode


@pytest.fixture
async def players(server: Running, client: Client) -> Players:
    return Players(server, client)


async def test_two_parties_are_seated_though_a_single_waits_between_them(
    players: Players,
) -> None:
    app = players.client.app()
    # Rated 4-player tables; newcomers all (one rating): a party, a single, a party.
    first = await players.ask(app, players=4, competitive=True, player_ids=["ana", "bia"])
    single = await players.ask(app, players=4, competitive=True, player_ids=["cai"])
    second = await players.ask(app, players=4, competitive=True, player_ids=["dan", "eve"])
    await players.match()
    a, b = await players.get(app, first.ticket_id), await players.get(app, second.ticket_id)
    assert a.status == b.status == qpb.TICKET_STATUS_MATCHED and a.game_id == b.game_id
    assert (await players.get(app, single.ticket_id)).status == qpb.TICKET_STATUS_WAITING


async def test_one_request_id_sent_twice_at_once_gets_one_ticket(players: Players) -> None:
    """Both calls answer the ticket the first made, never ALREADY_WAITING: the request
    id's key decides, and the loser reads the winner's ticket (every round, on both
    databases)."""
    for round_ in range(12):
        player = f"p{round_}"
        md = await players.session(player)
        request = qpb.AskQuickPlayRequest(
            preset="tranca-000", players=4, competitive=True, request_id=f"ask-{round_}"
        )
        answers = await asyncio.gather(
            players.quick.AskQuickPlay(request, metadata=md),
            players.quick.AskQuickPlay(request, metadata=md),
        )
        one, two = (a.ticket for a in answers)
        assert one.ticket_id == two.ticket_id, f"round {round_}"
        listed = await players.quick.ListQuickPlayTickets(
            qpb.ListQuickPlayTicketsRequest(), metadata=md
        )
        assert [t.ticket_id for t in listed.tickets] == [one.ticket_id]


async def test_already_waiting_names_the_waiting_ticket(players: Players) -> None:
    ana = await players.session("ana")
    waiting = await players.ask(ana, players=4, competitive=True)
    e = await refused(players.ask(ana), Code.FAILED_PRECONDITION, "ALREADY_WAITING")
    info = error_info(e)
    assert dict(info.metadata) == {"player_id": "ana", "ticket_id": waiting.ticket_id}
    assert waiting.ticket_id in (e.details() or "")
    # The ticket named is the caller's to follow and cancel.
    cancelled = await players.quick.CancelTicket(
        qpb.CancelTicketRequest(ticket_id=info.metadata["ticket_id"]), metadata=ana
    )
    assert cancelled.ticket.status == qpb.TICKET_STATUS_CANCELLED


async def test_a_players_tickets_are_listed_newest_first_with_their_tables(
    players: Players,
) -> None:
    ana, bia = await players.session("ana"), await players.session("bia")
    gone = await players.ask(ana)
    await players.quick.CancelTicket(
        qpb.CancelTicketRequest(ticket_id=gone.ticket_id), metadata=ana
    )
    played = await players.ask(ana)
    await players.ask(bia)
    await players.match()
    waiting = await players.ask(ana, players=4, competitive=True)

    async def listed(
        md: tuple[tuple[str, str], ...], **request: object
    ) -> qpb.ListQuickPlayTicketsResponse:
        return await players.quick.ListQuickPlayTickets(
            qpb.ListQuickPlayTicketsRequest(**request),  # type: ignore[arg-type]
            metadata=md,
        )

    page = await listed(ana)
    assert [t.ticket_id for t in page.tickets] == [
        waiting.ticket_id,
        played.ticket_id,
        gone.ticket_id,
    ]
    now, matched, cancelled = page.tickets
    assert now.status == qpb.TICKET_STATUS_WAITING and page.next_page_token == ""
    assert matched.status == qpb.TICKET_STATUS_MATCHED and matched.game_id
    assert not matched.seats  # seat tokens come from GetTicket
    assert cancelled.status == qpb.TICKET_STATUS_CANCELLED
    # Page by page; the app's key names the player.
    first = await listed(players.client.app(), player_id="ana", page_size=2)
    assert [t.ticket_id for t in first.tickets] == [waiting.ticket_id, played.ticket_id]
    rest = await listed(
        players.client.app(), player_id="ana", page_size=2, page_token=first.next_page_token
    )
    assert [t.ticket_id for t in rest.tickets] == [gone.ticket_id]
    assert rest.next_page_token == ""
    # Bia sees her own tickets only.
    assert [t.player_ids for t in (await listed(bia)).tickets] == [["bia"]]
    await refused(listed(bia, player_id="ana"), Code.PERMISSION_DENIED, "NOT_YOUR_PLAYER")
    await refused(listed(players.client.app()), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    await refused(listed(ana, page_size=51), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    await refused(listed(ana, page_token="x.y"), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST")
