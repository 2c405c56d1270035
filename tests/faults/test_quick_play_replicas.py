"""Quick play's acceptance test: 200 tickets through two `tranca serve` processes on
one PostgreSQL database at once, both running the matchmaker, one of them SIGKILLed
while it matches. Every player is seated exactly once (or not at all, for a ticket
cancelled in time), partners together, robots only at the practice tables of an app
that allows them and only after its wait; every cancellation answered "cancelled" is
honoured; every table made is dealt.

Run alone: pytest tests/faults/test_quick_play_replicas.py (about 30 s). Beside the
200, two players ask for a kind of table nobody else asks for: only robots can fill
it, so the run always meets robots.
"""

from __future__ import annotations

import asyncio
import functools
import random
import signal
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import grpc
import pytest

from tests.harness.databases import pg_database
from tranca.store.database import make_engine
from tranca.store.repository import Store
from tranca.table.game import PLAYING
from tranca.v1 import quick_play_pb2 as qpb
from tranca.v1 import quick_play_pb2_grpc as qpb_grpc
from tranca.v1 import session_pb2 as spb
from tranca.v1 import session_pb2_grpc as spb_grpc

from .rig import SERVING, ServerProcess, health, wait_until

T = TypeVar("T")

ROBOTS_AFTER = 3  # seconds: the app's robots_after_seconds


@dataclass
class Asked:
    ticket_id: str
    players: int
    competitive: bool
    player_ids: list[str]
    cancelled: bool = False  # a CancelTicket answered CANCELLED


@pytest.fixture
def database() -> Iterator[str]:
    yield from pg_database()


def plan(rng: random.Random) -> list[tuple[int, bool, list[str]]]:
    """200 tickets: 2- and 4-player, practice and rated, singles and parties."""
    tickets: list[tuple[int, bool, list[str]]] = []
    n = 0

    def ids(count: int) -> list[str]:
        nonlocal n
        out = [f"p{n + i:03d}" for i in range(count)]
        n += count
        return out

    for _ in range(70):
        tickets.append((2, False, ids(1)))
    for _ in range(40):
        tickets.append((2, True, ids(1)))
    for _ in range(50):
        tickets.append((4, False, ids(1)))
    for _ in range(20):
        tickets.append((4, False, ids(2)))  # parties of partners
    for _ in range(12):
        tickets.append((4, True, ids(1)))
    for _ in range(8):
        tickets.append((4, True, ids(2)))
    rng.shuffle(tickets)
    return tickets


async def _retrying_unavailable(call: Callable[[], Awaitable[T]], attempts: int = 5) -> T:
    """A call as a client makes it: UNAVAILABLE is a retryable answer (the survivor's
    database statements may time out while the killed replica's connections are being
    ended on a loaded machine), so the same request, with the same request id, is sent
    again after a pause; any other error fails the test."""
    for attempt in range(attempts):
        try:
            return await call()
        except grpc.aio.AioRpcError as e:
            if e.code() != grpc.StatusCode.UNAVAILABLE or attempt == attempts - 1:
                raise
            await asyncio.sleep(0.5 * (attempt + 1))
    raise AssertionError("unreachable")


# Two players alone at their kind of table (another preset): only robots can fill it,
# once they have waited the app's time.
LONELY = 2
LONELY_PRESET = "tranca-003"


