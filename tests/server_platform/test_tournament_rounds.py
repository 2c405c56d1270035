"""TournamentService's rounds through a real gRPC channel, on SQLite and PostgreSQL:
concurrent StartRound retries, visibility to other apps, refusals, a round written
whole or not at all, retried starts and fresh tokens, and the running gauge.

Games end by resignation (LeaveGame with a seat's token once the game is under way)
and reach the tournament through the settlement, as on a running server.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Awaitable
from typing import Any

import grpc
import pytest

from tranca.server import Running
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import platform_pb2 as pb

from ..server.conftest import Client
from .tournament_helpers import (
    PRESET,
    Code,
    Organiser,
    error_reason,
    view_as,
)


@pytest.fixture
async def org(client: Client, server: Running) -> Organiser:
    return Organiser(client, server)


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
