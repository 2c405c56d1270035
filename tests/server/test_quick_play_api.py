"""Quick play through a real channel, on SQLite and PostgreSQL: tickets from players'
sessions and from the app's backend, tables made by the matchmaker's passes, seats
and seat tokens by polling and on a stream, cancellation before and after the match,
partners across the table, robots only where the app allows them and after its wait,
and the typed refusals (docs/APP_GUIDE.md, "Quick play")."""

from __future__ import annotations

import asyncio
import json

import grpc
import pytest

from tranca.server import Running
from tranca.v1 import game_pb2 as pb
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca.v1 import social_pb2 as sopb
from tranca.v1 import social_pb2_grpc as sopb_grpc

from .api_calls import refused
from .conftest import Client

Code = grpc.StatusCode
Metadata = tuple[tuple[str, str], ...]


class Players:
    """A client's quick play and sessions, and the server's matchmaker."""

    def __init__(self, server: Running, client: Client) -> None:
        self.server = server
        self.client = client
        self.quick = qpb_grpc.QuickPlayServiceStub(client.channel)
        self.sessions = spb_grpc.SessionServiceStub(client.channel)

    async def session(self, player_id: str) -> Metadata:
        opened = await self.sessions.CreatePlayerSession(
            spb.CreatePlayerSessionRequest(player_id=player_id, display_name=player_id.title()),
            metadata=self.client.app(),
        )
        return (("authorization", f"Bearer {opened.session.access_token}"),)

    async def ask(self, md: Metadata, players: int = 2, **more: object) -> qpb.Ticket:
        done = await self.quick.AskQuickPlay(
            qpb.AskQuickPlayRequest(preset="tranca-000", players=players, **more),  # type: ignore[arg-type]
            metadata=md,
        )
        return done.ticket

    async def get(self, md: Metadata, ticket_id: str) -> qpb.Ticket:
        return (
            await self.quick.GetTicket(qpb.GetTicketRequest(ticket_id=ticket_id), metadata=md)
        ).ticket

    async def match(self) -> int:
        assert self.server.matchmaker is not None
        return await self.server.matchmaker.match_once()

    async def policy(self, **changes: object) -> None:
        got = await self.sessions.GetAppPolicy(
            spb.GetAppPolicyRequest(), metadata=self.client.app()
        )
        policy = got.policy
        for name, value in changes.items():
            if isinstance(value, list):
                del getattr(policy, name)[:]
                getattr(policy, name).extend(value)
            else:
                setattr(policy, name, value)
        await self.sessions.SetAppPolicy(
            spb.SetAppPolicyRequest(policy=policy), metadata=self.client.app()
        )


@pytest.fixture
async def players(server: Running, client: Client) -> Players:
    return Players(server, client)


async def test_two_players_ask_and_are_seated_at_one_table(players: Players) -> None:
    ana, bia = await players.session("ana"), await players.session("bia")
    first = await players.ask(ana)
    assert first.status == qpb.TICKET_STATUS_WAITING and list(first.player_ids) == ["ana"]
    await refused(players.ask(ana), Code.FAILED_PRECONDITION, "ALREADY_WAITING")
    second = await players.ask(bia)
    await players.match()
    a = await players.get(ana, first.ticket_id)
    b = await players.get(bia, second.ticket_id)
    assert a.status == b.status == qpb.TICKET_STATUS_MATCHED and a.game_id == b.game_id
    # Each sees its own seat, with a token that plays it.
    assert [s.player_id for s in a.seats] == ["ana"] and [s.player_id for s in b.seats] == ["bia"]
    assert {a.seats[0].seat, b.seats[0].seat} == {0, 1}
    view = await players.client.stub.GetView(
        pb.GetViewRequest(game_id=a.game_id),
        metadata=(("authorization", f"Bearer {a.seats[0].player_token}"),),
    )
    assert view.view.status == pb.GAME_STATUS_PLAYING
    assert sorted(s.player_name for s in view.view.seats) == ["Ana", "Bia"]
    assert view.view.table.turn_seconds == 60  # the app's quick_play_turn_seconds
    # Another player's ticket is not yours to see; the app's key sees every seat.
    await refused(players.get(ana, second.ticket_id), Code.NOT_FOUND, "TICKET_NOT_FOUND")
    by_app = await players.get(players.client.app(), first.ticket_id)
    assert [s.player_id for s in by_app.seats] == ["ana"]
    # Once matched, a player waits no more: a new ticket is accepted.
    assert (await players.ask(ana)).status == qpb.TICKET_STATUS_WAITING


