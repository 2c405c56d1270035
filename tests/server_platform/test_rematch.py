"""Tables that outlive their match, through the gRPC API on SQLite and PostgreSQL (issue
40, point 1; 003 "Opciones de mesa"): a rematch at the same table with the same seats,
each player confirming with their seat token, the seats of the others held for them
until the sweeper frees them, the table's history of matches, and a rematch confirmed
on two replicas at once."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import grpc
import pytest
from sqlalchemy import func, select

from tests.harness.servers import app_client, running_server, running_servers, server_config
from tranca.server import Running
from tranca.services.moves import now_ms
from tranca.store.models import TableMatch
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca.v1 import tables_pb2 as tpb
from tranca.v1 import tables_pb2_grpc as tpb_grpc

from ..server.api_calls import app_view, refused
from ..server.conftest import Client
from .test_timers_robots import forget_deadlines
from .tournament_helpers import Organiser

Code = grpc.StatusCode

# 003, "Opciones de mesa", word for word.
BETWEEN_MATCHES = (
    "Las opciones de mesa se pueden cambiar antes de empezar la partida o entre partida y partida."
)


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[Running]:
    """A server without a sweeper of its own: the tests sweep when they mean to."""
    async with running_server(server_config(db_url, sweep_interval=0)) as running:
        await forget_deadlines(running)
        yield running


def tables(client: Client) -> tpb_grpc.TableServiceAsyncStub:
    return tpb_grpc.TableServiceStub(client.channel)


async def rematch(client: Client, game_id: str, token: str) -> tpb.RematchResponse:
    return await tables(client).Rematch(
        tpb.RematchRequest(game_id=game_id), metadata=Client.player(token)
    )


async def lobby(client: Client) -> list[str]:
    """The tables ListOpenTables shows the app (every page)."""
    found: list[str] = []
    token = ""
    while True:
        page = await client.stub.ListOpenTables(
            pb.ListOpenTablesRequest(page_size=200, page_token=token), metadata=client.app()
        )
        found += [t.game_id for t in page.tables]
        token = page.next_page_token
        if not token:
            return found


async def finished_table(
    client: Client, players: int = 2, *, private: bool = False, spectators: bool = False
) -> tuple[str, list[str], list[str], str]:
    """A table of ``players`` named players whose match is over (seat 0 resigned): its
    game id, the seats' tokens, the players' ids and a private table's invite code."""
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=players,
            table=pb.TableOptions(express=True, private=private),
            spectators_allowed=spectators,
            label="club night",
        ),
        metadata=client.app(),
    )
    gid, invite = created.game.game_id, created.invite_code
    ids = [f"p-{uuid.uuid4().hex[:10]}" for _ in range(players)]
    tokens = []
    for seat, player_id in enumerate(ids):
        joined = await client.stub.JoinGame(
            pb.JoinGameRequest(
                game_id=gid,
                seat=seat,
                player_name=f"name {seat}",
                player_id=player_id,
                invite_code=invite,
            ),
            metadata=client.app(),
        )
        tokens.append(joined.player_token)
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=gid, request_id="resign"), metadata=Client.player(tokens[0])
    )
    assert (await app_view(client, gid)).status == pb.GAME_STATUS_FINISHED
    return gid, tokens, ids, invite


