"""Quick play's use cases against the in-memory repository: a ticket per player at a
time, tables written whole, seats delivered with new tokens, cancellation, expiry,
a stake a player can no longer cover, and retried requests."""

from __future__ import annotations

import pytest

from tranca.services.access import Credentials
from tranca.services.errors import Refused
from tranca.services.quick_play import TICKET_TTL_MS, Asked, TicketStatus
from tranca.table.game import PLAYING

from .conftest import World


def solo(player: str, players: int = 2, **more: object) -> Asked:
    return Asked("tranca-000", players, player_ids=(player,), **more)  # type: ignore[arg-type]


async def test_two_tickets_make_a_dealt_table_and_each_player_gets_a_seat_token(
    world: World,
) -> None:
    ana = (await world.quick_play.ask(world.as_app(), solo("ana"))).ticket
    bia = (await world.quick_play.ask(world.as_app(), solo("bia"))).ticket
    assert await world.matchmaker.match_once() == 1
    shown = await world.quick_play.get(world.as_app(), ana.id)
    assert shown.ticket.status is TicketStatus.MATCHED and shown.ticket.game_id
    game = await world.repo.game(shown.ticket.game_id)
    assert game.state.status == PLAYING
    (seat,) = shown.seats
    view = await world.games.view(world.as_player(seat.token), shown.ticket.game_id)
    assert view.seat == seat.seat
    # Each answer issues a new token; the earlier one still works.
    again = await world.quick_play.get(world.as_app(), ana.id)
    assert again.seats[0].token != seat.token
    assert (await world.games.view(world.as_player(seat.token), game.id)).seat == seat.seat
    other = await world.quick_play.get(world.as_app(), bia.id)
    assert {seat.seat, other.seats[0].seat} == {0, 1}


async def test_a_player_waits_in_one_ticket_and_a_retry_gets_it_back(world: World) -> None:
    first = (await world.quick_play.ask(world.as_app(), solo("ana", request_id="r1"))).ticket
    retry = (await world.quick_play.ask(world.as_app(), solo("ana", request_id="r1"))).ticket
    assert retry.id == first.id
    with pytest.raises(Refused) as caught:
        await world.quick_play.ask(world.as_app(), solo("ana", request_id="r2"))
    assert caught.value.reason == "ALREADY_WAITING"
    with pytest.raises(Refused) as caught:
        await world.quick_play.ask(world.as_app(), solo("bia", request_id="r1"))
    assert caught.value.reason == "REQUEST_ID_REUSED"


async def test_a_cancelled_ticket_is_never_matched(world: World) -> None:
    gone = (await world.quick_play.ask(world.as_app(), solo("ana"))).ticket
    cancelled = await world.quick_play.cancel(world.as_app(), gone.id)
    assert cancelled.ticket.status is TicketStatus.CANCELLED
    await world.quick_play.ask(world.as_app(), solo("bia"))
    assert await world.matchmaker.match_once() == 0
    # The player may ask again once out of the queue.
    await world.quick_play.ask(world.as_app(), solo("ana"))
    assert await world.matchmaker.match_once() == 1


async def test_a_ticket_nobody_matches_expires(world: World) -> None:
    alone = (await world.quick_play.ask(world.as_app(), solo("ana"))).ticket
    world.repo.now += TICKET_TTL_MS + 1
    assert await world.matchmaker.match_once() == 0
    ended = await world.quick_play.get(world.as_app(), alone.id)
    assert ended.ticket.status is TicketStatus.CANCELLED and ended.ticket.reason == "EXPIRED"


