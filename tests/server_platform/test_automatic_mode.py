"""Automatic mode (issue 40, point 2), through the gRPC API on SQLite and PostgreSQL,
and on two replicas of one PostgreSQL database.

003 ("Tiempo por turno"): "Indica el tiempo que tiene el jugador para tirar en su
turno. Si el tiempo concluye, el juego realizará la jugada por él. Véase también:
Juego en modo automático". A seated player asks the server to play for them
(GameService.SetAutomatic), every seat sees it (SeatInfo.automatic), the server's
robot plays their turns, and they take the seat back whenever they like.

The servers here run no sweeper of their own: each test sweeps when it wants.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import grpc
import pytest

from tests.harness.clients import Client
from tests.harness.servers import app_client, running_server, server_config
from tests.server.api_calls import DRAW, app_view, discard, refused, seat_view, submit
from tests.server_platform.test_timers_robots import forget_deadlines, play_turn, replay
from tranca.server import Running
from tranca.table.game import rebuild
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

TIEMPO_POR_TURNO = (
    "Indica el tiempo que tiene el jugador para tirar en su turno. Si el tiempo "
    "concluye, el juego realizará la jugada por él. Véase también: Juego en modo "
    "automático"
)


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[Running]:
    async with running_server(server_config(db_url, sweep_interval=0)) as running:
        await forget_deadlines(running)
        yield running


@pytest.fixture
async def client(server: Running) -> AsyncIterator[Client]:
    async with app_client(server) as made:
        yield made


async def automatic(
    client: Client, gid: str, token: str, on: bool, request_id: str = ""
) -> pb.GameView:
    done = await client.stub.SetAutomatic(
        pb.SetAutomaticRequest(game_id=gid, on=on, request_id=request_id or uuid.uuid4().hex),
        metadata=client.player(token),
    )
    return done.view


async def log_rebuilds(server: Running, gid: str) -> None:
    """The stored log, folded action by action, is the stored snapshot."""
    rows = await server.store.log(gid)
    game = await server.store.game(gid)
    assert [r.version for r in rows] == list(range(1, game.version + 1))
    assert rebuild(game.state.setup, [r.action for r in rows]).to_dict() == game.state.to_dict()


@pytest.mark.parametrize("timers", [False, True], ids=["no-timers", "robots"])
async def test_juego_en_modo_automatico(server: Running, client: Client, timers: bool) -> None:
    """003: "Si el tiempo concluye, el juego realizará la jugada por él. Véase también:
    Juego en modo automático": the player asks, the server plays every turn of the
    seat (at a table with timers or without), the others see it, and the player
    takes the seat back."""
    assert "Juego en modo automático" in TIEMPO_POR_TURNO
    options = pb.TableOptions(robot_grace_seconds=600) if timers else pb.TableOptions()
    gid, tokens = await client.new_game(table=options)
    sweeper = server.new_sweeper()
    view = await app_view(client, gid)
    me = view.turn
    other = 1 - me

    on = await automatic(client, gid, tokens[me], True)
    assert on.seats[me].automatic and on.seats[me].robot and on.seats[me].was_automatic
    seen = await seat_view(client, gid, tokens[other])
    assert seen.seats[me].automatic and seen.seats[me].robot  # shown to the others
    assert not seen.seats[other].automatic

    # The player's own move is refused while the robot plays; nothing changes.
    await refused(
        submit(client, gid, tokens[me], DRAW, on.version),
        grpc.StatusCode.FAILED_PRECONDITION,
        "ROBOT_SEATED",
    )
    # The server plays the seat's turn: a robot's moves in the log.
    assert await sweeper.sweep_timers() == 1
    after = await app_view(client, gid)
    assert after.turn == other and after.version > on.version
    moves = await replay(client, gid)
    switched = [m for m in moves if m.move.text == "robot"]
    assert len(switched) == 1 and switched[0].actor == "player" and switched[0].seat == me
    assert [m.actor for m in moves if m.version > switched[0].version] == ["robot"] * (
        after.version - switched[0].version
    )
    # The other player plays; the robot plays the seat's next turn too.
    await play_turn(client, gid, tokens[other])
    assert await sweeper.sweep_timers() == 1
    again = await app_view(client, gid)
    assert again.turn == other and again.seats[me].automatic

    # The player takes the seat back: theirs again, shown so to every seat.
    await play_turn(client, gid, tokens[other])
    off = await automatic(client, gid, tokens[me], False)
    assert not off.seats[me].automatic and not off.seats[me].robot
    assert off.seats[me].was_automatic  # recorded for the match
    assert not (await seat_view(client, gid, tokens[other])).seats[me].automatic
    assert await sweeper.sweep_timers() == 0  # nothing for the sweeper: a person's turn
    await play_turn(client, gid, tokens[me])
    assert (await app_view(client, gid)).turn == other
    await log_rebuilds(server, gid)


async def test_automatic_mode_refusals_change_nothing(server: Running, client: Client) -> None:
    """Switched on twice, off when it is not on, by a spectator, by the app's key, at
    a game not started or finished: each a clear refusal, the game unchanged."""
    gid, tokens = await client.new_game(spectators_allowed=True)
    watcher = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, spectator=True, player_name="w"), metadata=client.app()
    )
    before = (await app_view(client, gid)).version
    await refused(
        automatic(client, gid, tokens[0], False),
        grpc.StatusCode.FAILED_PRECONDITION,
        "AUTOMATIC_NOT_ON",
    )
    await refused(
        automatic(client, gid, watcher.player_token, True), grpc.StatusCode.PERMISSION_DENIED
    )
    await refused(
        client.stub.SetAutomatic(
            pb.SetAutomaticRequest(game_id=gid, on=True), metadata=client.app()
        ),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    assert (await app_view(client, gid)).version == before

    await automatic(client, gid, tokens[0], True, request_id="on-1")
    # A retry of the same request gets its first answer; a second switch is refused.
    retried = await automatic(client, gid, tokens[0], True, request_id="on-1")
    assert retried.seats[0].automatic and retried.version == before + 1
    await refused(
        automatic(client, gid, tokens[0], True),
        grpc.StatusCode.FAILED_PRECONDITION,
        "AUTOMATIC_ALREADY_ON",
    )
    assert (await app_view(client, gid)).version == before + 1

    # A game not started yet, and a finished one.
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, seed=3),
        metadata=client.app(),
    )
    waiting = created.game.game_id
    seat = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=waiting, seat=0, player_name="a"), metadata=client.app()
    )
    await refused(
        automatic(client, waiting, seat.player_token, True),
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_NOT_STARTED",
    )
    await client.stub.LeaveGame(pb.LeaveGameRequest(game_id=gid), metadata=client.player(tokens[1]))
    over = (await app_view(client, gid)).version
    await refused(
        automatic(client, gid, tokens[0], False),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    await refused(
        automatic(client, gid, tokens[1], True), grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER"
    )
    assert (await app_view(client, gid)).version == over
    await log_rebuilds(server, gid)


async def finish_turn(client: Client, gid: str, tokens: list[str]) -> None:
    """The seat to act, if its player holds it, ends its turn: a draw if it has not
    drawn, then a discard of the first card of its hand."""
    view = await app_view(client, gid)
    if view.status != pb.GAME_STATUS_PLAYING or view.seats[view.turn].robot:
        return
    token = tokens[view.turn]
    version = view.version
    if view.phase == pb.PHASE_DRAW:
        version = (await submit(client, gid, token, DRAW, version)).version
    hand = (await seat_view(client, gid, token)).hand
    await submit(client, gid, token, discard(hand[0]), version)


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[Running, Running]]:
    async with (
        running_server(server_config(pg_url, sweep_interval=0)) as a,
        running_server(server_config(pg_url, sweep_interval=0)) as b,
    ):
        await forget_deadlines(a)
        yield a, b


async def test_automatic_mode_switched_in_the_same_turn_as_a_move_on_two_replicas(
    two: tuple[Running, Running],
) -> None:
    """Two replicas on one PostgreSQL: the seat's move on one and its switch on the
    other, at the same version; then the robot's turn swept on one and the switch off
    on the other. Each lands or is refused cleanly (compare-and-swap), never half,
    and the log replays to the snapshot."""
    a, b = two
    async with app_client(a) as ca, grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as channel:
        cb = Client(channel, ca.api_key)
        cb.stub = pb_grpc.GameServiceStub(channel)
        gid, tokens = await ca.new_game(seed=11, table=pb.TableOptions(robot_grace_seconds=600))
        sweeper = a.new_sweeper()
        outcomes: set[str] = set()
        for _ in range(6):
            view = await app_view(ca, gid)
            if view.status != pb.GAME_STATUS_PLAYING:
                break
            me = view.turn
            token = tokens[me]
            if view.phase != pb.PHASE_DRAW:
                await finish_turn(ca, gid, tokens)
                continue
            move, switch = await asyncio.gather(
                submit(ca, gid, token, DRAW, view.version),
                automatic(cb, gid, token, True),
                return_exceptions=True,
            )
            assert not isinstance(switch, BaseException), switch  # no expected version
            if isinstance(move, grpc.aio.AioRpcError):
                assert move.code() in (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.ABORTED,
                ), move.details()
                outcomes.add("move refused")
            else:
                assert not isinstance(move, BaseException), move
                outcomes.add("move first")
            # The robot's turn on replica A, the switch off on replica B.
            swept, off = await asyncio.gather(
                sweeper.sweep_timers(),
                automatic(cb, gid, token, False),
                return_exceptions=True,
            )
            assert not isinstance(swept, BaseException), swept
            if isinstance(off, grpc.aio.AioRpcError):
                # The robot's moves went first and the switch re-read the game.
                assert off.code() == grpc.StatusCode.FAILED_PRECONDITION, off.details()
                await automatic(cb, gid, token, False)
            assert not (await app_view(ca, gid)).seats[me].automatic
            await finish_turn(ca, gid, tokens)
            await log_rebuilds(a, gid)
        assert outcomes
        # Every robot move was made while the seat was automatic: the log says so.
        robot_in = False
        for m in await replay(ca, gid):
            if m.move.text == "robot":
                robot_in = True
            elif m.move.text == "return":
                robot_in = False
            elif m.actor == "robot":
                assert robot_in, m
        await log_rebuilds(b, gid)