async def test_cancel_works_until_the_match_is_made(players: Players) -> None:
    ana, bia, cai = [await players.session(p) for p in ("ana", "bia", "cai")]
    gone = await players.ask(ana)
    cancelled = (
        await players.quick.CancelTicket(
            qpb.CancelTicketRequest(ticket_id=gone.ticket_id), metadata=ana
        )
    ).ticket
    assert cancelled.status == qpb.TICKET_STATUS_CANCELLED and cancelled.reason == "CANCELLED"
    t_bia, t_cai = await players.ask(bia), await players.ask(cai)
    assert await players.match() >= 1
    late = (
        await players.quick.CancelTicket(
            qpb.CancelTicketRequest(ticket_id=t_bia.ticket_id), metadata=bia
        )
    ).ticket
    # Matched first: the answer is the seat, not a cancellation.
    assert late.status == qpb.TICKET_STATUS_MATCHED and late.seats[0].player_token
    assert (await players.get(cai, t_cai.ticket_id)).game_id == late.game_id
    assert (await players.get(ana, gone.ticket_id)).status == qpb.TICKET_STATUS_CANCELLED


async def test_a_party_of_partners_sits_across_the_table(players: Players) -> None:
    app = players.client.app()
    party = await players.ask(
        app, players=4, player_ids=["ana", "bia"], display_names=["Ana", "Bia"]
    )
    await players.ask(app, players=4, player_ids=["cai"])
    await players.ask(app, players=4, player_ids=["dan"])
    await players.match()
    seated = await players.get(app, party.ticket_id)
    seats = {s.player_id: s.seat for s in seated.seats}
    assert seats["ana"] % 2 == seats["bia"] % 2 and seats["ana"] != seats["bia"]
    await refused(
        players.ask(app, players=2, player_ids=["eve", "fay"]),
        Code.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )


async def test_robots_fill_a_practice_table_only_after_the_apps_wait(players: Players) -> None:
    await players.policy(robots_after_seconds=1)
    ana = await players.session("ana")
    ticket = await players.ask(ana, players=4)
    await players.match()
    assert (await players.get(ana, ticket.ticket_id)).status == qpb.TICKET_STATUS_WAITING
    await asyncio.sleep(1.1)
    await players.match()
    seated = await players.get(ana, ticket.ticket_id)
    assert seated.status == qpb.TICKET_STATUS_MATCHED
    view = await players.client.stub.GetView(
        pb.GetViewRequest(game_id=seated.game_id), metadata=players.client.app()
    )
    assert sum(1 for s in view.view.seats if s.robot) == 3
    # Never at a rated table.
    rated = await players.ask(await players.session("bia"), players=4, competitive=True)
    await asyncio.sleep(1.1)
    await players.match()
    assert (await players.get(players.client.app(), rated.ticket_id)).status == (
        qpb.TICKET_STATUS_WAITING
    )


async def test_the_seats_arrive_on_a_stream(players: Players) -> None:
    ana, bia = await players.session("ana"), await players.session("bia")
    ticket = await players.ask(ana)
    stream = players.quick.WatchTicket(
        qpb.WatchTicketRequest(ticket_id=ticket.ticket_id), metadata=ana
    )
    first = await asyncio.wait_for(stream.read(), 5)
    assert isinstance(first, qpb.WatchTicketResponse)
    assert first.ticket.status == qpb.TICKET_STATUS_WAITING
    await players.ask(bia)
    # The server's own matchmaker (a pass a second) makes the table.
    matched = await asyncio.wait_for(stream.read(), 10)
    assert isinstance(matched, qpb.WatchTicketResponse)
    assert (
        matched.ticket.status == qpb.TICKET_STATUS_MATCHED and matched.ticket.seats[0].player_token
    )
    assert await asyncio.wait_for(stream.read(), 5) == grpc.aio.EOF