async def test_a_player_who_can_no_longer_cover_the_stake_leaves_the_queue(
    world: World,
) -> None:
    for player in ("ana", "bia"):
        world.repo.chips[(world.app.id, player)] = 100
    ana = (
        await world.quick_play.ask(world.as_app(), solo("ana", competitive=True, stake=60))
    ).ticket
    bia = (
        await world.quick_play.ask(world.as_app(), solo("bia", competitive=True, stake=60))
    ).ticket
    world.repo.chips[(world.app.id, "bia")] = 10  # spent elsewhere meanwhile
    assert await world.matchmaker.match_once() == 0
    assert (await world.quick_play.get(world.as_app(), bia.id)).ticket.reason == (
        "INSUFFICIENT_CHIPS"
    )
    # Nothing was taken from the other player, who waits on.
    assert world.repo.chips[(world.app.id, "ana")] == 100
    assert (await world.quick_play.get(world.as_app(), ana.id)).ticket.status is (
        TicketStatus.WAITING
    )


async def test_a_session_sees_its_own_seat_only(world: World) -> None:
    ana = await world.sessions.create(world.as_app(), "ana", "Ana")
    mine = Credentials(token=ana.access_token)
    ticket = (await world.quick_play.ask(mine, Asked("tranca-000", 4))).ticket
    assert ticket.player_ids == ("ana",) and ticket.display_names == ("Ana",)
    party = (
        await world.quick_play.ask(
            world.as_app(), Asked("tranca-000", 4, player_ids=("bia", "cai"))
        )
    ).ticket
    await world.quick_play.ask(world.as_app(), solo("dan", players=4))
    assert await world.matchmaker.match_once() == 1
    shown = await world.quick_play.get(mine, ticket.id)
    assert [s.player_id for s in shown.seats] == ["ana"]
    with pytest.raises(Refused) as caught:
        await world.quick_play.get(mine, party.id)
    assert caught.value.reason == "TICKET_NOT_FOUND"


async def test_a_sessions_party_forms_until_the_partner_joins_then_sits_across(
    world: World,
) -> None:
    ana = await world.sessions.create(world.as_app(), "ana", "Ana")
    bia = await world.sessions.create(world.as_app(), "bia", "Bia")
    as_ana, as_bia = Credentials(token=ana.access_token), Credentials(token=bia.access_token)
    party = (await world.quick_play.ask(as_ana, Asked("tranca-000", 4, partner_id="bia"))).ticket
    assert party.status is TicketStatus.FORMING and party.player_ids == ("ana", "bia")
    # The partner is told, with the ticket to join.
    (invited,) = await world.repo.player_events(world.app.id, "bia", 0, 10)
    assert invited.kind == "invited" and invited.payload["ticket_id"] == party.id
    # A forming party is matched with nobody.
    for p in ("cai", "dan"):
        await world.quick_play.ask(world.as_app(), solo(p, players=4))
    assert await world.matchmaker.match_once() == 0
    joined = await world.quick_play.join_party(as_bia, party.id)
    assert joined.ticket.status is TicketStatus.WAITING
    assert joined.ticket.display_names == ("Ana", "Bia")
    assert await world.matchmaker.match_once() == 1
    seats = (await world.quick_play.get(as_bia, party.id)).ticket.seats
    assert seats[0] % 2 == seats[1] % 2
    with pytest.raises(Refused) as caught:
        await world.quick_play.join_party(as_bia, party.id)
    assert caught.value.reason == "PARTY_NOT_FORMING"


async def test_only_the_named_partner_joins_and_either_may_cancel(world: World) -> None:
    ana = await world.sessions.create(world.as_app(), "ana", "Ana")
    eve = await world.sessions.create(world.as_app(), "eve", "Eve")
    bia = await world.sessions.create(world.as_app(), "bia", "Bia")
    party = (
        await world.quick_play.ask(
            Credentials(token=ana.access_token), Asked("tranca-000", 4, partner_id="bia")
        )
    ).ticket
    with pytest.raises(Refused) as caught:
        await world.quick_play.join_party(Credentials(token=eve.access_token), party.id)
    assert caught.value.reason == "TICKET_NOT_FOUND"
    declined = await world.quick_play.cancel(Credentials(token=bia.access_token), party.id)
    assert declined.ticket.status is TicketStatus.CANCELLED
    with pytest.raises(Refused) as caught:
        await world.quick_play.ask(
            Credentials(token=ana.access_token), Asked("tranca-000", 2, partner_id="bia")
        )
    assert caught.value.reason == "MALFORMED_REQUEST"


