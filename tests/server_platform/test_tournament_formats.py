"""TournamentService's formats through a real gRPC channel, on SQLite and PostgreSQL:
Swiss, round robin, single elimination, a Swiss with a play-off and the organiser's
points and tie-breaks.

Games end by resignation (LeaveGame with a seat's token once the game is under way)
and reach the tournament through the settlement, as on a running server.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest

from tranca.server import Running
from tranca.v1 import platform_pb2 as pb

from ..server.conftest import Client
from .tournament_helpers import (
    Code,
    Organiser,
    check_standings,
    draw_game,
    error_reason,
    pairs_of,
)


@pytest.fixture
async def org(client: Client, server: Running) -> Organiser:
    return Organiser(client, server)


# ----- Swiss ------------------------------------------------------------------------------


async def test_swiss_of_16_over_4_rounds_never_repeats_a_pairing(org: Organiser) -> None:
    """Issue 7: "a Swiss tournament of 16 players over 4 rounds with no repeat pairing"."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 16)
    tid = created.tournament_id
    assert created.status == pb.TOURNAMENT_STATUS_REGISTERED
    assert created.total_rounds == 4  # ceil(log2(16))
    for number in range(1, 5):
        rnd = await org.start(tid, number)
        assert len(rnd.tables) == 8 and not rnd.byes
        seated = [e for tb in rnd.tables for e in (tb.entrant_a, tb.entrant_b)]
        assert sorted(seated) == [f"e{i:02}" for i in range(1, 17)]
        # Most tables are played out (alternately side A and side B resigning); the
        # last is forfeited by side A before anyone plays.
        played, forfeited = rnd.tables[:7], rnd.tables[7]
        await asyncio.gather(*(org.resign(tb, tb.number % 2) for tb in played))
        await org.settle([tb.game_id for tb in played])
        mid = await org.get(tid)
        assert mid.status == pb.TOURNAMENT_STATUS_RUNNING
        if number < 4:
            with pytest.raises(grpc.aio.AioRpcError) as exc:
                await org.start(tid, number + 1)
            assert exc.value.code() == Code.FAILED_PRECONDITION
            assert error_reason(exc.value) == "ROUND_NOT_COMPLETE"
        await org.forfeit(tid, number, forfeited.number, pb.TABLE_OUTCOME_A_FORFEITS)
    final = await org.get(tid)
    assert final.status == pb.TOURNAMENT_STATUS_FINISHED
    met = pairs_of(final)
    assert len(met) == 32 and len(set(met)) == 32, "no two entrants met twice"
    for r in final.rounds:
        for tb in r.tables:
            expected = (
                pb.TABLE_OUTCOME_A_FORFEITS
                if tb.number == 8
                else pb.TABLE_OUTCOME_B_WINS
                if tb.number % 2 == 0
                else pb.TABLE_OUTCOME_A_WINS
            )
            assert tb.outcome == expected
    check_standings(final)
    # Decisive tables only: 16 -> 8 -> 4 -> 2 -> 1 undefeated, and the points add up.
    assert final.standings[0].points == 4 and final.standings[1].points < 4
    assert sum(s.points for s in final.standings) == 32
    assert sum(s.forfeits for s in final.standings) == 4
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await org.start(tid, 5)
    assert error_reason(exc.value) == "TOURNAMENT_OVER"


async def test_swiss_gives_the_odd_one_out_a_bye(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 5, rounds=2)
    tid = created.tournament_id
    assert created.total_rounds == 2
    rnd = await org.start(tid, 1)
    assert len(rnd.tables) == 2 and list(rnd.byes) == ["e05"]  # the lowest seed
    await org.play_round(tid, rnd)
    rnd2 = await org.start(tid, 2)
    assert len(rnd2.byes) == 1 and rnd2.byes[0] != "e05"  # no second bye before all had one
    t = await org.get(tid)
    bye = next(s for s in t.standings if s.entrant == "e05")
    assert bye.byes == 1 and bye.points == 1


# ----- round robin and knockout -------------------------------------------------------------


async def test_round_robin_everyone_meets_everyone_once(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4)
    tid = created.tournament_id
    assert created.total_rounds == 3
    for number in range(1, 4):
        rnd = await org.start(tid, number)
        await org.play_round(tid, rnd, loser_seat=number % 2)
    t = await org.get(tid)
    assert t.status == pb.TOURNAMENT_STATUS_FINISHED
    met = pairs_of(t)
    assert sorted(met, key=sorted) == sorted(
        (frozenset((f"e0{i}", f"e0{j}")) for i in range(1, 5) for j in range(i + 1, 5)),
        key=sorted,
    )
    check_standings(t)
    assert t.champion == ""  # a champion is a knockout's


