"""The Python SDK's TournamentService calls against a real server (SQLite and
PostgreSQL): an organiser's whole flow (registration, check-in, listing, a round paired
by hand, a forfeit, a corrected result, exports, a cancellation), each call's typed
error, the retries of an answer lost on the way (applied once), and the blocking
client's wrappers."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest

from tranca.server import Running
from tranca_client import (
    AlreadyExists,
    AsyncTrancaClient,
    InvalidRequest,
    NotFound,
    RuleRejected,
    TrancaClient,
    Unavailable,
    pb,
    ppb,
)

from .conftest import DropResponses, rpc_error

MakeClient = Callable[..., AsyncTrancaClient]
HOUR_MS = 3_600_000


def tournament(
    format: ppb.TournamentFormat.ValueType = ppb.TOURNAMENT_FORMAT_SWISS,
    entrants: tuple[str, ...] = ("ana", "bia", "caio", "duda"),
    preset: str = "tranca-000",
    **fields: object,
) -> ppb.CreateTournamentRequest:
    """A tournament at 2-player tables, one player per entrant (named as it)."""
    return ppb.CreateTournamentRequest(
        name="club night",
        format=format,
        entrants=[ppb.Entrant(id=e, player_ids=[e]) for e in entrants],
        table_size=2,
        rules=pb.Rules(preset=preset),
        **fields,  # type: ignore[arg-type]
    )


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_every_tournament_call_has_a_method_in_both_clients() -> None:
    service = ppb.DESCRIPTOR.services_by_name["TournamentService"]
    names = [snake(m.name) for m in service.methods]
    assert "register_entrant" in names and "export_tournament" in names
    for name in names:
        assert callable(getattr(AsyncTrancaClient, name, None)), name
        assert callable(getattr(TrancaClient, name, None)), name


async def test_an_open_tournament_takes_registrations_withdrawals_and_lists(
    app: AsyncTrancaClient,
) -> None:
    open_ = await app.create_tournament(
        tournament(entrants=(), registration_open=True, max_entrants=3)
    )
    tid = open_.tournament_id
    assert open_.registration_open and not open_.entrants
    await app.register_entrant(tid, "ana")
    await app.register_entrant(tid, ppb.Entrant(id="bia", player_ids=["bia"]))
    again = await app.register_entrant(tid, "ana")  # a repeat changes nothing
    assert [e.id for e in again.entrants] == ["ana", "bia"]
    assert list(again.entrants[0].player_ids) == ["ana"]
    with pytest.raises(AlreadyExists) as exists:
        await app.register_entrant(tid, "ana-again", ["ana"])  # ana's player id again
    assert exists.value.reason == "ENTRANT_EXISTS"
    full = await app.register_entrant(tid, "caio")
    assert len(full.entrants) == 3
    with pytest.raises(RuleRejected) as refused:
        await app.register_entrant(tid, "duda")
    assert refused.value.reason == "TOURNAMENT_FULL"
    # Before the start a withdrawal leaves the field, and frees its place.
    left = await app.withdraw_entrant(tid, "caio")
    assert [e.id for e in left.entrants] == ["ana", "bia"]
    await app.register_entrant(tid, "duda")

    other = await app.create_tournament(
        tournament(ppb.TOURNAMENT_FORMAT_ROUND_ROBIN, preset="tranca-003")
    )
    await app.start_round(other.tournament_id, 1)
    # Neither is scheduled: by creation (two made in the same instant by their ids).
    everything = await app.list_tournaments()
    assert {s.tournament_id for s in everything.tournaments} == {tid, other.tournament_id}
    assert not everything.next_page_token
    summary = next(s for s in everything.tournaments if s.tournament_id == tid)
    assert (summary.entrants, summary.registration_open, summary.max_entrants) == (3, True, 3)
    assert summary.status == ppb.TOURNAMENT_STATUS_REGISTERED
    running = await app.list_tournaments(ppb.TOURNAMENT_STATUS_RUNNING)
    assert [s.tournament_id for s in running.tournaments] == [other.tournament_id]
    by_preset = await app.list_tournaments(preset="tranca-003")
    assert [s.tournament_id for s in by_preset.tournaments] == [other.tournament_id]
    first = await app.list_tournaments(page_size=1)
    second = await app.list_tournaments(page_size=1, page_token=first.next_page_token)
    pages = [s.tournament_id for s in (*first.tournaments, *second.tournaments)]
    assert pages == [s.tournament_id for s in everything.tournaments]
    assert not second.next_page_token
    with pytest.raises(InvalidRequest):
        await app.list_tournaments(page_size=201)


async def test_a_scheduled_tournament_checks_in_and_drops_who_did_not(
    app: AsyncTrancaClient,
) -> None:
    starts = int(time.time() * 1000) + HOUR_MS
    scheduled = await app.create_tournament(
        tournament(
            ppb.TOURNAMENT_FORMAT_ROUND_ROBIN,
            ("ana", "bia", "caio"),
            start_at_ms=starts,
            check_in_seconds=2 * 3600,
        )
    )
    tid = scheduled.tournament_id
    await app.check_in_entrant(tid, "ana")
    here = await app.check_in_entrant(tid, "bia")
    assert sorted(here.checked_in) == ["ana", "bia"]
    assert sorted((await app.check_in_entrant(tid, "bia")).checked_in) == ["ana", "bia"]
    with pytest.raises(NotFound) as unknown:
        await app.check_in_entrant(tid, "nobody")
    assert unknown.value.reason == "ENTRANT_NOT_FOUND"

    first = await app.start_round(tid, 1)  # by hand, before the schedule's time
    assert [(t.entrant_a, t.entrant_b) for t in first.tables] in (
        [("ana", "bia")],
        [("bia", "ana")],
    )
    after = await app.get_tournament(tid)
    assert [e.id for e in after.entrants] == ["ana", "bia"]  # caio did not check in
    with pytest.raises(NotFound) as dropped:
        await app.check_in_entrant(tid, "caio")
    assert dropped.value.reason == "ENTRANT_NOT_FOUND"

    later = await app.create_tournament(
        tournament(start_at_ms=starts + 2 * HOUR_MS, check_in_seconds=3600)
    )
    with pytest.raises(RuleRejected) as closed:
        await app.check_in_entrant(later.tournament_id, "ana")  # opens in two hours
    assert closed.value.reason == "CHECK_IN_CLOSED"

    unscheduled = await app.create_tournament(tournament())
    with pytest.raises(RuleRejected) as none:
        await app.check_in_entrant(unscheduled.tournament_id, "ana")
    assert none.value.reason == "NO_CHECK_IN"


async def test_a_round_paired_by_hand_a_forfeit_a_correction_and_the_exports(
    app: AsyncTrancaClient,
) -> None:
    swiss = await app.create_tournament(
        tournament(entrants=("ana", "bia", "caio", "duda", "eva"), rounds=2)
    )
    tid = swiss.tournament_id
    with pytest.raises(InvalidRequest) as bad:
        await app.start_round(tid, 1, pairings=[("ana", "bia")], byes=["eva"])
    assert bad.value.reason == "BAD_PAIRING"
    by_hand: list[tuple[str, str] | ppb.TablePairing] = [
        ("ana", "duda"),
        ppb.TablePairing(entrant_a="bia", entrant_b="caio"),
    ]
    first = await app.start_round(tid, 1, pairings=by_hand, byes=["eva"])
    assert [(t.entrant_a, t.entrant_b) for t in first.tables] == [("ana", "duda"), ("bia", "caio")]
    assert list(first.byes) == ["eva"]

    await app.record_forfeit(tid, 1, 1, ppb.TABLE_OUTCOME_B_FORFEITS)  # duda never came
    with pytest.raises(RuleRejected) as early:
        await app.correct_result(tid, 1, 2, ppb.TABLE_OUTCOME_A_WINS, "reported by phone")
    assert early.value.reason == "NO_RESULT_YET"
    with pytest.raises(InvalidRequest):
        await app.correct_result(tid, 1, 1, ppb.TABLE_OUTCOME_DOUBLE_NO_SHOW, "  ")
    why = "ana was late as well"
    ruled = await app.correct_result(tid, 1, 1, ppb.TABLE_OUTCOME_DOUBLE_NO_SHOW, why)
    assert ruled.rounds[0].tables[0].outcome == ppb.TABLE_OUTCOME_DOUBLE_NO_SHOW
    [correction] = ruled.corrections
    assert (correction.round, correction.table, correction.reason) == (1, 1, why)
    assert correction.previous == ppb.TABLE_OUTCOME_B_FORFEITS
    again = await app.correct_result(tid, 1, 1, ppb.TABLE_OUTCOME_DOUBLE_NO_SHOW, why)
    assert len(again.corrections) == 1  # a repeat changes nothing

    standings = await app.export_tournament(tid)
    assert standings.content_type == "text/csv"
    rows = list(csv.DictReader(io.StringIO(standings.content)))
    assert {r["entrant"] for r in rows} == {"ana", "bia", "caio", "duda", "eva"}
    eva = next(r for r in rows if r["entrant"] == "eva")
    assert (eva["byes"], eva["rank"]) == ("1", "1")
    tables = await app.export_tournament(
        tid, ppb.EXPORT_CONTENT_ROUNDS, ppb.EXPORT_FORMAT_JSON, round_number=1
    )
    assert tables.content_type == "application/json"
    by_table = {(r["round"], r["table"]): r for r in json.loads(tables.content)}
    assert by_table[(1, 1)]["entrant_a"] == "ana"
    assert by_table[(1, 0)]["entrant_a"] == "eva"  # a bye is table 0
    with pytest.raises(InvalidRequest):
        await app.export_tournament(tid, ppb.EXPORT_CONTENT_ROUNDS, round_number=-1)


async def test_a_cancelled_tournament_ends_its_games_and_starts_no_round(
    app: AsyncTrancaClient,
) -> None:
    created = await app.create_tournament(tournament(ppb.TOURNAMENT_FORMAT_ROUND_ROBIN))
    tid = created.tournament_id
    first = await app.start_round(tid, 1)
    cancelled = await app.cancel_tournament(tid, "the venue closed")
    assert cancelled.status == ppb.TOURNAMENT_STATUS_CANCELLED
    for table in first.tables:
        view = await app.get_view(table.game_id)
        assert view.status == pb.GAME_STATUS_FINISHED
    again = await app.cancel_tournament(tid)  # a repeat changes nothing
    assert again.status == ppb.TOURNAMENT_STATUS_CANCELLED
    with pytest.raises(RuleRejected) as over:
        await app.start_round(tid, 2)
    assert over.value.reason == "TOURNAMENT_OVER"
    listed = await app.list_tournaments(ppb.TOURNAMENT_STATUS_CANCELLED)
    assert [s.tournament_id for s in listed.tournaments] == [tid]


CALLS: dict[str, Callable[[AsyncTrancaClient, str], Awaitable[object]]] = {
    "get_tournament": lambda c, t: c.get_tournament(t),
    "start_round": lambda c, t: c.start_round(t, 1),
    "record_forfeit": lambda c, t: c.record_forfeit(t, 1, 1, ppb.TABLE_OUTCOME_A_FORFEITS),
    "withdraw_entrant": lambda c, t: c.withdraw_entrant(t, "ana"),
    "register_entrant": lambda c, t: c.register_entrant(t, "ana"),
    "check_in_entrant": lambda c, t: c.check_in_entrant(t, "ana"),
    "cancel_tournament": lambda c, t: c.cancel_tournament(t, "why not"),
    "correct_result": lambda c, t: c.correct_result(t, 1, 1, ppb.TABLE_OUTCOME_A_WINS, "ruling"),
    "export_tournament": lambda c, t: c.export_tournament(t),
}


async def test_an_unknown_tournament_is_not_found_by_every_call(
    app: AsyncTrancaClient, make_client: MakeClient, server: Running
) -> None:
    for name, call in CALLS.items():
        with pytest.raises(NotFound) as missing:
            await call(app, "no-such-tournament")
        assert missing.value.reason == "TOURNAMENT_NOT_FOUND", name
        assert missing.value.attempts == 1, name  # an answer: not retried
    # Another app's tournament is as unknown, and not listed.
    ours = await app.create_tournament(tournament())
    _, other_key = await server.store.create_app(f"sdk-other-{ours.tournament_id[:6]}")
    stranger = make_client(api_key=other_key)
    with pytest.raises(NotFound) as theirs:
        await stranger.cancel_tournament(ours.tournament_id)
    assert theirs.value.reason == "TOURNAMENT_NOT_FOUND"
    assert not (await stranger.list_tournaments()).tournaments
    assert (await app.get_tournament(ours.tournament_id)).status == (
        ppb.TOURNAMENT_STATUS_REGISTERED
    )


@pytest.mark.parametrize("code", [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED])
async def test_a_change_whose_answer_was_lost_is_retried_and_applied_once(
    app: AsyncTrancaClient, make_client: MakeClient, code: grpc.StatusCode
) -> None:
    starts = int(time.time() * 1000) + HOUR_MS
    created = await app.create_tournament(
        tournament(
            entrants=(),
            registration_open=True,
            rounds=3,
            start_at_ms=starts,
            check_in_seconds=2 * 3600,
        )
    )
    tid = created.tournament_id

    def flaky(method: str) -> tuple[AsyncTrancaClient, DropResponses]:
        dropper = DropResponses(method, count=1, code=code)
        return make_client(interceptors=[dropper]), dropper

    client, dropped = flaky("RegisterEntrant")
    for name in ("ana", "bia", "caio"):
        registered = await client.register_entrant(tid, name)
    assert len(dropped.requests) == 4  # ana's answer lost once, then one call each
    assert [e.id for e in registered.entrants] == ["ana", "bia", "caio"]

    # A registration withdrawn before the start leaves the field: the retry finds no
    # entrant, and answers the tournament without it.
    client, dropped = flaky("WithdrawEntrant")
    left = await client.withdraw_entrant(tid, "caio")
    assert len(dropped.requests) == 2
    assert [e.id for e in left.entrants] == ["ana", "bia"]

    client, dropped = flaky("CheckInEntrant")
    here = await client.check_in_entrant(tid, "ana")
    await app.check_in_entrant(tid, "bia")
    assert len(dropped.requests) == 2 and list(here.checked_in) == ["ana"]

    client, dropped = flaky("StartRound")
    first = await client.start_round(tid, 1)
    assert len(dropped.requests) == 2
    assert all(s.player_token for t in first.tables for s in t.seats)  # fresh tokens
    assert len((await app.get_tournament(tid)).rounds) == 1

    await app.record_forfeit(tid, 1, 1, ppb.TABLE_OUTCOME_A_FORFEITS)
    client, dropped = flaky("CorrectResult")
    ruled = await client.correct_result(tid, 1, 1, ppb.TABLE_OUTCOME_B_FORFEITS, "mixed up")
    assert len(dropped.requests) == 2 and len(ruled.corrections) == 1

    client, dropped = flaky("CancelTournament")
    cancelled = await client.cancel_tournament(tid, "rain")
    assert len(dropped.requests) == 2
    assert cancelled.status == ppb.TOURNAMENT_STATUS_CANCELLED


async def test_a_withdrawal_of_an_unknown_entrant_is_refused_without_a_lost_answer(
    app: AsyncTrancaClient,
) -> None:
    created = await app.create_tournament(tournament(entrants=(), registration_open=True))
    with pytest.raises(NotFound) as unknown:
        await app.withdraw_entrant(created.tournament_id, "nobody")
    assert unknown.value.reason == "ENTRANT_NOT_FOUND" and unknown.value.unanswered == 0


async def test_a_tournament_whose_creation_lost_its_answer_is_not_created_again(
    make_client: MakeClient, app: AsyncTrancaClient
) -> None:
    dropper = DropResponses("CreateTournament", count=1)
    client = make_client(interceptors=[dropper])
    with pytest.raises(Unavailable):
        await client.create_tournament(tournament())
    assert len(dropper.requests) == 1
    assert len((await app.list_tournaments()).tournaments) == 1


async def test_the_blocking_client_runs_an_organisers_flow(address: str, api_key: str) -> None:
    def organise() -> tuple[ppb.Tournament, str]:
        with TrancaClient(address, api_key=api_key) as app:
            created = app.create_tournament(
                tournament(entrants=(), registration_open=True, rounds=2)
            )
            tid = created.tournament_id
            for name in ("ana", "bia", "caio"):
                app.register_entrant(tid, name)
            app.withdraw_entrant(tid, "caio")
            assert [s.tournament_id for s in app.list_tournaments().tournaments] == [tid]
            app.start_round(tid, 1, pairings=[("bia", "ana")])
            app.record_forfeit(tid, 1, 1, ppb.TABLE_OUTCOME_DOUBLE_NO_SHOW)
            app.correct_result(tid, 1, 1, ppb.TABLE_OUTCOME_A_WINS, "ana left early")
            exported = app.export_tournament(tid, format=ppb.EXPORT_FORMAT_JSON)
            with pytest.raises(RuleRejected):
                app.check_in_entrant(tid, "ana")
            with pytest.raises(NotFound):
                app.get_tournament("no-such-tournament")
            return app.cancel_tournament(tid, "done"), exported.content

    cancelled, content = await asyncio.to_thread(organise)
    assert cancelled.status == ppb.TOURNAMENT_STATUS_CANCELLED
    assert [(c.previous, c.outcome) for c in cancelled.corrections] == [
        (ppb.TABLE_OUTCOME_DOUBLE_NO_SHOW, ppb.TABLE_OUTCOME_A_WINS)
    ]
    assert [r["entrant"] for r in json.loads(content)] == ["bia", "ana"]


class RefuseFirst(grpc.aio.UnaryUnaryClientInterceptor):
    """Refuses the first call of ``method`` with ABORTED TOURNAMENT_CONFLICT before it
    reaches the server (the tournament kept changing under it: nothing was done)."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.calls = 0

    async def intercept_unary_unary(
        self, continuation: Callable[..., Any], details: Any, request: Any
    ) -> Any:
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        if method.endswith("/" + self.method):
            self.calls += 1
            if self.calls == 1:
                raise rpc_error(grpc.StatusCode.ABORTED, "the tournament kept changing")
        return await continuation(details, request)


async def test_a_change_refused_by_a_conflict_is_retried(
    app: AsyncTrancaClient, make_client: MakeClient
) -> None:
    created = await app.create_tournament(tournament(entrants=(), registration_open=True))
    refuser = RefuseFirst("RegisterEntrant")
    client = make_client(interceptors=[refuser])
    registered = await client.register_entrant(created.tournament_id, "ana")
    assert refuser.calls == 2
    assert [e.id for e in registered.entrants] == ["ana"]
