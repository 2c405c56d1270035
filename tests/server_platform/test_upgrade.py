"""Rolling upgrades from a release before the platform (docs/OPERATIONS.md, "Snapshot
formats"): a game that uses the platform is stored as snapshot schema 3, which such a
release refuses to load rather than load without what it does not know; plain games
stay at schema 2; and while ``--snapshot-schema`` is below 3 no platform game is
written at all."""

from __future__ import annotations

import grpc
import pytest
from sqlalchemy import text

from tests.server.api_calls import reason_of
from tests.server.conftest import Client
from tranca.server import Running
from tranca.store.codec import loads
from tranca.table.game import GameState
from tranca.v1 import game_pb2 as pb

EARLIER_RELEASE_READS = (1, 2)


async def stored_schema(server: Running, gid: str) -> int:
    row = await server.store.move_path.game(gid)
    assert row is not None
    return int(loads(row.snapshot)["schema"])


async def count_games(server: Running) -> int:
    async with server.store.engine.connect() as conn:
        return int((await conn.execute(text("SELECT count(*) FROM games"))).scalar_one())


async def test_plain_games_stay_readable_by_the_earlier_release(
    client: Client, server: Running
) -> None:
    gid, _ = await client.new_game()
    assert await stored_schema(server, gid) in EARLIER_RELEASE_READS


async def test_a_platform_game_is_one_the_earlier_release_refuses(
    client: Client, server: Running
) -> None:
    gid, _ = await client.new_game(table=pb.TableOptions(turn_seconds=60))
    assert await stored_schema(server, gid) == 3
    row = await server.store.move_path.game(gid)
    assert row is not None
    snapshot = loads(row.snapshot)
    setup = (await server.store.game(gid)).state.setup
    # The earlier release's loader (the same code, reading only schemas 1 and 2)
    # refuses it.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("tranca.table.game.READABLE_SCHEMAS", EARLIER_RELEASE_READS)
        with pytest.raises(ValueError, match="schema"):
            GameState.from_dict(snapshot, setup)
    # This release reads it back whole.
    assert GameState.from_dict(snapshot, setup).uses_platform


async def test_during_an_upgrade_no_platform_game_is_written(
    client: Client, server: Running
) -> None:
    server.store.snapshot_schema = 2  # as `tranca serve --snapshot-schema 2`
    try:
        before = await count_games(server)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.stub.CreateGame(
                pb.CreateGameRequest(
                    rules=pb.Rules(preset="tranca-000"),
                    players=2,
                    table=pb.TableOptions(competitive=True),
                ),
                metadata=client.app(),
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(refused.value) == "PLATFORM_NOT_ENABLED"
        assert await count_games(server) == before  # nothing was created
        # A plain table is seated as before, but not with a player id (schema 3 again).
        created = await client.stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
            metadata=client.app(),
        )
        gid = created.game.game_id
        with pytest.raises(grpc.aio.AioRpcError) as also:
            await client.stub.JoinGame(
                pb.JoinGameRequest(game_id=gid, seat=0, player_name="ana", player_id="ana"),
                metadata=client.app(),
            )
        assert reason_of(also.value) == "PLATFORM_NOT_ENABLED"
        await client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=0, player_name="ana"), metadata=client.app()
        )
        assert await stored_schema(server, gid) == 2
    finally:
        server.store.snapshot_schema = 3