async def test_single_elimination_crowns_a_champion(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_SINGLE_ELIMINATION, 5)
    tid = created.tournament_id
    assert created.total_rounds == 3  # padded to 8: seeds 1, 2 and 3 have byes
    r1 = await org.start(tid, 1)
    assert sorted(r1.byes) == ["e01", "e02", "e03"]
    assert [(tb.entrant_a, tb.entrant_b) for tb in r1.tables] == [("e04", "e05")]
    await org.play_round(tid, r1, loser_seat=0)  # e04 resigns: the underdog e05 goes on
    r2 = await org.start(tid, 2)
    assert [(tb.entrant_a, tb.entrant_b) for tb in r2.tables] == [("e01", "e05"), ("e02", "e03")]
    await org.play_round(tid, r2, loser_seat=1)
    r3 = await org.start(tid, 3)
    assert [(tb.entrant_a, tb.entrant_b) for tb in r3.tables] == [("e01", "e02")]
    t = await org.get(tid)
    assert t.champion == "" and t.status == pb.TOURNAMENT_STATUS_RUNNING
    await org.play_round(tid, r3, loser_seat=0)  # e01 resigns the final
    t = await org.get(tid)
    assert t.status == pb.TOURNAMENT_STATUS_FINISHED
    assert t.champion == "e02"
    assert [s.entrant for s in t.standings][:2] == ["e02", "e01"]


# ----- formats (issue 27: "Formats") -------------------------------------------------------


async def test_a_swiss_with_a_top_four_play_off_and_the_organisers_points(
    org: Organiser,
) -> None:
    """Issue 27: "multi-stage events (Swiss, then a knockout of the top N);
    configurable points for win, draw and loss and the order of tie-breaks". Eight
    entrants, two Swiss rounds scored 3/1/0 and ranked by wins first, then a
    knockout of the top four seeded by the Swiss standings: a drawn play-off table
    goes to the higher seed (knockout_tie), and the champion heads the standings."""
    created = await org.create(
        pb.TOURNAMENT_FORMAT_SWISS,
        8,
        rounds=2,
        points=pb.TournamentPoints(win=3, draw=1, loss=0, bye=3),
        tie_breaks=[pb.TIE_BREAKER_WINS, pb.TIE_BREAKER_BUCHHOLZ],
        playoff_size=4,
    )
    tid = created.tournament_id
    assert (created.total_rounds, created.swiss_rounds, created.playoff_size) == (4, 2, 4)
    assert created.points.win == 3 and list(created.tie_breaks) == [
        pb.TIE_BREAKER_WINS,
        pb.TIE_BREAKER_BUCHHOLZ,
    ]
    for number in (1, 2):
        rnd = await org.start(tid, number)
        await draw_game(org, rnd.tables[0].game_id)
        await org.play_round(tid, pb.TournamentRound(tables=rnd.tables[1:]))
    swiss = await org.get(tid)
    for s in swiss.standings:
        assert s.points == 3 * s.wins + s.draws
    keys = [(-s.points, -s.wins, -s.buchholz) for s in swiss.standings]
    assert keys == sorted(keys)
    top = [s.entrant for s in swiss.standings[:4]]
    semis = await org.start(tid, 3)
    assert {frozenset((tb.entrant_a, tb.entrant_b)) for tb in semis.tables} == {
        frozenset((top[0], top[3])),
        frozenset((top[1], top[2])),
    }
    level = next(tb for tb in semis.tables if top[0] in (tb.entrant_a, tb.entrant_b))
    await draw_game(org, level.game_id)  # a level play-off game: the higher seed wins
    other = [tb for tb in semis.tables if tb.number != level.number]
    await org.play_round(tid, pb.TournamentRound(tables=other))
    final = await org.start(tid, 4)
    assert top[0] in (final.tables[0].entrant_a, final.tables[0].entrant_b)
    await org.play_round(tid, final)
    done = await org.get(tid)
    assert done.status == pb.TOURNAMENT_STATUS_FINISHED
    assert done.champion == done.standings[0].entrant
    assert {s.entrant for s in done.standings[:4]} == set(top)


async def test_bad_points_tie_breaks_and_play_offs_are_refused(org: Organiser) -> None:
    for change in (
        {"points": pb.TournamentPoints(win=1, draw=2, loss=0, bye=1)},
        {"tie_breaks": [pb.TIE_BREAKER_WINS, pb.TIE_BREAKER_WINS]},
        {"tie_breaks": [pb.TIE_BREAKER_UNSPECIFIED]},
        {"playoff_size": 3},
        {"playoff_size": 8},  # more than the entrants
    ):
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await org.create(pb.TOURNAMENT_FORMAT_SWISS, 4, **change)
        assert error_reason(exc.value) == "BAD_TOURNAMENT", change
