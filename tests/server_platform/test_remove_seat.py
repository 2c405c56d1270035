"""AdminService.RemoveSeat through a real channel, on SQLite and PostgreSQL: a retry
with the same request id gets the first answer (outcome and version), here and from
another server process on the same database; another seat under the same request id
is REQUEST_ID_REUSED; a removed player stays out of the game by every path (JoinGame
with any seat or -1, ReclaimSeat, quick play's seat tokens); and a removal that hands
the seat to act to a robot makes the robot play at once (docs/APP_GUIDE.md, "The
admin view")."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import grpc
import pytest

from tests.faults.rig import SERVING, ServerProcess, health, wait_until
from tests.server.api_calls import refused
from tests.server.conftest import Client
from tranca.server import Running
from tranca.services.moves import now_ms
from tranca.table.deadlines import next_deadline, turn_point
from tranca.table.game import (
    BY_APP,
    Action,
    GameError,
    GameState,
    Setup,
    TableOptions,
    apply_action,
    rebuild,
)
from tranca.v1 import admin_pb2 as apb
from tranca.v1 import admin_pb2_grpc as apb_grpc
from tranca.v1 import game_pb2 as pb
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca_rules.presets import make_rules

from .staking import Platform

Code = grpc.StatusCode
Metadata = tuple[tuple[str, str], ...]


def admin(client: Client) -> apb_grpc.AdminServiceAsyncStub:
    return apb_grpc.AdminServiceStub(client.channel)


async def remove(
    stub: apb_grpc.AdminServiceAsyncStub, md: Metadata, game_id: str, seat: int, rid: str
) -> tuple[str, int]:
    done = await stub.RemoveSeat(
        apb.RemoveSeatRequest(game_id=game_id, seat=seat, request_id=rid), metadata=md
    )
    return done.outcome, int(done.version)


@pytest.fixture
def other_process(db_url: str) -> Iterator[ServerProcess]:
    """A second ``tranca serve`` process on the test's database (no sweeper, no
    matchmaker: it only answers)."""
    process = ServerProcess(
        db_url,
        db_timeout=15,
        extra=["--sweep-interval", "0", "--match-interval", "0", "--webhook-interval", "0"],
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()


async def practice_table(client: Client, seed: int = 7, grace: int = 300) -> tuple[str, list[str]]:
    """A started 2-player practice match with robots, seated by the app key."""
    return await client.new_game(seed=seed, table=pb.TableOptions(robot_grace_seconds=grace))


async def test_a_retried_removal_gets_the_first_answer_here_and_on_another_process(
    client: Client, server: Running, other_process: ServerProcess
) -> None:
    platform = await Platform.of(client, server)
    here = admin(client)
    md = client.app()
    waiting = await platform.table(["ana", "bia"], competitive=False, start=False)
    robot_gid, _ = await practice_table(client)
    rated = await platform.table(["cai", "dan"])
    firsts = {
        "freed": (waiting.game_id, 1, await remove(here, md, waiting.game_id, 1, "rm-w")),
        "robot": (robot_gid, 0, await remove(here, md, robot_gid, 0, "rm-r")),
        "resigned": (rated.game_id, 0, await remove(here, md, rated.game_id, 0, "rm-x")),
    }
    assert {outcome: first[0] for outcome, (_, _, first) in firsts.items()} == {
        "freed": "freed",
        "robot": "robot",
        "resigned": "resigned",
    }
    rids = {"freed": "rm-w", "robot": "rm-r", "resigned": "rm-x"}
    for outcome, (gid, seat, first) in firsts.items():
        assert await remove(here, md, gid, seat, rids[outcome]) == first, outcome
    # The same request id for another seat: refused, and nothing changes.
    for outcome, (gid, seat, _) in firsts.items():
        await refused(
            remove(here, md, gid, 1 - seat, rids[outcome]),
            Code.ALREADY_EXISTS,
            "REQUEST_ID_REUSED",
        )
    view = await client.stub.GetView(pb.GetViewRequest(game_id=robot_gid), metadata=md)
    assert not view.view.seats[1].robot
    # Another process, which never saw the first calls, answers from the database.
    await wait_until(lambda: serving(other_process.port), 60, "the second process to serve")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{other_process.port}") as channel:
        there = apb_grpc.AdminServiceStub(channel)
        for outcome, (gid, seat, first) in firsts.items():
            assert await remove(there, md, gid, seat, rids[outcome]) == first, outcome
        await refused(
            remove(there, md, robot_gid, 1, "rm-r"), Code.ALREADY_EXISTS, "REQUEST_ID_REUSED"
        )
        # EndGame's retries are answered from the log too.
        table = await platform.table(["eva", "fio"])
        ended = await here.EndGame(
            apb.EndGameRequest(game_id=table.game_id, request_id="end-1"), metadata=md
        )
        again = await there.EndGame(
            apb.EndGameRequest(game_id=table.game_id, request_id="end-1"), metadata=md
        )
        assert again.version == ended.version
        await refused(
            there.RemoveSeat(
                apb.RemoveSeatRequest(game_id=table.game_id, seat=0, request_id="end-1"),
                metadata=md,
            ),
            Code.ALREADY_EXISTS,
            "REQUEST_ID_REUSED",
        )


async def serving(port: int) -> bool:
    return await health(port) == SERVING


def sessions(client: Client) -> spb_grpc.SessionServiceAsyncStub:
    return spb_grpc.SessionServiceStub(client.channel)


async def session(client: Client, player_id: str) -> Metadata:
    opened = await sessions(client).CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=player_id, display_name=player_id.title()),
        metadata=client.app(),
    )
    return (("authorization", f"Bearer {opened.session.access_token}"),)


async def join(client: Client, md: Metadata, gid: str, seat: int) -> pb.JoinGameResponse:
    joined: pb.JoinGameResponse = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=seat), metadata=md
    )
    return joined


async def test_a_player_removed_from_a_practice_match_cannot_come_back(
    client: Client, server: Running
) -> None:
    """The robot plays the seat to the end: the removed player's session gets no new
    seat token (JoinGame with -1 or the seat), and the old token is revoked."""
    ana, bia = await session(client, "ana"), await session(client, "bia")
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=2,
            table=pb.TableOptions(robot_grace_seconds=300),
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    tokens = [(await join(client, md, gid, -1)).player_token for md in (ana, bia)]
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    outcome, _ = await remove(admin(client), client.app(), gid, 0, "rm-ana")
    assert outcome == "robot"
    for seat in (-1, 0, 1):
        await refused(join(client, ana, gid, seat), Code.FAILED_PRECONDITION, "REMOVED_FROM_GAME")
    await refused(
        client.stub.ReclaimSeat(
            pb.ReclaimSeatRequest(game_id=gid, request_id=uuid.uuid4().hex),
            metadata=client.player(tokens[0]),
        ),
        Code.UNAUTHENTICATED,
        "BAD_TOKEN",
    )
    # The other player's session still gets its seat back, and the robot keeps seat 0.
    again = await join(client, bia, gid, -1)
    assert again.seat == 1
    view = await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())
    assert view.view.seats[0].robot and view.view.seats[0].player_name == "Ana"


async def test_a_player_removed_before_the_start_cannot_sit_again(
    client: Client, server: Running
) -> None:
    """The seat is free for someone else, not for the removed player: neither their
    session nor the app's key (with their player id) seats them at this table."""
    platform = await Platform.of(client, server)
    ana = await session(client, "ana")
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2),
        metadata=client.app(),
    )
    gid = created.game.game_id
    await join(client, ana, gid, -1)
    outcome, _ = await remove(admin(client), client.app(), gid, 0, "rm-ana")
    assert outcome == "freed"
    await refused(join(client, ana, gid, -1), Code.FAILED_PRECONDITION, "REMOVED_FROM_GAME")
    await refused(join(client, ana, gid, 0), Code.FAILED_PRECONDITION, "REMOVED_FROM_GAME")
    await refused(
        platform.join(gid, 1, "ana", "10.0.0.1"), Code.FAILED_PRECONDITION, "REMOVED_FROM_GAME"
    )
    # Anyone else may take the seat.
    assert (await join(client, await session(client, "bia"), gid, -1)).seat == 0


