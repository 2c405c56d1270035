"""Turn timers with fallback play, robots for silent players, presence (issue 7,
items 2 and 3), through the gRPC API on SQLite and PostgreSQL.

003 ("Tiempo por turno"): "Si el tiempo concluye, el juego realizará la jugada por
él". 003 ("Robot"): "cuando un jugador pierde la conexión durante la partida, un
robot lo sustituye hasta que vuelve a entrar".

The servers here run no sweeper of their own (``sweep_interval=0``): each test
sweeps when it wants (``Sweeper.sweep_timers``), except the two-replica test, where both
servers sweep on their own as in production.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import TypedDict, Unpack

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import text

from tests.harness.servers import bare_config, running_server, running_servers, server_config
from tests.server.api_calls import DRAW, app_view, discard, refused, seat_view, submit
from tests.server.conftest import Client
from tranca import metrics
from tranca.server import Running
from tranca.services.moves import now_ms
from tranca.services.timers import fallback_move, robot_move
from tranca.table.game import (
    BY_ROBOT,
    Action,
    GameError,
    GameState,
    Setup,
    TableOptions,
    apply_action,
    new_game,
    rebuild,
)
from tranca.v1 import game_pb2 as pb
from tranca_rules.engine import apply, new_deal
from tranca_rules.invariants import check_invariants
from tranca_rules.presets import PRESETS, make_rules


class TableFields(TypedDict, total=False):
    """A table's options, as both pb.TableOptions and the game's TableOptions take them."""

    turn_seconds: int
    robot_grace_seconds: int
    private: bool
    competitive: bool
    stake: int
    express: bool
    point_limit: int
    verifiable: bool
    annulment_allowed: bool


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[Running]:
    """A server without a sweeper of its own (``client`` uses this one)."""
    async with running_server(server_config(db_url, sweep_interval=0)) as running:
        await forget_deadlines(running)
        yield running


async def forget_deadlines(running: Running) -> None:
    """The database is shared by the session's tests: earlier tests' games must not
    be swept by this test's sweeps (they would count in ``sweep_timers``)."""
    async with running.store.engine.begin() as conn:
        await conn.execute(text("UPDATE games SET deadline_at = NULL"))


async def table(
    client: Client,
    players: int = 2,
    seed: int = 7,
    preset: str = "tranca-000",
    **options: Unpack[TableFields],
) -> tuple[str, list[str]]:
    """A started game at a table with ``options`` (pb.TableOptions fields)."""
    return await client.new_game(
        preset=preset,
        players=players,
        seed=seed,
        table=pb.TableOptions(**options),
    )


async def replay(client: Client, gid: str) -> list[pb.LoggedMove]:
    done = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    return list(done.moves)


async def heartbeat(client: Client, gid: str, token: str) -> bool:
    done = await client.stub.Heartbeat(
        pb.HeartbeatRequest(game_id=gid), metadata=client.player(token)
    )
    return bool(done.robot_seated)


async def play_turn(client: Client, gid: str, token: str) -> pb.GameView:
    """The seat of ``token`` draws and discards the first card of its hand."""
    view = await seat_view(client, gid, token)
    drew = await submit(client, gid, token, DRAW, view.version)
    done = await submit(client, gid, token, discard(drew.view.hand[0]), drew.version)
    return done.view


def kind(m: pb.LoggedMove) -> str:
    return m.move.WhichOneof("kind") or m.move.text


# ----- turn timers ---------------------------------------------------------------


