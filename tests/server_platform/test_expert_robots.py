"""The server's robots at the expert level (services/robots.py): the search runs in
worker processes, off the event loop, with the operator's budget, and plays robots'
seats through the ordinary sweeper (003, "Robot": "un robot lo sustituye").
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from tests.harness.servers import running_server, server_config
from tests.server.api_calls import app_view
from tests.server.conftest import Client
from tests.server_platform.test_timers_robots import forget_deadlines, join_robot
from tranca.server import Running
from tranca.services.robots import Robots, RobotSettings
from tranca.services.timers import Sweeper
from tranca.table.game import rebuild
from tranca.v1 import game_pb2 as pb
from tranca_rules.engine import apply, legal_moves, new_deal
from tranca_rules.expert import Budget, search
from tranca_rules.information import information_of
from tranca_rules.presets import make_rules


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[Running]:
    async with running_server(server_config(db_url, sweep_interval=0)) as running:
        await forget_deadlines(running)
        yield running


async def test_a_worker_process_chooses_what_the_search_chooses() -> None:
    """The worker is given the seat's information only, and with an iteration budget
    (a time budget it does not reach) its move is the in-process search's."""
    robots = Robots(RobotSettings("expert", budget_ms=60_000, iterations=6, workers=1))
    try:
        s = new_deal(make_rules("tranca-003"), 4, seed=4)
        checked = 0
        while checked < 4 and not s.is_over:
            moves = legal_moves(s)
            move = await robots.move(s, 99)
            if len(moves) > 1:
                info = information_of(s, s.turn)
                assert move == search(info, moves, 99, Budget(6, None))[0]
                checked += 1
            assert move in moves
            apply(s, s.turn, move)
    finally:
        robots.close()


def test_the_robots_settings_refuse_nonsense() -> None:
    with pytest.raises(ValueError):
        RobotSettings("grandmaster")
    with pytest.raises(ValueError):
        RobotSettings("expert", budget_ms=0)
    with pytest.raises(ValueError):
        RobotSettings("expert", workers=0)
    assert Robots(RobotSettings("greedy", workers=4, max_level="greedy")).concurrency == 1


async def test_expert_robots_play_a_whole_match_through_the_sweeper(
    client: Client, server: Running
) -> None:
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-000"),
            players=2,
            seed=5,
            table=pb.TableOptions(robot_grace_seconds=2, express=True),
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    await join_robot(client, gid, 0)
    await join_robot(client, gid, 1)
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    robots = Robots(RobotSettings("expert", budget_ms=5, iterations=4, workers=2))
    sweeper = Sweeper(server.store, server.moves, robots=robots)
    sweeping = asyncio.create_task(sweeper.run(0.01))
    started = time.monotonic()
    try:
        while (await app_view(client, gid)).status != pb.GAME_STATUS_FINISHED:
            assert time.monotonic() - started < 240, "the match did not end"
            await asyncio.sleep(0.2)
    finally:
        sweeping.cancel()
        await asyncio.gather(sweeping, return_exceptions=True)
        robots.close()
    rows = await server.store.log(gid)
    record = await server.store.game(gid)
    assert record.state.result_reason == "single_deal"
    assert {r.actor for r in rows if r.action.kind == "move"} == {"robot"}
    assert rebuild(record.state.setup, [r.action for r in rows]).to_dict() == (
        record.state.to_dict()
    )
