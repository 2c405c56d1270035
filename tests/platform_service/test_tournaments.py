"""TournamentService through a real gRPC channel, on SQLite and PostgreSQL: Swiss,
round robin and single elimination at 2- and 4-player tables, duplicate rounds,
forfeits and no-shows, withdrawals, and concurrent StartRound retries.

Games end by resignation (LeaveGame with a seat's token once the game is under way)
and reach the tournament through the settlement, as on a running server.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import threading
import uuid
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypedDict, Unpack

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from tranca.platform.duplicate import DuplicateRound, check_tables
from tranca.platform.tournaments import Standing, Tournament
from tranca.rules.cards import card_text, parse_card, shuffled_deck
from tranca.rules.match import DRAWN
from tranca.server import Running
from tranca.services import compute
from tranca.services.moves import now_ms
from tranca.services.tournaments import TournamentRow, record_game_result
from tranca.store.tournament_store import TournamentStore, TournamentTransaction
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import notifications_pb2 as npb
from tranca.v1 import notifications_pb2_grpc as npb_grpc
from tranca.v1 import platform_pb2 as pb
from tranca.v1 import platform_pb2_grpc as pb_grpc

from ..service.conftest import Client
from .staking import settle_all

Code = grpc.StatusCode
PRESET = "tranca-000"


# ----- helpers ---------------------------------------------------------------------------


def error_reason(e: grpc.aio.AioRpcError) -> str:
    for key, value in e.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            info = error_details_pb2.ErrorInfo()
            assert status.details[0].Unpack(info)
            return str(info.reason)
    raise AssertionError(f"no status details: {e!r}")


class TournamentOptions(TypedDict, total=False):
    """The fields of a CreateTournamentRequest that Organiser.create leaves unset."""

    table: gpb.TableOptions
    rounds: int
    duplicate: bool
    round_decks: list[str]
    knockout_tie: pb.KnockoutTie.ValueType
    start_deadline_seconds: int
    start_at_ms: int
    round_break_seconds: int
    round_time_limit_seconds: int
    round_timeout: pb.RoundTimeout.ValueType
    check_in_seconds: int
    points: pb.TournamentPoints
    tie_breaks: list[pb.TieBreaker.ValueType]
    playoff_size: int
    spectators_allowed: bool


class Organiser:
    """An app's TournamentService calls, and its seats' game calls."""

    def __init__(self, client: Client, server: Running) -> None:
        self.client = client
        self.server = server
        self.stub = pb_grpc.TournamentServiceStub(client.channel)
        self.md = client.app()

    async def create(
        self,
        fmt: pb.TournamentFormat.ValueType,
        entrants: int,
        table_size: int = 2,
        *,
        seed: int = 11,
        **kwargs: Unpack[TournamentOptions],
    ) -> pb.Tournament:
        if table_size == 2:
            people = [
                pb.Entrant(id=f"e{i:02}", player_ids=[f"p{i:02}"]) for i in range(1, entrants + 1)
            ]
        else:
            people = [
                pb.Entrant(id=f"e{i:02}", player_ids=[f"n{i:02}", f"s{i:02}"])
                for i in range(1, entrants + 1)
            ]
        done = await self.stub.CreateTournament(
            pb.CreateTournamentRequest(
                name="open",
                format=fmt,
                entrants=people,
                table_size=table_size,
                rules=gpb.Rules(preset=PRESET),
                seed=seed,
                **kwargs,
            ),
            metadata=self.md,
        )
        return done.tournament

    async def get(self, tid: str) -> pb.Tournament:
        return (
            await self.stub.GetTournament(
                pb.GetTournamentRequest(tournament_id=tid), metadata=self.md
            )
        ).tournament

    async def start(self, tid: str, number: int) -> pb.TournamentRound:
        done = await self.stub.StartRound(
            pb.StartRoundRequest(tournament_id=tid, round=number), metadata=self.md
        )
        return done.round

    async def forfeit(
        self, tid: str, number: int, table: int, outcome: pb.TableOutcome.ValueType
    ) -> pb.Tournament:
        done = await self.stub.RecordForfeit(
            pb.RecordForfeitRequest(tournament_id=tid, round=number, table=table, outcome=outcome),
            metadata=self.md,
        )
        return done.tournament

    async def resign(self, table: pb.TournamentTable, seat: int) -> None:
        """The seat resigns its game: its side loses."""
        token = table.seats[seat].player_token
        assert token, "StartRound's answer carries every seat's token"
        await self.client.stub.LeaveGame(
            gpb.LeaveGameRequest(game_id=table.game_id, request_id=uuid.uuid4().hex),
            metadata=self.client.player(token),
        )

    async def settle(self, game_ids: Sequence[str]) -> None:
        """What every replica's sweeper does for finished games, now rather than at
        its next sweep: settle them, which records their tournament results."""
        for _ in range(50):
            statuses = await TournamentStore(self.server.store).game_statuses(game_ids)
            if all(statuses[g] == "finished" for g in game_ids):
                await settle_all(self.server.store)
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"games {game_ids} did not finish")

    async def play_round(self, tid: str, rnd: pb.TournamentRound, loser_seat: int = 1) -> None:
        """Every table's seat ``loser_seat`` resigns (side B loses by default)."""
        await asyncio.gather(*(self.resign(tb, loser_seat) for tb in rnd.tables))
        await self.settle([tb.game_id for tb in rnd.tables])


@pytest.fixture
async def org(client: Client, server: Running) -> Organiser:
    return Organiser(client, server)


def pairs_of(t: pb.Tournament) -> list[frozenset[str]]:
    return [frozenset((tb.entrant_a, tb.entrant_b)) for r in t.rounds for tb in r.tables]