async def test_a_turn_timer_that_fires_plays_a_fallback_turn(
    client: Client, server: Running
) -> None:
    """003: "Si el tiempo concluye, el juego realizará la jugada por él": a draw and a
    discard, logged with actor "timeout"; the turn's deadline is in every view."""
    before = now_ms()
    gid, tokens = await table(client, turn_seconds=1)
    view = await app_view(client, gid)
    seat = view.turn
    assert before + 1000 <= view.turn_deadline_ms <= now_ms() + 1000
    # The server's clock beside it: a device counts down from it, whatever its own.
    assert before <= view.server_time_ms <= now_ms()
    assert 0 < view.turn_deadline_ms - view.server_time_ms <= 1000
    sweeper = server.new_sweeper()
    assert await sweeper.sweep_timers() == 0  # not yet due
    await asyncio.sleep(1.1)
    assert await sweeper.sweep_timers() == 1
    moves = await replay(client, gid)
    played = [m for m in moves if m.actor != "player"]
    assert [(m.seat, kind(m), m.actor) for m in played] == [
        (seat, "draw", "timeout"),
        (seat, "discard", "timeout"),
    ]
    # A seat's own replay, which a page rebuilds its move log from after a reload,
    # holds the same moves, the timer's named as such.
    own = await client.stub.GetReplay(
        pb.GetReplayRequest(game_id=gid), metadata=client.player(tokens[1 - seat])
    )
    assert list(own.moves) == moves
    after = await seat_view(client, gid, tokens[1 - seat])
    assert after.turn == 1 - seat
    assert after.turn_deadline_ms >= now_ms() + 500  # the next turn's clock runs
    # The late player's own move is refused: the fallback took that version.
    await refused(
        submit(client, gid, tokens[seat], DRAW, view.version),
        grpc.StatusCode.ABORTED,
        "VERSION_CONFLICT",
    )
    # A player who moves in time keeps the turn's moves to themselves.
    await play_turn(client, gid, tokens[1 - seat])
    assert await sweeper.sweep_timers() == 0
    assert [m.actor for m in (await replay(client, gid))[len(moves) :]] == ["player"] * 2


async def test_a_player_who_moves_after_the_claim_wins(client: Client, server: Running) -> None:
    """A sweep claims the overdue game, then the player's own move lands first: the
    fallback is dropped (its write is refused at the claimed version), nothing twice."""
    gid, tokens = await table(client, turn_seconds=1)
    seat = (await app_view(client, gid)).turn
    await asyncio.sleep(1.1)
    claims = await server.store.claim_due(now_ms(), 30_000, 10)
    assert [c.game_id for c in claims] == [gid]
    await play_turn(client, gid, tokens[seat])
    sweeper = server.new_sweeper()
    assert not await sweeper._act(claims[0])
    moves = await replay(client, gid)
    assert all(m.actor == "player" for m in moves)
    # The move started the next turn, and its clock: the lease is gone.
    assert now_ms() + 500 <= (await app_view(client, gid)).turn_deadline_ms <= now_ms() + 1000


async def test_tables_without_timers_are_never_claimed(client: Client, server: Running) -> None:
    gid, tokens = await client.new_game()
    await play_turn(client, gid, tokens[(await app_view(client, gid)).turn])
    assert (await app_view(client, gid)).turn_deadline_ms == 0
    assert await server.store.claim_due(now_ms() + 10**9, 1000, 100) == []


async def test_a_timer_fires_once_with_two_replicas_sweeping(pg_url: str) -> None:
    """Two servers on one PostgreSQL database, both sweeping every 20 ms, a player
    watching through one and the game created through the other: every deadline
    gets exactly one fallback turn (no turn twice, none early), decided by one
    replica (the two share this process's metrics: one timeout counted per turn, no
    server move dropped for a lost race)."""
    timeouts_before = metrics.TURN_TIMEOUTS._value.get()
    dropped_before = metrics.FALLBACKS_DROPPED._value.get()
    async with running_servers(2, server_config(pg_url, sweep_interval=0.02)) as servers:
        await forget_deadlines(servers[0])
        _, key = await servers[0].store.create_app(f"t-{uuid.uuid4().hex[:6]}")
        async with (
            grpc.aio.insecure_channel(f"127.0.0.1:{servers[0].port}") as ch0,
            grpc.aio.insecure_channel(f"127.0.0.1:{servers[1].port}") as ch1,
        ):
            creator, watcher = Client(ch0, key), Client(ch1, key)
            gid, tokens = await table(creator, turn_seconds=1)
            watch = watcher.stub.WatchGame(
                pb.WatchGameRequest(game_id=gid), metadata=watcher.player(tokens[0])
            )
            seen: list[pb.LoggedMove] = []

            async def follow() -> None:
                async for update in watch:
                    if update.HasField("move"):
                        seen.append(update.move)

            following = asyncio.create_task(follow())
            await asyncio.sleep(3.6)  # three turns' time runs out
            watch.cancel()
            await asyncio.gather(following, return_exceptions=True)
        rows = await servers[0].store.log(gid)
    timed = [r for r in rows if r.actor == "timeout"]
    # Each turn: exactly a draw then a discard, seats alternating, three turns.
    assert [str(r.action.move).split()[0] for r in timed] == ["draw", "discard"] * 3
    assert [r.seat for r in timed[::2]] == [timed[0].seat, 1 - timed[0].seat, timed[0].seat]
    versions = [r.version for r in rows]
    assert versions == list(range(1, len(rows) + 1))  # no version twice, no gap
    # No turn before its time: each timed-out turn starts a second after the last.
    by_version = {r.version: r for r in rows}
    for r in timed[::2]:
        assert r.created_at - by_version[r.version - 1].created_at >= 0.95
    assert metrics.TURN_TIMEOUTS._value.get() - timeouts_before == 3
    assert metrics.FALLBACKS_DROPPED._value.get() == dropped_before
    # The watcher on the other replica saw the same moves.
    assert [m.version for m in seen if m.actor == "timeout"] == [r.version for r in timed]


