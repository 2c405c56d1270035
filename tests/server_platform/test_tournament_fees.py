"""Entry fees and prizes through TournamentService, on SQLite and PostgreSQL (issue
27: "entry fees taken through the chip ledger when a player registers (refunded if
they withdraw before the start or the event is cancelled), a prize pool with a
payout table, the house share as today; the ledger stays conserved").

The chips are read back through PlayerService and the ledger checked straight from
the database (``staking.ledger_problems``), independently of the code that writes it.
"""

from __future__ import annotations

import json

import grpc
import pytest
from prometheus_client import REGISTRY

from tranca.server import Running
from tranca.v1 import game_pb2 as gpb
from tranca.v1 import platform_pb2 as pb

from ..server.conftest import Client
from .staking import Platform, balance_of, ledger_problems
from .tournament_helpers import PRESET, Organiser, error_reason, refusal

Code = grpc.StatusCode
FEE = 100


def chips_moved(purpose: str) -> float:
    value = REGISTRY.get_sample_value("tranca_chips_moved_total", {"purpose": purpose})
    return value or 0.0


@pytest.fixture
async def org(client: Client, server: Running) -> Organiser:
    return Organiser(client, server)


@pytest.fixture
async def bank(client: Client, server: Running) -> Platform:
    return await Platform.of(client, server)


def entrant(name: str) -> pb.Entrant:
    return pb.Entrant(id=name, player_ids=[f"p-{name}"])


async def create(org: Organiser, entrants: list[str], **changes: object) -> pb.Tournament:
    """A Swiss of two rounds with open registration, a fee of ``FEE``, paid 70 : 30
    with a 10 % house share; ``changes`` replace those fields (None: left unset)."""
    fields: dict[str, object] = {
        "name": "cup",
        "format": pb.TOURNAMENT_FORMAT_SWISS,
        "table_size": 2,
        "rules": gpb.Rules(preset=PRESET),
        "rounds": 2,
        "registration_open": True,
        "entry_fee": FEE,
        "payout_percents": [70, 30],
        "house_percent": 10,
        **changes,
    }
    done = await org.stub.CreateTournament(
        pb.CreateTournamentRequest(
            entrants=[entrant(e) for e in entrants],
            **{k: v for k, v in fields.items() if v is not None},  # type: ignore[arg-type]
        ),
        metadata=org.md,
    )
    return done.tournament


async def register(org: Organiser, tid: str, name: str) -> pb.Tournament:
    done = await org.stub.RegisterEntrant(
        pb.RegisterEntrantRequest(tournament_id=tid, entrant=entrant(name)), metadata=org.md
    )
    return done.tournament


async def withdraw(org: Organiser, tid: str, name: str) -> pb.Tournament:
    done = await org.stub.WithdrawEntrant(
        pb.WithdrawEntrantRequest(tournament_id=tid, entrant=name), metadata=org.md
    )
    return done.tournament