def check_standings(t: pb.Tournament) -> None:
    """Points, Buchholz and Sonneborn-Berger as recomputed from the tables, and the
    order points, then Buchholz, then Sonneborn-Berger."""
    won = {
        pb.TABLE_OUTCOME_A_WINS: (1.0, 0.0),
        pb.TABLE_OUTCOME_B_WINS: (0.0, 1.0),
        pb.TABLE_OUTCOME_DRAW: (0.5, 0.5),
        pb.TABLE_OUTCOME_A_FORFEITS: (0.0, 1.0),
        pb.TABLE_OUTCOME_B_FORFEITS: (1.0, 0.0),
        pb.TABLE_OUTCOME_DOUBLE_NO_SHOW: (0.0, 0.0),
    }
    points: dict[str, float] = defaultdict(float)
    for r in t.rounds:
        for e in r.byes:
            points[e] += 1.0
        for tb in r.tables:
            a, b = won[tb.outcome]
            points[tb.entrant_a] += a
            points[tb.entrant_b] += b
    buchholz: dict[str, float] = defaultdict(float)
    sb: dict[str, float] = defaultdict(float)
    for r in t.rounds:
        for tb in r.tables:
            a, b = won[tb.outcome]
            buchholz[tb.entrant_a] += points[tb.entrant_b]
            buchholz[tb.entrant_b] += points[tb.entrant_a]
            sb[tb.entrant_a] += points[tb.entrant_b] * a
            sb[tb.entrant_b] += points[tb.entrant_a] * b
    keys = []
    for s in t.standings:
        assert s.points == points[s.entrant]
        assert s.buchholz == buchholz[s.entrant]
        assert s.sonneborn_berger == sb[s.entrant]
        keys.append((-s.points, -s.buchholz, -s.sonneborn_berger))
    assert keys == sorted(keys)
    assert [s.rank for s in t.standings] == list(range(1, len(t.standings) + 1))


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


# ----- 4-player tables and duplicate deals ----------------------------------------------------


async def hands(org: Organiser, table: pb.TournamentTable) -> list[list[str]]:
    out = []
    for seat in table.seats:
        view = await org.client.stub.GetView(
            gpb.GetViewRequest(game_id=table.game_id),
            metadata=org.client.player(seat.player_token),
        )
        assert view.view.status == gpb.GAME_STATUS_PLAYING
        out.append(list(view.view.hand))
    return out