async def test_two_replicas_never_claim_the_same_game(pg_url: str) -> None:
    """The claim itself (FOR UPDATE SKIP LOCKED): concurrent claims from two stores
    split the overdue games between them."""
    async with running_servers(2, bare_config(pg_url, sweep_interval=0)) as servers:
        await forget_deadlines(servers[0])
        _, key = await servers[0].store.create_app(f"t-{uuid.uuid4().hex[:6]}")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{servers[0].port}") as ch:
            c = Client(ch, key)
            games = {(await table(c, seed=i, turn_seconds=1))[0] for i in range(12)}
        later = now_ms() + 5000  # every one of them overdue
        claimed = await asyncio.gather(
            *(s.store.claim_due(later, 30_000, 4) for s in servers for _ in range(3))
        )
    ids = [c.game_id for batch in claimed for c in batch]
    mine = [i for i in ids if i in games]
    assert len(mine) == len(set(mine)) == 12


# ----- robots --------------------------------------------------------------------


async def test_robot_takeover_and_the_players_return(client: Client, server: Running) -> None:
    """003 ("Robot"): a silent player's seat is played by a robot until they return.
    Their own moves are refused meanwhile (ROBOT_SEATED); ReclaimSeat gives it back."""
    gid, tokens = await table(client, robot_grace_seconds=1)
    silent = (await app_view(client, gid)).turn
    present = 1 - silent
    sweeper = server.new_sweeper()
    for _ in range(4):  # the present player keeps saying so; the silent one does not
        assert not await heartbeat(client, gid, tokens[present])
        await asyncio.sleep(0.3)
    assert await sweeper.sweep_timers() == 1
    moves = await replay(client, gid)
    server_played = [(m.seat, kind(m), m.actor) for m in moves if m.actor != "player"]
    assert server_played[0] == (silent, "robot", "robot")
    assert {(seat, actor) for seat, _, actor in server_played[1:]} == {(silent, "robot")}
    assert server_played[-1][1] == "discard"
    view = await seat_view(client, gid, tokens[silent])
    assert view.seats[silent].robot and view.turn == present
    assert await heartbeat(client, gid, tokens[silent])  # robot_seated
    await refused(
        submit(client, gid, tokens[silent], DRAW, view.version),
        grpc.StatusCode.FAILED_PRECONDITION,
        "ROBOT_SEATED",
    )
    # The present player plays; the robot answers at the next sweep, at once.
    await play_turn(client, gid, tokens[present])
    assert await sweeper.sweep_timers() == 1
    assert (await app_view(client, gid)).turn == present
    # The player comes back: the seat is theirs again, and so are its moves.
    rid = uuid.uuid4().hex
    back = await client.stub.ReclaimSeat(
        pb.ReclaimSeatRequest(game_id=gid, request_id=rid), metadata=client.player(tokens[silent])
    )
    assert not back.view.seats[silent].robot
    again = await client.stub.ReclaimSeat(
        pb.ReclaimSeatRequest(game_id=gid, request_id=rid), metadata=client.player(tokens[silent])
    )
    assert again.view.version == back.view.version  # the retry is answered, not re-applied
    await play_turn(client, gid, tokens[present])
    view = await play_turn(client, gid, tokens[silent])
    assert view.turn == present
    moves = await replay(client, gid)
    assert [(m.seat, m.actor) for m in moves[-2:]] == [(silent, "player")] * 2
    assert [kind(m) for m in moves if m.seat == silent and kind(m) == "return"] == ["return"]
    assert not await heartbeat(client, gid, tokens[silent])


