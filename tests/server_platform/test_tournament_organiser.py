"""The organiser's tools and the players told (issue 27), through a real gRPC channel,
on SQLite and PostgreSQL: players' notices, spectators, exports, corrections, manual
pairing and cancellation.

Games end by resignation (LeaveGame with a seat's token once the game is under way)
and reach the tournament through the settlement, as on a running server.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Awaitable
from typing import Any

import pytest

from tranca.server import Running
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import platform_pb2 as pb

from ..server.conftest import Client
from .tournament_helpers import (
    Organiser,
    refusal,
)


@pytest.fixture
async def org(client: Client, server: Running) -> Organiser:
    return Organiser(client, server)


# ----- players told (issue 27: "Players told") ---------------------------------------------


async def told(org: Organiser, player: str) -> list[tuple[str, dict[str, Any]]]:
    """The player's tournament events (kind, payload), oldest first."""
    stub = npb_grpc.NotificationServiceStub(org.client.channel)
    done = await stub.ListPlayerEvents(
        npb.ListPlayerEventsRequest(player_id=player, page_size=500), metadata=org.md
    )
    return [
        (e.kind, json.loads(e.payload_json))
        for e in done.events
        if e.kind.startswith("tournament_")
    ]


async def test_players_are_told_their_results_and_whether_they_go_on(org: Organiser) -> None:
    """Issue 27: "Players told: round ready (with table and seat), result recorded,
    eliminated or advanced, through the player notification stream and webhooks".
    A 4-player knockout: every seated player hears of its table, then of its result
    and whether it goes on; the final's winner is told it is the champion."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SINGLE_ELIMINATION, 4)
    tid = created.tournament_id
    semis = await org.start(tid, 1)
    await org.play_round(tid, semis, loser_seat=1)  # side A goes on
    final = await org.start(tid, 2)
    await org.play_round(tid, final, loser_seat=1)
    champion = final.tables[0].entrant_a
    runner_up = final.tables[0].entrant_b
    out = next(tb.entrant_b for tb in semis.tables)
    heard = await told(org, "p" + champion[1:])
    assert [k for k, _ in heard] == [
        "tournament_round_ready",
        "tournament_result",
        "tournament_advanced",
        "tournament_round_ready",
        "tournament_result",
        "tournament_advanced",
    ]
    assert heard[0][1]["tournament_id"] == tid and "seat" in heard[0][1]
    assert heard[1][1]["result"] == "won" and heard[1][1]["source"] == "game"
    assert heard[2][1] == {
        "tournament_id": tid,
        "entrant": champion,
        "round": 1,
        "next_round": 2,
        "champion": False,
    }
    assert heard[5][1]["champion"] is True and heard[5][1]["next_round"] == 0
    second = await told(org, "p" + runner_up[1:])
    assert second[-2][0] == "tournament_result" and second[-2][1]["result"] == "lost"
    assert second[-1] == (
        "tournament_eliminated",
        {"tournament_id": tid, "entrant": runner_up, "round": 2},
    )
    assert [k for k, _ in await told(org, "p" + out[1:])][-1] == "tournament_eliminated"


# ----- the organiser's tools (issue 27) ----------------------------------------------------


async def test_spectators_watch_tournament_tables_where_the_organiser_allows(
    org: Organiser,
) -> None:
    """Issue 27: "spectators at tournament tables where the organiser allows it"; never
    at duplicate deals (what one table shows is another's hidden cards)."""

    async def spectate(game_id: str) -> gpb.JoinGameResponse:
        return await org.client.stub.JoinGame(
            gpb.JoinGameRequest(game_id=game_id, spectator=True, player_name="fan"),
            metadata=org.md,
        )

    watched = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 2, spectators_allowed=True)
    assert watched.spectators_allowed
    table = (await org.start(watched.tournament_id, 1)).tables[0]
    seat = await spectate(table.game_id)
    assert seat.seat == -1 and seat.player_token
    view = await org.client.stub.GetView(
        gpb.GetViewRequest(game_id=table.game_id), metadata=org.client.player(seat.player_token)
    )
    assert view.view.status == gpb.GAME_STATUS_PLAYING and not view.view.hand
    closed = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 2)
    other = (await org.start(closed.tournament_id, 1)).tables[0]
    assert await refusal(spectate(other.game_id)) == "NO_SPECTATORS"
    bad = org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        2,
        4,
        spectators_allowed=True,
        duplicate=True,
    )
    assert await refusal(bad) == "BAD_TOURNAMENT"