async def test_duplicate_round_deals_every_partnership_table_the_same(org: Organiser) -> None:
    """Issue 7: "a 4-player duplicate round": every table of the round is dealt the
    same cards, and pairs sit as partners (side A on seats 0 and 2, side B at the
    even tables, whose directions are swapped)."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 6, table_size=4, duplicate=True)
    tid = created.tournament_id
    assert created.duplicate
    rnd = await org.start(tid, 1)
    assert len(rnd.tables) == 3 and not rnd.deck  # shown once the round is over
    entrants = {e.id: list(e.player_ids) for e in created.entrants}
    for tb in rnd.tables:
        seats = [s.player_id for s in tb.seats]
        even, odd = (
            (tb.entrant_b, tb.entrant_a) if tb.number % 2 == 0 else (tb.entrant_a, tb.entrant_b)
        )
        assert seats[0::2] == entrants[even] and seats[1::2] == entrants[odd]
    dealt = [await hands(org, tb) for tb in rnd.tables]
    assert dealt[0] == dealt[1] == dealt[2]
    # Each game was set up with the round's deck and dealt from it (checked from its
    # stored setup and log, as platform.duplicate does for an organiser).
    store = org.server.store
    setups = {tb.game_id: (await store.setup_of(tb.game_id)) for tb in rnd.tables}
    first = setups[rnd.tables[0].game_id]
    assert first.deck is not None and len(first.deck) in (104, 108)
    deck = tuple(first.deck)
    dup = DuplicateRound(1, first.rules.jokers, deck, first.seed)
    logs = {gid: [r.action for r in await store.log(gid)] for gid in setups}
    checks = check_tables(dup, {gid: (setups[gid], logs[gid]) for gid in setups})
    assert all(c.ok for c in checks), checks
    # The next round is dealt another deck, again the same at every table.
    await org.play_round(tid, rnd)
    rnd2 = await org.start(tid, 2)
    assert (await store.setup_of(rnd2.tables[0].game_id)).deck != first.deck
    dealt2 = [await hands(org, tb) for tb in rnd2.tables]
    assert dealt2[0] == dealt2[1] == dealt2[2] != dealt[0]
    t = await org.get(tid)
    # Round 1 is over: its deck is shown; round 2 is being played: its deck is not.
    assert [list(r.deck) for r in t.rounds] == [[card_text(c) for c in deck], []]


async def test_partnership_tables_without_duplicate_deal_differently(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, table_size=4)
    rnd = await org.start(created.tournament_id, 1)
    assert not rnd.deck
    one, two = [await hands(org, tb) for tb in rnd.tables]
    assert one != two


async def test_duplicate_round_from_the_organisers_deck(org: Organiser) -> None:
    """Issue 7 item 8: "a fixed deck order from the organiser"."""
    from tranca.rules.presets import PRESETS

    deck = [card_text(c) for c in shuffled_deck(PRESETS[PRESET].jokers, 4242)]
    created = await org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        4,
        table_size=4,
        duplicate=True,
        round_decks=[" ".join(deck)],
    )
    rnd = await org.start(created.tournament_id, 1)
    assert not rnd.deck
    dealt = [await hands(org, tb) for tb in rnd.tables]
    assert dealt[0] == dealt[1]
    for tb in rnd.tables:
        setup = await org.server.store.setup_of(tb.game_id)
        assert setup.deck == [parse_card(c) for c in deck]
    await org.play_round(created.tournament_id, rnd)
    assert list((await org.get(created.tournament_id)).rounds[0].deck) == deck


async def test_round_decks_need_the_fixed_deck_permission(org: Organiser, server: Running) -> None:
    _, key = await server.store.create_app(f"plain-{uuid.uuid4().hex[:6]}")
    deck = " ".join(["AS"] * 104)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await org.stub.CreateTournament(
            pb.CreateTournamentRequest(
                format=pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
                entrants=[pb.Entrant(id=f"e{i}", player_ids=[f"p{i}"]) for i in range(2)],
                table_size=2,
                rules=gpb.Rules(preset=PRESET),
                duplicate=True,
                round_decks=[deck],
            ),
            metadata=(("x-api-key", key),),
        )
    assert exc.value.code() == Code.PERMISSION_DENIED
    assert error_reason(exc.value) == "FIXED_DECK_NOT_ALLOWED"


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


# ----- retries, visibility, refusals ----------------------------------------------------------


async def test_concurrent_start_round_retries_create_one_set_of_games(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 8, table_size=2)
    tid = created.tournament_id
    answers = await asyncio.gather(*(org.start(tid, 1) for _ in range(6)))
    # Every answer carries tokens: the winner's, and the others' fresh ones.
    tokens = [s.player_token for a in answers for tb in a.tables for s in tb.seats]
    assert all(tokens) and len(set(tokens)) == len(tokens) == 6 * 8
    ids = {tuple(tb.game_id for tb in a.tables) for a in answers}
    assert len(ids) == 1
    games = await org.client.stub.ListGames(gpb.ListGamesRequest(page_size=100), metadata=org.md)
    labelled = [g for g in games.games if g.label.startswith(f"tournament {tid} ")]
    assert len(labelled) == 4
    assert all(g.status == gpb.GAME_STATUS_PLAYING and g.seats_taken == 2 for g in labelled)
    # A later retry is answered the same games.
    again = await org.start(tid, 1)
    assert [tb.game_id for tb in again.tables] == list(ids.pop())


async def test_other_apps_tournaments_are_invisible(org: Organiser, server: Running) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 2)
    _, key = await server.store.create_app(f"other-{uuid.uuid4().hex[:6]}")
    other = (("x-api-key", key),)
    calls: list[Awaitable[Any]] = [
        org.stub.GetTournament(
            pb.GetTournamentRequest(tournament_id=created.tournament_id), metadata=other
        ),
        org.stub.StartRound(
            pb.StartRoundRequest(tournament_id=created.tournament_id, round=1), metadata=other
        ),
        org.stub.GetTournament(pb.GetTournamentRequest(tournament_id="nope"), metadata=org.md),
    ]
    for call in calls:
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await call
        assert exc.value.code() == Code.NOT_FOUND
        assert error_reason(exc.value) == "TOURNAMENT_NOT_FOUND"


@pytest.mark.parametrize(
    "change",
    [
        {"format": pb.TOURNAMENT_FORMAT_UNSPECIFIED},
        {"table_size": 3},
        {"entrants": [pb.Entrant(id="solo", player_ids=["p1"])]},
        {
            "entrants": [
                pb.Entrant(id="x", player_ids=["p1"]),
                pb.Entrant(id="x", player_ids=["p2"]),
            ]
        },
        {
            "entrants": [
                pb.Entrant(id="a", player_ids=["p1"]),
                pb.Entrant(id="b", player_ids=["p1"]),
            ]
        },
        {"table_size": 4},  # single players at partnership tables
        {"rules": gpb.Rules()},
        {"round_decks": ["AS"]},  # decks without duplicate
        {"duplicate": True, "round_decks": ["AS KS"]},  # not a whole deck
        {"duplicate": True, "table": gpb.TableOptions(verifiable=True)},
        {"table": gpb.TableOptions(stake=5)},  # a stake without a competitive table
        {"start_deadline_seconds": -1},
        {"start_deadline_seconds": 86_401},
    ],
)
async def test_bad_configurations_are_refused(org: Organiser, change: dict[str, object]) -> None:
    request = pb.CreateTournamentRequest(
        format=pb.TOURNAMENT_FORMAT_SWISS,
        entrants=[pb.Entrant(id=f"e{i}", player_ids=[f"p{i}"]) for i in range(4)],
        table_size=2,
        rules=gpb.Rules(preset=PRESET),
    )
    for name, value in change.items():
        if isinstance(value, list):
            repeated = getattr(request, name)
            del repeated[:]
            repeated.extend(value)
        elif hasattr(value, "CopyFrom"):
            getattr(request, name).CopyFrom(value)
        else:
            setattr(request, name, value)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await org.stub.CreateTournament(request, metadata=org.md)
    assert exc.value.code() == Code.INVALID_ARGUMENT


async def test_start_round_out_of_order_is_refused(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await org.start(created.tournament_id, 2)
    assert error_reason(exc.value) == "ROUND_OUT_OF_ORDER"


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


async def draw_game(
    org: Organiser, game_id: str, winner: int = DRAWN, reason: str = "drawn"
) -> None:
    """The settlement's call for a drawn match (no preset makes one easy to play out),
    or for another level end (an annulment: ``winner`` -1)."""
    store = org.server.store
    async with store._one_writer(), store.engine.begin() as conn:
        await record_game_result(TournamentTransaction(conn), game_id, winner, reason)


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


async def test_tournaments_running_gauge(org: Organiser) -> None:
    from tranca import metrics

    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 2)
    await org.start(created.tournament_id, 1)
    running = metrics.TOURNAMENTS_RUNNING._value.get()
    assert running >= 1
    await org.forfeit(created.tournament_id, 1, 1, pb.TABLE_OUTCOME_B_FORFEITS)
    assert metrics.TOURNAMENTS_RUNNING._value.get() == running - 1


async def test_a_round_is_written_whole_or_not_at_all(
    org: Organiser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure half-way through writing a round's games (a crash, a lost database)
    leaves no round and no game behind: the retry pairs and seats it afresh."""
    from tranca.store import repository as store_repository
    from tranca.store.codec import action_text as real

    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 8)
    tid = created.tournament_id
    calls = Counter[str]()

    def failing(action: Any) -> str:
        calls["n"] += 1
        if calls["n"] == 5:  # the third table's first join
            raise RuntimeError("the process dies here")
        return real(action)

    # Every change of a game is serialised by the store's one write (``move_write``).
    monkeypatch.setattr(store_repository, "action_text", failing)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await org.start(tid, 1)
    assert exc.value.code() == Code.INTERNAL
    monkeypatch.setattr(store_repository, "action_text", real)
    t = await org.get(tid)
    assert not t.rounds and t.status == pb.TOURNAMENT_STATUS_REGISTERED
    games = await org.client.stub.ListGames(gpb.ListGamesRequest(page_size=100), metadata=org.md)
    assert not [g for g in games.games if g.label.startswith(f"tournament {tid} ")]
    rnd = await org.start(tid, 1)
    assert len(rnd.tables) == 4 and all(s.player_token for tb in rnd.tables for s in tb.seats)


