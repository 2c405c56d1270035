"""A table's robot level (``TableOptions.robot_level``), as an app asks for it: the
server's robots at that table play that level (the expert in its worker processes),
a table that asks for none plays the operator's, and the operator's bound
(``--robot-max-level``) refuses a table asking for more.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from tests.harness.servers import running_server, server_config
from tests.server.api_calls import app_view, refused
from tests.server.conftest import Client
from tests.server.test_limits_security import reason_of
from tests.server_platform.test_timers_robots import forget_deadlines, join_robot
from tranca.server import Config, Running
from tranca.services.robots import Robots, RobotSettings
from tranca.services.timers import Sweeper
from tranca.table.game import rebuild
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc
from tranca_rules.bots import GreedyBot
from tranca_rules.engine import legal_moves
from tranca_rules.expert import Budget, search
from tranca_rules.information import information_of
from tranca_rules.moves import Move

ITERATIONS = 4  # the expert's playouts a decision here: reproducible, and quick


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[Running]:
    """A server without a sweeper of its own: each test sweeps with its own robots."""
    async with running_server(server_config(db_url, sweep_interval=0)) as running:
        await forget_deadlines(running)
        yield running


async def robots_table(client: Client, seed: int, level: pb.RobotLevel.ValueType) -> str:
    """A started 2-player table of two robots' seats asking for ``level``."""
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=2,
            seed=seed,
            table=pb.TableOptions(robot_grace_seconds=30, express=True, robot_level=level),
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    assert created.game.table.robot_level == level
    for seat in (0, 1):
        await join_robot(client, gid, seat)
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    return gid


async def robot_decisions(server: Running, gid: str) -> list[tuple[Move, Move, Move]]:
    """Each robot move with a choice (more than one legal move), as (the move played,
    the greedy bot's choice, the expert's in-process choice), from the same position
    and seed as the sweeper had (``setup.seed ^`` the version before the move)."""
    record = await server.store.game(gid)
    rows = await server.store.log(gid)
    setup = record.state.setup
    out = []
    for i, row in enumerate(rows):
        if row.action.kind != "move":
            continue
        assert row.actor == "robot"
        g = rebuild(setup, [r.action for r in rows[:i]])
        deal = g.deal
        assert deal is not None
        moves = legal_moves(deal)
        if len(moves) < 2:
            continue
        seed = setup.seed ^ rows[i - 1].version
        played = row.action.move
        assert played is not None
        greedy = GreedyBot(seed).choose(deal, moves)
        expert, _ = search(information_of(deal, deal.turn), moves, seed, Budget(ITERATIONS, None))
        out.append((played, greedy, expert))
    return out


async def test_a_table_asking_for_the_expert_gets_the_experts_moves(
    client: Client, server: Running
) -> None:
    """The operator's level is greedy: a table without a level plays the greedy bot's
    moves on the event loop (no worker process started), a table asking for the
    expert plays the expert's, chosen in its worker process."""
    robots = Robots(RobotSettings("greedy", budget_ms=60_000, iterations=ITERATIONS, workers=1))
    sweeper = Sweeper(server.store, server.moves, robots=robots)
    try:
        plain = await robots_table(client, 11, pb.ROBOT_LEVEL_UNSPECIFIED)
        for _ in range(6):
            assert await sweeper.sweep_timers() == 1
        assert robots._pool is None  # the greedy bot needs no worker
        greedy = await robot_decisions(server, plain)
        assert greedy
        assert all(played == choice for played, choice, _ in greedy)

        await forget_deadlines(server)
        expert = await robots_table(client, 11, pb.ROBOT_LEVEL_EXPERT)
        for _ in range(6):
            assert await sweeper.sweep_timers() == 1
        assert robots._pool is not None  # started for the expert table's decisions
        decisions = await robot_decisions(server, expert)
        assert decisions
        assert all(played == choice for played, _, choice in decisions)
        # The same deal: where the two bots part, the table played the expert's move.
        assert any(played != greedy_choice for played, greedy_choice, _ in decisions)
    finally:
        robots.close()
    view = await app_view(client, expert)
    assert view.table.robot_level == pb.ROBOT_LEVEL_EXPERT