async def test_two_hundred_tickets_through_two_replicas_one_killed_while_matching(
    database: str,
) -> None:
    rng = random.Random(22)
    engine = make_engine(database)
    store = Store(engine)
    _, key = await store.create_app("quick-play")
    app = (("x-api-key", key),)
    procs = [
        ServerProcess(database, extra=["--match-interval", "0.2"]),
        ServerProcess(database, extra=["--match-interval", "0.2"]),
    ]
    for p in procs:
        p.start()
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{p.port}") for p in procs]
    try:
        for p in procs:
            await wait_until(functools.partial(_serving, p.port), 30, "a replica serving")
        sessions = spb_grpc.SessionServiceStub(channels[0])
        policy = (await sessions.GetAppPolicy(spb.GetAppPolicyRequest(), metadata=app)).policy
        policy.robots_after_seconds = ROBOTS_AFTER
        await sessions.SetAppPolicy(spb.SetAppPolicyRequest(policy=policy), metadata=app)
        stubs = [qpb_grpc.QuickPlayServiceStub(c) for c in channels]
        asked: list[Asked] = []

        async def ask(
            i: int, players: int, competitive: bool, ids: list[str], preset: str = "tranca-000"
        ) -> None:
            await asyncio.sleep(rng.random() * 2.0)  # spread over two seconds
            request = qpb.AskQuickPlayRequest(
                preset=preset,
                players=players,
                competitive=competitive,
                player_ids=ids,
                request_id=f"ask-{i}",
            )
            try:
                done = await stubs[i % 2].AskQuickPlay(request, metadata=app, timeout=10)
            except grpc.aio.AioRpcError as e:
                # The killed replica: the client retries the same request at the other,
                # which answers with the ticket if the first call wrote one.
                assert e.code() == grpc.StatusCode.UNAVAILABLE, e
                done = await _retrying_unavailable(
                    lambda: stubs[1].AskQuickPlay(request, metadata=app, timeout=10)
                )
            entry = Asked(done.ticket.ticket_id, players, competitive, ids)
            asked.append(entry)
            if preset != LONELY_PRESET and rng.random() < 0.1:
                # A cancellation racing the matchmakers.
                await asyncio.sleep(rng.random() * 0.3)
                ended = await _retrying_unavailable(
                    lambda: stubs[1].CancelTicket(
                        qpb.CancelTicketRequest(ticket_id=entry.ticket_id),
                        metadata=app,
                        timeout=10,
                    )
                )
                entry.cancelled = ended.ticket.status == qpb.TICKET_STATUS_CANCELLED

        async def kill_while_matching() -> None:
            await asyncio.sleep(1.0)
            procs[0].kill()

        lonely = [ask(1000 + n, 4, False, [f"lonely{n}"], LONELY_PRESET) for n in range(LONELY)]
        await asyncio.gather(
            *(ask(i, *t) for i, t in enumerate(plan(rng))), *lonely, kill_while_matching()
        )
        assert len(asked) == 200 + LONELY

        async def settled() -> bool:
            """Practice tickets all end matched (robots fill their tables); rated ones
            wait only while too few players are left for a table."""
            waiting: Counter[tuple[int, bool]] = Counter()
            for a in asked:
                if (await _ticket(stubs[1], app, a.ticket_id)).status == (
                    qpb.TICKET_STATUS_WAITING
                ):
                    waiting[(a.players, a.competitive)] += len(a.player_ids)
            return all(
                competitive and count < players for (players, competitive), count in waiting.items()
            )

        await wait_until(settled, 60, "every ticket matched or cancelled")
        tickets = {a.ticket_id: await _ticket(stubs[1], app, a.ticket_id) for a in asked}
        seen = await _check(store, asked, tickets)
        print(f"\nquick play through two replicas: {dict(seen)}")
        # The run met what it is about: a replica killed, cancellations, parties and
        # robots.
        assert procs[0].proc is not None and procs[0].proc.returncode == -signal.SIGKILL
        assert seen["cancelled"] > 0 and seen["parties_seated"] > 0
        assert seen["robot_tables"] > 0 and seen["tables"] > 40
    finally:
        for c in channels:
            await c.close()
        for p in procs:
            p.stop()
        await engine.dispose()
    for p in procs:
        assert not p.failures(), p.failures()


async def _serving(port: int) -> bool:
    return await health(port) == SERVING


async def _ticket(
    stub: qpb_grpc.QuickPlayServiceAsyncStub, app: tuple[tuple[str, str], ...], ticket_id: str
) -> qpb.Ticket:
    got = await stub.GetTicket(qpb.GetTicketRequest(ticket_id=ticket_id), metadata=app, timeout=10)
    return got.ticket