async def test_quick_play_gives_a_removed_player_no_seat_token(
    client: Client, server: Running
) -> None:
    quick = qpb_grpc.QuickPlayServiceStub(client.channel)
    ana, bia = await session(client, "ana"), await session(client, "bia")
    tickets = [
        (
            await quick.AskQuickPlay(
                qpb.AskQuickPlayRequest(preset="tranca-000", players=2), metadata=md
            )
        ).ticket
        for md in (ana, bia)
    ]
    assert server.matchmaker is not None
    await server.matchmaker.match_once()
    got = await quick.GetTicket(qpb.GetTicketRequest(ticket_id=tickets[0].ticket_id), metadata=ana)
    assert got.ticket.status == qpb.TICKET_STATUS_MATCHED
    gid, seat = got.ticket.game_id, got.ticket.seats[0].seat
    outcome, _ = await remove(admin(client), client.app(), gid, seat, "rm-ana")
    assert outcome == "robot"
    await refused(
        quick.GetTicket(qpb.GetTicketRequest(ticket_id=tickets[0].ticket_id), metadata=ana),
        Code.FAILED_PRECONDITION,
        "REMOVED_FROM_GAME",
    )
    by_app = await quick.GetTicket(
        qpb.GetTicketRequest(ticket_id=tickets[0].ticket_id), metadata=client.app()
    )
    assert by_app.ticket.status == qpb.TICKET_STATUS_MATCHED and not by_app.ticket.seats
    # The other player's seats still arrive.
    theirs = await quick.GetTicket(
        qpb.GetTicketRequest(ticket_id=tickets[1].ticket_id), metadata=bia
    )
    assert [s.player_id for s in theirs.ticket.seats] == ["bia"]


