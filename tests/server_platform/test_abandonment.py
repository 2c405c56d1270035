"""Abandonment (issue 40, point 3), through the gRPC API on SQLite and PostgreSQL.

003 ("Finalizar la partida de forma amistosa"): "Además, las fichas apostadas son
devueltas a cada jugador (excepto si han sido penalizados por abandono)." 003
("Robot"): "En algunos juegos, cuando un jugador pierde la conexión durante la
partida, un robot lo sustituye hasta que vuelve a entrar. El jugador tiene un margen
de unos minutos para regresar a la partida y continuar jugando."

Leaving a rated match under way, or a robot holding the seat for longer than the
app's grace, is an abandonment: the app's penalty (ranking points, rated as a loss,
an annulment's stake kept, quick play's cooldown) lands once with the settlement,
and the player's count shows in their profile. A player in automatic mode by their
own choice is not abandoning.

The servers run no sweeper of their own: each test sweeps and settles when it wants.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest

from tests.harness.clients import Client
from tests.harness.servers import app_client, running_server, server_config
from tests.server.api_calls import refused
from tests.server_platform.test_timers_robots import forget_deadlines, play_turn
from tranca.server import Running
from tranca.store.database import make_engine
from tranca.store.repository import Store
from tranca.v1 import game_pb2 as pb
from tranca.v1 import progression_pb2 as xpb
from tranca.v1 import progression_pb2_grpc as xpb_grpc
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc
from tranca.v1 import tables_pb2 as tpb
from tranca.v1 import tables_pb2_grpc as tpb_grpc

from .staking import Platform, balance_of, ledger_problems, settle_pending

ANULAR = (
    "Además, las fichas apostadas son devueltas a cada jugador (excepto si han sido "
    "penalizados por abandono)."
)
ROBOT = (
    "En algunos juegos, cuando un jugador pierde la conexión durante la partida, un "
    "robot lo sustituye hasta que vuelve a entrar. El jugador tiene un margen de unos "
    "minutos para regresar a la partida y continuar jugando."
)
GRACE_S = 1  # the app's abandonment grace in these tests
# Past the grace, with room for SQLite's timestamps, which keep whole seconds.
AWAY_S = GRACE_S + 1.6


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[Running]:
    async with running_server(server_config(db_url, sweep_interval=0)) as running:
        await forget_deadlines(running)
        yield running


@pytest.fixture
async def platform(client: Client, server: Running) -> Platform:
    return await Platform.of(client, server)


async def set_policy(
    client: Client,
    *,
    points: int = 0,
    cooldown: int = 600,
    stake_kept: bool = True,
    rated_loss: bool = True,
    automatic_rated: bool = True,
) -> spb.AppPolicy:
    sessions = spb_grpc.SessionServiceStub(client.channel)
    md = client.app()
    policy = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=md)).policy
    policy.abandonment_penalty.CopyFrom(
        spb.AbandonmentPenalty(
            ranking_points=points,
            rated_loss=rated_loss,
            stake_kept=stake_kept,
            cooldown_seconds=cooldown,
        )
    )
    policy.abandonment_grace_seconds = GRACE_S
    policy.automatic_rated = automatic_rated
    policy.competitive = True
    policy.max_stake = 1000
    saved = await sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=md)
    return saved.policy


async def session_of(client: Client, player: str) -> tuple[tuple[str, str], ...]:
    sessions = spb_grpc.SessionServiceStub(client.channel)
    opened = await sessions.CreatePlayerSession(
        spb.CreatePlayerSessionRequest(player_id=player, display_name=player.title()),
        metadata=client.app(),
    )
    return (("authorization", f"Bearer {opened.session.access_token}"),)


async def profile(client: Client, player: str) -> spb.Profile:
    sessions = spb_grpc.SessionServiceStub(client.channel)
    md = await session_of(client, player)
    return (await sessions.GetProfile(spb.GetProfileRequest(), metadata=md)).profile


async def ask_quick_play(client: Client, player: str) -> qpb.AskQuickPlayResponse:
    stub = qpb_grpc.QuickPlayServiceStub(client.channel)
    return await stub.AskQuickPlay(
        qpb.AskQuickPlayRequest(
            preset="tranca-003", players=2, competitive=True, player_ids=[player]
        ),
        metadata=client.app(),
    )


async def robots_table(
    p: Platform, stake: int = 50, players: tuple[str, ...] = ("ana", "bea")
) -> tuple[str, list[str]]:
    """A rated, staked table with robots for silent players and annulment."""
    created = await p.game.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-003"),
            players=len(players),
            seed=11,
            table=pb.TableOptions(
                competitive=True,
                stake=stake,
                robot_grace_seconds=GRACE_S,
                annulment_allowed=True,
            ),
        ),
        metadata=p.md,
    )
    gid = created.game.game_id
    tokens = [
        await p.join(gid, seat, name, f"10.0.1.{seat + 1}") for seat, name in enumerate(players)
    ]
    await p.start(gid)
    return gid, tokens


async def view(p: Platform, gid: str) -> pb.GameView:
    return (await p.game.GetView(pb.GetViewRequest(game_id=gid), metadata=p.md)).view


async def bea_taken_over(p: Platform, server: Running, gid: str, tokens: list[str]) -> None:
    """Ana plays (present); bea says nothing: at her turn, past the table's grace, a
    robot takes her seat and plays it; then it holds the seat past the app's grace."""
    if (await view(p, gid)).turn == 0:
        await play_turn(p.client, gid, tokens[0])
    await asyncio.sleep(GRACE_S + 0.2)
    assert await server.new_sweeper().sweep_timers() == 1
    shown = await view(p, gid)
    assert shown.seats[1].robot and not shown.seats[1].automatic
    await asyncio.sleep(AWAY_S)


