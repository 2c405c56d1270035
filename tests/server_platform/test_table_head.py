"""The table head (003 "Opciones de mesa"), through the public API on SQLite and
PostgreSQL: who the head is, what it may change and when, every seat seeing each
change, the seats' agreement to a new stake or rated play, the refusals (nothing
changed), and the head changing the stake while a player joins on two replicas."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from tranca.server import Running
from tranca.table.action_kinds import ActionKind
from tranca.table.game import (
    Action,
    GameState,
    Setup,
    TableOptions,
    join_text,
    options_text,
    rebuild,
)
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca_rules.presets import make_rules

from ..harness.servers import app_client, running_servers, server_config
from ..server.api_calls import refused, seat_view
from ..server.conftest import Client
from .tournament_helpers import Organiser

# Where the rule documents are kept on a developer's machine when the repository is a
# worktree of its own (RULES.md: "../shared/rules" from the main checkout).
DOCUMENTS = Path("/work/shared/rules")

OPCIONES = (
    "Las opciones de mesa son elegidas por el jefe de mesa (el primer jugador que se ha"
    " sentado en la mesa y que tiene una estrella estrella junto a su avatar)."
)
CAMBIAR = (
    "Las opciones de mesa se pueden cambiar antes de empezar la partida o entre partida y partida."
)
ICONO = "Si el icono cambia a rojo, indica que el jefe de mesa ha cambiado alguna de las opciones."


def _rule(passage: str) -> None:
    """The passage, word for word in 003's text (kept beside the repository, as
    RULES.md says): the test rests on it."""
    root = Path(__file__).resolve().parents[2]
    found = [*root.parent.glob("shared/rules/003_*.txt"), *DOCUMENTS.glob("003_*.txt")]
    if not found:
        if os.environ.get("CI"):
            pytest.fail("003's text is not beside the repository")
        pytest.skip("003's text is not beside the repository")
    text = " ".join(found[0].read_text(encoding="utf-8").split())
    assert " ".join(passage.split()) in text, passage


async def _table(client: Client, table: pb.TableOptions | None = None) -> str:
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(rules=pb.Rules(preset="tranca-003"), players=2, table=table),
        metadata=client.app(),
    )
    return str(created.game.game_id)


async def _join(client: Client, gid: str, seat: int, player: str) -> str:
    joined = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=seat, player_name=player, player_id=player),
        metadata=client.app(),
    )
    return str(joined.player_token)


async def _allow_stakes(client: Client, max_stake: int = 100) -> None:
    stub = spb_grpc.SessionServiceStub(client.channel)
    policy = (await stub.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=client.app())).policy
    policy.max_stake = max_stake
    await stub.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=client.app())


async def _update(
    client: Client,
    gid: str,
    token: str,
    table: pb.TableOptions,
    *,
    spectators_allowed: bool = False,
    expected_version: int = 0,
) -> pb.GameView:
    request = pb.UpdateTableOptionsRequest(
        game_id=gid,
        table=table,
        spectators_allowed=spectators_allowed,
        expected_version=expected_version,
    )
    done = await client.stub.UpdateTableOptions(request, metadata=client.player(token))
    return done.view


def _players() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"ana-{tag}", f"bia-{tag}"


# ----- the game model: the log rebuilds what the snapshot holds -------------------------


def test_a_join_asked_for_before_a_change_of_stake_lands_unagreed_and_the_log_rebuilds_it() -> None:
    _rule(OPCIONES)
    setup = Setup(make_rules("tranca-003"), 2, 7)
    staked = TableOptions(competitive=True, stake=10)
    log = [
        Action(ActionKind.JOIN, 1, name="b", player_id="b"),
        Action(ActionKind.OPTIONS, 1, text=options_text(staked, False)),
        # Seat 0 read the table before the change (terms version 0): not agreed.
        Action(ActionKind.JOIN, 0, name="a", player_id="a", text=join_text(0)),
    ]
    g = rebuild(setup, log)
    assert g.head == 1 and g.unconsented == {0}
    assert g.setup.table == staked and g.created.table == TableOptions()
    # One who read it after (terms version 2) agreed by joining.
    seen = rebuild(setup, [*log[:2], Action(ActionKind.JOIN, 0, name="a", text=join_text(2))])
    assert seen.unconsented == set()
    # The snapshot without its setup, read back with the setup as created: the same game.
    again = GameState.from_dict(g.to_dict(with_setup=False), setup)
    assert again.to_dict() == g.to_dict() and again.setup == g.setup
    assert again.head == 1 and again.joins == [1, 0]
    # Read back with the setup as played, too (a kept state, a copy): the same game.
    played = GameState.from_dict(g.to_dict(with_setup=False), g.setup)
    assert played.to_dict() == g.to_dict() and played.created == setup


# ----- through the API, on both databases ------------------------------------------------


async def test_the_first_player_seated_is_the_head_shown_to_every_seat_and_it_passes_on(
    client: Client,
) -> None:
    _rule(OPCIONES)
    gid = await _table(client)
    ana, bia = _players()
    bia_token = await _join(client, gid, 1, bia)  # the first to sit: seat 1
    ana_token = await _join(client, gid, 0, ana)
    for token in (ana_token, bia_token):
        view = await seat_view(client, gid, token)
        assert view.head_seat == 1
        assert [s.head for s in view.seats] == [False, True]
    listed = await client.stub.ListGames(pb.ListGamesRequest(), metadata=client.app())
    assert [g.head_seat for g in listed.games if g.game_id == gid] == [1]
    # The head leaves: the role passes to the next player seated.
    await client.stub.LeaveGame(pb.LeaveGameRequest(game_id=gid), metadata=client.player(bia_token))
    view = await seat_view(client, gid, ana_token)
    assert view.head_seat == 0 and view.seats[0].head


async def test_the_head_changes_the_options_before_the_start_and_every_seat_sees_it(
    client: Client,
) -> None:
    _rule(CAMBIAR)
    _rule(ICONO)
    gid = await _table(client, pb.TableOptions(turn_seconds=60))
    ana, bia = _players()
    ana_token = await _join(client, gid, 0, ana)
    bia_token = await _join(client, gid, 1, bia)
    before = await seat_view(client, gid, bia_token)
    assert before.options_version == 0 and "target_score" not in before.rules.overrides
    changed = await _update(
        client,
        gid,
        ana_token,
        pb.TableOptions(turn_seconds=30, express=True, chat=pb.CHAT_MODE_PHRASES),
        spectators_allowed=True,
        expected_version=before.version,
    )
    seen = await seat_view(client, gid, bia_token)
    assert seen.version == changed.version == before.version + 1
    # The icon turns red: the options' version moved; the options are the new ones.
    assert seen.options_version == seen.version
    assert seen.table.turn_seconds == 30 and seen.table.express
    assert seen.table.chat == pb.CHAT_MODE_PHRASES and seen.spectators_allowed
    assert seen.rules.overrides["target_score"].int_value == 0  # 003's Exprés: a single deal
    # Nothing of stake or rated play changed: nobody has to agree again; it starts.
    assert not any(s.consent_pending for s in seen.seats)
    started = await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    assert started.view.status == pb.GAME_STATUS_PLAYING
    # Once a deal is under way: refused, nothing changed.
    await refused(
        _update(client, gid, ana_token, pb.TableOptions(turn_seconds=60)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_STARTED",
    )
    assert (await seat_view(client, gid, ana_token)).table.turn_seconds == 30


async def test_a_new_stake_needs_every_seated_players_consent_before_the_start(
    client: Client, server: Running
) -> None:
    _rule(OPCIONES)
    await _allow_stakes(client)
    gid = await _table(client, pb.TableOptions(competitive=True))
    ana, bia = _players()
    players = ppb_grpc.PlayerServiceStub(client.channel)
    for who in (ana, bia):
        await players.GrantChips(
            ppb.GrantChipsRequest(player_id=who, amount=100, grant_id=f"g-{who}"),
            metadata=client.app(),
        )
    ana_token = await _join(client, gid, 0, ana)
    bia_token = await _join(client, gid, 1, bia)
    await _update(client, gid, ana_token, pb.TableOptions(competitive=True, stake=40))
    view = await seat_view(client, gid, bia_token)
    assert view.table.stake == 40
    assert [s.consent_pending for s in view.seats] == [False, True]  # the head agreed
    await refused(
        client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app()),
        grpc.StatusCode.FAILED_PRECONDITION,
        "CONSENT_PENDING",
    )
    # The head has nothing to agree to; the other seat agrees.
    await refused(
        client.stub.ConsentToOptions(
            pb.ConsentToOptionsRequest(game_id=gid), metadata=client.player(ana_token)
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "NO_CONSENT_PENDING",
    )
    agreed = await client.stub.ConsentToOptions(
        pb.ConsentToOptionsRequest(game_id=gid, request_id="c1"),
        metadata=client.player(bia_token),
    )
    assert not any(s.consent_pending for s in agreed.view.seats)
    await client.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=client.app())
    # The start staked the new stake.
    for who in (ana, bia):
        got = await players.GetPlayer(ppb.GetPlayerRequest(player_id=who), metadata=client.app())
        assert got.chips == 60, who
    await _replays_to_its_snapshot(server, gid)


async def _replays_to_its_snapshot(running: Running, gid: str) -> None:
    """The log, folded from the setup as created (the store keeps it so), rebuilds the
    stored snapshot: the head's changes are in the log, not in the setup."""
    stored = await running.store.game(gid)
    rows = await running.store.log(gid)
    replayed = rebuild(await running.store.setup_of(gid), [r.action for r in rows])
    assert replayed.to_dict(with_setup=False) == stored.state.to_dict(with_setup=False)
    assert replayed.setup == stored.state.setup


