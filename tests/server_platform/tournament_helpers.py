"""What the TournamentService tests share: an organiser's calls (``Organiser``), an
error's reason, and the standings as recomputed from the tables."""

from __future__ import annotations

import asyncio
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Sequence
from typing import TypedDict, Unpack

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from tranca.server import Running
from tranca.services.tournaments import record_game_result
from tranca.store.tournament_store import TournamentStore, TournamentTransaction
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import platform_pb2 as pb
from tranca.v1 import platform_pb2_grpc as pb_grpc
from tranca_rules.match import DRAWN

from ..server.conftest import Client
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


async def draw_game(
    org: Organiser, game_id: str, winner: int = DRAWN, reason: str = "drawn"
) -> None:
    """The settlement's call for a drawn match (no preset makes one easy to play out),
    or for another level end (an annulment: ``winner`` -1)."""
    store = org.server.store
    async with store._one_writer(), store.engine.begin() as conn:
        await record_game_result(TournamentTransaction(conn), game_id, winner, reason)


async def view_as(org: Organiser, game_id: str, token: str) -> gpb.GameView:
    done = await org.client.stub.GetView(
        gpb.GetViewRequest(game_id=game_id), metadata=org.client.player(token)
    )
    return done.view


async def grant(org: Organiser, player: str, amount: int) -> None:
    players = pb_grpc.PlayerServiceStub(org.client.channel)
    await players.GrantChips(
        pb.GrantChipsRequest(player_id=player, amount=amount, grant_id=f"g-{player}"),
        metadata=org.md,
    )