async def test_the_operators_bound_refuses_a_table_asking_for_more(db_url: str) -> None:
    async with running_server(
        server_config(db_url, sweep_interval=0, robot_level="random", robot_max_level="greedy")
    ) as running:
        _, key = await running.store.create_app("bound", frozenset())
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            client = Client(channel, key)
            # What an app offers: the levels up to the bound, unset being the operator's.
            presets = await client.stub.ListPresets(pb.ListPresetsRequest(), metadata=client.app())
            assert presets.robot_level == pb.ROBOT_LEVEL_RANDOM
            assert presets.robot_max_level == pb.ROBOT_LEVEL_GREEDY

            def create(level: pb.RobotLevel.ValueType, grace: int = 30) -> pb.CreateGameRequest:
                return pb.CreateGameRequest(
                    rules=pb.Rules(preset="tranca-000"),
                    players=2,
                    table=pb.TableOptions(robot_grace_seconds=grace, robot_level=level),
                )

            e = await refused(
                client.stub.CreateGame(create(pb.ROBOT_LEVEL_EXPERT), metadata=client.app()),
                grpc.StatusCode.PERMISSION_DENIED,
            )
            assert reason_of(e) == ("ROBOT_LEVEL_NOT_ALLOWED", {"max_level": "greedy"})
            for level in (pb.ROBOT_LEVEL_GREEDY, pb.ROBOT_LEVEL_RANDOM, pb.ROBOT_LEVEL_UNSPECIFIED):
                done = await client.stub.CreateGame(create(level), metadata=client.app())
                assert done.game.table.robot_level == level
            # A level at a table without robots says nothing: refused as malformed.
            e = await refused(
                client.stub.CreateGame(create(pb.ROBOT_LEVEL_GREEDY, 0), metadata=client.app()),
                grpc.StatusCode.INVALID_ARGUMENT,
            )
            assert reason_of(e)[0] == "MALFORMED_REQUEST"
            unknown = create(pb.ROBOT_LEVEL_GREEDY)
            unknown.table.robot_level = 9  # type: ignore[assignment]
            e = await refused(
                client.stub.CreateGame(unknown, metadata=client.app()),
                grpc.StatusCode.INVALID_ARGUMENT,
            )
            assert reason_of(e)[0] == "MALFORMED_REQUEST"
            # A tournament's tables likewise.
            tournaments = ppb_grpc.TournamentServiceStub(channel)
            e = await refused(
                tournaments.CreateTournament(
                    ppb.CreateTournamentRequest(
                        name="practice",
                        format=ppb.TOURNAMENT_FORMAT_SWISS,
                        entrants=[ppb.Entrant(id=f"e{k}", player_ids=[f"p{k}"]) for k in (1, 2)],
                        table_size=2,
                        rules=pb.Rules(preset="tranca-000"),
                        table=create(pb.ROBOT_LEVEL_EXPERT).table,
                    ),
                    metadata=client.app(),
                ),
                grpc.StatusCode.PERMISSION_DENIED,
            )
            assert reason_of(e) == ("ROBOT_LEVEL_NOT_ALLOWED", {"max_level": "greedy"})


def test_a_tables_level_is_within_the_operators_bound() -> None:
    """The table's level, the operator's where it asks for none, and the bound where
    the operator lowered it after the table was created."""
    robots = Robots(RobotSettings("greedy", max_level="greedy"))
    assert robots.level_for("") == "greedy"
    assert robots.level_for("random") == "random"
    assert robots.level_for("expert") == "greedy"
    assert Robots(RobotSettings("random")).level_for("expert") == "expert"
    assert Robots(RobotSettings("greedy", max_level="greedy", workers=4)).concurrency == 1
    assert Robots(RobotSettings("greedy", workers=4)).concurrency == 4
    with pytest.raises(ValueError):
        RobotSettings("expert", max_level="greedy")
    with pytest.raises(SystemExit):
        Config.from_args(["--robot-level", "expert", "--robot-max-level", "greedy"])
    cfg = Config.from_args(["--robot-level", "random", "--robot-max-level", "greedy"])
    assert (cfg.robot_level, cfg.robot_max_level) == ("random", "greedy")