async def test_fees_are_taken_at_entry_refunded_before_the_start_and_paid_out_as_prizes(
    org: Organiser, bank: Platform, server: Running
) -> None:
    """Entrants given at creation pay at creation, a registration pays when it is
    taken, a registration withdrawn before the start is refunded; at the finish the
    house takes its 10 % and places 1 and 2 share the rest 70 : 30. Every chip is
    accounted for."""
    moved_before = {p: chips_moved(p) for p in ("entry_fee", "entry_refund", "prize")}
    for name in ("a", "b", "c", "d", "e"):
        await bank.grant(f"p-{name}", 500)
    t = await create(org, ["a", "b"])
    tid = t.tournament_id
    assert (t.entry_fee, list(t.payout_percents), t.house_percent) == (FEE, [70, 30], 10)
    assert t.prize_pool == 2 * FEE
    assert await bank.chips("p-a") == 400
    for name in ("c", "d", "e"):
        t = await register(org, tid, name)
    assert t.prize_pool == 5 * FEE
    t = await register(org, tid, "e")  # a retry: nothing more taken
    assert await bank.chips("p-e") == 400
    listed = await org.stub.ListTournaments(pb.ListTournamentsRequest(), metadata=org.md)
    assert [x.entry_fee for x in listed.tournaments if x.tournament_id == tid] == [FEE]
    t = await withdraw(org, tid, "e")  # before the start: refunded
    assert t.prize_pool == 4 * FEE
    assert await bank.chips("p-e") == 500
    assert await balance_of(server, bank.app_id, f"prize_pool:{tid}") == 4 * FEE

    for number in (1, 2):
        rnd = await org.start(tid, number)
        await org.play_round(tid, rnd)  # side B resigns at every table
    final = await org.get(tid)
    assert final.status == pb.TOURNAMENT_STATUS_FINISHED
    assert final.prize_pool == 0
    first, second = final.standings[0], final.standings[1]
    # 400 in the pool: 40 to the house, 360 shared 252 : 108.
    assert (first.prize, second.prize) == (252, 108)
    assert all(s.prize == 0 for s in final.standings[2:])
    assert await bank.chips(f"p-{first.entrant}") == 400 + 252
    assert await bank.chips(f"p-{second.entrant}") == 400 + 108
    assert await balance_of(server, bank.app_id, f"prize_pool:{tid}") == 0
    assert await balance_of(server, bank.app_id, "house") == 40
    purposes = [e.purpose for e in reversed(await bank.entries(f"p-{first.entrant}"))]
    assert purposes[-2:] == ["entry_fee", "prize"]
    assert [e.purpose for e in reversed(await bank.entries("p-e"))][-2:] == [
        "entry_fee",
        "entry_refund",
    ]
    assert await ledger_problems(server, bank.app_id) == []
    exported = await org.stub.ExportTournament(
        pb.ExportTournamentRequest(tournament_id=tid, format=pb.EXPORT_FORMAT_JSON),
        metadata=org.md,
    )
    assert [r["prize"] for r in json.loads(exported.content)] == [252, 108, 0, 0]
    # Counted once each, as committed (the server runs in this process).
    moved = {p: chips_moved(p) - before for p, before in moved_before.items()}
    assert moved == {"entry_fee": 5 * FEE, "entry_refund": FEE, "prize": 360}

    # The prizes are paid by these standings: the results are final now.
    reason = await refusal(
        org.stub.CorrectResult(
            pb.CorrectResultRequest(
                tournament_id=tid,
                round=2,
                table=1,
                outcome=pb.TABLE_OUTCOME_B_WINS,
                reason="scoring error",
            ),
            metadata=org.md,
        )
    )
    assert reason == "PRIZES_PAID"


async def test_a_player_short_of_the_fee_is_refused_and_nothing_is_written(
    org: Organiser, bank: Platform, server: Running
) -> None:
    await bank.grant("p-a", 500)
    await bank.grant("p-b", FEE - 1)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await create(org, ["a", "b"])
    assert exc.value.code() == Code.FAILED_PRECONDITION
    assert error_reason(exc.value) == "INSUFFICIENT_CHIPS"
    assert "p-b" in (exc.value.details() or "")
    assert await bank.chips("p-a") == 500  # nothing taken from anyone

    await bank.grant("p-c", 500)
    t = await create(org, ["a", "c"])
    reason = await refusal(register(org, t.tournament_id, "b"))
    assert reason == "INSUFFICIENT_CHIPS"
    t = await org.get(t.tournament_id)
    assert [e.id for e in t.entrants] == ["a", "c"]  # the registration was not taken
    assert t.prize_pool == 2 * FEE
    assert await bank.chips("p-b") == FEE - 1
    assert await ledger_problems(server, bank.app_id) == []