async def test_leaving_a_rated_match_is_an_abandonment(platform: Platform, client: Client) -> None:
    """LeaveGame under way: the loss, the app's ranking points taken, counted in the
    profile (own and public), and quick play refused for the cooldown with the time
    left; the other player is not penalised."""
    p = platform
    await set_policy(client, points=5, cooldown=600)
    table = await p.table(["ana", "bea"])
    await p.resign(table, 1)  # bea leaves: ana wins
    await p.settle()
    await p.settle()  # a second settlement finds nothing to do: exactly once
    ana, bea = await p.player("ana"), await p.player("bea")
    assert (ana.matches, ana.wins, ana.ranking_points) == (1, 1, 40)
    # 003's loser's 5 points, less the app's penalty of 5.
    assert (bea.matches, bea.wins, bea.ranking_points) == (1, 0, 0)
    shown = await profile(client, "bea")
    assert shown.abandonments == 1 and shown.cooldown_until_ms > 0
    assert (await profile(client, "ana")).abandonments == 0
    # The public profile shows the count (once the player set a profile).
    sessions = spb_grpc.SessionServiceStub(client.channel)
    await sessions.UpdateProfile(
        spb.UpdateProfileRequest(display_name="Bea"), metadata=await session_of(client, "bea")
    )
    public = await sessions.GetPlayerProfile(
        spb.GetPlayerProfileRequest(player_id="bea"), metadata=client.app()
    )
    assert public.profile.abandonments == 1 and public.profile.cooldown_until_ms == 0

    e = await refused(
        ask_quick_play(client, "bea"), grpc.StatusCode.FAILED_PRECONDITION, "ABANDONMENT_COOLDOWN"
    )
    assert "quick play again in" in (e.details() or "")  # the time left is given
    assert (await ask_quick_play(client, "ana")).ticket.ticket_id
    # Practice is open to her: nothing of the others is at stake there.
    practice = await qpb_grpc.QuickPlayServiceStub(client.channel).AskQuickPlay(
        qpb.AskQuickPlayRequest(preset="tranca-003", players=2, player_ids=["bea"]),
        metadata=client.app(),
    )
    assert practice.ticket.ticket_id


async def test_an_annulment_keeps_the_stake_of_a_player_penalised_for_abandonment(
    platform: Platform, client: Client, server: Running
) -> None:
    """003: "Además, las fichas apostadas son devueltas a cada jugador (excepto si han
    sido penalizados por abandono)"; "El jugador tiene un margen de unos minutos para
    regresar": bea's robot holds her seat past the app's grace, the others annul, and
    her stake stays with the house while ana's comes back."""
    assert "excepto si han sido penalizados por abandono" in ANULAR
    assert "un margen de unos minutos para regresar" in ROBOT
    p = platform
    await set_policy(client)
    await p.grant("ana", 200)
    await p.grant("bea", 200)
    gid, tokens = await robots_table(p)
    await bea_taken_over(p, server, gid, tokens)
    # The robot does not vote: ana's vote annuls the match.
    done = await p.game.VoteAnnul(
        pb.VoteAnnulRequest(game_id=gid, request_id="a"), metadata=p.client.player(tokens[0])
    )
    assert done.annulled
    await p.settle()
    assert await p.chips("ana") == 200  # her stake back
    assert await p.chips("bea") == 150  # kept: penalised for abandonment
    assert await balance_of(server, p.app_id, "house") == 50
    assert (await p.entries("bea"))[0].purpose == "stake"
    assert (await profile(client, "bea")).abandonments == 1
    assert (await profile(client, "ana")).abandonments == 0
    bea = await p.player("bea")
    assert (bea.matches, bea.ranking_points, bea.rating.games) == (0, 0, 0)  # annulled
    assert await ledger_problems(server, p.app_id) == []