async def test_a_rematch_keeps_the_table_its_seats_and_its_players(
    server: Running, client: Client
) -> None:
    # 003: "Las opciones de mesa se pueden cambiar antes de empezar la partida o entre
    # partida y partida": between two matches the table stays, with its seats.
    assert "entre partida y partida" in BETWEEN_MATCHES
    gid, tokens, ids, _ = await finished_table(client, spectators=True)
    before = now_ms()
    first = await rematch(client, gid, tokens[1])
    assert first.created and first.seat == 1 and first.player_token
    assert first.game_id != gid
    nxt = first.view
    assert nxt.status == pb.GAME_STATUS_WAITING and nxt.seat == 1
    assert nxt.table_id == gid and nxt.match_number == 2
    # The seat of the player who has not confirmed yet is held for them.
    assert list(nxt.rematch_seats) == [0]
    assert before + 59_000 <= nxt.rematch_hold_until_ms <= now_ms() + 60_000
    assert [s.player_id for s in nxt.seats] == ["", ids[1]]
    assert nxt.table.express and nxt.players == 2
    # The finished match shows who confirmed and where the table goes on.
    old = await app_view(client, gid)
    assert old.next_game_id == first.game_id and list(old.rematch_seats) == [1]
    assert old.rematch_hold_until_ms == nxt.rematch_hold_until_ms
    assert old.table_id == gid and old.match_number == 1

    second = await rematch(client, gid, tokens[0])
    assert not second.created and second.game_id == first.game_id and second.seat == 0
    assert second.view.seat == 0 and list(second.view.rematch_seats) == []
    assert [s.player_id for s in second.view.seats] == ids
    assert sorted((await app_view(client, gid)).rematch_seats) == [0, 1]
    # The next match starts as any table does, with a new token per seat (a token is a
    # game's: the finished match's does not act in the next one).
    started = await client.stub.StartGame(
        pb.StartGameRequest(game_id=first.game_id), metadata=Client.player(second.player_token)
    )
    assert started.view.status == pb.GAME_STATUS_PLAYING
    await refused(
        client.stub.ListLegalMoves(
            pb.ListLegalMovesRequest(game_id=first.game_id), metadata=Client.player(tokens[1])
        ),
        Code.NOT_FOUND,
        "GAME_NOT_FOUND",
    )
    # A fresh deal: never the last match's seed again; the label and owner stay.
    old_game = await server.store.game(gid)
    new_game = await server.store.game(first.game_id)
    assert new_game.state.setup.seed != old_game.state.setup.seed
    assert new_game.label == "club night"

    # The table's history: both matches, in order, the first with its result.
    history = await tables(client).ListTableMatches(
        tpb.ListTableMatchesRequest(game_id=first.game_id), metadata=client.app()
    )
    assert history.table_id == gid
    assert [m.game.game_id for m in history.matches] == [gid, first.game_id]
    assert [m.game.match_number for m in history.matches] == [1, 2]
    assert history.matches[0].result.reason == "resignation"
    assert history.matches[0].result.winner_side == 1
    assert not history.matches[1].HasField("result")
    # A seat of the new match reads it too, and pages hold what they are asked.
    page = await tables(client).ListTableMatches(
        tpb.ListTableMatchesRequest(game_id=gid, page_size=1),
        metadata=Client.player(second.player_token),
    )
    assert [m.game.game_id for m in page.matches] == [gid] and page.next_page_token
    rest = await tables(client).ListTableMatches(
        tpb.ListTableMatchesRequest(game_id=gid, page_size=1, page_token=page.next_page_token),
        metadata=Client.player(second.player_token),
    )
    assert [m.game.game_id for m in rest.matches] == [first.game_id]
    assert not rest.next_page_token


async def test_a_third_match_follows_the_second_at_the_same_table(client: Client) -> None:
    gid, tokens, _, _ = await finished_table(client)
    a = await rematch(client, gid, tokens[0])
    b = await rematch(client, gid, tokens[1])
    await client.stub.StartGame(pb.StartGameRequest(game_id=a.game_id), metadata=client.app())
    await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=a.game_id, request_id="resign"),
        metadata=Client.player(b.player_token),
    )
    c = await rematch(client, a.game_id, a.player_token)
    assert c.created and c.view.table_id == gid and c.view.match_number == 3
    history = await tables(client).ListTableMatches(
        tpb.ListTableMatchesRequest(game_id=gid), metadata=client.app()
    )
    assert [m.game.match_number for m in history.matches] == [1, 2, 3]
    assert [m.game.game_id for m in history.matches] == [gid, a.game_id, c.game_id]


async def test_refusals_change_nothing(server: Running, client: Client) -> None:
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"), players=2, spectators_allowed=True
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    tokens = [
        (
            await client.stub.JoinGame(
                pb.JoinGameRequest(game_id=gid, seat=seat), metadata=client.app()
            )
        ).player_token
        for seat in range(2)
    ]
    # A match still waiting, then under way: no rematch.
    await refused(rematch(client, gid, tokens[0]), Code.FAILED_PRECONDITION, "MATCH_NOT_OVER")
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    await refused(rematch(client, gid, tokens[0]), Code.FAILED_PRECONDITION, "MATCH_NOT_OVER")
    await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=gid, request_id="r"), metadata=Client.player(tokens[0])
    )
    version = (await app_view(client, gid)).version
    # A spectator does not confirm; nor does the app's key.
    watcher = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, spectator=True), metadata=client.app()
    )
    await refused(rematch(client, gid, watcher.player_token), Code.PERMISSION_DENIED, "SPECTATOR")
    await refused(
        tables(client).Rematch(tpb.RematchRequest(game_id=gid), metadata=client.app()),
        Code.PERMISSION_DENIED,
    )
    assert (await app_view(client, gid)).version == version
    # Twice: the second confirmation is refused, and changes nothing.
    done = await rematch(client, gid, tokens[1])
    version = (await app_view(client, gid)).version
    await refused(rematch(client, gid, tokens[1]), Code.FAILED_PRECONDITION, "REMATCH_CONFIRMED")
    assert (await app_view(client, gid)).version == version
    nxt = await server.store.game(done.game_id)
    assert [s.taken for s in nxt.state.seats] == [False, True]


