"""Chips and stakes (issue 7, item 6), through the gRPC API on SQLite and PostgreSQL:
grants, the stake taken at the start, the pot to the winners less the house's share,
refunds on annulment, settlement exactly once, and a ledger that balances to zero
over random requests."""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.server.api_calls import reason_of
from tests.server.conftest import Client
from tranca.platform import chips
from tranca.server import Running
from tranca.store import ledger
from tranca.store.database import make_engine
from tranca.store.repository import Store
from tranca.v1 import game_pb2 as pb
from tranca.v1 import platform_pb2 as ppb
from tranca.v1 import platform_pb2_grpc as ppb_grpc

from .staking import Platform, Table, balance_of, ledger_problems, settle_all, settle_pending

FINISHED = pb.GAME_STATUS_FINISHED
WAITING = pb.GAME_STATUS_WAITING


@pytest.fixture
async def platform(client: Client, server: Running) -> Platform:
    return await Platform.of(client, server)


async def test_stakes_go_to_the_pot_and_the_winner_takes_it_less_the_house_share(
    platform: Platform, server: Running
) -> None:
    # 003: "El ganador de la partida consigue los puntos XP y las fichas apostadas (la
    # banca percibe un 25% del bote)".
    p = platform
    assert await p.grant("ana", 500) == 500
    assert await p.grant("bea", 300) == 300
    table = await p.table(["ana", "bea"], stake=100)
    # Taken as the match starts.
    assert await p.chips("ana") == 400
    assert await p.chips("bea") == 200
    assert await balance_of(server, p.app_id, f"pot:{table.game_id}") == 200
    await p.resign(table, 0)  # ana resigns: bea's side wins
    await p.settle()
    assert await p.chips("ana") == 400
    assert await p.chips("bea") == 200 + 150  # the pot of 200 less the house's 50
    assert await balance_of(server, p.app_id, "house") == 50
    assert await balance_of(server, p.app_id, f"pot:{table.game_id}") == 0
    entries = await p.entries("bea")
    assert [(e.purpose, e.amount, e.balance, e.reference) for e in entries] == [
        ("payout", 150, 350, table.game_id),
        ("stake", -100, 200, table.game_id),
        ("grant", 300, 300, "g-bea-300"),
    ]
    assert await ledger_problems(server, p.app_id) == []


async def test_partners_share_the_pot(platform: Platform, server: Running) -> None:
    # 003 ("2 jug. o por parejas"): at a 4-seat table the winning pair takes the pot.
    p = platform
    players = ["a0", "b1", "a2", "b3"]
    for name in players:
        await p.grant(name, 100)
    table = await p.table(players, stake=100)
    await p.resign(table, 1)  # side 1 (seats 1 and 3) loses
    await p.settle()
    # Pot 400, house 100, 150 to each of seats 0 and 2.
    assert [await p.chips(n) for n in players] == [150, 0, 150, 0]
    assert await balance_of(server, p.app_id, "house") == 100
    assert await ledger_problems(server, p.app_id) == []


async def test_a_seat_that_cannot_cover_the_stake_keeps_the_match_from_starting(
    platform: Platform, server: Running
) -> None:
    # 003: "necesitarás disponer de suficientes fichas para cubrir la apuesta". JoinGame
    # checks it, and the start again: bea could cover either table when she sat down,
    # but her chips went into the first match's pot.
    p = platform
    await p.grant("ana", 500)
    await p.grant("bea", 100)
    first = await p.table(["ana", "bea"], stake=100, start=False)
    second = await p.table(["ana", "bea"], stake=100, start=False)
    await p.start(first.game_id)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await p.start(second.game_id)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(refused.value) == "INSUFFICIENT_CHIPS"
    # Nothing changed: not started, nobody's chips taken (not even ana's).
    assert await p.status(second.game_id) == WAITING
    assert (await p.chips("ana"), await p.chips("bea")) == (400, 0)
    assert [e.purpose for e in await p.entries("ana")] == ["stake", "grant"]
    assert await balance_of(server, p.app_id, f"pot:{second.game_id}") == 0
    # Once bea can cover it, the match starts.
    await p.grant("bea", 100, "top-up")
    await p.start(second.game_id)
    assert (await p.chips("ana"), await p.chips("bea")) == (300, 0)
    assert await ledger_problems(server, p.app_id) == []