async def test_a_player_back_within_the_grace_or_in_automatic_mode_is_not_abandoning(
    platform: Platform, client: Client, server: Running
) -> None:
    """003: "un robot lo sustituye hasta que vuelve a entrar": bea takes her seat back
    within the grace, then puts it in automatic mode by her own choice for longer than
    the grace; the annulment gives every stake back and nobody is penalised."""
    p = platform
    await set_policy(client)
    await p.grant("ana", 200)
    await p.grant("bea", 200)
    gid, tokens = await robots_table(p)
    if (await view(p, gid)).turn == 0:
        await play_turn(p.client, gid, tokens[0])
    await asyncio.sleep(GRACE_S + 0.2)
    assert await server.new_sweeper().sweep_timers() == 1  # the takeover
    await p.game.ReclaimSeat(
        pb.ReclaimSeatRequest(game_id=gid, request_id="back"), metadata=p.client.player(tokens[1])
    )
    on = await p.game.SetAutomatic(
        pb.SetAutomaticRequest(game_id=gid, on=True, request_id="auto"),
        metadata=p.client.player(tokens[1]),
    )
    assert on.view.seats[1].automatic
    await asyncio.sleep(AWAY_S)
    done = await p.game.VoteAnnul(
        pb.VoteAnnulRequest(game_id=gid, request_id="a"), metadata=p.client.player(tokens[0])
    )
    assert done.annulled
    await p.settle()
    assert await p.chips("ana") == await p.chips("bea") == 200
    assert (await profile(client, "bea")).abandonments == 0


async def test_away_past_the_grace_is_rated_as_a_loss_whatever_the_result(
    platform: Platform, client: Client, server: Running
) -> None:
    """Bea's robot holds her seat past the grace; then ana leaves: both abandoned.
    Bea's side wins, yet she is rated as having lost and wins nothing of the match's
    ranking points but 40 less the penalty; ana's loss costs the penalty too."""
    p = platform
    await set_policy(client, points=5)
    gid, tokens = await robots_table(p, stake=0)
    await bea_taken_over(p, server, gid, tokens)
    await p.game.LeaveGame(pb.LeaveGameRequest(game_id=gid), metadata=p.client.player(tokens[0]))
    await p.settle()
    ana, bea = await p.player("ana"), await p.player("bea")
    assert bea.rating.mu < 25.0 and ana.rating.mu < 25.0  # both rated as losses
    assert (bea.matches, bea.wins, bea.ranking_points) == (1, 0, 35)
    assert (ana.matches, ana.wins, ana.ranking_points) == (1, 0, 0)
    assert (await profile(client, "ana")).abandonments == 1
    assert (await profile(client, "bea")).abandonments == 1
    # Nor does bea's side's win earn her a winner's XP or count as a win of hers
    # (003: "El ganador de la partida consigue los puntos XP").
    progress = await xpb_grpc.ProgressionServiceStub(client.channel).GetProgression(
        xpb.GetProgressionRequest(player_id="bea"), metadata=client.app()
    )
    assert progress.xp == 0
    assert [a.progress for a in progress.achievements if a.achievement.counter == "wins"] == [0]


async def test_automatic_mode_does_not_spare_an_abandoner_the_penalty_of_a_rated_match(
    platform: Platform, client: Client
) -> None:
    """The app does not rate a match played partly automatic. Ana puts her seat in
    automatic mode, then leaves: her own automatic mode does not unrate the match she
    abandoned, so she is rated as a loss and pays the points penalty."""
    p = platform
    await set_policy(client, points=5, automatic_rated=False)
    gid, tokens = await robots_table(p, stake=0)
    await p.game.SetAutomatic(
        pb.SetAutomaticRequest(game_id=gid, on=True), metadata=p.client.player(tokens[0])
    )
    await p.game.LeaveGame(pb.LeaveGameRequest(game_id=gid), metadata=p.client.player(tokens[0]))
    await p.settle()
    ana, bea = await p.player("ana"), await p.player("bea")
    assert ana.rating.mu < 25.0 < bea.rating.mu
    assert (ana.matches, ana.ranking_points) == (1, 0)  # a loss's 5 less the penalty's 5
    assert (bea.matches, bea.wins, bea.ranking_points) == (1, 1, 40)
    assert (await profile(client, "ana")).abandonments == 1


