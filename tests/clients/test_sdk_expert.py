"""The SDK's expert bot (``tranca_client.expert``, ``tranca bot --level expert``): the
rules engine's search fed with what the API gives a seat, its ``GameView`` and its
legal moves, against a real server; and, without the engine installed, a
refusal saying what to install.
"""

from __future__ import annotations

import asyncio
import sys

import pytest

from tests.clients.test_sdk import SINGLE_DEAL, new_table
from tranca_client import AsyncTrancaClient, GreedyBot, pb, run_bot
from tranca_client.cli import bot_main
from tranca_client.expert import ENGINE_MISSING, ExpertBot, ExpertUnavailable

FEW = 4  # playouts a decision: quick, and reproducible without a time budget


@pytest.mark.parametrize(("preset", "players"), [("tranca-000", 2), ("canasta-002", 4)])
async def test_the_sdk_expert_plays_a_whole_deal_from_its_views(
    app: AsyncTrancaClient, preset: str, players: int
) -> None:
    """Seat 0 (and its partner with four players) the expert, the others the greedy
    bot: the deal is played to its end, every expert move chosen from the seat's view
    and played move by move."""
    gid, seats = await new_table(app, players, preset, seed=31, start=False)
    bots = [
        ExpertBot(seed=k, iterations=FEW, seconds=None) if k % 2 == 0 else GreedyBot(seed=k)
        for k in range(players)
    ]
    finals = await asyncio.gather(*(run_bot(s, gid, b) for s, b in zip(seats, bots, strict=True)))
    final = finals[0]
    assert final.status == pb.GAME_STATUS_FINISHED
    assert final.match_result.reason == "single_deal"
    replay = await app.get_replay(gid)
    assert len(replay.moves) == final.version
    assert {m.seat for m in replay.moves if m.move.WhichOneof("kind")} == set(range(players))


async def test_tranca_bot_level_expert_plays_a_seat(
    app: AsyncTrancaClient, address: str, api_key: str
) -> None:
    """``tranca bot --level expert`` on seat 0, with a playout budget, against the
    SDK's expert on seat 1; the command's bot starts the game once both sit."""
    game = await app.create_game("tranca-000", 2, overrides=SINGLE_DEAL, seed=12)
    gid = game.game_id
    other = await app.join(gid, 1, player_name="expert 1")
    argv = ["--address", address, "--game", gid, "--api-key", api_key, "--seat", "0"]
    argv += ["--level", "expert", "--iterations", str(FEW), "--seconds", "0", "--quiet"]
    code, final = await asyncio.gather(
        asyncio.to_thread(bot_main, argv),
        run_bot(other, gid, ExpertBot(seed=2, iterations=FEW, seconds=None)),
    )
    assert code == 0
    assert final.status == pb.GAME_STATUS_FINISHED
    view = await app.get_view(gid)
    assert view.seats[0].player_name == "expert bot"


def test_without_the_engine_the_expert_says_what_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK installed without its extra `expert`: the engine cannot be imported.
    monkeypatch.setitem(sys.modules, "tranca_rules.expert", None)
    with pytest.raises(ExpertUnavailable):
        ExpertBot()
    # Refused before any call: no server at this address is needed.
    code = bot_main(
        ["--address", "127.0.0.1:1", "--game", "g", "--token", "t", "--level", "expert"]
    )
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert err == f"tranca bot: {ENGINE_MISSING}"
    assert "pip install 'tranca-client[expert]'" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--level", "greedy", "--iterations", "4"], "give --level expert"),
        (["--level", "expert", "--iterations", "0"], "--iterations: at least 1"),
        (["--level", "expert", "--seconds", "0"], "give --iterations"),
    ],
)
def test_the_experts_budget_is_checked(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        bot_main(["--game", "g", "--token", "t", *argv])
    assert exited.value.code == 2
    assert says in capsys.readouterr().err