async def test_a_staked_start_at_a_timed_table_starts_the_turn_clock(
    platform: Platform,
) -> None:
    # The staked start is its own write (with the chips); the turn's deadline is set
    # with it as with any other start, so the timer still fires.
    p = platform
    await p.grant("ana", 10)
    await p.grant("bea", 10)
    table = await p.table(["ana", "bea"], stake=10, turn_seconds=30)
    view = await p.game.GetView(pb.GetViewRequest(game_id=table.game_id), metadata=p.md)
    assert view.view.status == pb.GAME_STATUS_PLAYING
    assert view.view.turn_deadline_ms > 0
    assert (await p.chips("ana"), await p.chips("bea")) == (0, 0)


async def test_chips_for_one_stake_cannot_cover_two_matches_starting_at_once(
    platform: Platform, server: Running
) -> None:
    # Never negative, even when two starts race for the same chips: each reads the
    # balance before the other has taken anything.
    p = platform
    await p.grant("ana", 100)
    for name in ("bea", "cid", "dan", "eva"):
        await p.grant(name, 100)
    tables = [await p.table(["ana", rival], stake=100, start=False) for rival in ("bea", "cid")]
    tables += [await p.table(["dan", "eva"], stake=100, start=False)]
    results = await asyncio.gather(*(p.start(t.game_id) for t in tables), return_exceptions=True)
    refused = [r for r in results[:2] if isinstance(r, grpc.aio.AioRpcError)]
    assert len(refused) == 1  # ana's chips covered one of her two tables
    assert reason_of(refused[0]) == "INSUFFICIENT_CHIPS"
    assert results[2] is None  # another table's start is not held up
    assert await p.chips("ana") == 0
    assert sorted([await p.chips("bea"), await p.chips("cid")]) == [0, 100]
    assert await ledger_problems(server, p.app_id) == []


async def test_the_balance_guard_holds_when_two_stakes_interleave(pg_url: str) -> None:
    # The race the test above may not hit, forced: the second stake reads the balance
    # while the first is written but not committed, so only the database's conditional
    # update can refuse it. (PostgreSQL only: SQLite's one writer serialises them.)
    store = Store(make_engine(pg_url))
    try:
        app_id, _ = await store.create_app("race")
        async with store.engine.begin() as conn:
            await ledger.grant(conn, app_id, "g", "ana", 100)
            await ledger.grant(conn, app_id, "h", "bea", 100)
            await ledger.grant(conn, app_id, "i", "cid", 100)
        first = await store.engine.connect()
        await first.begin()
        await ledger.stake(first, app_id, "game-1", ["ana", "bea"], 100)

        async def second() -> None:
            async with store.engine.begin() as conn:
                await ledger.stake(conn, app_id, "game-2", ["ana", "cid"], 100)

        racing = asyncio.create_task(second())
        await asyncio.sleep(0.3)  # it read ana's 100 chips and waits on her row
        assert not racing.done()
        await first.commit()
        await first.close()
        with pytest.raises(chips.InsufficientChips):
            await racing
        async with store.engine.connect() as conn:
            assert await ledger.balance(conn, app_id, chips.player_account("ana")) == 0
            assert await ledger.balance(conn, app_id, chips.player_account("cid")) == 100
    finally:
        await store.close()


async def test_an_annulled_match_returns_the_stakes_and_counts_for_nobody(
    platform: Platform, server: Running
) -> None:
    # 003: "la partida se anula. Es decir, los jugadores no suman ni restan puntos, y
    # esa partida no cuenta en la clasificación ni en las estadísticas. Además, las
    # fichas apostadas son devueltas a cada jugador".
    p = platform
    await p.grant("ana", 200)
    await p.grant("bea", 200)
    table = await p.table(["ana", "bea"], stake=50, annulment=True)
    assert await p.chips("ana") == 150
    for token in table.tokens:
        await p.game.VoteAnnul(
            pb.VoteAnnulRequest(game_id=table.game_id), metadata=p.client.player(token)
        )
    assert await p.status(table.game_id) == FINISHED
    await p.settle()
    for name in ("ana", "bea"):
        player = await p.player(name)
        assert player.chips == 200
        assert (player.matches, player.wins, player.ranking_points) == (0, 0, 0)
        assert player.rating.games == 0
        assert [e.purpose for e in await p.entries(name)][:2] == ["refund", "stake"]
    assert await balance_of(server, p.app_id, "house") == 0
    board = await p.players.GetLeaderboard(ppb.GetLeaderboardRequest(), metadata=p.md)
    assert list(board.entries) == []
    assert await ledger_problems(server, p.app_id) == []