async def _check(store: Store, asked: list[Asked], tickets: dict[str, qpb.Ticket]) -> Counter[str]:
    """Every property of the run; what it saw, counted."""
    seen: Counter[str] = Counter()
    seated: Counter[str] = Counter()
    games: dict[str, list[str]] = {}
    for a in asked:
        t = tickets[a.ticket_id]
        if a.cancelled:
            # Cancelled in time: never seated.
            assert t.status == qpb.TICKET_STATUS_CANCELLED and not t.game_id
            seen["cancelled"] += 1
            continue
        if t.status != qpb.TICKET_STATUS_MATCHED:
            assert t.status == qpb.TICKET_STATUS_WAITING and a.competitive
            continue
        assert t.game_id
        game = await store.game(t.game_id)
        assert game.state.status == PLAYING  # the table was dealt
        by_player = {s.player_id: i for i, s in enumerate(game.state.seats) if s.player_id}
        mine = [by_player[p] for p in a.player_ids]
        assert [s.seat for s in t.seats] == mine
        if len(mine) == 2:
            assert mine[0] % 2 == mine[1] % 2 and mine[0] != mine[1]  # partners across
            seen["parties_seated"] += 1
        seated.update(a.player_ids)
        robots = game.state.robots
        if robots:
            assert not a.competitive, "a robot at a rated table"
        games.setdefault(t.game_id, []).append(a.ticket_id)
    assert all(n == 1 for n in seated.values()), "a player seated twice"
    # Every game's seats are exactly its tickets' players and robots.
    for game_id, ticket_ids in games.items():
        game = await store.game(game_id)
        people = sorted(s.player_id for s in game.state.seats if s.player_id)
        assert people == sorted(p for a in asked if a.ticket_id in ticket_ids for p in a.player_ids)
        seen["tables"] += 1
        robot_seats = [i for i, s in enumerate(game.state.seats) if not s.player_id]
        if robot_seats:
            seen["robot_tables"] += 1
            # Robots only once the table's oldest ticket had waited the app's time.
            oldest = min(tickets[i].created_at_ms for i in ticket_ids)
            made = max(tickets[i].ended_at_ms for i in ticket_ids)
            assert made - oldest >= ROBOTS_AFTER * 1000
    return seen


@pytest.fixture(params=["sqlite", "postgres"])
def shared_database(request: pytest.FixtureRequest) -> str:
    """One database for two server processes: a SQLite file, or PostgreSQL."""
    return str(request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url"))


async def test_one_request_id_sent_at_once_to_two_replicas_gets_one_ticket(
    shared_database: str,
) -> None:
    """The same AskQuickPlay (one session, one request id) sent to two `tranca serve`
    processes at the same instant, round after round: both answer the one ticket it
    made, never ALREADY_WAITING."""
    engine = make_engine(shared_database)
    store = Store(engine)
    _, key = await store.create_app("quick-play-request-ids")
    app = (("x-api-key", key),)
    # No matchmaker: the tickets stay as they were asked.
    procs = [ServerProcess(shared_database, extra=["--match-interval", "0"]) for _ in range(2)]
    for p in procs:
        p.start()
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{p.port}") for p in procs]
    try:
        for p in procs:
            await wait_until(functools.partial(_serving, p.port), 30, "a replica serving")
        sessions = spb_grpc.SessionServiceStub(channels[0])
        stubs = [qpb_grpc.QuickPlayServiceStub(c) for c in channels]
        for round_ in range(12):
            opened = await sessions.CreatePlayerSession(
                spb.CreatePlayerSessionRequest(player_id=f"p{round_}"), metadata=app, timeout=10
            )
            me = (("authorization", f"Bearer {opened.session.access_token}"),)
            request = qpb.AskQuickPlayRequest(
                preset="tranca-000", players=2, request_id=f"ask-{round_}"
            )
            answers = await asyncio.gather(
                *(s.AskQuickPlay(request, metadata=me, timeout=10) for s in stubs)
            )
            assert answers[0].ticket.ticket_id == answers[1].ticket.ticket_id, f"round {round_}"
            listed = await stubs[1].ListQuickPlayTickets(
                qpb.ListQuickPlayTicketsRequest(), metadata=me, timeout=10
            )
            assert [t.ticket_id for t in listed.tickets] == [answers[0].ticket.ticket_id]
    finally:
        for c in channels:
            await c.close()
        for p in procs:
            p.stop()
        await engine.dispose()
    for p in procs:
        assert not p.failures(), p.failures()