async def test_a_tournament_table_has_no_rematch(server: Running, client: Client) -> None:
    org = Organiser(client, server)
    created = await org.create(ppb.TOURNAMENT_FORMAT_SWISS, 2, table_size=2)
    started = await org.start(created.tournament_id, 1)
    table = started.tables[0]
    tokens = [s.player_token for s in table.seats]
    await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=table.game_id, request_id="r"),
        metadata=Client.player(tokens[0]),
    )
    await refused(
        rematch(client, table.game_id, tokens[1]), Code.FAILED_PRECONDITION, "TOURNAMENT_TABLE"
    )
    assert not (await app_view(client, table.game_id)).next_game_id


async def test_held_seats_wait_for_their_players_then_the_sweeper_frees_them(
    server: Running, client: Client
) -> None:
    gid, tokens, ids, _ = await finished_table(client, players=4)
    done = await rematch(client, gid, tokens[2])
    nxt = done.game_id
    assert sorted(done.view.rematch_seats) == [0, 1, 3]
    # While held, no one else takes those seats, and the lobby does not list the table.
    stranger = "stranger-" + uuid.uuid4().hex[:8]
    await refused(
        client.stub.JoinGame(
            pb.JoinGameRequest(game_id=nxt, seat=0, player_id=stranger), metadata=client.app()
        ),
        Code.FAILED_PRECONDITION,
        "SEAT_HELD",
    )
    await refused(
        client.stub.JoinGame(
            pb.JoinGameRequest(game_id=nxt, seat=-1, player_id=stranger), metadata=client.app()
        ),
        Code.FAILED_PRECONDITION,
        "GAME_FULL",
    )
    listed = await client.stub.ListGames(
        pb.ListGamesRequest(open_only=True, page_size=500), metadata=client.app()
    )
    assert nxt not in [g.game_id for g in listed.games]
    assert nxt not in await lobby(client)
    # Not yet due: the sweeper leaves the hold alone.
    assert await server.new_sweeper().sweep_timers() == 0
    # Seat 3's player confirms in time.
    back = await rematch(client, gid, tokens[3])
    assert back.seat == 3 and sorted(back.view.rematch_seats) == [0, 1]
    # The hold's time runs out (60 s, the default): the seats are anyone's.
    late = server.new_sweeper(clock=lambda: now_ms() + 61_000)
    assert await late.sweep_timers() == 1
    view = await app_view(client, nxt)
    assert list(view.rematch_seats) == [] and view.rematch_hold_until_ms == 0
    listed = await client.stub.ListGames(
        pb.ListGamesRequest(open_only=True, page_size=500), metadata=client.app()
    )
    assert nxt in [g.game_id for g in listed.games]
    assert nxt in await lobby(client)
    taken = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=nxt, seat=-1, player_id=stranger, player_name="new"),
        metadata=client.app(),
    )
    assert taken.seat == 0
    # A late confirmation still finds its seat if it is free, or is refused if taken.
    late_one = await rematch(client, gid, tokens[1])
    assert late_one.seat == 1
    await refused(rematch(client, gid, tokens[0]), Code.ALREADY_EXISTS, "SEAT_TAKEN")
    view = await app_view(client, nxt)
    assert [s.player_id for s in view.seats] == [stranger, ids[1], ids[2], ids[3]]
    # Every seat taken: the match starts as any table does.
    started = await client.stub.StartGame(pb.StartGameRequest(game_id=nxt), metadata=client.app())
    assert started.view.status == pb.GAME_STATUS_PLAYING
    # Nothing more is due for the sweeper at the new match.
    assert await server.new_sweeper(clock=lambda: now_ms() + 120_000).sweep_timers() == 0