async def test_grants_are_idempotent_by_grant_id(platform: Platform) -> None:
    p = platform
    assert await p.grant("ana", 70, "welcome") == 70
    assert await p.grant("ana", 70, "welcome") == 70  # a retry grants nothing more
    with pytest.raises(grpc.aio.AioRpcError) as reused:
        await p.grant("ana", 80, "welcome")
    assert reused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert reason_of(reused.value) == "GRANT_ID_REUSED"
    with pytest.raises(grpc.aio.AioRpcError) as other_player:
        await p.grant("bea", 70, "welcome")
    assert other_player.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert await p.chips("ana") == 70
    assert await p.chips("bea") == 0
    # Concurrent retries of one grant: still granted once.
    results = await asyncio.gather(*(p.grant("cid", 5, "burst") for _ in range(8)))
    assert results == [5] * 8
    assert len(await p.entries("cid")) == 1


async def test_bad_requests_are_refused(platform: Platform) -> None:
    p = platform
    bad: list[Any] = [  # every call is under way as it is made; awaited below
        p.players.GetPlayer(ppb.GetPlayerRequest(player_id=""), metadata=p.md),
        p.players.GrantChips(
            ppb.GrantChipsRequest(player_id="ana", amount=0, grant_id="x"), metadata=p.md
        ),
        p.players.GrantChips(
            ppb.GrantChipsRequest(player_id="ana", amount=-5, grant_id="x"), metadata=p.md
        ),
        p.players.GrantChips(ppb.GrantChipsRequest(player_id="ana", amount=5), metadata=p.md),
        p.players.GrantChips(
            ppb.GrantChipsRequest(player_id="x" * 129, amount=5, grant_id="x"), metadata=p.md
        ),
        p.players.ListChipEntries(
            ppb.ListChipEntriesRequest(player_id="ana", page_token="nope"), metadata=p.md
        ),
        p.players.ListChipEntries(
            ppb.ListChipEntriesRequest(player_id="ana", page_size=501), metadata=p.md
        ),
        p.players.GetLeaderboard(ppb.GetLeaderboardRequest(limit=-1), metadata=p.md),
        p.players.GetLeaderboard(
            ppb.GetLeaderboardRequest(period=ppb.Period.ValueType(99)),  # no such period
            metadata=p.md,
        ),
    ]
    for call in bad:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(refused.value) == "MALFORMED_REQUEST"
    assert await p.chips("ana") == 0


async def test_players_are_an_apps_own_and_need_its_api_key(
    platform: Platform, server: Running
) -> None:
    p = platform
    await p.grant("ana", 40)
    table = await p.table(["ana", "bea"], start=False)
    # A player token is not an API key.
    with pytest.raises(grpc.aio.AioRpcError) as token:
        await p.players.GetPlayer(
            ppb.GetPlayerRequest(player_id="ana"), metadata=p.client.player(table.tokens[0])
        )
    assert token.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as none:
        await p.players.GetPlayer(ppb.GetPlayerRequest(player_id="ana"))
    assert none.value.code() == grpc.StatusCode.UNAUTHENTICATED
    # Another app's "ana" is another player.
    _, other_key = await server.store.create_app("other")
    other = (("x-api-key", other_key),)
    seen = await p.players.GetPlayer(ppb.GetPlayerRequest(player_id="ana"), metadata=other)
    assert seen.chips == 0
    listed = await p.players.ListChipEntries(
        ppb.ListChipEntriesRequest(player_id="ana"), metadata=other
    )
    assert list(listed.entries) == []
    assert await p.chips("ana") == 40


async def test_chip_entries_page_newest_first(platform: Platform) -> None:
    p = platform
    for i in range(7):
        await p.grant("ana", i + 1, f"grant-{i}")
    paged = await p.entries("ana", page_size=3)
    assert [e.amount for e in paged] == [7, 6, 5, 4, 3, 2, 1]
    assert [e.balance for e in paged] == [28, 21, 15, 10, 6, 3, 1]
    assert [e.reference for e in paged][:2] == ["grant-6", "grant-5"]


