"""Page tokens out of range are a clear INVALID_ARGUMENT, not an internal error from
the database driver (a 64-bit overflow)."""

from __future__ import annotations

import grpc
import pytest

from tests.server.api_calls import reason_of
from tests.server.conftest import Client
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc

HUGE = "9" * 23


@pytest.mark.parametrize("token", [HUGE, "-1", "abc"])
async def test_a_chip_entries_page_token_out_of_range_is_malformed(
    client: Client, token: str
) -> None:
    players = ppb_grpc.PlayerServiceStub(client.channel)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await players.ListChipEntries(
            ppb.ListChipEntriesRequest(player_id="ana", page_token=token), metadata=client.app()
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(refused.value) == "MALFORMED_REQUEST"


@pytest.mark.parametrize("token", [HUGE, "-1", "abc"])
async def test_a_games_page_token_out_of_range_is_malformed(client: Client, token: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await client.stub.ListGames(pb.ListGamesRequest(page_token=token), metadata=client.app())
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(refused.value) == "MALFORMED_REQUEST"


@pytest.mark.parametrize("db", ["sqlite", "postgres"])
async def test_database_errors_carry_no_bound_values(db: str, sqlite_url: str, pg_url: str) -> None:
    """A bug's logged traceback holds the driver's error text: it must not hold the
    values bound to the statement (a snapshot with every hand, a table's secret)."""
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    from tranca.store.database import make_engine, normalise_url

    engine = make_engine(normalise_url(sqlite_url if db == "sqlite" else pg_url))
    try:
        with pytest.raises(DBAPIError) as failed:
            async with engine.begin() as conn:
                await conn.execute(
                    text("INSERT INTO no_such_table (x) VALUES (:secret)"), {"secret": "4H 5H JK"}
                )
        assert "4H 5H JK" not in str(failed.value)
    finally:
        await engine.dispose()