async def test_a_private_table_stays_private_with_its_code(client: Client) -> None:
    gid, tokens, _, invite = await finished_table(client, private=True)
    done = await rematch(client, gid, tokens[0])
    stranger = "stranger-" + uuid.uuid4().hex[:8]
    await refused(
        client.stub.JoinGame(
            pb.JoinGameRequest(game_id=done.game_id, seat=-1, player_id=stranger),
            metadata=client.app(),
        ),
        Code.PERMISSION_DENIED,
        "INVITE_REQUIRED",
    )
    assert done.view.table.private
    assert invite


@pytest.fixture
async def two_replicas(db_url: str) -> AsyncIterator[list[Running]]:
    """Two servers on one database (a SQLite file or a PostgreSQL database)."""
    async with running_servers(2, server_config(db_url, sweep_interval=0)) as servers:
        yield servers


async def test_a_rematch_confirmed_on_two_replicas_at_once_makes_one_next_match(
    two_replicas: list[Running],
) -> None:
    first, second = two_replicas
    async with (
        app_client(first) as a,
        grpc.aio.insecure_channel(f"127.0.0.1:{second.port}") as channel,
    ):
        b = Client(channel, a.api_key)
        for _ in range(3):
            gid, tokens, ids, _ = await finished_table(a, players=4)
            # Every seat confirms at once, through both replicas, each seat twice.
            calls = [
                rematch(a if (seat + k) % 2 == 0 else b, gid, tokens[seat])
                for seat in range(4)
                for k in range(2)
            ]
            answers = await asyncio.gather(*calls, return_exceptions=True)
            done = [x for x in answers if isinstance(x, tpb.RematchResponse)]
            errors = [x for x in answers if not isinstance(x, tpb.RematchResponse)]
            # One answer a seat, the other confirmation of each refused as a repeat.
            assert sorted(d.seat for d in done) == [0, 1, 2, 3], errors
            assert all(
                isinstance(e, grpc.aio.AioRpcError) and e.code() == Code.FAILED_PRECONDITION
                for e in errors
            ), errors
            # Exactly one next match, created once, every confirmation in it.
            assert len({d.game_id for d in done}) == 1
            assert sum(d.created for d in done) == 1
            nxt = done[0].game_id
            view = await app_view(a, nxt)
            assert [s.player_id for s in view.seats] == ids
            assert list(view.rematch_seats) == []
            old = await app_view(b, gid)
            assert old.next_game_id == nxt and sorted(old.rematch_seats) == [0, 1, 2, 3]
            async with first.store.reading() as conn:
                rows = (
                    await conn.execute(select(func.count()).where(TableMatch.table_id == gid))
                ).scalar_one()
            assert rows == 1
            # Each seat has one working token in the next match: its answer's.
            for d in done:
                got = await b.stub.GetView(
                    pb.GetViewRequest(game_id=nxt), metadata=Client.player(d.player_token)
                )
                assert got.view.seat == d.seat


async def test_a_tables_history_is_its_apps_and_its_players(
    server: Running, client: Client
) -> None:
    gid, tokens, _, _ = await finished_table(client)
    other, other_tokens, _, _ = await finished_table(client)
    # A token of another table's match does not read this one's history.
    await refused(
        tables(client).ListTableMatches(
            tpb.ListTableMatchesRequest(game_id=gid), metadata=Client.player(other_tokens[0])
        ),
        Code.NOT_FOUND,
        "GAME_NOT_FOUND",
    )
    # Nor does another app.
    async with app_client(server) as stranger:
        await refused(
            tables(stranger).ListTableMatches(
                tpb.ListTableMatchesRequest(game_id=gid), metadata=stranger.app()
            ),
            Code.NOT_FOUND,
            "GAME_NOT_FOUND",
        )
    # A table of one match lists that match; a bad page size is refused.
    alone = await tables(client).ListTableMatches(
        tpb.ListTableMatchesRequest(game_id=other), metadata=Client.player(other_tokens[1])
    )
    assert [m.game.game_id for m in alone.matches] == [other] and not alone.next_page_token
    await refused(
        tables(client).ListTableMatches(
            tpb.ListTableMatchesRequest(game_id=gid, page_size=500),
            metadata=Client.player(tokens[0]),
        ),
        Code.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )


