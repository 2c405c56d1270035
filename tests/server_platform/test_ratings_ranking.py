"""Ratings and rankings (issue 7, item 5), through the gRPC API on SQLite and
PostgreSQL: a rating per player that understands partnerships, the ranking points of
003 and leaderboards by period."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import select, update

from tests.harness.servers import server_and_client
from tests.server.conftest import Client
from tranca.server import Running
from tranca.store.database import make_engine
from tranca.store.models import Game, RankingAward
from tranca.store.repository import Store
from tranca.v1 import platform_pb2 as ppb

from .staking import Platform, settle_pending, settlement


@pytest.fixture
async def platform(client: Client, server: Running) -> Platform:
    return await Platform.of(client, server)


async def _board(
    p: Platform,
    kind: ppb.LeaderboardKind.ValueType = ppb.LEADERBOARD_KIND_RANKING_POINTS,
    period: ppb.Period.ValueType = ppb.PERIOD_ALL_TIME,
) -> list[tuple[int, str, int, int, int]]:
    reply = await p.players.GetLeaderboard(
        ppb.GetLeaderboardRequest(kind=kind, period=period), metadata=p.md
    )
    return [(e.rank, e.player_id, e.points, e.wins, e.games) for e in reply.entries]


async def test_a_competitive_match_rates_both_players_and_awards_ranking_points(
    platform: Platform,
) -> None:
    # 003: "Partida a puntos ... 40 puntos", "Los jugadores que pierden una partida,
    # suman 5 puntos".
    p = platform
    fresh = await p.player("ana")
    assert (fresh.rating.mu, fresh.rating.games, fresh.matches) == (25.0, 0, 0)
    table = await p.table(["ana", "bea"])
    await p.resign(table, 1)  # bea resigns: ana wins
    await p.settle()
    ana, bea = await p.player("ana"), await p.player("bea")
    assert ana.rating.mu > 25.0 > bea.rating.mu
    assert ana.rating.sigma < fresh.rating.sigma  # more certain after a match
    assert ana.rating.ordinal == pytest.approx(ana.rating.mu - 3 * ana.rating.sigma)
    assert (ana.matches, ana.wins, ana.ranking_points) == (1, 1, 40)
    assert (bea.matches, bea.wins, bea.ranking_points) == (1, 0, 5)
    assert await _board(p) == [(1, "ana", 40, 1, 1), (2, "bea", 5, 0, 1)]
    rated = await _board(p, ppb.LEADERBOARD_KIND_RATING)
    assert [row[1] for row in rated] == ["ana", "bea"]
    assert rated[0][2] == int(ana.rating.ordinal // 1)  # the ordinal rounded down


async def test_an_express_win_is_worth_20_points(platform: Platform) -> None:
    # 003: "Exprés ... 20 puntos"; the loser's 5 do not depend on the game type.
    p = platform
    table = await p.table(["ana", "bea"], express=True)
    await p.resign(table, 0)
    await p.settle()
    assert (await p.player("bea")).ranking_points == 20
    assert (await p.player("ana")).ranking_points == 5


async def test_partners_are_rated_as_a_team(platform: Platform) -> None:
    # 003: "2 jug. o por parejas: 40 puntos" -- both partners of the winning pair.
    p = platform
    table = await p.table(["a0", "b1", "a2", "b3"])
    await p.resign(table, 3)  # seat 3's side (seats 1 and 3) loses
    await p.settle()
    got = {n: await p.player(n) for n in ("a0", "b1", "a2", "b3")}
    # Equal ratings before, so each partner moves exactly as the other.
    assert got["a0"].rating.mu == pytest.approx(got["a2"].rating.mu)
    assert got["b1"].rating.mu == pytest.approx(got["b3"].rating.mu)
    assert got["a0"].rating.mu > 25.0 > got["b1"].rating.mu
    assert [got[n].ranking_points for n in ("a0", "b1", "a2", "b3")] == [40, 5, 40, 5]
    assert [got[n].wins for n in ("a0", "b1", "a2", "b3")] == [1, 0, 1, 0]
    # A second match with new partners: a strong pair beats a weak one by less.
    before = {n: got[n].rating.mu for n in got}
    table = await p.table(["a0", "b1", "b3", "a2"])  # a0 + b3 against b1 + a2
    await p.resign(table, 1)  # b1's side loses
    await p.settle()
    after = {n: (await p.player(n)).rating.mu for n in got}
    assert after["a0"] > before["a0"] and after["b3"] > before["b3"]
    assert after["b1"] < before["b1"] and after["a2"] < before["a2"]
    assert (await p.player("a0")).matches == 2


async def test_no_ranking_points_when_two_seats_share_an_address(platform: Platform) -> None:
    # 003: "No se puntúa si 2 jugadores de la mesa comparten la misma IP."
    p = platform
    table = await p.table(
        ["ana", "bea", "cid", "dan"],
        addresses=["10.0.0.1", "10.0.0.2", "10.0.0.3", "::ffff:10.0.0.1"],  # ana's, mapped
    )
    await p.resign(table, 1)
    await p.settle()
    for name in ("ana", "bea", "cid", "dan"):
        player = await p.player(name)
        assert player.ranking_points == 0, name
        assert player.matches == 1, name  # the match is still rated (see the docs)
    # Issue 27: the leaderboard counts the match as GetPlayer does, with no points.
    board = await _board(p)
    assert board == [
        (1, "ana", 0, 1, 1),
        (1, "bea", 0, 0, 1),
        (1, "cid", 0, 1, 1),
        (1, "dan", 0, 0, 1),
    ]
    for _, name, _, wins, games in board:
        player = await p.player(name)
        assert (player.wins, player.matches) == (wins, games), name
    # From four addresses, the same players score.
    table = await p.table(["ana", "bea", "cid", "dan"])
    await p.resign(table, 1)
    await p.settle()
    assert (await p.player("ana")).ranking_points == 40


async def test_a_practice_match_counts_for_nothing(platform: Platform) -> None:
    # 003: "Desactiva esta opción para practicar (no ganarás puntos ni fichas...)".
    p = platform
    table = await p.table(["ana", "bea"], competitive=False)
    await p.resign(table, 1)
    await p.settle()
    ana = await p.player("ana")
    assert (ana.matches, ana.ranking_points, ana.rating.games) == (0, 0, 0)
    assert await _board(p, ppb.LEADERBOARD_KIND_RATING) == []


def _settled_count(outcome: str) -> float:
    return REGISTRY.get_sample_value("tranca_matches_settled_total", {"outcome": outcome}) or 0.0


@pytest.fixture
async def unswept(db_url: str) -> AsyncIterator[tuple[Platform, Running]]:
    """A platform on a server whose own sweeper is off: the test is the only one to
    settle, so what it counts is every settlement (with the sweeper on, it settled
    some of the test's matches first on a loaded machine)."""
    async with server_and_client(db_url, features=frozenset({"fixed_deck"}), sweep_interval=0) as (
        running,
        made,
    ):
        yield await Platform.of(made, running), running


async def test_practice_matches_are_settled_once_beside_rated_ones_when_replicas_sweep_together(
    unswept: tuple[Platform, Running], db_url: str
) -> None:
    # Practice tables are settled together, in one statement of each sweep; a rated
    # table in the same sweep still gets its own settlement. Two replicas sweeping at
    # once settle each match exactly once between them.
    p, server = unswept
    practice = [
        await p.table(pair, competitive=False)
        for pair in (["cid", "dan"], ["eva", "fay"], ["gil", "hal"])
    ]
    rated = await p.table(["ana", "bea"])
    for table in [*practice, rated]:
        await p.resign(table, 1)
    before = _settled_count("practice"), _settled_count("rated")
    replica = Store(make_engine(db_url))
    try:
        settled = await asyncio.gather(settle_pending(server.store), settle_pending(replica))
        # A replica that read the same practice games before they were settled, and
        # writes only now, settles and counts none of them again.
        assert await settlement(replica).settle_practice([t.game_id for t in practice]) == 0
    finally:
        await replica.close()
    assert sum(settled) == 4
    assert await p.settle() == 0  # nothing left
    assert (_settled_count("practice"), _settled_count("rated")) == (before[0] + 3, before[1] + 1)
    async with server.store.engine.connect() as conn:
        flags = (
            await conn.execute(
                select(Game.settled).where(Game.id.in_([t.game_id for t in [*practice, rated]]))
            )
        ).scalars()
        assert list(flags) == [True] * 4
    ana, cid = await p.player("ana"), await p.player("cid")
    assert (ana.matches, ana.wins, ana.ranking_points) == (1, 1, 40)  # rated once
    assert (cid.matches, cid.ranking_points, cid.rating.games) == (0, 0, 0)  # practice


async def test_leaderboards_by_period(platform: Platform, server: Running) -> None:
    p = platform
    old = await p.table(["ana", "bea"])
    await p.resign(old, 1)  # ana +40, bea +5: forty days ago (moved below)
    await p.settle()
    for _ in range(2):
        table = await p.table(["bea", "cid"])
        await p.resign(table, 1)  # bea +40, cid +5: today
        await p.settle()
    # The first match's awards are moved back in time, as if it ended 40 days ago.
    async with server.store.engine.begin() as conn:
        await conn.execute(
            update(RankingAward)
            .where(RankingAward.game_id == old.game_id)
            .values(awarded_at=datetime.now(UTC) - timedelta(days=40))
        )
    today = [(1, "bea", 80, 2, 2), (2, "cid", 10, 0, 2)]
    assert await _board(p, period=ppb.PERIOD_DAY) == today
    assert await _board(p, period=ppb.PERIOD_WEEK) == today
    assert await _board(p, period=ppb.PERIOD_MONTH) == today
    assert await _board(p, period=ppb.PERIOD_ALL_TIME) == [
        (1, "bea", 85, 2, 3),
        (2, "ana", 40, 1, 1),
        (3, "cid", 10, 0, 2),
    ]
    assert await _board(p, period=ppb.PERIOD_UNSPECIFIED) == await _board(p)
    # Equal points share a rank; the limit keeps the top rows.
    table = await p.table(["dan", "eva"])
    await p.resign(table, 0)  # eva +40, dan +5
    await p.settle()
    board = await _board(p)
    assert [(r, n, pts) for r, n, pts, _, _ in board] == [
        (1, "bea", 85),
        (2, "ana", 40),
        (2, "eva", 40),
        (4, "cid", 10),
        (5, "dan", 5),
    ]
    limited = await p.players.GetLeaderboard(ppb.GetLeaderboardRequest(limit=2), metadata=p.md)
    assert [e.player_id for e in limited.entries] == ["bea", "ana"]