async def test_cancelling_returns_every_fee_even_after_the_start(
    org: Organiser, bank: Platform, server: Running
) -> None:
    """A withdrawal once started keeps the fee in the pool; a cancellation returns
    every fee held, and the house takes nothing."""
    names = ["a", "b", "c", "d"]
    for name in names:
        await bank.grant(f"p-{name}", 300)
    t = await create(org, names)
    tid = t.tournament_id
    await org.start(tid, 1)
    t = await withdraw(org, tid, "d")  # started: stays in the pool
    assert t.prize_pool == 4 * FEE
    assert await bank.chips("p-d") == 200
    done = await org.stub.CancelTournament(
        pb.CancelTournamentRequest(tournament_id=tid, reason="the venue closed"), metadata=org.md
    )
    assert done.tournament.prize_pool == 0
    for name in names:
        assert await bank.chips(f"p-{name}") == 300
    assert await balance_of(server, bank.app_id, "house") == 0
    again = await org.stub.CancelTournament(
        pb.CancelTournamentRequest(tournament_id=tid, reason="again"), metadata=org.md
    )
    assert again.tournament.status == pb.TOURNAMENT_STATUS_CANCELLED
    assert await bank.chips("p-a") == 300  # a repeat refunds nothing twice
    assert await ledger_problems(server, bank.app_id) == []


async def test_payout_tables_are_checked(org: Organiser) -> None:
    for extra in (
        {"payout_percents": [60, 30]},  # not 100
        {"payout_percents": [30, 70]},  # second pays more than first
        {"house_percent": 101},
        {"entry_fee": -5},
    ):
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await create(org, ["a", "b"], **extra)
        assert error_reason(exc.value) == "BAD_TOURNAMENT"
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await create(org, ["a", "b"], entry_fee=None, payout_percents=[100], house_percent=None)
    assert error_reason(exc.value) == "BAD_TOURNAMENT"  # a payout needs an entry fee


async def test_without_open_registration_a_withdrawal_before_the_start_is_refunded(
    org: Organiser, bank: Platform, server: Running
) -> None:
    """Without open registration a withdrawn entrant stays in the standings (marked
    withdrawn); before round 1 its fee comes back all the same, and it is not paid."""
    names = ["a", "b", "c"]
    for name in names:
        await bank.grant(f"p-{name}", 300)
    closed = await create(
        org, names, registration_open=None, rounds=1, payout_percents=None, house_percent=None
    )
    tid = closed.tournament_id
    t = await withdraw(org, tid, "c")
    assert t.prize_pool == 2 * FEE
    assert await bank.chips("p-c") == 300
    rnd = await org.start(tid, 1)
    await org.play_round(tid, rnd)  # side B resigns
    final = await org.get(tid)
    assert final.status == pb.TOURNAMENT_STATUS_FINISHED
    winner = final.standings[0].entrant
    house = 2 * FEE * 25 // 100
    assert final.standings[0].prize == 2 * FEE - house
    assert await bank.chips(f"p-{winner}") == 300 - FEE + 2 * FEE - house
    assert await bank.chips("p-c") == 300
    assert await ledger_problems(server, bank.app_id) == []


async def test_a_staked_final_table_pays_its_pot_and_the_prizes_in_one_settlement(
    org: Organiser, bank: Platform, server: Running
) -> None:
    """Competitive tables with a stake and an entry fee: the last game's settlement
    pays its pot and the tournament's prizes in one transaction (every chip account
    of both locked first, in one order)."""
    for name in ("a", "b"):
        await bank.grant(f"p-{name}", 1000)
    staked = await create(
        org,
        ["a", "b"],
        format=pb.TOURNAMENT_FORMAT_SINGLE_ELIMINATION,
        table=gpb.TableOptions(competitive=True, stake=10),
        rounds=None,
        registration_open=None,
        payout_percents=None,
        house_percent=0,
    )
    tid = staked.tournament_id
    rnd = await org.start(tid, 1)
    await org.play_round(tid, rnd)  # side B resigns: A wins the pot and the prize
    final = await org.get(tid)
    assert final.status == pb.TOURNAMENT_STATUS_FINISHED
    a, b = rnd.tables[0].entrant_a, rnd.tables[0].entrant_b
    pot_share = 20 - 20 * 25 // 100  # the match's pot, less the house's 25 %
    assert await bank.chips(f"p-{a}") == 1000 - FEE - 10 + pot_share + 2 * FEE
    assert await bank.chips(f"p-{b}") == 1000 - FEE - 10
    assert await ledger_problems(server, bank.app_id) == []