async def test_a_player_who_heartbeats_or_watches_keeps_the_seat(
    client: Client, server: Running
) -> None:
    """Presence is a heartbeat or an open WatchGame stream: neither player is taken
    over, however long past the grace period."""
    gid, tokens = await table(client, robot_grace_seconds=1)
    to_act = (await app_view(client, gid)).turn
    watch = client.stub.WatchGame(
        pb.WatchGameRequest(game_id=gid), metadata=client.player(tokens[1 - to_act])
    )
    await watch.read()
    sweeper = server.new_sweeper()
    for _ in range(8):
        await heartbeat(client, gid, tokens[to_act])
        await asyncio.sleep(0.3)
        await sweeper.sweep_timers()
    await play_turn(client, gid, tokens[to_act])  # the watching player's turn now
    for _ in range(5):
        await asyncio.sleep(0.3)
        await sweeper.sweep_timers()
    watch.cancel()
    assert all(m.actor == "player" for m in await replay(client, gid))
    assert not any(s.robot for s in (await app_view(client, gid)).seats)


async def test_an_annulment_vote_with_a_robot_seated(client: Client, server: Running) -> None:
    """003: "El robot no se tiene en cuenta en las votaciones para finalizar una
    partida de forma amistosa": with a robot in seat 1 of 2, seat 0's vote annuls."""
    gid, tokens = await table(client, robot_grace_seconds=1, annulment_allowed=True)
    if (await app_view(client, gid)).turn == 0:
        await play_turn(client, gid, tokens[0])
    for _ in range(4):
        await heartbeat(client, gid, tokens[0])
        await asyncio.sleep(0.3)
    assert await server.new_sweeper().sweep_timers() == 1
    assert (await app_view(client, gid)).seats[1].robot
    voted = await client.stub.VoteAnnul(
        pb.VoteAnnulRequest(game_id=gid, request_id=uuid.uuid4().hex),
        metadata=client.player(tokens[0]),
    )
    assert voted.annulled
    view = await app_view(client, gid)
    assert view.status == pb.GAME_STATUS_FINISHED
    assert view.match_result.reason == "annulled"
    assert view.match_result.winner_side == -1
    assert view.turn_deadline_ms == 0
    assert await server.store.claim_due(now_ms() + 10**9, 1000, 100) == []  # nothing left


async def test_a_robot_taking_the_last_silent_seat_completes_an_annulment(
    client: Client, server: Running
) -> None:
    """003: "Todos los jugadores deben estar de acuerdo" and "El robot no se tiene en
    cuenta en las votaciones": seat 0 voted, seat 1 went silent; once a robot holds
    seat 1 every person at the table has agreed, and the match is annulled."""
    gid, tokens = await table(client, robot_grace_seconds=1, annulment_allowed=True)
    if (await app_view(client, gid)).turn == 0:
        await play_turn(client, gid, tokens[0])
    voted = await client.stub.VoteAnnul(
        pb.VoteAnnulRequest(game_id=gid, request_id=uuid.uuid4().hex),
        metadata=client.player(tokens[0]),
    )
    assert not voted.annulled  # seat 1's player has not agreed (yet)
    annulments = metrics.ANNULMENTS._value.get()
    for _ in range(4):
        await heartbeat(client, gid, tokens[0])
        await asyncio.sleep(0.3)
    assert await server.new_sweeper().sweep_timers() == 1
    view = await app_view(client, gid)
    assert view.seats[1].robot
    assert (view.status, view.match_result.reason) == (pb.GAME_STATUS_FINISHED, "annulled")
    assert metrics.ANNULMENTS._value.get() == annulments + 1
    # The takeover is logged; no robot move follows it: the match is over.
    server_made = [(m.seat, kind(m)) for m in await replay(client, gid) if m.actor != "player"]
    assert server_made == [(1, "robot")]