async def test_standings_and_rounds_export_as_csv_and_json(org: Organiser) -> None:
    """Issue 27: "export standings, pairings and results per round as CSV and JSON"."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 5, rounds=2)
    tid = created.tournament_id
    first = await org.start(tid, 1)
    await org.play_round(tid, first)
    t = await org.get(tid)

    async def export(**kw: Any) -> pb.ExportTournamentResponse:
        return await org.stub.ExportTournament(
            pb.ExportTournamentRequest(tournament_id=tid, **kw), metadata=org.md
        )

    standings = await export(format=pb.EXPORT_FORMAT_CSV)
    assert standings.content_type == "text/csv"
    rows = list(csv.DictReader(io.StringIO(standings.content)))
    assert [r["entrant"] for r in rows] == [s.entrant for s in t.standings]
    assert [float(r["points"]) for r in rows] == [s.points for s in t.standings]
    as_json = await export(format=pb.EXPORT_FORMAT_JSON, content=pb.EXPORT_CONTENT_ROUNDS)
    assert as_json.content_type == "application/json"
    tables = json.loads(as_json.content)
    assert [(r["round"], r["table"]) for r in tables] == [(1, 1), (1, 2), (1, 0)]
    assert tables[0]["entrant_a"] == first.tables[0].entrant_a
    assert tables[0]["outcome"] == "a_wins" and tables[0]["source"] == "game"
    assert tables[0]["game_id"] == first.tables[0].game_id
    assert tables[2]["outcome"] == "bye" and tables[2]["entrant_a"] == first.byes[0]
    await org.start(tid, 2)
    one = await export(content=pb.EXPORT_CONTENT_ROUNDS, round=2)
    second = list(csv.DictReader(io.StringIO(one.content)))
    assert {r["round"] for r in second} == {"2"} and second[0]["outcome"] == ""


async def test_a_corrected_result_keeps_its_audit_trail_and_moves_the_standings(
    org: Organiser,
) -> None:
    """Issue 27: "correct a result after a round with an audit trail and standings
    recomputed". A round 1 result corrected once round 2 is under way: the
    correction is listed (the result it replaced, the reason), the standings
    follow it, and a knockout's result is fixed once the next round is paired."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 4, rounds=2)
    tid = created.tournament_id
    first = await org.start(tid, 1)
    await org.play_round(tid, first)  # side A wins both tables
    await org.start(tid, 2)
    table = first.tables[0]

    async def correct(number: int, outcome: pb.TableOutcome.ValueType, why: str) -> pb.Tournament:
        done = await org.stub.CorrectResult(
            pb.CorrectResultRequest(
                tournament_id=tid, round=number, table=table.number, outcome=outcome, reason=why
            ),
            metadata=org.md,
        )
        return done.tournament

    t = await correct(1, pb.TABLE_OUTCOME_B_WINS, "the scoresheet was swapped")
    assert t.rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_B_WINS
    assert [(c.round, c.table, c.previous, c.outcome, c.reason) for c in t.corrections] == [
        (1, 1, pb.TABLE_OUTCOME_A_WINS, pb.TABLE_OUTCOME_B_WINS, "the scoresheet was swapped")
    ]
    points = {s.entrant: s.points for s in t.standings}
    assert points[table.entrant_b] == 1 and points[table.entrant_a] == 0
    assert await correct(1, pb.TABLE_OUTCOME_B_WINS, "again") == t  # a repeat
    assert await refusal(correct(1, pb.TABLE_OUTCOME_DRAW, " ")) == "MALFORMED_REQUEST"
    assert await refusal(correct(2, pb.TABLE_OUTCOME_DRAW, "early")) == "NO_RESULT_YET"
    assert await refusal(correct(3, pb.TABLE_OUTCOME_DRAW, "later")) == "ROUND_NOT_PLAYED"
    heard = await told(org, "p" + table.entrant_b[1:])
    assert heard[-1][0] == "tournament_result" and heard[-1][1]["source"] == "correction"

    knockout = await org.create(pb.TOURNAMENT_FORMAT_SINGLE_ELIMINATION, 4)
    semis = await org.start(knockout.tournament_id, 1)
    await org.play_round(knockout.tournament_id, semis)
    await org.start(knockout.tournament_id, 2)
    fixed = org.stub.CorrectResult(
        pb.CorrectResultRequest(
            tournament_id=knockout.tournament_id,
            round=1,
            table=1,
            outcome=pb.TABLE_OUTCOME_B_WINS,
            reason="too late",
        ),
        metadata=org.md,
    )
    assert await refusal(fixed) == "RESULT_FIXED"


