"""A hint carries the rows its commit logged (store/hints.py, "A hint may carry the
rows"): on SQLite and PostgreSQL, the rows a change hints are the log's own rows,
every field as the log reads back; a watcher woken by such a hint delivers them
without reading the log, and reads the log where they do not follow on from its
version (the hub's rows dropped, as after a lost connection) and on its first read.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from typing import Any

import grpc
import pytest

from tests.harness.servers import running_server, server_config
from tranca.api.convert import move_to_pb
from tranca.server import Running
from tranca.services import watch as games_service
from tranca.services.ports import GameChange, LogRecord
from tranca.store.hints import Hub
from tranca.table.game import apply_action, play_action
from tranca.v1 import game_pb2 as pb
from tranca_rules.engine import legal_moves

from .conftest import Client, move_first_legal
from .test_turns import _draw_and_discard


class Recorder:
    """The move path's notifier, recording each hint's rows before passing it on."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.rows: dict[str, list[LogRecord]] = {}

    def publish(self, game_id: str, version: int | None, rows: Sequence[LogRecord] = ()) -> None:
        self.rows.setdefault(game_id, []).extend(rows)
        self.inner.publish(game_id, version, rows)


async def _play(client: Client, server: Running, gid: str, tokens: list[str], moves: int) -> int:
    """``moves`` changes: mostly single moves, every third turn a draw and a discard
    in one SubmitTurn (two rows in one hint). The version reached."""
    version = 0
    for i in range(moves):
        if i % 3 == 2:
            game = await server.store.game(gid)
            assert game.state.deal is not None
            seat = game.state.deal.turn
            if game.state.deal.phase == "draw":
                done = await client.stub.SubmitTurn(
                    pb.SubmitTurnRequest(
                        game_id=gid,
                        expected_version=game.version,
                        request_id=uuid.uuid4().hex,
                        moves=await _draw_and_discard(client, server, gid),
                    ),
                    metadata=client.player(tokens[seat]),
                )
                version = int(done.version)
                continue
        version = await move_first_legal(client, gid, tokens)
    return version


async def test_the_rows_a_change_hints_are_the_rows_it_logged(
    server: Running, client: Client
) -> None:
    recorder = Recorder(server.moves.notifier)
    server.moves.notifier = recorder
    gid, tokens = await client.new_game()
    version = await _play(client, server, gid, tokens, 15)
    logged = await server.store.log(gid)
    # Every change of the game went through the move path: the joins, the start,
    # single moves and whole turns; each hinted exactly the rows the log holds.
    assert [r.version for r in logged] == list(range(1, version + 1))
    assert recorder.rows[gid] == logged
    assert any(r.request_id and r.request_id.endswith("#1") for r in logged)  # a turn


def counted_reads(running: Running, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every read of the log on ``running``'s store from now on: (game, after)."""
    reads: list[tuple[str, int]] = []
    log = running.store.log

    async def counted(game_id: str, after: int = 0, upto: int | None = None) -> list[LogRecord]:
        reads.append((game_id, after))
        return await log(game_id, after, upto)

    monkeypatch.setattr(running.store, "log", counted)
    return reads


def assert_as_logged(delivered: Sequence[pb.LoggedMove], logged: Sequence[LogRecord]) -> None:
    """Each move a stream delivered is the log's row of its version."""
    rows = {r.version: r for r in logged}
    for m in delivered:
        row = rows[m.version]
        assert (m.seat, m.actor, m.played_at) == (row.seat, row.actor, int(row.created_at))
        assert row.action.move is not None and m.move == move_to_pb(row.action.move)


async def played_then_delivered(
    client: Client, gid: str, tokens: list[str], updates: Any, moves: int
) -> tuple[int, list[pb.LoggedMove]]:
    """``moves`` moves, then the stream's next ``moves`` updates, one per version in
    order; the version reached and the moves delivered."""
    for _ in range(moves):
        version = await move_first_legal(client, gid, tokens)
    delivered = []
    for want in range(version - moves + 1, version + 1):
        update = await asyncio.wait_for(anext(updates), 30)
        assert update.view.version == want
        delivered.append(update.move)
    return version, delivered


async def settled(reads: list[Any], quiet: float = 0.3) -> int:
    """How many reads there are once none has come for ``quiet`` seconds: the watch
    stream's first read, and on PostgreSQL the one after the listener's LISTEN."""
    async with asyncio.timeout(20):
        while True:
            count = len(reads)
            await asyncio.sleep(quiet)
            if len(reads) == count and count:
                return count


async def watched(client: Client, gid: str, token: str) -> tuple[Any, Any, pb.WatchGameResponse]:
    watch = client.stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=client.player(token))
    updates = aiter(watch)
    first = await asyncio.wait_for(anext(updates), 10)
    return watch, updates, first