async def test_removing_the_seat_to_act_lets_the_robot_play_at_once(
    client: Client, server: Running
) -> None:
    """The absent player's turn clock (300 s here) does not hold the robot back: the
    removal makes the game due now, as a robot's turn is."""
    gid, _ = await practice_table(client)
    view = (await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())).view
    before = now_ms()
    await remove(admin(client), client.app(), gid, view.turn, "rm-turn")
    seen = await admin(client).InspectGame(
        apb.InspectGameRequest(game_id=gid), metadata=client.app()
    )
    # Due at once (or already played by the server's own sweeper, which then set the
    # other player's 300 s clock).
    assert seen.deadline_at_ms <= now_ms() or seen.game.version > view.version + 1
    sweeper = server.new_sweeper()

    async def robot_played() -> bool:
        await sweeper.sweep_timers()
        shown = await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())
        return bool(shown.view.turn != view.turn)

    await wait_until(robot_played, 10, "the robot's turn")
    # The other player's turn now has its own clock, the table's 300 s.
    seen = await admin(client).InspectGame(
        apb.InspectGameRequest(game_id=gid), metadata=client.app()
    )
    assert seen.deadline_at_ms >= before + 290_000


# ----- the game's own record of a removal (pure) --------------------------------------


def started(player_ids: tuple[str, str]) -> list[Action]:
    return [
        Action("join", 0, name="ana", player_id=player_ids[0]),
        Action("join", 1, name="bia", player_id=player_ids[1]),
        Action("start"),
    ]


def game_of(actions: list[Action], robot_grace_seconds: int = 60) -> GameState:
    table = TableOptions(robot_grace_seconds=robot_grace_seconds)
    return rebuild(Setup(make_rules("tranca-000"), 2, 7, table=table), actions)


def refusal(g: GameState, action: Action) -> str:
    with pytest.raises(GameError) as refused_action:
        apply_action(g, action, 99)
    return refused_action.value.reason


def test_a_seat_handed_to_a_robot_stays_the_robots_and_its_player_out() -> None:
    log = [*started(("ana", "bia")), Action("robot", 0, by=BY_APP)]
    g = game_of(log)
    assert g.robots == g.removed_seats == {0} and g.removed_players == {"ana"}
    assert g.seats[0].player_id == "ana"  # still shown as the seat's player
    assert refusal(g, Action("return", 0)) == "REMOVED_FROM_GAME"
    assert refusal(g, Action("resign", 0)) == "REMOVED_FROM_GAME"  # not theirs to lose
    # The snapshot keeps the removal, as the log does.
    again = GameState.from_dict(g.to_dict())
    assert (again.removed_players, again.removed_seats) == ({"ana"}, {0})
    assert again.to_dict() == g.to_dict()
    # A robot takeover of a silent player's seat (the sweeper's) is no removal.
    taken = game_of([*started(("ana", "bia")), Action("robot", 0)])
    assert not taken.removed_seats and not taken.removed_players
    apply_action(taken, Action("return", 0), 5)
    assert not taken.robots


def test_a_player_removed_before_the_start_is_refused_a_seat_by_player_id() -> None:
    g = game_of([Action("join", 0, name="ana", player_id="ana"), Action("leave", 0, by=BY_APP)])
    assert not g.seats[0].taken and g.removed_players == {"ana"}
    assert refusal(g, Action("join", 1, name="ana", player_id="ana")) == "REMOVED_FROM_GAME"
    apply_action(g, Action("join", 0, name="cai", player_id="cai"), 3)
    # A seat joined without a player id: the game cannot tell who sat there, so the
    # removal keeps no one out (the app decides whom it seats with its key).
    anonymous = game_of([Action("join", 0, name="ana"), Action("leave", 0, by=BY_APP)])
    assert not anonymous.removed_players
    apply_action(anonymous, Action("join", 0, name="ana"), 3)
    # A player's own leave is no removal.
    left = game_of([Action("join", 0, name="ana", player_id="ana"), Action("leave", 0)])
    apply_action(left, Action("join", 0, name="ana", player_id="ana"), 3)


def test_removing_the_player_to_act_makes_the_robots_turn_due_at_once() -> None:
    g = game_of(started(("ana", "bia")), robot_grace_seconds=300)
    assert g.deal is not None
    turn, now = g.deal.turn, 1_000_000
    before = turn_point(g)
    removal = Action("robot", turn, by=BY_APP)
    apply_action(g, removal, 4)
    assert next_deadline(before, g, removal, now) == (True, now)
    # The sweeper's own takeover keeps its lease: it plays the turn itself.
    h = game_of(started(("ana", "bia")), robot_grace_seconds=300)
    takeover = Action("robot", turn)
    apply_action(h, takeover, 4)
    assert next_deadline(before, h, takeover, now) == (False, None)
    # Removing the other seat's player leaves the turn's clock alone.
    k = game_of(started(("ana", "bia")), robot_grace_seconds=300)
    other = Action("robot", 1 - turn, by=BY_APP)
    apply_action(k, other, 4)
    assert next_deadline(before, k, other, now) == (False, None)