async def test_a_start_that_failed_is_retried_by_start_round(
    org: Organiser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The round is written, then its games are started; a start that fails there
    (the database lost for a moment) still answers with every seat's token, and a
    retry of StartRound starts the game."""
    from tranca.services.errors import Unavailable
    from tranca.services.matches import Matches

    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4)
    tid = created.tournament_id
    failed: list[str] = []
    real = Matches.start

    async def flaky(matches: Matches, game_id: str) -> Any:
        if not failed:
            failed.append(game_id)
            raise Unavailable("lost for a moment")
        return await real(matches, game_id)

    monkeypatch.setattr(Matches, "start", flaky)
    rnd = await org.start(tid, 1)
    assert all(s.player_token for tb in rnd.tables for s in tb.seats)
    stuck = next(tb for tb in rnd.tables if tb.game_id == failed[0])
    view = await org.client.stub.GetView(
        gpb.GetViewRequest(game_id=stuck.game_id), metadata=org.client.app()
    )
    assert view.view.status == gpb.GAME_STATUS_WAITING
    again = await org.start(tid, 1)
    assert all(s.player_token for tb in again.tables for s in tb.seats)
    view = await org.client.stub.GetView(
        gpb.GetViewRequest(game_id=stuck.game_id), metadata=org.client.app()
    )
    assert view.view.status == gpb.GAME_STATUS_PLAYING


async def view_as(org: Organiser, game_id: str, token: str) -> gpb.GameView:
    done = await org.client.stub.GetView(
        gpb.GetViewRequest(game_id=game_id), metadata=org.client.player(token)
    )
    return done.view


async def test_a_start_round_retry_answers_fresh_tokens(org: Organiser) -> None:
    """An organiser whose StartRound answer was lost retries it and gets working tokens
    for every seat of every table still in play; the first tokens stay valid."""
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4)
    tid = created.tournament_id
    first = await org.start(tid, 1)
    again = await org.start(tid, 1)
    old = {(tb.number, s.seat): s.player_token for tb in first.tables for s in tb.seats}
    new = {(tb.number, s.seat): s.player_token for tb in again.tables for s in tb.seats}
    assert all(new.values()) and not set(old.values()) & set(new.values())
    one, two = again.tables
    for seat in one.seats:
        assert (await view_as(org, one.game_id, seat.player_token)).seat == seat.seat
        assert (await view_as(org, one.game_id, old[(1, seat.seat)])).seat == seat.seat
    # A move with a fresh token: table 1's seat 1 resigns, and side A wins it.
    await org.resign(one, 1)
    await org.settle([one.game_id])
    t = await org.get(tid)
    assert t.rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_A_WINS
    # Table 2's first tokens still play: its seat 0 resigns with one.
    await org.resign(first.tables[1], 0)
    await org.settle([two.game_id])
    assert (await org.get(tid)).rounds[0].tables[1].outcome == pb.TABLE_OUTCOME_B_WINS
    # A finished table gets no new tokens.
    last = await org.start(tid, 1)
    assert not any(s.player_token for tb in last.tables for s in tb.seats)


async def test_duplicate_even_tables_swap_directions(org: Organiser) -> None:
    """At a duplicate round side B sits on the game's side 0 at the even tables (as
    duplicate bridge turns the boards), and the game's result is mapped back."""
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, duplicate=True)
    tid = created.tournament_id
    players = {e.id: e.player_ids[0] for e in created.entrants}
    rnd = await org.start(tid, 1)
    one, two = rnd.tables
    assert [s.player_id for s in one.seats] == [players[one.entrant_a], players[one.entrant_b]]
    assert [s.player_id for s in two.seats] == [players[two.entrant_b], players[two.entrant_a]]
    setup = await org.server.store.setup_of(two.game_id)
    view = await view_as(org, two.game_id, two.seats[0].player_token)
    assert view.seats[0].player_name == players[two.entrant_b] and setup.players == 2
    # Seat 1 resigns at both tables: the game's side 0 wins both, which is side A at
    # table 1 and side B at table 2.
    await org.play_round(tid, rnd, loser_seat=1)
    t = await org.get(tid)
    assert [tb.outcome for tb in t.rounds[0].tables] == [
        pb.TABLE_OUTCOME_A_WINS,
        pb.TABLE_OUTCOME_B_WINS,
    ]
    check_standings(t)