async def test_settlement_happens_once_when_replicas_settle_at_the_same_time(
    platform: Platform, server: Running, db_url: str
) -> None:
    p = platform
    players = [f"p{i}" for i in range(8)]
    for name in players:
        await p.grant(name, 100)
    tables: list[Table] = []
    for i in range(0, 8, 2):
        tables.append(await p.table(players[i : i + 2], stake=100))
    for table in tables:
        await p.resign(table, 0)
    # Another replica: its own store (engine, pool, and on SQLite its own write lock).
    replica = Store(make_engine(db_url))
    try:
        await asyncio.gather(
            settle_pending(server.store),
            settle_pending(replica),
            settle_pending(server.store),
            settle_pending(replica),
        )
    finally:
        await replica.close()
    assert await p.settle() == 0  # nothing left
    for i, name in enumerate(players):
        player = await p.player(name)
        assert player.matches == 1, name  # rated once
        assert player.chips == (150 if i % 2 else 0), name  # paid once
        # Awarded once: 40 weighted by the stake of 100 (150 %, docs/platform/progression.md).
        assert player.ranking_points == (60 if i % 2 else 5), name
    assert await balance_of(server, p.app_id, "house") == 4 * 50
    assert await ledger_problems(server, p.app_id) == []


# ----- property: no chip is created or lost -------------------------------------------

PLAYERS = [f"pl{i}" for i in range(5)]

table_options = st.tuples(
    st.sampled_from([2, 2, 4]),  # seats
    st.sampled_from([0, 1, 25, 60]),  # stake
    st.booleans(),  # annulment allowed
    st.booleans(),  # competitive (a stake needs it)
)
ops = st.one_of(
    st.tuples(
        st.just("grant"),
        st.integers(0, 4),
        st.integers(1, 150),
        st.integers(0, 9),  # few grant ids: repeats and conflicts
    ),
    st.tuples(st.just("table"), table_options),
    # A table created, every seat joined by a random player (one may come twice: a
    # refusal) and started: the way to matches with stakes.
    st.tuples(st.just("match"), table_options, st.lists(st.integers(0, 4), min_size=4, max_size=4)),
    st.tuples(st.just("join"), st.integers(0, 5), st.integers(0, 4), st.integers(0, 2)),
    st.tuples(st.just("start"), st.integers(0, 5)),
    st.tuples(st.just("resign"), st.integers(0, 5), st.integers(0, 3)),
    st.tuples(st.just("resign"), st.integers(0, 5), st.integers(0, 3)),
    st.tuples(st.just("vote"), st.integers(0, 5), st.integers(0, 3)),
    st.tuples(st.just("annul"), st.integers(0, 5)),  # every seat votes
    st.tuples(st.just("settle")),
)

EXPECTED_REFUSALS = {
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.PERMISSION_DENIED,
}


async def _refused_or(call: Any) -> Any:
    """The answer of an awaitable gRPC call, or None for a refusal the request may
    meet (never a server error)."""
    try:
        return await call
    except grpc.aio.AioRpcError as err:
        code = err.code()
        assert code in EXPECTED_REFUSALS, f"{code}: {err.details()}"
        return None