async def test_already_waiting_names_the_ticket_the_caller_may_see(world: World) -> None:
    first = (await world.quick_play.ask(world.as_app(), solo("ana"))).ticket
    with pytest.raises(Refused) as caught:
        await world.quick_play.ask(world.as_app(), solo("ana"))
    assert caught.value.reason == "ALREADY_WAITING"
    assert caught.value.metadata == {"player_id": "ana", "ticket_id": first.id}
    assert first.id in caught.value.message
    # A session is shown its own ticket, and never its partner's.
    bia = await world.sessions.create(world.as_app(), "bia", "Bia")
    as_bia = Credentials(token=bia.access_token)
    mine = (await world.quick_play.ask(as_bia, Asked("tranca-000", 4))).ticket
    with pytest.raises(Refused) as caught:
        await world.quick_play.ask(as_bia, Asked("tranca-000", 2))
    assert caught.value.metadata["ticket_id"] == mine.id
    cai = await world.sessions.create(world.as_app(), "cai", "Cai")
    with pytest.raises(Refused) as caught:
        await world.quick_play.ask(
            Credentials(token=cai.access_token), Asked("tranca-000", 4, partner_id="ana")
        )
    assert caught.value.reason == "ALREADY_WAITING"
    assert caught.value.metadata == {"player_id": "ana"}
    assert first.id not in caught.value.message


async def test_a_players_tickets_are_listed_newest_first_page_by_page(world: World) -> None:
    ana = await world.sessions.create(world.as_app(), "ana", "Ana")
    as_ana = Credentials(token=ana.access_token)
    asked = []
    for _ in range(3):
        world.repo.now += 1000
        ticket = (await world.quick_play.ask(as_ana, Asked("tranca-000", 2))).ticket
        await world.quick_play.cancel(as_ana, ticket.id)
        asked.append(ticket.id)
    world.repo.now += 1000
    # Ana is invited into a party: the partner's tickets are listed too.
    bia = await world.sessions.create(world.as_app(), "bia", "Bia")
    party = (
        await world.quick_play.ask(
            Credentials(token=bia.access_token), Asked("tranca-000", 4, partner_id="ana")
        )
    ).ticket
    asked.append(party.id)
    await world.quick_play.ask(world.as_app(), solo("dan"))  # another player's
    first = await world.quick_play.list_tickets(as_ana, "", 2, "")
    assert [t.id for t in first.tickets] == asked[::-1][:2]
    assert first.tickets[0].status is TicketStatus.FORMING and first.next_page_token
    rest = await world.quick_play.list_tickets(as_ana, "", 2, first.next_page_token)
    assert [t.id for t in rest.tickets] == asked[::-1][2:]
    assert rest.next_page_token == ""
    # The app's key names the player; a session only its own.
    by_app = await world.quick_play.list_tickets(world.as_app(), "dan", 0, "")
    assert [t.player_ids for t in by_app.tickets] == [("dan",)]
    for credentials, player, size, token, reason in [
        (as_ana, "dan", 0, "", "NOT_YOUR_PLAYER"),
        (world.as_app(), "", 0, "", "MALFORMED_REQUEST"),
        (as_ana, "", 51, "", "MALFORMED_REQUEST"),
        (as_ana, "", -1, "", "MALFORMED_REQUEST"),
        (as_ana, "", 0, "12.ZZ", "MALFORMED_REQUEST"),
        (as_ana, "", 0, "²." + party.id, "MALFORMED_REQUEST"),
        (as_ana, "", 0, party.id, "MALFORMED_REQUEST"),
    ]:
        with pytest.raises(Refused) as caught:
            await world.quick_play.list_tickets(credentials, player, size, token)
        assert caught.value.reason == reason, (player, size, token)