async def test_partnership_tables_without_duplicate_keep_side_a_on_seat_0(org: Organiser) -> None:
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, table_size=4)
    entrants = {e.id: list(e.player_ids) for e in created.entrants}
    rnd = await org.start(created.tournament_id, 1)
    for tb in rnd.tables:
        seats = [s.player_id for s in tb.seats]
        assert seats[0::2] == entrants[tb.entrant_a] and seats[1::2] == entrants[tb.entrant_b]


async def replay(org: Organiser, game_id: str, token: str) -> gpb.GetReplayResponse:
    return await org.client.stub.GetReplay(
        gpb.GetReplayRequest(game_id=game_id), metadata=org.client.player(token)
    )


async def test_duplicate_round_cards_stay_hidden_while_a_table_plays(org: Organiser) -> None:
    """GUARANTEES: "an app sees no hand". The tables of a duplicate round share their
    seed and decks: a player who resigns at once must not read them from the replay
    (nor the app from the round) while another table still plays them."""
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, duplicate=True)
    tid = created.tournament_id
    rnd = await org.start(tid, 1)
    one, two = rnd.tables
    setup = await org.server.store.setup_of(one.game_id)
    await org.resign(one, 0)
    await org.settle([one.game_id])
    for seat in one.seats:
        early = await replay(org, one.game_id, seat.player_token)
        assert early.seed == 0 and not any(d.deck for d in early.deals)
        assert early.moves  # the game's own moves stay visible
    app_replay = await org.client.stub.GetReplay(
        gpb.GetReplayRequest(game_id=one.game_id), metadata=org.md
    )
    assert app_replay.seed == 0 and not any(d.deck for d in app_replay.deals)
    # Table 1 has its result, table 2 plays on: no deck in the round's answers.
    assert (await org.get(tid)).rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_B_WINS
    assert not (await org.get(tid)).rounds[0].deck
    assert not (await org.start(tid, 1)).deck
    # Once every table has finished, the seed and the deck are shown.
    await org.resign(two, 1)
    await org.settle([two.game_id])
    late = await replay(org, one.game_id, one.seats[0].player_token)
    assert late.seed == setup.seed != 0
    assert all(d.deck for d in late.deals)
    assert setup.deck is not None
    shown = [card_text(c) for c in setup.deck]
    assert list((await org.get(tid)).rounds[0].deck) == shown
    assert list((await org.start(tid, 1)).deck) == shown


async def test_a_game_of_no_tournament_shows_its_seed_when_over(org: Organiser) -> None:
    """The hold-back is for duplicate rounds only: a non-duplicate table's replay shows
    its seed once its match is over."""
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4)
    rnd = await org.start(created.tournament_id, 1)
    one = rnd.tables[0]
    await org.resign(one, 0)
    await org.settle([one.game_id])
    done = await replay(org, one.game_id, one.seats[0].player_token)
    assert done.seed == (await org.server.store.setup_of(one.game_id)).seed


async def test_a_forfeited_table_still_playing_keeps_the_deck_hidden(org: Organiser) -> None:
    """Every table has a result once the organiser records a forfeit, but the forfeited
    table's game may go on: its cards are still hidden, so the deck waits for it."""
    created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, duplicate=True)
    tid = created.tournament_id
    rnd = await org.start(tid, 1)
    one, two = rnd.tables
    await org.forfeit(tid, 1, 1, pb.TABLE_OUTCOME_A_FORFEITS)
    await org.resign(two, 0)
    await org.settle([two.game_id])
    t = await org.get(tid)
    assert all(tb.outcome for tb in t.rounds[0].tables) and not t.rounds[0].deck
    assert (await replay(org, two.game_id, two.seats[0].player_token)).seed == 0
    await org.resign(one, 0)
    await org.settle([one.game_id])
    assert (await org.get(tid)).rounds[0].deck
    assert (await replay(org, two.game_id, two.seats[0].player_token)).seed != 0


async def grant(org: Organiser, player: str, amount: int) -> None:
    players = pb_grpc.PlayerServiceStub(org.client.channel)
    await players.GrantChips(
        pb.GrantChipsRequest(player_id=player, amount=amount, grant_id=f"g-{player}"),
        metadata=org.md,
    )


async def test_a_duplicate_round_with_a_table_that_never_started_shows_its_deck(
    org: Organiser,
) -> None:
    """Issue 27: "A round's deck is published when every table of the round is over,
    however it ended." A staked table whose start is refused (a seat without the chips)
    and recorded as a double no-show is closed (its game can no longer be started and
    dealt the round's cards), so once the other table ends the deck is shown."""
    created = await org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        4,
        duplicate=True,
        table=gpb.TableOptions(competitive=True, stake=10),
    )
    tid = created.tournament_id
    for player in ("p01", "p02", "p03"):  # p04 has no chips
        await grant(org, player, 100)
    rnd = await org.start(tid, 1)
    stuck = next(tb for tb in rnd.tables if "e04" in (tb.entrant_a, tb.entrant_b))
    played = next(tb for tb in rnd.tables if tb is not stuck)
    view = await view_as(org, stuck.game_id, stuck.seats[0].player_token)
    assert view.status == gpb.GAME_STATUS_WAITING
    await org.forfeit(tid, 1, stuck.number, pb.TABLE_OUTCOME_DOUBLE_NO_SHOW)
    view = await view_as(org, stuck.game_id, stuck.seats[0].player_token)
    assert view.status == gpb.GAME_STATUS_FINISHED
    assert view.match_result.reason == "not_started"
    with pytest.raises(grpc.aio.AioRpcError) as exc:  # never dealt the round's cards
        await org.client.stub.StartGame(
            gpb.StartGameRequest(game_id=stuck.game_id),
            metadata=org.client.player(stuck.seats[0].player_token),
        )
    assert error_reason(exc.value) == "GAME_OVER"
    await org.resign(played, 0)
    await org.settle([played.game_id, stuck.game_id])
    t = await org.get(tid)
    assert t.rounds[0].deck and all(tb.outcome for tb in t.rounds[0].tables)
    late = await replay(org, played.game_id, played.seats[0].player_token)
    setup = await org.server.store.setup_of(played.game_id)
    assert late.seed == setup.seed != 0 and all(d.deck for d in late.deals)


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


