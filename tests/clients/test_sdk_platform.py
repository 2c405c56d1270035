"""The Python SDK's platform calls against a real server (SQLite and PostgreSQL): table
options and invite codes, a seat's table actions (heartbeat, annulment, entropy),
players' chips, ratings and leaderboards, and a tournament round, each with the typed
error an app must handle."""

from __future__ import annotations

import pytest

from tests.server_platform.staking import settle_all
from tranca.server import Running
from tranca_client import AsyncTrancaClient, PermissionDenied, RuleRejected, pb, ppb

SINGLE_DEAL = {"target_score": 0}


async def test_a_private_table_seats_only_the_invited_and_lists_as_closed(
    app: AsyncTrancaClient,
) -> None:
    created = await app.create_table(
        "tranca-000", 2, overrides=SINGLE_DEAL, table=pb.TableOptions(private=True, turn_seconds=30)
    )
    gid = created.game.game_id
    assert created.invite_code
    assert created.game.table.private and created.game.table.turn_seconds == 30
    with pytest.raises(PermissionDenied) as refused:
        await app.join(gid, 0, player_name="gatecrasher")
    assert refused.value.reason == "INVITE_REQUIRED"
    seat = await app.join(gid, 0, player_name="ana", invite_code=created.invite_code)
    assert seat.seat == 0
    listed = await app.list_games(open_only=True)
    assert gid not in [g.game_id for g in listed.games]


async def test_a_seat_heartbeats_votes_to_annul_and_the_annulment_is_seen(
    app: AsyncTrancaClient,
) -> None:
    game = await app.create_game(
        "tranca-000",
        2,
        table=pb.TableOptions(annulment_allowed=True, robot_grace_seconds=60),
    )
    seats = [await app.join(game.game_id, i, player_name=f"p{i}") for i in range(2)]
    await app.start_game(game.game_id)
    assert await seats[0].heartbeat(game.game_id) is False  # no robot holds the seat
    first = await seats[0].vote_annul(game.game_id)
    assert (list(first.votes), first.annulled) == ([0], False)
    with pytest.raises(RuleRejected) as again:
        await seats[0].vote_annul(game.game_id)
    assert again.value.reason == "ALREADY_VOTED"
    last = await seats[1].vote_annul(game.game_id)
    assert last.annulled
    view = await seats[0].get_view(game.game_id)
    assert view.match_result.reason == "annulled" and view.match_result.winner_side == -1


async def test_entropy_is_mixed_into_a_verifiable_table_before_the_start(
    app: AsyncTrancaClient,
) -> None:
    game = await app.create_game("tranca-000", 2, table=pb.TableOptions(verifiable=True))
    seat = await app.join(game.game_id, 0, player_name="ana")
    commitment = await seat.add_entropy(game.game_id, "ana's lucky string")
    assert commitment.deal_number == 1 and len(commitment.commitment) == 64
    assert list(commitment.entropy) == ["ana's lucky string"]
    view = await app.get_view(game.game_id)
    assert view.commitment.commitment == commitment.commitment


async def test_chips_stakes_and_ratings_of_a_competitive_match(
    app: AsyncTrancaClient, server: Running
) -> None:
    for player in ("ana", "bia"):
        assert await app.grant_chips(player, 100, f"welcome-{player}") == 100
    assert await app.grant_chips("ana", 100, "welcome-ana") == 100  # a retry grants nothing
    game = await app.create_game(
        "tranca-000",
        2,
        overrides=SINGLE_DEAL,
        table=pb.TableOptions(competitive=True, stake=40),
    )
    seats = [
        await app.join(game.game_id, i, player_name=p, player_id=p, player_address=f"10.0.0.{i}")
        for i, p in enumerate(("ana", "bia"))
    ]
    await app.start_game(game.game_id)
    assert (await app.get_player("ana")).chips == 60
    await seats[1].leave_game(game.game_id)  # bia resigns: ana's side wins
    await settle_all(server.store)  # (the server's own sweeper may be doing it too)
    ana, bia = await app.get_player("ana"), await app.get_player("bia")
    # 003: the winner takes the pot, "la banca percibe un 25% del bote": 80 - 20.
    assert (ana.chips, bia.chips) == (60 + 60, 60)
    assert ana.rating.mu > bia.rating.mu
    assert (ana.ranking_points, bia.ranking_points) == (20, 5)  # express: 20, a loss: 5
    board = await app.leaderboard(ppb.LEADERBOARD_KIND_RANKING_POINTS, ppb.PERIOD_DAY)
    assert [e.player_id for e in board] == ["ana", "bia"]
    entries = await app.chip_entries("ana")
    assert [e.purpose for e in entries.entries] == ["payout", "stake", "grant"]


async def test_a_tournament_round_is_started_and_a_forfeit_recorded(
    app: AsyncTrancaClient,
) -> None:
    tournament = await app.create_tournament(
        ppb.CreateTournamentRequest(
            name="club night",
            format=ppb.TOURNAMENT_FORMAT_ROUND_ROBIN,
            entrants=[ppb.Entrant(id=p, player_ids=[p]) for p in ("ana", "bia", "caio", "duda")],
            table_size=2,
            rules=pb.Rules(preset="tranca-000"),
        )
    )
    first = await app.start_round(tournament.tournament_id, 1)
    assert len(first.tables) == 2
    assert all(s.player_token for t in first.tables for s in t.seats)
    after = await app.record_forfeit(tournament.tournament_id, 1, 1, ppb.TABLE_OUTCOME_A_FORFEITS)
    assert after.rounds[0].tables[0].outcome == ppb.TABLE_OUTCOME_A_FORFEITS
    assert after.status == ppb.TOURNAMENT_STATUS_RUNNING


async def test_a_player_who_cannot_cover_the_stake_is_not_seated(app: AsyncTrancaClient) -> None:
    game = await app.create_game("tranca-000", 2, table=pb.TableOptions(competitive=True, stake=50))
    await app.grant_chips("rich", 50, "gift-rich")
    await app.grant_chips("poor", 49, "gift-poor")
    await app.join(game.game_id, 0, player_name="rich", player_id="rich")
    # 003: "necesitarás disponer de suficientes fichas para cubrir la apuesta".
    with pytest.raises(RuleRejected) as refused:
        await app.join(game.game_id, 1, player_name="poor", player_id="poor")
    assert refused.value.reason == "INSUFFICIENT_CHIPS"
    view = await app.get_view(game.game_id)
    assert [s.taken for s in view.seats] == [True, False]