async def test_the_organiser_pairs_a_swiss_round_by_hand(org: Organiser) -> None:
    """Issue 27: "manual pairing overrides before a round starts". StartRound with the
    organiser's tables and byes pairs the round so (and it stays so); a pairing that
    leaves an entrant out or names one twice is refused, as is one for a format that
    pairs by its own rules."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 5, rounds=2)
    tid = created.tournament_id

    def start(pairs: list[tuple[str, str]], byes: list[str]) -> Awaitable[pb.StartRoundResponse]:
        return org.stub.StartRound(
            pb.StartRoundRequest(
                tournament_id=tid,
                round=1,
                pairings=[pb.TablePairing(entrant_a=a, entrant_b=b) for a, b in pairs],
                byes=byes,
            ),
            metadata=org.md,
        )

    assert await refusal(start([("e01", "e02"), ("e03", "e04")], [])) == "BAD_PAIRING"
    assert await refusal(start([("e01", "e02"), ("e02", "e04")], ["e05"])) == "BAD_PAIRING"
    rnd = (await start([("e05", "e01"), ("e02", "e04")], ["e03"])).round
    assert [(tb.entrant_a, tb.entrant_b) for tb in rnd.tables] == [("e05", "e01"), ("e02", "e04")]
    assert list(rnd.byes) == ["e03"]
    t = await org.get(tid)
    assert [(tb.entrant_a, tb.entrant_b) for tb in t.rounds[0].tables] == [
        ("e05", "e01"),
        ("e02", "e04"),
    ]
    await org.play_round(tid, rnd)
    assert len((await org.start(tid, 2)).tables) == 2  # the server pairs the next one
    robin = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 2)
    by_hand = org.stub.StartRound(
        pb.StartRoundRequest(
            tournament_id=robin.tournament_id,
            round=1,
            pairings=[pb.TablePairing(entrant_a="e02", entrant_b="e01")],
        ),
        metadata=org.md,
    )
    assert await refusal(by_hand) == "PAIRING_NOT_ALLOWED"


async def test_a_cancelled_tournament_ends_its_games_and_starts_no_round(
    org: Organiser,
) -> None:
    """Issue 27: "cancel an event". Cancelled with a round under way: the status says
    so, the games still going are ended (by the app: they count for no one), no
    round starts again, and a repeat changes nothing."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 4, rounds=2)
    tid = created.tournament_id
    rnd = await org.start(tid, 1)
    await org.play_round(tid, pb.TournamentRound(tables=rnd.tables[:1]))

    async def cancel() -> pb.Tournament:
        done = await org.stub.CancelTournament(
            pb.CancelTournamentRequest(tournament_id=tid, reason="the venue closed"),
            metadata=org.md,
        )
        return done.tournament

    t = await cancel()
    assert t.status == pb.TOURNAMENT_STATUS_CANCELLED
    view = await org.client.stub.GetView(
        gpb.GetViewRequest(game_id=rnd.tables[1].game_id), metadata=org.client.app()
    )
    assert view.view.status == gpb.GAME_STATUS_FINISHED
    await org.settle([rnd.tables[1].game_id])
    t = await org.get(tid)
    assert t.status == pb.TOURNAMENT_STATUS_CANCELLED
    assert t.rounds[0].tables[0].outcome != pb.TABLE_OUTCOME_UNSPECIFIED  # results stay
    assert t.rounds[0].tables[1].outcome == pb.TABLE_OUTCOME_UNSPECIFIED
    assert (await cancel()).status == pb.TOURNAMENT_STATUS_CANCELLED
    assert await refusal(org.start(tid, 2)) == "TOURNAMENT_OVER"
    listed = await org.stub.ListTournaments(
        pb.ListTournamentsRequest(status=pb.TOURNAMENT_STATUS_CANCELLED), metadata=org.md
    )
    assert [x.tournament_id for x in listed.tournaments] == [tid]