@pytest.mark.parametrize("options", [{"robot_grace_seconds": 1}, {"turn_seconds": 1}])
async def test_a_match_played_only_by_the_server_ends(
    client: Client, server: Running, options: TableFields
) -> None:
    """A whole match (to a point limit for robots, express for timeouts) where no
    player ever moves: it ends, every move is legal and marked, every card is
    accounted for after every move, and the log rebuilds the stored game. The
    sweeper's clock runs an hour ahead, so every clock has run out at each sweep."""
    limit: TableFields = (
        {"point_limit": 500} if "robot_grace_seconds" in options else {"express": True}
    )
    # tranca-003 plays to 2000 by itself: the table's option is what shortens the match.
    fields: TableFields = {**options, **limit}
    gid, _ = await table(client, seed=11, preset="tranca-003", **fields)
    sweeper = server.new_sweeper(clock=lambda: now_ms() + 3_600_000)
    started = time.monotonic()
    while (await app_view(client, gid)).status != pb.GAME_STATUS_FINISHED:
        assert time.monotonic() - started < 60, "the match did not end"
        await sweeper.sweep_timers()
    rows = await server.store.log(gid)
    record = await server.store.game(gid)
    setup = record.state.setup
    assert rebuild(setup, [r.action for r in rows]).to_dict() == record.state.to_dict()
    actor = "robot" if "robot_grace_seconds" in options else "timeout"
    assert {r.actor for r in rows if r.action.kind == "move"} == {actor}
    state = rebuild(setup, [])
    for r in rows:
        apply_action(state, r.action, r.version)
        if state.deal is not None and not state.deal.is_over:
            assert check_invariants(state.deal) == [], r
    if "point_limit" in limit:  # played to 500 points: deals until a side reaches it
        assert record.state.result_reason in ("target_reached", "tie_break")
        assert record.state.deal_number > 1
    else:
        assert record.state.result_reason == "single_deal"
    assert record.deadline_at is None


# ----- robots' seats (JoinGame with robot) -----------------------------------------


async def join_robot(client: Client, gid: str, seat: int, name: str = "") -> pb.JoinGameResponse:
    request = pb.JoinGameRequest(game_id=gid, seat=seat, player_name=name, robot=True)
    return await client.stub.JoinGame(request, metadata=client.app())


async def person_turn(client: Client, gid: str, token: str) -> None:
    """The seat of ``token`` plays its turn from the legal moves: a draw, then a
    discard (other moves only when neither is open)."""
    md = client.player(token)
    while True:
        view = await seat_view(client, gid, token)
        if view.status != pb.GAME_STATUS_PLAYING or view.turn != view.seat:
            return
        legal = await client.stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md)
        kinds = [m.WhichOneof("kind") for m in legal.moves]
        pick = next((k for k in ("draw", "discard") if k in kinds), kinds[0])
        await submit(client, gid, token, legal.moves[kinds.index(pick)], legal.version)


