"""Page tokens and ids sent as text, through a real channel on SQLite and PostgreSQL:
whatever a client passes back, a paged call answers a page or MALFORMED_REQUEST, and
an id never issued is the call's own "not found", the same on both databases. Never
INTERNAL (a 64-bit overflow in the driver, a time past the calendar, a NUL byte
PostgreSQL refuses), and never a token of another form taken for one of this call's
(a sign, a space, a leading zero, a digit of another script)."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable

import grpc
import pytest

from tranca.v1 import game_pb2 as pb
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc

from .api_calls import refused
from .conftest import Client

PAST_64_BITS = "9999999999999999999"  # 19 digits, above 2**63 - 1
# Decimal numbers no call mints: past 64 bits, negative, signed, spaced, with a
# leading zero or an underscore, or in digits of other scripts (which int() reads).
NOT_MINTED_NUMBERS = [
    PAST_64_BITS,
    str(2**63),
    str(2**64),
    "-1",
    "+1",
    " 1",
    "1 ",
    "01",
    "1_0",
    "\u0661\u0662",  # Arabic-Indic 12
    "\uff11",  # fullwidth 1
    "\u00b2",  # superscript 2: str.isdigit() says yes, int() says no
]
GAME_ID = "0123456789abcdef0123456789abcdef"


def urlsafe(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


# A lobby position (creation time in microseconds, game id) the server never mints.
BAD_POSITIONS = [
    urlsafe(f"{2**62 - 1}:{GAME_ID}".encode()),  # a time past the calendar
    # 18 digits, as the format allows: the first microsecond past the calendar's end
    # (9999-12-31), which the format alone does not refuse.
    urlsafe(f"{253_402_300_800 * 10**6}:{GAME_ID}".encode()),
    urlsafe(f"{2**63}:{GAME_ID}".encode()),
    urlsafe(f"1:{GAME_ID[:31]}\x00".encode()),  # a NUL byte in the id
    urlsafe(b"1:\x00"),
    urlsafe(f"\u0661:{GAME_ID}".encode()),  # a digit of another script
    urlsafe(f" 1:{GAME_ID}".encode()),
    urlsafe(f"-1:{GAME_ID}".encode()),
    urlsafe(f"01:{GAME_ID}".encode()),
    urlsafe(f"1;{GAME_ID}".encode()),  # another separator
    urlsafe(f"1:{GAME_ID}:1".encode()),
    urlsafe(f"1:{GAME_ID.upper()}".encode()),  # not an id the server makes
    urlsafe(b"1:"),
    urlsafe(b"\xff\xfe:"),  # not UTF-8
    urlsafe(f"1:{GAME_ID}".encode())[:-3],  # truncated
    urlsafe(f"1:{GAME_ID}".encode()) + "==",  # padded
    base64.b64encode(f"1:{GAME_ID}".encode()).decode(),  # padded standard alphabet
    "not a token",
    PAST_64_BITS,
]


async def listed_deliveries(client: Client, token: str) -> npb.ListWebhookDeliveriesResponse:
    notify = npb_grpc.NotificationServiceStub(client.channel)
    return await notify.ListWebhookDeliveries(
        npb.ListWebhookDeliveriesRequest(page_token=token), metadata=client.app()
    )


async def listed_games(client: Client, token: str) -> pb.ListGamesResponse:
    return await client.stub.ListGames(pb.ListGamesRequest(page_token=token), metadata=client.app())


async def listed_tournaments(client: Client, token: str) -> ppb.ListTournamentsResponse:
    tournaments = ppb_grpc.TournamentServiceStub(client.channel)
    return await tournaments.ListTournaments(
        ppb.ListTournamentsRequest(page_token=token), metadata=client.app()
    )


async def listed_chip_entries(client: Client, token: str) -> ppb.ListChipEntriesResponse:
    players = ppb_grpc.PlayerServiceStub(client.channel)
    return await players.ListChipEntries(
        ppb.ListChipEntriesRequest(player_id="ana", page_token=token), metadata=client.app()
    )


async def listed_tables(client: Client, token: str) -> pb.ListOpenTablesResponse:
    return await client.stub.ListOpenTables(
        pb.ListOpenTablesRequest(page_token=token), metadata=client.app()
    )


PAGED: dict[str, Callable[[Client, str], Awaitable[object]]] = {
    "ListWebhookDeliveries": listed_deliveries,
    "ListGames": listed_games,
    "ListTournaments": listed_tournaments,
    "ListChipEntries": listed_chip_entries,
    "ListOpenTables": listed_tables,
}


@pytest.mark.parametrize("call", sorted(PAGED))
@pytest.mark.parametrize("token", NOT_MINTED_NUMBERS)
async def test_a_number_no_call_mints_is_a_malformed_page_token(
    client: Client, call: str, token: str
) -> None:
    await refused(PAGED[call](client, token), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


@pytest.mark.parametrize("token", BAD_POSITIONS)
async def test_a_lobby_position_no_call_mints_is_a_malformed_page_token(
    client: Client, token: str
) -> None:
    await refused(
        listed_tables(client, token), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"
    )


async def test_the_largest_tokens_each_call_could_mint_answer_a_page(client: Client) -> None:
    """At the top of each token's range the database answers (an empty page), as it
    does for any token a call mints."""
    largest = str(2**63 - 1)
    assert not (await listed_deliveries(client, largest)).deliveries
    assert not (await listed_chip_entries(client, largest)).entries
    assert not (await listed_games(client, largest)).games
    assert not (await listed_tournaments(client, largest)).tournaments
    last_microsecond = (253402300800 * 10**6) - 1  # 9999-12-31T23:59:59.999999Z
    end_of_time = urlsafe(f"{last_microsecond}:{'f' * 32}".encode())
    assert not (await listed_tables(client, end_of_time)).tables


@pytest.mark.parametrize("delivery_id", [*NOT_MINTED_NUMBERS, "0", "abc"])
async def test_redelivering_an_id_never_issued_is_delivery_not_found(
    client: Client, delivery_id: str
) -> None:
    notify = npb_grpc.NotificationServiceStub(client.channel)
    # A public address written as such (no name to resolve); nothing is delivered.
    await notify.SetWebhook(
        npb.SetWebhookRequest(url="https://93.184.216.34:9/hook"), metadata=client.app()
    )
    await refused(
        notify.RedeliverWebhook(
            npb.RedeliverWebhookRequest(delivery_id=delivery_id), metadata=client.app()
        ),
        grpc.StatusCode.NOT_FOUND,
        "DELIVERY_NOT_FOUND",
    )
