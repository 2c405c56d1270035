"""TournamentService's table results through a real gRPC channel, on SQLite and
PostgreSQL: forfeits and no-shows, withdrawals, annulled and drawn games, knockout
ties, and tables whose games never start or go on after a forfeit.

Games end by resignation (LeaveGame with a seat's token once the game is under way)
and reach the tournament through the settlement, as on a running server.
"""

from __future__ import annotations

import uuid

import grpc
import pytest

from tranca.server import Running
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import platform_pb2 as pb
from tranca.v1 import platform_pb2_grpc as pb_grpc

from ..server.conftest import Client
from .tournament_helpers import (
    Code,
    Organiser,
    check_standings,
    draw_game,
    error_reason,
    grant,
    view_as,
)


@pytest.fixture
async def org(client: Client, server: Running) -> Organiser:
    return Organiser(client, server)


# ----- forfeits, no-shows, withdrawals --------------------------------------------------------


async def test_forfeits_and_no_shows(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 6, rounds=2)
    tid = created.tournament_id
    rnd = await org.start(tid, 1)
    one, two, three = rnd.tables
    # Table 1: A does not show up. Its game, once resigned by B, changes nothing: the
    # table keeps the organiser's result.
    await org.forfeit(tid, 1, 1, pb.TABLE_OUTCOME_A_FORFEITS)
    await org.resign(one, 1)
    await org.settle([one.game_id])
    # Table 2: nobody shows up. Table 3 is played out.
    await org.forfeit(tid, 1, 2, pb.TABLE_OUTCOME_DOUBLE_NO_SHOW)
    retried = await org.forfeit(tid, 1, 2, pb.TABLE_OUTCOME_DOUBLE_NO_SHOW)  # idempotent
    assert retried == await org.get(tid)
    await org.resign(three, 0)
    await org.settle([three.game_id])
    t = await org.get(tid)
    outcomes = [tb.outcome for tb in t.rounds[0].tables]
    assert outcomes == [
        pb.TABLE_OUTCOME_A_FORFEITS,
        pb.TABLE_OUTCOME_DOUBLE_NO_SHOW,
        pb.TABLE_OUTCOME_B_WINS,
    ]
    by = {s.entrant: s for s in t.standings}
    assert (by[one.entrant_a].forfeits, by[one.entrant_a].losses) == (1, 1)
    assert (by[one.entrant_b].points, by[one.entrant_b].forfeits) == (1, 0)
    for e in (two.entrant_a, two.entrant_b):
        assert (by[e].points, by[e].losses, by[e].forfeits) == (0, 1, 1)
    check_standings(t)
    # Refusals: not a forfeit, another round, a table that does not exist.
    for request, code, reason in [
        ((1, 1, pb.TABLE_OUTCOME_A_WINS), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
        ((2, 1, pb.TABLE_OUTCOME_A_FORFEITS), Code.FAILED_PRECONDITION, "ROUND_NOT_CURRENT"),
        ((1, 9, pb.TABLE_OUTCOME_A_FORFEITS), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
    ]:
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await org.forfeit(tid, *request)
        assert (exc.value.code(), error_reason(exc.value)) == (code, reason)
    # A result from round 1's game arriving after round 2 started is ignored.
    await org.start(tid, 2)
    await org.resign(two, 0)
    await org.settle([two.game_id])
    assert (await org.get(tid)).rounds[0].tables[1].outcome == pb.TABLE_OUTCOME_DOUBLE_NO_SHOW


async def test_withdrawn_entrant_is_paired_no_more(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4)
    tid = created.tournament_id
    rnd = await org.start(tid, 1)
    await org.play_round(tid, rnd)
    t = await org.stub.WithdrawEntrant(
        pb.WithdrawEntrantRequest(tournament_id=tid, entrant="e03"), metadata=org.md
    )
    before = {s.entrant: s for s in t.tournament.standings}
    assert before["e03"].withdrawn
    rnd2 = await org.start(tid, 2)
    seated = {e for tb in rnd2.tables for e in (tb.entrant_a, tb.entrant_b)}
    assert "e03" not in seated and len(rnd2.tables) == 1
    assert len(rnd2.byes) == 1  # e03's opponent of the round rests
    after = {s.entrant: s for s in (await org.get(tid)).standings}
    assert after["e03"].points == before["e03"].points  # its results stay
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await org.stub.WithdrawEntrant(
            pb.WithdrawEntrantRequest(tournament_id=tid, entrant="nobody"), metadata=org.md
        )
    assert exc.value.code() == Code.NOT_FOUND


async def test_annulled_game_is_left_for_the_organiser(org: Organiser) -> None:
    """003: an annulled match "no cuenta en la clasificación": neither side's win, so the
    table waits for the organiser's decision."""
    created = await org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 2, table=gpb.TableOptions(annulment_allowed=True)
    )
    tid = created.tournament_id
    rnd = await org.start(tid, 1)
    table = rnd.tables[0]
    for seat in table.seats:
        await org.client.stub.VoteAnnul(
            gpb.VoteAnnulRequest(game_id=table.game_id, request_id=uuid.uuid4().hex),
            metadata=org.client.player(seat.player_token),
        )
    await org.settle([table.game_id])
    replay = await org.client.stub.GetView(
        gpb.GetViewRequest(game_id=table.game_id), metadata=org.client.app()
    )
    assert replay.view.status == gpb.GAME_STATUS_FINISHED
    t = await org.get(tid)
    assert t.rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_UNSPECIFIED
    assert t.status == pb.TOURNAMENT_STATUS_RUNNING
    t = await org.forfeit(tid, 1, 1, pb.TABLE_OUTCOME_DOUBLE_NO_SHOW)
    assert t.status == pb.TOURNAMENT_STATUS_FINISHED
    assert await org.forfeit(tid, 1, 1, pb.TABLE_OUTCOME_DOUBLE_NO_SHOW) == t  # a retry
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await org.forfeit(tid, 1, 1, pb.TABLE_OUTCOME_A_FORFEITS)
    assert error_reason(exc.value) == "TOURNAMENT_OVER"


async def test_a_drawn_knockout_table_goes_to_the_higher_seed(org: Organiser) -> None:
    """Issue 27: "A knockout table must always produce a winner". In an 8-player single
    elimination a drawn table is recorded for the higher seed (the default
    KNOCKOUT_TIE_HIGHER_SEED) and the next round starts (it stalled on
    ROUND_NOT_COMPLETE)."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SINGLE_ELIMINATION, 8)
    tid = created.tournament_id
    assert created.knockout_tie == pb.KNOCKOUT_TIE_HIGHER_SEED
    rnd = await org.start(tid, 1)
    first, *others = rnd.tables
    await draw_game(org, first.game_id)
    # The other tables: side B resigns, and the higher seeds (side A) go through.
    await org.play_round(tid, pb.TournamentRound(tables=others))
    t = await org.get(tid)
    assert (first.entrant_a, first.entrant_b) == ("e01", "e08")
    assert t.rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_A_WINS
    second = await org.start(tid, 2)
    assert len(second.tables) == 2 and second.tables[0].entrant_a == "e01"
    # The semi-final e01 v e04 is drawn too: e01, seeded higher, goes through.
    await draw_game(org, second.tables[0].game_id)
    assert (await org.get(tid)).rounds[1].tables[0].outcome == pb.TABLE_OUTCOME_A_WINS


async def test_a_play_off_knockout_plays_another_deal_for_a_level_match(
    org: Organiser,
) -> None:
    """KNOCKOUT_TIE_PLAY_OFF: the knockout's games settle a level match with another
    deal where the preset draws it (RULES.md, ``tie_break``), so a table finds its own
    winner; a game that ends level all the same still gets one (the higher seed)."""
    created = await org.create(
        pb.TOURNAMENT_FORMAT_SINGLE_ELIMINATION, 4, knockout_tie=pb.KNOCKOUT_TIE_PLAY_OFF
    )
    tid = created.tournament_id
    assert created.knockout_tie == pb.KNOCKOUT_TIE_PLAY_OFF
    rnd = await org.start(tid, 1)
    setup = await org.server.store.setup_of(rnd.tables[0].game_id)
    assert setup.rules.tie_break == "extra_deal"
    await draw_game(org, rnd.tables[1].game_id, -1, "annulled")  # e02 v e03, annulled
    assert (await org.get(tid)).rounds[0].tables[1].outcome == pb.TABLE_OUTCOME_A_WINS
    # A game the app ended is left for the organiser's ruling.
    await draw_game(org, rnd.tables[0].game_id, -1, "ended_by_app")
    assert (await org.get(tid)).rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_UNSPECIFIED


async def player(org: Organiser, player_id: str) -> pb.GetPlayerResponse:
    players = pb_grpc.PlayerServiceStub(org.client.channel)
    done: pb.GetPlayerResponse = await players.GetPlayer(
        pb.GetPlayerRequest(player_id=player_id), metadata=org.md
    )
    return done


async def test_a_forfeited_table_whose_game_goes_on_counts_for_no_one(org: Organiser) -> None:
    """Issue 27: "a player is credited a forfeit win in the tournament and a rated
    loss". A forfeit recorded while the table's game is played decides the table; the
    game, when it ends, is not rated, earns no ranking points and its stakes go back
    (docs/platform/tournaments.md, "A forfeit decides its table")."""
    created = await org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 2, table=gpb.TableOptions(competitive=True, stake=10)
    )
    tid = created.tournament_id
    for p in ("p01", "p02"):
        await grant(org, p, 100)
    rnd = await org.start(tid, 1)
    table = rnd.tables[0]
    await org.forfeit(tid, 1, 1, pb.TABLE_OUTCOME_A_FORFEITS)  # p02 wins the table
    await org.resign(table, 1)  # ...and p02 resigns the game that went on
    await org.settle([table.game_id])
    t = await org.get(tid)
    assert t.rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_A_FORFEITS
    assert t.standings[0].entrant == "e02" and t.standings[0].wins == 1
    for p in ("p01", "p02"):
        got = await player(org, p)
        assert (got.matches, got.wins, got.ranking_points) == (0, 0, 0)
        assert got.rating.games == 0 and got.chips == 100  # the stake came back


async def test_a_table_with_its_games_result_refuses_a_forfeit(org: Organiser) -> None:
    """The other side of the same rule: once the game's result is settled (rated and
    scored) a forfeit for its table would contradict the ratings: refused."""
    created = await org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, table=gpb.TableOptions(competitive=True)
    )
    tid = created.tournament_id
    rnd = await org.start(tid, 1)
    one = rnd.tables[0]
    await org.resign(one, 1)  # side A wins
    await org.settle([one.game_id])
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await org.forfeit(tid, 1, 1, pb.TABLE_OUTCOME_A_FORFEITS)
    assert exc.value.code() == Code.FAILED_PRECONDITION
    assert error_reason(exc.value) == "TABLE_DECIDED"
    t = await org.get(tid)
    assert t.rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_A_WINS
    winner = await player(org, f"p{int(one.entrant_a[1:]):02}")
    assert (winner.matches, winner.wins) == (1, 1)


async def test_a_staked_table_that_never_starts_is_a_no_show_at_its_deadline(
    org: Organiser,
) -> None:
    """Issue 27: "A staked tournament table that never starts stays WAITING for ever:
    it needs a deadline after which it is settled as a no-show with stakes returned."
    The table's game carries its start deadline in the database, so any replica's
    sweeper closes it; the settlement records the table's double no-show."""
    from tranca.services.moves import now_ms

    created = await org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        4,
        table=gpb.TableOptions(competitive=True, stake=10),
        start_deadline_seconds=60,
    )
    tid = created.tournament_id
    assert created.start_deadline_seconds == 60
    for p in ("p01", "p02", "p03"):  # p04 has no chips: its table's start is refused
        await grant(org, p, 100)
    rnd = await org.start(tid, 1)
    stuck = next(tb for tb in rnd.tables if "e04" in (tb.entrant_a, tb.entrant_b))
    played = next(tb for tb in rnd.tables if tb is not stuck)
    # The sweepers' counts are the whole database's (other tests' timed games share
    # it), so the tables are looked at themselves.
    early = org.server.new_sweeper(clock=lambda: now_ms() + 30_000)
    await early.sweep_timers()
    view = await view_as(org, stuck.game_id, stuck.seats[0].player_token)
    assert view.status == gpb.GAME_STATUS_WAITING  # not yet due
    late = org.server.new_sweeper(clock=lambda: now_ms() + 61_000)
    await late.sweep_timers()
    played_view = await view_as(org, played.game_id, played.seats[0].player_token)
    assert played_view.status == gpb.GAME_STATUS_PLAYING  # the waiting table only
    view = await view_as(org, stuck.game_id, stuck.seats[0].player_token)
    assert view.status == gpb.GAME_STATUS_FINISHED
    assert view.match_result.reason == "not_started"
    await org.resign(played, 1)
    await org.settle([stuck.game_id, played.game_id])
    t = await org.get(tid)
    outcomes = {tb.number: tb.outcome for tb in t.rounds[0].tables}
    assert outcomes[stuck.number] == pb.TABLE_OUTCOME_DOUBLE_NO_SHOW
    assert outcomes[played.number] == pb.TABLE_OUTCOME_A_WINS
    other = next(s.player_id for s in stuck.seats if s.player_id != "p04")
    got = await player(org, other)
    assert (got.matches, got.chips) == (0, 100)  # unrated, and no chips lost
    # The organiser may still rule otherwise: the game decided nothing (unrated).
    absent = (
        pb.TABLE_OUTCOME_B_FORFEITS if stuck.entrant_b == "e04" else pb.TABLE_OUTCOME_A_FORFEITS
    )
    t = await org.forfeit(tid, 1, stuck.number, absent)
    assert {tb.number: tb.outcome for tb in t.rounds[0].tables}[stuck.number] == absent
    assert (await org.start(tid, 2)).tables  # the round is complete