async def test_a_watcher_takes_the_hinted_rows_and_reads_the_log_when_they_do_not_follow_on(
    server: Running, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = server.moves.notifier
    assert isinstance(hub, Hub)
    real_log = server.store.log
    reads = counted_reads(server, monkeypatch)
    monkeypatch.setattr(games_service, "WATCH_POLL_SECONDS", 300.0)  # no timed re-read
    gid, tokens = await client.new_game()
    watch, updates, first = await watched(client, gid, tokens[1])
    delivered: list[pb.LoggedMove] = []
    try:
        if server.listener is not None:  # PostgreSQL: its LISTEN re-reads once more
            await asyncio.wait_for(hub.listening.wait(), 10)
        opened = await settled(reads)
        assert reads[0] == (gid, first.view.version)
        for _ in range(6):
            version = await move_first_legal(client, gid, tokens)
            update = await asyncio.wait_for(anext(updates), 10)
            assert update.view.version == version
            delivered.append(update.move)
        # Woken by each move's hint, the stream took its rows: no read of the log.
        assert [r for r in reads[opened:] if r[0] == gid] == []

        # A lost connection drops the rows this hub held and wakes every watcher:
        # the stream re-reads the log.
        hub.wake_all()
        async with asyncio.timeout(10):
            while reads[-1] != (gid, version):
                await asyncio.sleep(0.02)
        # A hint lost (the next move's): the one after brings rows that do not
        # follow on from the stream's version, so it reads the log, missing nothing.
        real_publish = hub.publish
        lost: list[int] = []

        def lose_one(game_id: str, version: int | None = None, rows: Any = ()) -> None:
            if game_id == gid and not lost:
                lost.append(version or 0)
                return
            real_publish(game_id, version, rows)

        monkeypatch.setattr(hub, "publish", lose_one)
        reread = len(reads)
        version, late = await played_then_delivered(client, gid, tokens, updates, 2)
        delivered += late
        assert lost == [version - 1]
        assert reads[reread:] == [(gid, version - 2)]  # both rows from one read
    finally:
        watch.cancel()
    # What the stream delivered is the log, move by move.
    assert [m.version for m in delivered] == list(range(first.view.version + 1, version + 1))
    assert_as_logged(delivered, await real_log(gid))


async def test_every_watcher_of_a_game_sees_every_version_in_order_whole_turns_too(
    server: Running, client: Client
) -> None:
    """Two streams on one game (a player and the app): both see every version, in
    order, whether a hint's rows or the log brought it."""
    gid, tokens = await client.new_game()
    seat_watch, seat_updates, seat_first = await watched(client, gid, tokens[0])
    app_watch = client.stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=client.app())
    app_updates = aiter(app_watch)
    app_first = await asyncio.wait_for(anext(app_updates), 10)
    try:
        version = await _play(client, server, gid, tokens, 9)
        for updates, first in ((seat_updates, seat_first), (app_updates, app_first)):
            seen: list[int] = []
            while not seen or seen[-1] < version:
                seen.append((await asyncio.wait_for(anext(updates), 10)).view.version)
            assert seen == list(range(first.view.version + 1, version + 1))
    finally:
        seat_watch.cancel()
        app_watch.cancel()


async def test_a_change_written_in_a_transaction_carries_the_time_the_log_reads_back(
    server: Running, client: Client
) -> None:
    """The SQLAlchemy path (a staked change, quick play's and tournaments' tables)
    gives the same time as the log's row, on both databases."""
    gid, _ = await client.new_game()
    game = await server.store.game(gid)
    deal = game.state.deal
    assert deal is not None
    action = play_action(deal.turn, legal_moves(deal)[0])
    apply_action(game.state, action, game.version + 1)
    write = server.store.move_write(GameChange(gid, game.version, game.state, action, "tx"))
    async with server.store.engine.begin() as conn:
        logged_at = await server.store.sql.run_change(conn, write)
    rows = await server.store.log(gid, game.version)
    assert logged_at is not None and [(r.version, r.created_at) for r in rows] == [
        (game.version + 1, logged_at)
    ]
    async with server.store.engine.begin() as conn:  # the game has moved on: nothing
        assert await server.store.sql.run_change(conn, write) is None


async def test_a_move_whose_answer_was_cut_off_reaches_this_replicas_watchers_by_its_notify(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL: a replica's listener holds back its own moves' NOTIFY a moment
    (its move path hints at the commit, with the rows) rather than dropping it, so
    a move whose own hint never came (the call cut off after COMMIT) still reaches
    the watchers here long before their timer."""
    monkeypatch.setattr(games_service, "WATCH_POLL_SECONDS", 300.0)
    async with running_server(server_config(pg_url), grace=0.2) as running:
        hub = running.moves.notifier
        assert isinstance(hub, Hub) and running.listener is not None
        _, key = await running.store.create_app(f"t-{uuid.uuid4().hex[:6]}")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            client = Client(channel, key)
            gid, tokens = await client.new_game()
            watch, updates, _ = await watched(client, gid, tokens[0])
            await asyncio.wait_for(hub.listening.wait(), 10)
            real_publish = hub.publish
            lost: list[int | None] = []

            def lose_the_move_paths(game_id: str, version: int | None, rows: Any = ()) -> None:
                if rows and not lost:  # the move path's own hint, with its rows
                    lost.append(version)
                    return
                real_publish(game_id, version, rows)

            monkeypatch.setattr(hub, "publish", lose_the_move_paths)
            version = await move_first_legal(client, gid, tokens)
            update = await asyncio.wait_for(anext(updates), 10)
            assert lost == [version] and update.view.version == version
            watch.cancel()