async def test_robot_seats_play_the_match_to_its_end_without_any_client(
    client: Client, server: Running
) -> None:
    """``tranca play --new --bots greedy``'s table: one person and three of the
    server's robots (JoinGame with robot). The person plays two turns and goes away
    for good; the robots play their seats from the start, a robot takes the person's
    seat after the grace period, and the match ends with no client at all, every move
    of a robot logged with actor "robot"."""
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=4,
            seed=3,
            table=pb.TableOptions(robot_grace_seconds=2, express=True),
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    person = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=0, player_name="ana"), metadata=client.app()
    )
    token = person.player_token
    robots = [await join_robot(client, gid, 1), await join_robot(client, gid, -1, "bia")]
    listed = await client.stub.ListGames(
        pb.ListGamesRequest(open_only=True, page_size=500), metadata=client.app()
    )
    assert gid in {g.game_id for g in listed.games}  # seat 3 is still free
    robots.append(await join_robot(client, gid, 3))
    # A robot's seat has no token, and no expiry.
    assert [(r.seat, r.player_token, r.token_expires_at_ms) for r in robots] == [
        (1, "", 0),
        (2, "", 0),
        (3, "", 0),
    ]
    listed = await client.stub.ListGames(
        pb.ListGamesRequest(open_only=True, page_size=500), metadata=client.app()
    )
    assert gid not in {g.game_id for g in listed.games}  # full: robots hold their seats
    view = await app_view(client, gid)
    assert [(s.player_name, s.taken, s.robot) for s in view.seats] == [
        ("ana", True, False),
        ("robot 1", True, True),
        ("bia", True, True),
        ("robot 3", True, True),
    ]
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    sweeping = asyncio.create_task(server.new_sweeper().run(0.02))
    try:
        # The person plays two turns (the robots play theirs in between), then stops.
        turns = 0
        started = time.monotonic()
        while turns < 2:
            assert time.monotonic() - started < 30, "the robots did not play"
            view = await seat_view(client, gid, token)
            assert view.status == pb.GAME_STATUS_PLAYING
            if view.turn == 0:
                await person_turn(client, gid, token)
                turns += 1
            else:
                await asyncio.sleep(0.05)
        # Nobody calls anything for the game from here: the server plays it to the end.
        while (await app_view(client, gid)).status != pb.GAME_STATUS_FINISHED:
            assert time.monotonic() - started < 120, "the match did not end"
            await asyncio.sleep(0.2)
    finally:
        sweeping.cancel()
        await asyncio.gather(sweeping, return_exceptions=True)
    rows = await server.store.log(gid)
    record = await server.store.game(gid)
    assert record.state.result_reason == "single_deal"
    assert record.deadline_at is None
    assert rebuild(record.state.setup, [r.action for r in rows]).to_dict() == (
        record.state.to_dict()
    )
    assert [(r.seat, r.actor) for r in rows if r.action.kind == "join"] == [
        (0, "player"),
        (1, "robot"),
        (2, "robot"),
        (3, "robot"),
    ]
    # The robots' seats: every move a robot's, no takeover needed.
    assert {r.actor for r in rows if r.action.kind == "move" and r.seat != 0} == {"robot"}
    assert [r.seat for r in rows if r.action.kind == "robot"] == [0]
    # The person's seat: their own moves, then the takeover, then the robot's moves.
    mine = [(r.action.kind, r.actor) for r in rows if r.seat == 0 and r.action.kind != "join"]
    takeover = mine.index(("robot", "robot"))
    assert takeover >= 4 and set(mine[:takeover]) == {("move", "player")}
    assert set(mine[takeover + 1 :]) == {("move", "robot")}
    # The replay tells the robots' seats apart too.
    logged = await replay(client, gid)
    assert [(m.seat, m.actor) for m in logged if kind(m) == "join"] == [
        (0, "player"),
        (1, "robot"),
        (2, "robot"),
        (3, "robot"),
    ]


async def deadline_of(server: Running, gid: str) -> int:
    deadline = (await server.store.game(gid)).deadline_at
    assert deadline is not None
    return deadline


async def test_a_robots_seat_is_due_at_once_on_each_of_its_turns(
    client: Client, server: Running
) -> None:
    """The deadlines of a table with a robot's seat (``repository.next_deadline``): the
    start, when the robot is to act first, and every turn passing to it are due at
    once; the person's turn has the grace period."""
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=2,
            seed=4,  # seat 1 plays first
            table=pb.TableOptions(robot_grace_seconds=30),
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    person = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=0, player_name="ana"), metadata=client.app()
    )
    await join_robot(client, gid, 1)
    start = await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    assert start.view.turn == 1
    assert await deadline_of(server, gid) <= now_ms()
    sweeper = server.new_sweeper()
    assert await sweeper.sweep_timers() == 1  # the robot's turn, played at once
    assert (await app_view(client, gid)).turn == 0
    before = now_ms()
    assert await deadline_of(server, gid) >= before + 29_000
    await person_turn(client, gid, person.player_token)
    assert await deadline_of(server, gid) <= now_ms()
    assert await sweeper.sweep_timers() == 1
    moves = await replay(client, gid)
    assert {m.actor for m in moves if m.seat == 1} == {"robot"}
    assert {m.actor for m in moves if m.seat == 0} == {"player"}