# ----- standings off the event loop (issue 27: "Standings stall the server") -------------


async def test_standings_are_stored_with_each_result_and_a_read_computes_nothing(
    org: Organiser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27: "standings are kept up to date as results arrive, not recomputed from
    scratch on every read". A Swiss with drawn tables (half-point score groups, where
    pairing searches): once its results are recorded, GetTournament answers the
    standings as stored even with the standings computation and the Swiss pairing
    made to fail in this process; the stored standings are those recomputed from the
    tables."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 8, rounds=3)
    tid = created.tournament_id
    for number in (1, 2):
        rnd = await org.start(tid, number)
        for tb in rnd.tables:
            if tb.number % 2:
                await draw_game(org, tb.game_id)
        await org.play_round(
            tid, pb.TournamentRound(tables=[tb for tb in rnd.tables if tb.number % 2 == 0])
        )
    before = await org.get(tid)
    check_standings(before)
    assert any(s.draws for s in before.standings)

    def fail(*_: object, **__: object) -> None:
        raise AssertionError("a read computed the standings or paired a round")

    monkeypatch.setattr(Tournament, "standings", fail)
    monkeypatch.setattr(Tournament, "_swiss_pairs", fail)
    monkeypatch.setattr(Tournament, "pair_next_round", fail)
    after = await org.get(tid)
    assert list(after.standings) == list(before.standings)
    assert [list(r.tables) for r in after.rounds] == [list(r.tables) for r in before.rounds]


async def test_a_swiss_round_is_paired_outside_the_server_process(
    org: Organiser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27: "Heavy computation never runs on the event loop". A Swiss pairing
    searches (seconds for a large field): StartRound pairs it in a worker process,
    so it still pairs with the pairing made to fail in the server's own process, and
    the standings computed by the round's results never run on the event loop's
    thread. (That is for a large event: a small one's, a fraction of a millisecond,
    are computed on the loop; the bound is lowered here so that this one counts as
    large.)"""
    monkeypatch.setattr(compute, "INLINE_EVENTS", -1)
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 9, rounds=2)  # a bye
    tid = created.tournament_id
    loop_thread = threading.get_ident()
    computed_on: list[int] = []
    real_standings = Tournament.standings

    def standings(self: Tournament) -> list[Standing]:
        computed_on.append(threading.get_ident())
        return real_standings(self)

    def fail(*_: object, **__: object) -> None:
        raise AssertionError("a Swiss round was paired in the server's process")

    monkeypatch.setattr(Tournament, "standings", standings)
    monkeypatch.setattr(Tournament, "_swiss_pairs", fail)
    first = await org.start(tid, 1)
    assert len(first.tables) == 4 and len(first.byes) == 1
    await org.play_round(tid, first)
    second = await org.start(tid, 2)
    met = {frozenset((tb.entrant_a, tb.entrant_b)) for tb in first.tables}
    assert not met & {frozenset((tb.entrant_a, tb.entrant_b)) for tb in second.tables}
    assert second.byes != first.byes
    await org.play_round(tid, second)
    final = await org.get(tid)
    assert final.status == pb.TOURNAMENT_STATUS_FINISHED
    check_standings(final)
    assert computed_on and loop_thread not in computed_on


async def test_a_tournament_read_again_unchanged_is_not_rebuilt(
    org: Organiser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GetTournament of a tournament that has not changed since this process last
    showed it answers it again without rebuilding it (its version read, nothing
    more); a change, made by this process or written elsewhere (a game's result
    recorded in the settlement's transaction), is read at once."""
    created = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 4, rounds=2)
    tid = created.tournament_id
    first = await org.start(tid, 1)
    shown = await org.get(tid)
    rebuilds: list[int] = []
    real = TournamentRow.rebuild

    def counted(self: TournamentRow) -> Tournament:
        rebuilds.append(self.version)
        return real(self)

    monkeypatch.setattr(TournamentRow, "rebuild", counted)
    assert await org.get(tid) == shown
    assert await org.get(tid) == shown
    assert rebuilds == []
    # A result recorded by the settlement (not through this use case's changes).
    table = first.tables[0]
    assert org.server.store is not None
    async with org.server.store.writing() as conn:
        await record_game_result(TournamentTransaction(conn), table.game_id, 0, "won")
    rebuilds.clear()
    after = await org.get(tid)
    assert after.rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_A_WINS
    assert len(rebuilds) == 1
    assert after.standings != shown.standings
    assert await org.get(tid) == after
    assert len(rebuilds) == 1


# ----- scheduled tournaments (issue 27: "Scheduling") --------------------------------------


async def advance_until(
    org: Organiser, tid: str, done: Callable[[pb.Tournament], bool], tries: int = 100
) -> pb.Tournament:
    """What a replica's sweeper does for scheduled tournaments, now and again (the
    server's own sweeper may get there first), until ``done`` holds."""
    tournaments = org.server.tournaments
    assert tournaments is not None
    for _ in range(tries):
        await tournaments.run_due()
        t = await org.get(tid)
        if done(t):
            return t
        await asyncio.sleep(0.05)
    raise AssertionError(f"the tournament did not get there: {t}")