async def test_an_absence_is_measured_to_the_end_of_the_match_not_to_a_later_rematch(
    platform: Platform, client: Client, server: Running
) -> None:
    """A robot has just taken bea's silent seat when ana leaves: bea was away for less
    than the grace when the match ended. Ana then confirms a rematch well past the
    grace, before the match is settled: bea's absence ends with the match, not with
    the confirmation logged after it, so only ana abandoned."""
    p = platform
    await set_policy(client)
    gid, tokens = await robots_table(p, stake=0)
    if (await view(p, gid)).turn == 0:
        await play_turn(p.client, gid, tokens[0])
    await asyncio.sleep(GRACE_S + 0.2)
    assert await server.new_sweeper().sweep_timers() == 1  # bea's seat taken over
    await p.game.LeaveGame(pb.LeaveGameRequest(game_id=gid), metadata=p.client.player(tokens[0]))
    await asyncio.sleep(AWAY_S)
    confirmed = await tpb_grpc.TableServiceStub(client.channel).Rematch(
        tpb.RematchRequest(game_id=gid), metadata=p.client.player(tokens[0])
    )
    assert confirmed.created
    await p.settle()
    assert (await profile(client, "ana")).abandonments == 1
    assert (await profile(client, "bea")).abandonments == 0


@pytest.mark.parametrize("rated", [True, False])
async def test_whether_a_match_played_automatic_is_rated_is_the_apps(
    platform: Platform, client: Client, server: Running, rated: bool
) -> None:
    """Both players put their seats in automatic mode at an express table; the robots
    play the deal to its end. The app's ``automatic_rated`` says whether the match is
    rated (ratings, ranking points); the stake goes to the winner either way, and
    nobody abandoned."""
    p = platform
    await set_policy(client, automatic_rated=rated)
    await p.grant("ana", 200)
    await p.grant("bea", 200)
    created = await p.game.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset="tranca-003"),
            players=2,
            seed=5,
            table=pb.TableOptions(competitive=True, stake=50, express=True),
        ),
        metadata=p.md,
    )
    gid = created.game.game_id
    tokens = [await p.join(gid, s, n, f"10.0.2.{s}") for s, n in enumerate(["ana", "bea"])]
    await p.start(gid)
    for token in tokens:
        await p.game.SetAutomatic(
            pb.SetAutomaticRequest(game_id=gid, on=True), metadata=p.client.player(token)
        )
    sweeper = server.new_sweeper()
    for _ in range(2000):
        if (await view(p, gid)).status == pb.GAME_STATUS_FINISHED:
            break
        await sweeper.sweep_timers()
    final = await view(p, gid)
    assert final.status == pb.GAME_STATUS_FINISHED
    assert all(s.was_automatic for s in final.seats)
    await p.settle()
    ana, bea = await p.player("ana"), await p.player("bea")
    assert ana.chips + bea.chips == 400 - 25  # the pot paid, less the house's 25%
    if rated:
        assert ana.matches == bea.matches == 1
        assert ana.ranking_points + bea.ranking_points in (20 + 5, 40)
    else:
        assert ana.matches == bea.matches == 0
        assert ana.ranking_points == bea.ranking_points == 0
    assert (await profile(client, "ana")).abandonments == 0


async def test_the_penalty_settings_are_checked(client: Client) -> None:
    """Values outside the policy's bounds are refused and change nothing."""
    sessions = spb_grpc.SessionServiceStub(client.channel)
    md = client.app()
    policy = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=md)).policy
    # The defaults, each written down in docs/platform/automatic-and-abandonment.md.
    assert policy.abandonment_grace_seconds == 180
    assert policy.automatic_rated and policy.automatic_robot_level == "greedy"
    assert policy.abandonment_penalty == spb.AbandonmentPenalty(
        ranking_points=0, rated_loss=True, stake_kept=True, cooldown_seconds=300
    )
    for change in (
        {"abandonment_grace_seconds": 0},
        {"automatic_robot_level": "genius"},
    ):
        bad = spb.AppPolicy()
        bad.CopyFrom(policy)
        for k, v in change.items():
            setattr(bad, k, v)
        await refused(
            sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=bad), metadata=md),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
    bad = spb.AppPolicy()
    bad.CopyFrom(policy)
    bad.abandonment_penalty.ranking_points = -1
    await refused(
        sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=bad), metadata=md),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    after = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=md)).policy
    assert after == policy


async def test_an_abandonment_is_penalised_once_when_two_replicas_settle_together(
    pg_url: str,
) -> None:
    """Two replicas on one PostgreSQL settle the same finished match at once: the
    abandonment is counted once and its points taken once (the settlement's one
    transaction per match)."""
    async with (
        running_server(server_config(pg_url, sweep_interval=0)) as running,
        app_client(running) as client,
    ):
        p = await Platform.of(client, running)
        await set_policy(client, points=5)
        tables = [await p.table([f"a{i}", f"b{i}"]) for i in range(3)]
        for table in tables:
            await p.resign(table, 1)
        replica = Store(make_engine(pg_url))
        try:
            await asyncio.gather(settle_pending(running.store), settle_pending(replica))
            await asyncio.gather(settle_pending(running.store), settle_pending(replica))
        finally:
            await replica.close()
        await p.settle()
        for i in range(3):
            assert (await p.player(f"b{i}")).ranking_points == 0  # 5 less 5, once
            assert (await profile(client, f"b{i}")).abandonments == 1