@dataclass
class World:
    """What the random program has made so far (one fresh app per example)."""

    client: Client
    md: tuple[tuple[str, str], ...]
    players: ppb_grpc.PlayerServiceStub
    tables: list[tuple[str, list[str]]] = field(default_factory=list)  # game, seat tokens
    stakes: dict[str, tuple[int, int]] = field(default_factory=dict)  # game: stake, seats

    async def view(self, game_id: str) -> pb.GameView:
        got = await self.client.stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=self.md)
        return got.view

    async def run(self, op: tuple[Any, ...], store: Store) -> None:
        stub = self.client.stub
        kind = op[0]
        if kind == "grant":
            _, who, amount, grant = op
            request = ppb.GrantChipsRequest(
                player_id=PLAYERS[who], amount=amount, grant_id=f"grant-{grant}"
            )
            await _refused_or(self.players.GrantChips(request, metadata=self.md))
        elif kind in ("table", "match"):
            seats, stake, annul, competitive = op[1]
            options = pb.TableOptions(
                competitive=competitive or stake > 0, stake=stake, annulment_allowed=annul
            )
            created = await stub.CreateGame(
                pb.CreateGameRequest(
                    rules=pb.Rules(preset="tranca-000"), players=seats, seed=3, table=options
                ),
                metadata=self.md,
            )
            game_id = created.game.game_id
            self.tables.append((game_id, [""] * seats))
            self.stakes[game_id] = (stake, seats)
            if kind == "match":
                for seat, who in enumerate(op[2][:seats]):
                    await self.run(("join", len(self.tables) - 1, who, seat), store)
                await self.run(("start", len(self.tables) - 1), store)
        elif kind == "settle":
            await settle_pending(store)
        elif self.tables:
            game_id, tokens = self.tables[op[1] % len(self.tables)]
            if kind == "join":
                free = [s for s, t in enumerate(tokens) if not t]
                if free:
                    joined = await _refused_or(
                        stub.JoinGame(
                            pb.JoinGameRequest(
                                game_id=game_id,
                                seat=free[0],
                                player_id=PLAYERS[op[2]],
                                player_address=f"10.1.0.{op[3]}",
                            ),
                            metadata=self.md,
                        )
                    )
                    if joined is not None:
                        tokens[free[0]] = joined.player_token
            elif kind == "annul":
                for seat in range(len(tokens)):
                    await self.run(("vote", op[1], seat), store)
            elif kind == "start":
                await _refused_or(
                    stub.StartGame(pb.StartGameRequest(game_id=game_id), metadata=self.md)
                )
            else:
                seat = op[2] % len(tokens)
                if not tokens[seat]:
                    return
                seat_md = self.client.player(tokens[seat])
                if kind == "vote":
                    await _refused_or(
                        stub.VoteAnnul(pb.VoteAnnulRequest(game_id=game_id), metadata=seat_md)
                    )
                    return
                waiting = (await self.view(game_id)).status == WAITING
                left = await _refused_or(
                    stub.LeaveGame(pb.LeaveGameRequest(game_id=game_id), metadata=seat_md)
                )
                if left is not None and waiting:  # left before the start: the seat is free
                    tokens[seat] = ""


@settings(
    # Half the profile's (30 in CI, 12 by default): each example is a few dozen RPCs.
    # TRANCA_LEDGER_EXAMPLES=500 for a long run.
    max_examples=int(os.environ.get("TRANCA_LEDGER_EXAMPLES", 0))
    or settings().max_examples // 2,  # settings() holds the loaded profile's values
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    first_grants=st.lists(st.integers(0, 250), min_size=len(PLAYERS), max_size=len(PLAYERS)),
    program=st.lists(ops, min_size=10, max_size=40),
)
async def test_the_chip_ledger_balances_after_any_requests(
    client: Client, server: Running, first_grants: list[int], program: list[tuple[Any, ...]]
) -> None:
    # Issue 7: "No chip is created or lost by any sequence of requests". Each example
    # is a fresh app: its own players and chips.
    _, key = await server.store.create_app(f"prop-{uuid.uuid4().hex[:6]}")
    app = await server.store.app_by_key(key)
    assert app is not None
    world = World(client, (("x-api-key", key),), ppb_grpc.PlayerServiceStub(client.channel))
    for who, amount in enumerate(first_grants):
        await world.run(("grant", who, amount, 100 + who), server.store)
    for op in program:
        await world.run(op, server.store)
        # The ledger balances after every request, not just at the end.
        assert await ledger_problems(server, app.id) == []
    await settle_all(server.store)
    assert await ledger_problems(server, app.id) == []
    # A pot holds its match's stakes from the start until the match is settled, then
    # nothing; the house holds a quarter (rounded down) of every pot paid out.
    house = 0
    for game_id, _ in world.tables:
        stake, seats = world.stakes[game_id]
        view = await world.view(game_id)
        pot = await balance_of(server, app.id, f"pot:{game_id}")
        event(f"table {view.match_result.reason or pb.GameStatus.Name(view.status)}, stake {stake}")
        if view.status == FINISHED:
            assert pot == 0
            if view.match_result.reason != "annulled":
                house += stake * seats // 4
        else:
            assert pot == (stake * seats if view.status != WAITING else 0)
    assert await balance_of(server, app.id, "house") == house