async def test_a_scheduled_swiss_starts_its_rounds_and_settles_them_by_the_clock(
    org: Organiser,
) -> None:
    """Issue 27: "rounds start by themselves when the previous one is over or at a
    scheduled time ... with a deadline per round after which unfinished tables are
    settled by the rules the organiser chose". No StartRound call: round 1 at its
    start time, round 2 once round 1 is over; a table still playing at the round's
    deadline is drawn (ROUND_TIMEOUT_DRAW) and its game ended, counting for no one."""
    tournaments = org.server.tournaments
    assert tournaments is not None
    start_at = now_ms() + 60_000
    created = await org.create(
        pb.TOURNAMENT_FORMAT_SWISS,
        4,
        rounds=2,
        start_at_ms=start_at,
        round_time_limit_seconds=120,
        round_timeout=pb.ROUND_TIMEOUT_DRAW,
    )
    tid = created.tournament_id
    assert created.next_at_ms == start_at and created.round_timeout == pb.ROUND_TIMEOUT_DRAW
    await tournaments.run_due()
    assert not (await org.get(tid)).rounds, "nothing before the start time"
    tournaments.clock = lambda: now_ms() + 61_000  # the start time has passed
    t = await advance_until(org, tid, lambda t: len(t.rounds) == 1)
    assert t.status == pb.TOURNAMENT_STATUS_RUNNING
    first = t.rounds[0].tables
    assert len(first) == 2 and all(tb.game_id for tb in first)
    # The clock: the round's deadline is 120 s after it started.
    assert start_at < t.next_at_ms <= now_ms() + 121_000
    await draw_game(org, first[0].game_id, 0, "won")  # table 1 won by side A
    t = await org.get(tid)
    assert t.rounds[0].tables[0].outcome == pb.TABLE_OUTCOME_A_WINS
    assert len(t.rounds) == 1, "round 2 waits for table 2"
    tournaments.clock = lambda: now_ms() + 200_000  # round 1's clock has run out
    t = await advance_until(org, tid, lambda t: len(t.rounds) == 2)
    assert t.rounds[0].tables[1].outcome == pb.TABLE_OUTCOME_DRAW
    view = await org.client.stub.GetView(
        gpb.GetViewRequest(game_id=first[1].game_id), metadata=org.client.app()
    )
    assert view.view.status == gpb.GAME_STATUS_FINISHED, "the clock ended the game"
    for tb in t.rounds[1].tables:
        await draw_game(org, tb.game_id, 1, "won")
    t = await org.get(tid)
    assert t.status == pb.TOURNAMENT_STATUS_FINISHED and t.next_at_ms == 0
    check_standings(t)


async def test_only_one_replica_starts_a_scheduled_round(replicas: list[Running]) -> None:
    """Issue 27: rounds "run by any replica (no state in one process)": two replicas
    sweeping at once claim the due tournament through the database; the round is
    started once."""
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{replicas[0].port}")
    _, key = await replicas[0].store.create_app("scheduled")
    org = Organiser(Client(channel, key), replicas[0])
    try:
        created = await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 4, start_at_ms=now_ms() - 1)
        sweeps = [r.tournaments.run_due() for r in replicas if r.tournaments is not None]
        acted = await asyncio.gather(*sweeps)
        assert sum(acted) == 1
        t = await org.get(created.tournament_id)
        assert len(t.rounds) == 1 and len(t.rounds[0].tables) == 2
        assert (
            sum(await asyncio.gather(*(r.tournaments.run_due() for r in replicas if r.tournaments)))
            == 0
        )
    finally:
        await channel.close()


async def test_scheduling_fields_are_checked(org: Organiser) -> None:
    """A round clock or break without a start time, or out of range, is refused."""
    for change in (
        {"round_time_limit_seconds": 60},
        {"start_at_ms": now_ms(), "round_break_seconds": 86_401},
        {"start_at_ms": now_ms(), "round_time_limit_seconds": -1},
    ):
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await org.create(pb.TOURNAMENT_FORMAT_SWISS, 4, **change)  # type: ignore[arg-type]
        assert error_reason(exc.value) == "BAD_TOURNAMENT"


# ----- registration (issue 27: "Registration") ---------------------------------------------


async def register(org: Organiser, tid: str, entrant: str) -> pb.Tournament:
    done = await org.stub.RegisterEntrant(
        pb.RegisterEntrantRequest(
            tournament_id=tid, entrant=pb.Entrant(id=entrant, player_ids=[f"p-{entrant}"])
        ),
        metadata=org.md,
    )
    return done.tournament


async def refusal(call: Awaitable[object]) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await call
    return error_reason(exc.value)


async def test_open_registration_with_an_entry_limit_and_withdrawal_before_the_start(
    org: Organiser,
) -> None:
    """Issue 27: "a registration window, entry limits". An open tournament created
    with no entrants takes registrations up to its limit, in seed order; a
    registration withdrawn before the start leaves the field (and frees a place); a
    retry changes nothing; registration closes at the start."""
    done = await org.stub.CreateTournament(
        pb.CreateTournamentRequest(
            name="open",
            format=pb.TOURNAMENT_FORMAT_SWISS,
            table_size=2,
            rules=gpb.Rules(preset=PRESET),
            registration_open=True,
            max_entrants=4,
            rounds=2,
        ),
        metadata=org.md,
    )
    tid = done.tournament.tournament_id
    assert done.tournament.registration_open and not done.tournament.entrants
    for e in ("a", "b", "c", "d"):
        t = await register(org, tid, e)
    assert [e.id for e in t.entrants] == ["a", "b", "c", "d"]
    assert await register(org, tid, "d") == t  # a retry
    assert await refusal(register(org, tid, "e")) == "TOURNAMENT_FULL"
    t = (
        await org.stub.WithdrawEntrant(
            pb.WithdrawEntrantRequest(tournament_id=tid, entrant="b"), metadata=org.md
        )
    ).tournament
    assert [e.id for e in t.entrants] == ["a", "c", "d"]
    assert [s.entrant for s in t.standings] and "b" not in {s.entrant for s in t.standings}
    t = await register(org, tid, "e")
    assert [e.id for e in t.entrants] == ["a", "c", "d", "e"]
    rnd = await org.start(tid, 1)
    seated = {x for tb in rnd.tables for x in (tb.entrant_a, tb.entrant_b)}
    assert seated == {"a", "c", "d", "e"}
    assert await refusal(register(org, tid, "f")) == "REGISTRATION_CLOSED"