async def test_policy_stakes_and_chips_are_checked_when_asking(players: Players) -> None:
    ana = await players.session("ana")
    await players.policy(presets=["tranca-003"])
    await refused(players.ask(ana), Code.PERMISSION_DENIED, "PRESET_NOT_ALLOWED")
    await players.policy(presets=[], max_stake=100)
    await refused(
        players.ask(ana, competitive=True, stake=500), Code.PERMISSION_DENIED, "STAKE_NOT_ALLOWED"
    )
    await refused(
        players.ask(ana, competitive=True, stake=50), Code.FAILED_PRECONDITION, "INSUFFICIENT_CHIPS"
    )
    await refused(
        players.ask(ana, player_ids=["someone"]), Code.PERMISSION_DENIED, "NOT_YOUR_PLAYER"
    )
    await refused(players.ask(ana, players=3), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST")


async def test_matched_players_are_told_on_their_own_event_stream(players: Players) -> None:
    """match_found, written with the seat, then your_turn for whoever plays first; a
    session reads its own player's events, no one else's."""
    ana, bia = await players.session("ana"), await players.session("bia")
    events = npb_grpc.NotificationServiceStub(players.client.channel)
    stream = events.WatchPlayerEvents(npb.WatchPlayerEventsRequest(), metadata=ana)
    await players.ask(ana)
    await players.ask(bia)
    await players.match()
    found = await asyncio.wait_for(stream.read(), 10)
    assert isinstance(found, npb.WatchPlayerEventsResponse)
    assert found.event.kind == "match_found" and found.event.player_id == "ana"
    payload = json.loads(found.event.payload_json)
    table = await players.client.stub.GetView(
        pb.GetViewRequest(game_id=payload["game_id"]), metadata=players.client.app()
    )
    first = table.view.turn
    stream.cancel()
    kinds = {}
    for who, md in (("ana", ana), ("bia", bia)):
        page = await events.ListPlayerEvents(npb.ListPlayerEventsRequest(), metadata=md)
        kinds[who] = [e.kind for e in page.events]
    opener = "ana" if table.view.seats[first].player_name == "Ana" else "bia"
    assert kinds[opener] == ["match_found", "your_turn"]
    assert kinds["bia" if opener == "ana" else "ana"] == ["match_found"]
    await refused(
        events.ListPlayerEvents(npb.ListPlayerEventsRequest(player_id="bia"), metadata=ana),
        Code.PERMISSION_DENIED,
        "NOT_YOUR_PLAYER",
    )


async def test_a_party_of_two_sessions_is_invited_joins_and_sits_across(
    players: Players,
) -> None:
    ana, bia = await players.session("ana"), await players.session("bia")
    events = npb_grpc.NotificationServiceStub(players.client.channel)
    party = await players.ask(ana, players=4, partner_player_id="bia")
    assert party.status == qpb.TICKET_STATUS_FORMING
    page = await events.ListPlayerEvents(npb.ListPlayerEventsRequest(), metadata=bia)
    (invited,) = page.events
    assert invited.kind == "invited"
    assert json.loads(invited.payload_json)["from_player_id"] == "ana"
    joined = await players.quick.JoinParty(
        qpb.JoinPartyRequest(ticket_id=party.ticket_id), metadata=bia
    )
    assert joined.ticket.status == qpb.TICKET_STATUS_WAITING
    for other in ("cai", "dan"):
        await players.ask(await players.session(other), players=4)
    await players.match()
    seated = await players.get(bia, party.ticket_id)
    assert seated.status == qpb.TICKET_STATUS_MATCHED and seated.seats[0].player_id == "bia"
    by_app = await players.get(players.client.app(), party.ticket_id)
    ana_seat, bia_seat = (s.seat for s in by_app.seats)
    assert ana_seat % 2 == bia_seat % 2 and ana_seat != bia_seat
    await refused(
        players.quick.JoinParty(qpb.JoinPartyRequest(ticket_id=party.ticket_id), metadata=bia),
        Code.FAILED_PRECONDITION,
        "PARTY_NOT_FORMING",
    )


async def test_quick_play_never_seats_a_player_with_one_who_blocked_them(
    players: Players,
) -> None:
    ana, bia, cid = [await players.session(p) for p in ("ana", "bia", "cid")]
    await sopb_grpc.SocialServiceStub(players.client.channel).BlockPlayer(
        sopb.BlockPlayerRequest(player_id="ana"), metadata=bia
    )
    first, second = await players.ask(ana), await players.ask(bia)
    assert await players.match() == 0  # the two of them only: no table
    third = await players.ask(cid)
    assert await players.match() == 1
    seated = {
        who: (await players.get(md, t.ticket_id)).status
        for who, md, t in (("ana", ana, first), ("bia", bia, second), ("cid", cid, third))
    }
    # Ana, the oldest, plays Cid; Bia, who blocked her, waits for another table.
    assert seated == {
        "ana": qpb.TICKET_STATUS_MATCHED,
        "bia": qpb.TICKET_STATUS_WAITING,
        "cid": qpb.TICKET_STATUS_MATCHED,
    }
