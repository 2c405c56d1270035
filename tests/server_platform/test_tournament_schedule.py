"""Scheduled tournaments (issue 27: "Scheduling") and registration ("Registration")
through a real gRPC channel, on SQLite and PostgreSQL: rounds started and settled by
the clock, one replica at a time, open and late registration, check-in, listing.

Games end by resignation (LeaveGame with a seat's token once the game is under way)
and reach the tournament through the settlement, as on a running server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from tranca.server import Running
from tranca.services.moves import now_ms
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import platform_pb2 as pb

from ..server.conftest import Client
from .tournament_helpers import (
    PRESET,
    Organiser,
    check_standings,
    draw_game,
    error_reason,
    refusal,
    register,
)


@pytest.fixture
async def org(client: Client, server: Running) -> Organiser:
    return Organiser(client, server)


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