async def test_late_registration_joins_a_swiss_from_the_next_round(org: Organiser) -> None:
    """Issue 27: "late registration up to a chosen round". With
    late_registration_rounds 2, an entrant registered after round 1 is paired from
    round 2 with no points for round 1; once round 2 has started, registration is
    closed."""
    done = await org.stub.CreateTournament(
        pb.CreateTournamentRequest(
            name="late",
            format=pb.TOURNAMENT_FORMAT_SWISS,
            entrants=[pb.Entrant(id=e, player_ids=[f"p-{e}"]) for e in ("a", "b", "c", "d")],
            table_size=2,
            rules=gpb.Rules(preset=PRESET),
            registration_open=True,
            late_registration_rounds=2,
            rounds=3,
        ),
        metadata=org.md,
    )
    tid = done.tournament.tournament_id
    first = await org.start(tid, 1)
    await org.play_round(tid, first)
    t = await register(org, tid, "late")
    late = next(s for s in t.standings if s.entrant == "late")
    assert late.points == 0 and late.wins == late.losses == 0
    second = await org.start(tid, 2)
    seated = {x for tb in second.tables for x in (tb.entrant_a, tb.entrant_b)} | set(second.byes)
    assert "late" in seated
    assert await refusal(register(org, tid, "later")) == "REGISTRATION_CLOSED"


async def test_entrants_not_checked_in_are_dropped_at_the_scheduled_start(
    org: Organiser,
) -> None:
    """Issue 27: "check-in before the start (no-shows dropped automatically)". Check-in
    opens check_in_seconds before the start; at the start the server drops those who
    did not check in and pairs the rest."""
    tournaments = org.server.tournaments
    assert tournaments is not None
    start_at = now_ms() + 3_600_000
    created = await org.create(
        pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 5, start_at_ms=start_at, check_in_seconds=600
    )
    tid = created.tournament_id

    async def check_in(entrant: str) -> pb.Tournament:
        done = await org.stub.CheckInEntrant(
            pb.CheckInEntrantRequest(tournament_id=tid, entrant=entrant), metadata=org.md
        )
        return done.tournament

    assert await refusal(check_in("e01")) == "CHECK_IN_CLOSED"  # an hour early
    tournaments.clock = lambda: start_at - 300_000  # five minutes before
    for e in ("e01", "e02", "e04"):
        t = await check_in(e)
    assert list(t.checked_in) == ["e01", "e02", "e04"]
    assert await check_in("e04") == t  # a repeat
    assert await refusal(check_in("nobody")) == "ENTRANT_NOT_FOUND"
    tournaments.clock = lambda: start_at + 1
    t = await advance_until(org, tid, lambda t: len(t.rounds) == 1)
    assert [e.id for e in t.entrants] == ["e01", "e02", "e04"]
    assert t.total_rounds == 3  # a round robin of three: each rests once
    seated = {x for tb in t.rounds[0].tables for x in (tb.entrant_a, tb.entrant_b)}
    assert seated | set(t.rounds[0].byes) == {"e01", "e02", "e04"}


async def test_list_tournaments_by_status_preset_and_start_time(org: Organiser) -> None:
    """Issue 27: "listing and searching tournaments (status, preset, start time)"."""
    base = now_ms() + 86_400_000
    ids = []
    for i in range(3):
        t = await org.create(pb.TOURNAMENT_FORMAT_SWISS, 4, start_at_ms=base + i * 1000)
        ids.append(t.tournament_id)
    unscheduled = (await org.create(pb.TOURNAMENT_FORMAT_ROUND_ROBIN, 2)).tournament_id
    rnd = await org.start(unscheduled, 1)
    assert rnd.tables

    async def listing(**kw: Any) -> pb.ListTournamentsResponse:
        return await org.stub.ListTournaments(pb.ListTournamentsRequest(**kw), metadata=org.md)

    found = await listing(starts_after_ms=base, starts_before_ms=base + 2000)
    assert [x.tournament_id for x in found.tournaments] == ids[:2]
    assert all(x.preset == PRESET and x.entrants == 4 for x in found.tournaments)
    assert found.tournaments[0].format == pb.TOURNAMENT_FORMAT_SWISS
    running = await listing(status=pb.TOURNAMENT_STATUS_RUNNING)
    assert [x.tournament_id for x in running.tournaments] == [unscheduled]
    assert not (await listing(preset="no-such-preset")).tournaments
    page = await listing(starts_after_ms=base, page_size=2)
    assert len(page.tournaments) == 2 and page.next_page_token
    rest = await listing(starts_after_ms=base, page_size=2, page_token=page.next_page_token)
    assert [x.tournament_id for x in rest.tournaments] == ids[2:] and not rest.next_page_token
    assert await refusal(listing(page_token="x")) == "MALFORMED_REQUEST"


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