async def test_changes_by_others_during_a_deal_or_beyond_the_policy_are_refused_unchanged(
    client: Client,
) -> None:
    await _allow_stakes(client, max_stake=50)
    gid = await _table(client, pb.TableOptions(robot_grace_seconds=30))
    ana, bia = _players()
    ana_token = await _join(client, gid, 0, ana)
    bia_token = await _join(client, gid, 1, bia)
    before = await seat_view(client, gid, ana_token)
    same = pb.TableOptions(robot_grace_seconds=30)
    cases = [
        # Not the head.
        (bia_token, pb.TableOptions(robot_grace_seconds=30, turn_seconds=9), 0,
         grpc.StatusCode.PERMISSION_DENIED, "NOT_TABLE_HEAD"),
        # Beyond the app's policy (the check CreateGame makes).
        (ana_token, pb.TableOptions(robot_grace_seconds=30, competitive=True, stake=60), 0,
         grpc.StatusCode.PERMISSION_DENIED, "STAKE_NOT_ALLOWED"),
        # Incoherent values (CreateGame refuses them too).
        (ana_token, pb.TableOptions(robot_grace_seconds=30, express=True, point_limit=500), 0,
         grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        (ana_token, pb.TableOptions(robot_grace_seconds=30, stake=5), 0,
         grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        # An option only CreateGame sets.
        (ana_token, pb.TableOptions(robot_grace_seconds=60), 0,
         grpc.StatusCode.FAILED_PRECONDITION, "OPTION_FIXED"),
        # A stale version.
        (ana_token, same, before.version - 1,
         grpc.StatusCode.ABORTED, None),
    ]  # fmt: skip
    for token, table, expected, code, reason in cases:
        await refused(_update(client, gid, token, table, expected_version=expected), code, reason)
    # An app's key is no head either.
    await refused(
        client.stub.UpdateTableOptions(
            pb.UpdateTableOptionsRequest(game_id=gid, table=same), metadata=client.app()
        ),
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_TABLE_HEAD",
    )
    after = await seat_view(client, gid, ana_token)
    assert after.version == before.version and after.options_version == 0
    assert after.table == before.table


async def test_a_table_its_head_makes_private_leaves_the_lobby(client: Client) -> None:
    gid = await _table(client)
    ana, _ = _players()
    token = await _join(client, gid, 0, ana)

    async def listed() -> bool:
        tables = await client.stub.ListOpenTables(pb.ListOpenTablesRequest(), metadata=client.app())
        return gid in [t.game_id for t in tables.tables]

    assert await listed()
    await _update(client, gid, token, pb.TableOptions(private=True))
    assert not await listed()
    await _update(client, gid, token, pb.TableOptions(private=False))
    assert await listed()


async def test_a_tournament_table_keeps_the_organisers_options(
    client: Client, server: Running
) -> None:
    org = Organiser(client, server)
    created = await org.create(ppb.TOURNAMENT_FORMAT_ROUND_ROBIN, 2)
    table = (await org.start(created.tournament_id, 1)).tables[0]
    views = [await seat_view(client, table.game_id, s.player_token) for s in table.seats]
    head = views[0].head_seat
    assert head >= 0
    token = next(s.player_token for s in table.seats if s.seat == head)
    await refused(
        _update(client, table.game_id, token, pb.TableOptions(turn_seconds=5)),
        grpc.StatusCode.PERMISSION_DENIED,
        "TOURNAMENT_TABLE",
    )
    after = await seat_view(client, table.game_id, token)
    assert after.version == views[0].version and after.options_version == 0


# ----- two replicas, both databases ------------------------------------------------------


@pytest.fixture
async def two_replicas(db_url: str) -> AsyncIterator[list[Running]]:
    async with running_servers(2, server_config(db_url, sweep_interval=0)) as servers:
        yield servers


async def test_the_head_changing_the_stake_while_a_player_joins_on_two_replicas(
    two_replicas: list[Running],
) -> None:
    """Both go through the game's compare-and-swap: no lost update, and a join that
    lands after the change (asked for on the old stake) has not agreed to it."""
    async with (
        app_client(two_replicas[0]) as first,
        grpc.aio.insecure_channel(f"127.0.0.1:{two_replicas[1].port}") as channel,
    ):
        second = Client(channel, first.api_key)
        await _allow_stakes(first)
        for _ in range(6):
            gid = await _table(first, pb.TableOptions(competitive=True))
            ana, bia = _players()
            players = ppb_grpc.PlayerServiceStub(first.channel)
            for who in (ana, bia):  # a join after the change is checked against the stake
                await players.GrantChips(
                    ppb.GrantChipsRequest(player_id=who, amount=50, grant_id=f"g-{who}"),
                    metadata=first.app(),
                )
            ana_token = await _join(first, gid, 0, ana)
            _, bia_token = await asyncio.gather(
                _update(first, gid, ana_token, pb.TableOptions(competitive=True, stake=20)),
                _join(second, gid, 1, bia),
            )
            view = await seat_view(second, gid, bia_token)
            # Both changes are in: the seat is taken and the stake is the new one.
            assert view.version == 3 and view.seats[1].taken and view.table.stake == 20
            log = await first.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=first.app())
            kinds = [m.move.text for m in log.moves]
            assert sorted(kinds) == ["join", "join", "options"]
            joined_first = kinds.index("join", 1) < kinds.index("options")
            if joined_first:
                assert view.seats[1].consent_pending  # the change came after the seat
            if view.seats[1].consent_pending:
                await refused(
                    first.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=first.app()),
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "CONSENT_PENDING",
                )
            await _replays_to_its_snapshot(two_replicas[1], gid)


async def test_the_head_cannot_make_rated_a_table_where_a_seat_has_no_player_id(
    client: Client,
) -> None:
    # A rated match rates and pays every seat's player, so JoinGame refuses a seat
    # without a player id at a rated table; the head's change refuses it the same way.
    await _allow_stakes(client)
    gid = await _table(client)
    ana, _ = _players()
    ana_token = await _join(client, gid, 0, ana)
    await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, seat=1, player_name="anonymous"), metadata=client.app()
    )
    await refused(
        _update(client, gid, ana_token, pb.TableOptions(competitive=True)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "PLAYER_ID_REQUIRED",
    )
    after = await seat_view(client, gid, ana_token)
    assert not after.table.competitive and after.options_version == 0