async def test_robot_seats_only_at_practice_tables_with_robots(
    client: Client, server: Running
) -> None:
    """JoinGame with robot at a table without robots (none at all, or a turn limit
    only) is refused with NO_ROBOTS, at a competitive table with COMPETITIVE_TABLE,
    and with a player id or as a spectator it is malformed; none changes the game."""
    cases = [
        (pb.TableOptions(), "NO_ROBOTS"),
        (pb.TableOptions(turn_seconds=30), "NO_ROBOTS"),
        (pb.TableOptions(robot_grace_seconds=30, competitive=True), "COMPETITIVE_TABLE"),
    ]
    for options, reason in cases:
        created = await client.stub.CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, table=options),
            metadata=client.app(),
        )
        gid = created.game.game_id
        before = await app_view(client, gid)
        for seat in (1, -1):
            await refused(
                join_robot(client, gid, seat), grpc.StatusCode.FAILED_PRECONDITION, reason
            )
        after = await app_view(client, gid)
        assert after.version == before.version == 0
        assert not any(s.taken or s.robot for s in after.seats)
        assert await replay(client, gid) == []
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=2,
            spectators_allowed=True,
            table=pb.TableOptions(robot_grace_seconds=30),
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    for extra in ({"player_id": "p1"}, {"spectator": True}):
        await refused(
            client.stub.JoinGame(
                pb.JoinGameRequest(game_id=gid, seat=1, robot=True, **extra),
                metadata=client.app(),
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        )
    assert (await app_view(client, gid)).version == 0


def test_a_robots_seat_is_the_robots_until_the_match_ends() -> None:
    """The game's own rules for a robot's seat (the log's "join" by a robot): taken
    and played by a robot at once; it cannot be left (no one holds a token for it);
    a table without robots or a competitive one refuses it."""

    def game(**options: Unpack[TableFields]) -> GameState:
        table = TableOptions(**options)
        return new_game(Setup(make_rules("tranca-000"), 2, 5, table=table))

    g = game(robot_grace_seconds=10)
    apply_action(g, Action("join", 1, name="robot 1", by=BY_ROBOT), 1)
    assert g.seats[1].taken and g.robots == {1}
    with pytest.raises(GameError) as left:
        apply_action(g, Action("leave", 1), 2)
    assert left.value.reason == "ROBOT_SEATED" and g.robots == {1} and g.seats[1].taken
    apply_action(g, Action("join", 0, name="ana"), 2)
    apply_action(g, Action("start"), 3)
    assert g.humans() == [0] and g.robots == {1}
    refusals: list[tuple[TableFields, str]] = [
        ({}, "NO_ROBOTS"),
        ({"turn_seconds": 5}, "NO_ROBOTS"),
        ({"robot_grace_seconds": 10, "competitive": True}, "COMPETITIVE_TABLE"),
    ]
    for options, reason in refusals:
        g = game(**options)
        with pytest.raises(GameError) as refused_join:
            apply_action(g, Action("join", 1, by=BY_ROBOT), 1)
        assert refused_join.value.reason == reason
        assert not g.seats[1].taken and not g.robots


# ----- the server's moves are always legal ---------------------------------------


@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.integers(0, 2**31),
    robots=st.lists(st.booleans(), min_size=1, max_size=8),
)
def test_fallback_and_robot_turns_are_legal_and_end_the_deal(
    preset: str, seed: int, robots: list[bool]
) -> None:
    """Deals played only by timed-out turns and robots' turns (mixed by turn): every
    move passes the engine's own validation (``apply``), the invariants hold after
    every move (every card accounted for), and the deal ends."""
    rules = PRESETS[preset]
    players = rules.player_counts[seed % len(rules.player_counts)]
    s = new_deal(rules, players, seed=seed, dealer=seed % players)
    turns = 0
    for n in range(3000):
        if s.is_over:
            break
        by_robot = robots[turns % len(robots)]
        seat = s.turn
        move = (robot_move if by_robot else fallback_move)(s, seed + n)
        assert move is not None, "no legal move in a live position"
        apply(s, seat, move)
        assert check_invariants(s) == []
        if s.turn != seat:
            turns += 1
    assert s.is_over, "the deal did not end"
