"""The lobby (ListOpenTables) through a real channel, on SQLite and PostgreSQL: filters,
pages that follow on by position (tables created in the same instant included), the
seats' names, private tables unlisted, and a player's session limited to what its
app's policy allows."""

from __future__ import annotations

import asyncio

import grpc

from tranca.v1 import game_pb2 as pb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .api_calls import refused
from .conftest import Client


async def create(client: Client, players: int = 2, **table: object) -> str:
    done = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=players,
            table=pb.TableOptions(**table),  # type: ignore[arg-type]
        ),
        metadata=client.app(),
    )
    return str(done.game.game_id)


async def lobby(
    client: Client, metadata: tuple[tuple[str, str], ...] | None = None, **request: object
) -> pb.ListOpenTablesResponse:
    return await client.stub.ListOpenTables(
        pb.ListOpenTablesRequest(**request),  # type: ignore[arg-type]
        metadata=metadata or client.app(),
    )


async def test_the_lobby_lists_open_tables_oldest_first_with_their_filters(
    client: Client,
) -> None:
    two = await create(client)
    four = await create(client, players=4)
    rated = await create(client, competitive=True)
    await create(client, private=True)
    await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=four, seat=0, player_name="Zé"), metadata=client.app()
    )
    everything = await lobby(client)
    assert [t.game_id for t in everything.tables] == [two, four, rated]
    assert list(everything.tables[1].player_names) == ["Zé", "", "", ""]
    assert list(everything.tables[1].player_ids) == ["", "", "", ""]  # joined without one
    assert [t.game_id for t in (await lobby(client, players=4)).tables] == [four]
    assert [t.game_id for t in (await lobby(client, play=pb.PLAY_FILTER_RATED)).tables] == [rated]
    assert [t.game_id for t in (await lobby(client, min_free_seats=3)).tables] == [four]
    assert (await lobby(client, preset="tranca-003")).tables == []
    await refused(lobby(client, players=3), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    await refused(
        lobby(client, page_token="not a token"),
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )


async def test_pages_follow_on_by_position_even_for_tables_made_at_once(client: Client) -> None:
    made = await asyncio.gather(*(create(client) for _ in range(9)))
    seen: list[str] = []
    token = ""
    while True:
        page = await lobby(client, page_size=2, page_token=token)
        seen += [t.game_id for t in page.tables]
        token = page.next_page_token
        if not token:
            break
    assert sorted(seen) == sorted(made) and len(seen) == len(set(seen))


async def test_a_session_sees_the_tables_its_apps_policy_lets_it_join(client: Client) -> None:
    sessions = spb_grpc.SessionServiceStub(client.channel)
    policy = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.competitive = False
    await sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    practice = await create(client)
    await create(client, competitive=True)
    ana = (
        await sessions.CreatePlayerSession(
            spb.CreatePlayerSessionRequest(player_id="ana"), metadata=client.app()
        )
    ).session
    seen = await lobby(client, (("authorization", f"Bearer {ana.access_token}"),))
    assert [t.game_id for t in seen.tables] == [practice]