async def test_robots_seated_from_the_start_sit_again_at_once(
    server: Running, client: Client
) -> None:
    # A practice table against the computer: the player's rematch is the next match at
    # once, the robot in its seat again, nothing held, nothing left for the sweeper.
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=2,
            table=pb.TableOptions(robot_grace_seconds=30),
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    me = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=0, player_name="ana", player_id="ana-robots"),
        metadata=client.app(),
    )
    await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=1, robot=True), metadata=client.app()
    )
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=gid, request_id="r"), metadata=Client.player(me.player_token)
    )
    done = await rematch(client, gid, me.player_token)
    view = done.view
    assert [s.taken for s in view.seats] == [True, True] and view.seats[1].robot
    assert list(view.rematch_seats) == [] and view.rematch_hold_until_ms == 0
    assert (await server.store.game(done.game_id)).deadline_at is None
    replay = await client.stub.GetReplay(
        pb.GetReplayRequest(game_id=done.game_id), metadata=client.app()
    )
    assert [(m.move.text, m.seat, m.actor) for m in replay.moves] == [
        ("join", 0, "player"),
        ("join", 1, "robot"),
    ]
    started = await client.stub.StartGame(
        pb.StartGameRequest(game_id=done.game_id), metadata=Client.player(done.player_token)
    )
    assert started.view.status == pb.GAME_STATUS_PLAYING


async def test_a_sessions_seat_token_follows_its_session_and_the_apps_hold(
    server: Running, client: Client
) -> None:
    sessions: spb_grpc.SessionServiceAsyncStub = spb_grpc.SessionServiceStub(client.channel)
    # The app holds the seats 15 s (its policy, read back as set).
    policy = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.rematch_hold_seconds = 15
    await sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())
    read = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    assert read.rematch_hold_seconds == 15
    policy.rematch_hold_seconds = 5
    await refused(
        sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app()),
        Code.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
    )
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2), metadata=client.app()
    )
    gid = created.game.game_id
    tokens: list[str] = []
    access: list[str] = []
    for seat in range(2):
        opened = await sessions.CreatePlayerSession(
            spb.CreatePlayerSessionRequest(player_id=f"s-{uuid.uuid4().hex[:8]}"),
            metadata=client.app(),
        )
        access.append(opened.session.access_token)
        joined = await client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=seat), metadata=Client.player(access[-1])
        )
        tokens.append(joined.player_token)
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=gid, request_id="r"), metadata=Client.player(tokens[1])
    )
    before = now_ms()
    done = await rematch(client, gid, tokens[0])
    assert before + 14_000 <= done.view.rematch_hold_until_ms <= now_ms() + 15_000
    # Signing out revokes the next match's token with the session's others.
    await sessions.SignOut(spb.SignOutRequest(), metadata=Client.player(access[0]))
    await refused(
        client.stub.GetView(
            pb.GetViewRequest(game_id=done.game_id), metadata=Client.player(done.player_token)
        ),
        Code.UNAUTHENTICATED,
        "BAD_TOKEN",
    )


async def test_a_table_its_head_made_private_shows_its_history_to_its_players_only(
    client: Client,
) -> None:
    # 003 "Mesa privada": "sólo podrán sentarse jugadores que hayas invitado o amigos".
    # A table created public that its head made private before the start has no
    # invite code; its matches are still its players' to read, on every page.
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"), players=2, table=pb.TableOptions(express=True)
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    ids = [f"p-{uuid.uuid4().hex[:10]}" for _ in range(3)]
    tokens = []
    for seat in range(2):
        joined = await client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=seat, player_name=f"n{seat}", player_id=ids[seat]),
            metadata=client.app(),
        )
        tokens.append(joined.player_token)
    made = await client.stub.UpdateTableOptions(
        pb.UpdateTableOptionsRequest(
            game_id=gid, table=pb.TableOptions(express=True, private=True), request_id="p"
        ),
        metadata=Client.player(tokens[0]),
    )
    assert made.view.table.private
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    await client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=gid, request_id="resign"), metadata=Client.player(tokens[0])
    )
    sessions: spb_grpc.SessionServiceAsyncStub = spb_grpc.SessionServiceStub(client.channel)

    async def session(player_id: str) -> tuple[tuple[str, str], ...]:
        opened = await sessions.CreatePlayerSession(
            spb.CreatePlayerSessionRequest(player_id=player_id, display_name=player_id),
            metadata=client.app(),
        )
        return (("authorization", f"Bearer {opened.session.access_token}"),)

    request = tpb.ListTableMatchesRequest(game_id=gid, page_size=1)
    mine = await tables(client).ListTableMatches(request, metadata=await session(ids[1]))
    assert [m.game.game_id for m in mine.matches] == [gid]
    with pytest.raises(grpc.aio.AioRpcError) as stranger:
        await tables(client).ListTableMatches(request, metadata=await session(ids[2]))
    assert stranger.value.code() == grpc.StatusCode.NOT_FOUND
