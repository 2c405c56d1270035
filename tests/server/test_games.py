"""Whole games through the gRPC API.

Bot clients play whole matches seat by seat, each with its own token, asking
ListLegalMoves and submitting one of the moves. Along the way every response that a
seat, a spectator or the app receives (StartGame, SubmitMove, GetView, ListLegalMoves,
WatchGame, and a GetReplay now and then) is checked for leaks: each card in it must
be one that reader may see at that version, computed from the authoritative game (the
fold of the logged actions from the stored setup, as ``tranca.table.game.rebuild`` folds
it) with ``visible_cards``. Every finished game is rebuilt from its log and compared
with the stored snapshot, and one game outlives a restart of the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message

from tests.harness.servers import running_server, server_config
from tranca.server import Running
from tranca.store.repository import Store
from tranca.table.game import GameState, apply_action, new_game, rebuild
from tranca.v1 import game_pb2 as pb
from tranca_rules.cards import card_text
from tranca_rules.state import DealState
from tranca_rules.views import visible_cards

from .conftest import Client

SPECTATOR = -1  # the reader of a spectator's and of the app's views
CARD = re.compile(r"^(?:[A2-9TJQK][CDHS]|JK)$")
SINGLE_DEAL = {"target_score": pb.KnobValue(int_value=0)}
MAX_MOVES = 3000  # a deal that has not ended by then is a bug
WATCH_TIMEOUT = 30.0

Readers = dict[int, Counter[str]]


# ----- what a reader may see ----------------------------------------------------------


def _visible(deal: DealState | None, readers: list[int]) -> Readers:
    if deal is None:
        return {r: Counter() for r in readers}
    return {r: Counter(card_text(c) for c in visible_cards(deal, r)) for r in readers}


def _open_board(g: GameState) -> Counter[str]:
    """Every card of the deal whose table is open (the deal that ended, or the
    match's last), worked out apart from ``rules.views.board_of``: every card of it
    but the stock's. Empty while a deal is played."""
    found = g.deal_board()
    if found is None:
        return Counter()
    deal = found[1]
    cards = [c for hand in deal.hands for c in hand]
    cards += [c for m in deal.melds for c in m.cards]
    cards += [c for r in deal.red_threes for c in r]
    cards += [c for m in deal.mortos if m is not None for c in m]
    cards += deal.pile
    return Counter(card_text(c) for c in cards)


def board_cards(board: pb.DealBoard) -> list[str]:
    """The cards a view's final table shows."""
    out = [c for h in board.hands for c in h.cards]
    for m in board.melds:
        out += m.cards
    for r in board.red_threes:
        out += r.cards
    for morto in board.mortos:
        out += morto.cards
    return out + list(board.pile)


def _items(value: Any) -> list[Any]:
    if isinstance(value, str | bytes | int | float | Message):
        return [value]
    if hasattr(value, "values"):  # a map field
        return list(value.values())
    return list(value)  # a repeated field


def card_strings(msg: Message) -> list[str]:
    """Every card string anywhere in ``msg``: every word of every string field, at any
    depth (hands, melds, piles, mortos, moves and their display text)."""
    out: list[str] = []
    for _fd, value in msg.ListFields():
        for item in _items(value):
            if isinstance(item, Message):
                out += card_strings(item)
            elif isinstance(item, str):
                out += [w for w in item.split() if CARD.match(w)]
    return out


def view_cards(view: pb.GameView) -> list[str]:
    """The cards a view shows, each once (the pile's top is part of a shown pile)."""
    out = list(view.hand)
    for m in view.melds:
        out += m.cards
    for r in view.red_threes:
        out += r.cards
    if view.pile:
        out += view.pile
    elif view.pile_top:
        out.append(view.pile_top)
    for morto in view.mortos:
        out += morto.cards
    return out


class Oracle:
    """The authoritative game of one table, folded from its log one version at a time
    (what ``rebuild`` does, kept incremental), and what each reader may see at each
    version. Leak problems are collected, not raised, so a game always plays out and
    every problem is reported."""

    def __init__(self, store: Store, game_id: str, state: GameState) -> None:
        self.store = store
        self.game_id = game_id
        self.state = state
        self.version = 0
        self.readers = [*range(state.setup.players), SPECTATOR]
        self.allowed: dict[int, Readers] = {0: _visible(None, self.readers)}
        self.hands: dict[int, list[Counter[str]]] = {}  # each seat's hand, while dealt
        # Cards of a move that ended a deal are on the table of that deal, which the
        # next deal replaced at the same version.
        self.ended: dict[int, Readers] = {}
        # The open table of a deal that is over, everyone's to see (GameView.final_board).
        self.boards: dict[int, Counter[str]] = {0: Counter()}
        self.ever: dict[int, set[str]] = {r: set() for r in self.readers}  # seen by now
        self.problems: list[str] = []
        self.lock = asyncio.Lock()

    @classmethod
    async def of(cls, store: Store, game_id: str) -> Oracle:
        return cls(store, game_id, new_game(await store.setup_of(game_id)))

    async def at(self, version: int) -> Readers:
        async with self.lock:
            if version > self.version:
                for row in await self.store.log(self.game_id, self.version, version):
                    assert row.version == self.version + 1, "the log has a gap"
                    before = self.state.deal
                    apply_action(self.state, row.action, row.version)
                    self.version = row.version
                    deal = self.state.deal
                    self.allowed[row.version] = _visible(deal, self.readers)
                    if deal is not None:
                        self.hands[row.version] = [
                            Counter(card_text(c) for c in hand) for hand in deal.hands
                        ]
                    if before is not None and self.state.deal is not before:
                        self.ended[row.version] = _visible(before, self.readers)
                    self.boards[row.version] = _open_board(self.state)
                    for r in self.readers:
                        self.ever[r] |= set(self.allowed[row.version][r])
                        self.ever[r] |= set(self.ended.get(row.version, {}).get(r, ()))
                        self.ever[r] |= set(self.boards[row.version])
            assert version in self.allowed, f"version {version} is not in the log"
            return self.allowed[version]

    def _problem(self, what: str) -> None:
        self.problems.append(what)

    async def check_view(self, where: str, reader: int, view: pb.GameView) -> None:
        allowed = (await self.at(view.version))[reader]
        seen = Counter(view_cards(view))
        extra = seen - allowed
        if extra:
            self._problem(f"{where}: reader {reader} at v{view.version} sees {sorted(extra)}")
        board = self.boards[view.version]
        shown_board = Counter(board_cards(view.final_board))
        if shown_board != board:
            self._problem(
                f"{where}: reader {reader} at v{view.version}: the final table shows "
                f"{sorted(shown_board - board)} beyond and misses {sorted(board - shown_board)}"
            )
        stray = sorted({c for c in card_strings(view) if c not in allowed and c not in board})
        if stray:
            self._problem(f"{where}: reader {reader} at v{view.version} names {stray}")
        if reader == SPECTATOR:
            if view.hand:
                self._problem(f"{where}: reader {reader} at v{view.version} gets a hand")
        elif view.status == pb.GAME_STATUS_PLAYING and (
            Counter(view.hand) != self.hands[view.version][reader]
        ):
            self._problem(f"{where}: seat {reader} at v{view.version}: not its hand")

    async def check_cards(self, where: str, reader: int, version: int, msg: Message) -> None:
        allowed = set((await self.at(version))[reader])
        allowed |= set(self.ended.get(version, {}).get(reader, Counter()))
        allowed |= set(self.boards[version])
        stray = sorted({c for c in card_strings(msg) if c not in allowed})
        if stray:
            self._problem(f"{where}: reader {reader} at v{version} names {stray}")

    async def check_replay(self, where: str, reader: int, replay: pb.GetReplayResponse) -> None:
        """A replay of a deal under way names only cards the reader has seen by now."""
        await self.at(replay.moves[-1].version if replay.moves else 0)
        stray = sorted({c for c in card_strings(replay) if c not in self.ever[reader]})
        if stray:
            self._problem(f"{where}: reader {reader} at v{self.version} names {stray}")

    async def check_snapshot(self, version: int) -> None:
        """The stored snapshot, read right after a sequential call, is the fold of the log."""
        await self.at(version)
        record = await self.store.game(self.game_id)
        assert record.version == version == self.version
        if record.state.to_dict() != self.state.to_dict():
            self._problem(f"v{version}: the stored snapshot differs from the fold of the log")


# ----- tables, bots and watchers ------------------------------------------------------


@dataclass
class Table:
    client: Client
    game_id: str
    tokens: list[str]
    spectator: str
    oracle: Oracle
    rng: random.Random
    view: pb.GameView = field(default_factory=pb.GameView)  # the last view seen
    moves: int = 0
    # Open WatchGame streams: the versions each has delivered, and its task.
    watches: list[tuple[list[int], asyncio.Task[None]]] = field(default_factory=list)

    def metadata(self, reader: int | None) -> tuple[tuple[str, str], ...]:
        """A seat's token, the spectator's token (-1) or the app's key (None)."""
        if reader is None:
            return self.client.app()
        if reader == SPECTATOR:
            return Client.player(self.spectator)
        return Client.player(self.tokens[reader])


async def open_table(
    client: Client,
    store: Store,
    preset: str,
    players: int,
    seed: int,
    overrides: dict[str, pb.KnobValue] | None = None,
) -> Table:
    """Create a game that allows spectators, seat every player and a spectator."""
    created = await client.stub.CreateGame(
        pb.CreateGameRequest(
            rules=pb.Rules(preset=preset, overrides=overrides or {}),
            players=players,
            seed=seed,
            spectators_allowed=True,
            label=f"e2e {preset} x{players}",
        ),
        metadata=client.app(),
    )
    gid = created.game.game_id
    tokens = []
    for seat in range(players):
        joined = await client.stub.JoinGame(
            pb.JoinGameRequest(game_id=gid, seat=seat, player_name=f"bot{seat}"),
            metadata=client.app(),
        )
        assert joined.seat == seat
        tokens.append(joined.player_token)
    spectator = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, player_name="watcher", spectator=True),
        metadata=client.app(),
    )
    assert spectator.seat == -1
    oracle = await Oracle.of(store, gid)
    return Table(client, gid, tokens, spectator.player_token, oracle, random.Random(seed))


async def start_table(table: Table) -> None:
    """StartGame with seat 0's token; its view is checked like any other."""
    started = await table.client.stub.StartGame(
        pb.StartGameRequest(game_id=table.game_id), metadata=table.metadata(0)
    )
    assert started.view.status == pb.GAME_STATUS_PLAYING
    assert started.view.seat == 0
    await table.oracle.check_view("StartGame", 0, started.view)
    table.view = started.view


async def _watch(table: Table, reader: int, from_version: int, seen: list[int]) -> None:
    call = table.client.stub.WatchGame(
        pb.WatchGameRequest(game_id=table.game_id, from_version=from_version),
        metadata=table.metadata(reader),
    )
    async for update in call:
        version = update.view.version
        where = f"WatchGame v{version}"
        await table.oracle.check_view(where, reader, update.view)
        if update.HasField("move"):
            assert update.move.version == version
            await table.oracle.check_cards(where + " move", reader, version, update.move)
        seen.append(version)


async def open_watches(table: Table, from_version: int = 0) -> None:
    """A WatchGame stream for every seat and the spectator; returns once each has
    delivered its first update."""
    for reader in table.oracle.readers:
        seen: list[int] = []
        table.watches.append((seen, asyncio.create_task(_watch(table, reader, from_version, seen))))
        async with asyncio.timeout(WATCH_TIMEOUT):
            while not seen:
                await asyncio.sleep(0.01)


async def close_watches(table: Table, first_version: int, final_version: int) -> None:
    """Every stream has sent every version in order, up to the last one; then it is
    closed (a stream may stay open a while after the end of the match)."""
    async with asyncio.timeout(WATCH_TIMEOUT):
        while any(not seen or seen[-1] < final_version for seen, _ in table.watches):
            for seen, task in table.watches:
                if task.done():
                    task.result()  # a failed stream fails the test here
                    assert seen and seen[-1] >= final_version, "a watch ended too early"
            await asyncio.sleep(0.01)
    for seen, _ in table.watches:
        assert seen == list(range(first_version, final_version + 1))
    await stop_watches(table)


async def stop_watches(table: Table) -> None:
    for _, task in table.watches:
        task.cancel()
    for _, task in table.watches:
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await task
    table.watches.clear()


def choose(rng: random.Random, moves: list[pb.Move]) -> pb.Move:
    """A random legal move, leaning to building melds and to drawing rather than
    taking, with a discard now and then so that deals end."""
    by_kind: dict[str, list[pb.Move]] = {}
    for m in moves:
        by_kind.setdefault(str(m.WhichOneof("kind")), []).append(m)
    if "draw" in by_kind or "take_pile" in by_kind:
        if "take_pile" in by_kind and rng.random() < 0.5:
            return rng.choice(by_kind["take_pile"])
        return rng.choice(by_kind.get("draw") or by_kind["take_pile"])
    builds = [m for m in moves if m.WhichOneof("kind") != "discard"]
    if builds and rng.random() < 0.85:
        return rng.choice(builds)
    return rng.choice(by_kind.get("discard") or moves)


@dataclass
class Played:
    request: pb.SubmitMoveRequest
    seat: int
    response: pb.SubmitMoveResponse


async def play_one(table: Table) -> Played:
    """One move by the seat to act, with the checks around it."""
    stub, oracle, view = table.client.stub, table.oracle, table.view
    n = len(table.tokens)
    seat = view.turn
    legal = await stub.ListLegalMoves(
        pb.ListLegalMovesRequest(game_id=table.game_id), metadata=table.metadata(seat)
    )
    assert legal.version == view.version
    assert legal.moves, f"seat {seat} has no legal move at v{legal.version}"
    await oracle.check_cards("ListLegalMoves", seat, legal.version, legal)
    if n > 1:
        other = (seat + 1 + table.moves % (n - 1)) % n
        idle = await stub.ListLegalMoves(
            pb.ListLegalMovesRequest(game_id=table.game_id), metadata=table.metadata(other)
        )
        assert idle.version == legal.version
        assert not idle.moves, f"seat {other} has moves on seat {seat}'s turn"
    request = pb.SubmitMoveRequest(
        game_id=table.game_id,
        expected_version=legal.version,
        request_id=uuid.uuid4().hex,
        move=choose(table.rng, list(legal.moves)),
    )
    done = await stub.SubmitMove(request, metadata=table.metadata(seat))
    assert not done.replayed
    assert done.version == legal.version + 1 == done.view.version
    assert done.view.seat == seat
    await oracle.check_view("SubmitMove", seat, done.view)
    await oracle.check_snapshot(done.version)
    # One more reader looks at the game after every move, in turn: each seat, the
    # spectator and the app.
    readers: list[int | None] = [*range(n), SPECTATOR, None]
    reader = readers[table.moves % len(readers)]
    got = await stub.GetView(
        pb.GetViewRequest(game_id=table.game_id), metadata=table.metadata(reader)
    )
    assert got.view.version == done.version
    if reader is None:
        assert got.view.seat == -1
        assert not got.view.hand, "the app's view holds a hand"
    await oracle.check_view(f"GetView({reader})", SPECTATOR if reader is None else reader, got.view)
    if table.moves % 40 == 20 and done.view.status == pb.GAME_STATUS_PLAYING:
        replay = await stub.GetReplay(
            pb.GetReplayRequest(game_id=table.game_id), metadata=table.metadata(reader)
        )
        assert len(replay.moves) == done.version
        if done.view.deal_number == 1:
            assert not replay.deals, "the replay shows the deal under way"
            assert replay.seed == 0, "the replay shows the seed before the end"
        await oracle.check_replay(
            f"GetReplay({reader})", SPECTATOR if reader is None else reader, replay
        )
    table.view = done.view
    table.moves += 1
    return Played(request, seat, done)


async def play_until(table: Table, moves: int | None = None) -> Played | None:
    """Play ``moves`` moves, or on to the end of the match."""
    last = None
    played = 0
    while table.view.status == pb.GAME_STATUS_PLAYING and (moves is None or played < moves):
        assert table.moves < MAX_MOVES, "the match did not end"
        last = await play_one(table)
        played += 1
    return last


async def rebuild_problems(store: Store, game_id: str) -> list[str]:
    """A finished game rebuilt from its move log is its stored snapshot."""
    setup = await store.setup_of(game_id)
    rows = await store.log(game_id)
    stored = await store.game(game_id)
    problems = []
    if [r.version for r in rows] != list(range(1, len(rows) + 1)):
        problems.append("the log's versions are not 1, 2, ...")
    if stored.version != len(rows):
        problems.append(f"stored version {stored.version} but {len(rows)} log rows")
    rebuilt = rebuild(setup, [row.action for row in rows])
    if rebuilt.to_dict() != stored.state.to_dict():
        problems.append("the game rebuilt from its log differs from the stored snapshot")
    return problems


def report(problems: list[str]) -> str:
    return f"{len(problems)} problems, the first ones:\n" + "\n".join(problems[:15])


# ----- 1-3: whole games, no leaks, rebuilt from the log --------------------------------

GAMES = [
    pytest.param("tranca-000", 2, 101, id="tranca-000-x2"),
    pytest.param("tranca-000", 4, 102, id="tranca-000-x4"),
    pytest.param("tranca-003", 2, 103, id="tranca-003-x2"),
    pytest.param("canasta-002", 4, 104, id="canasta-002-x4"),
]


@pytest.mark.parametrize(("preset", "players", "seed"), GAMES)
async def test_a_whole_game_plays_out_leaks_nothing_and_rebuilds(
    server: Running, client: Client, preset: str, players: int, seed: int
) -> None:
    table = await open_table(client, server.store, preset, players, seed, SINGLE_DEAL)
    try:
        before_start = (await server.store.game(table.game_id)).version
        await open_watches(table)
        await start_table(table)
        await play_until(table)

        final = table.view
        assert final.status == pb.GAME_STATUS_FINISHED
        assert final.match_result.reason == "single_deal"
        assert final.last_deal.end_reason in ("batida", "stock_out", "no_legal_move")
        stored = await server.store.game(table.game_id)
        assert stored.version == final.version
        assert stored.state.status == "finished"
        assert final.match_result.winner_side == stored.state.winner
        for reader in [*range(players), SPECTATOR, None]:
            got = await client.stub.GetView(
                pb.GetViewRequest(game_id=table.game_id), metadata=table.metadata(reader)
            )
            assert got.view.status == pb.GAME_STATUS_FINISHED
            assert got.view.version == final.version
            assert not got.view.hand
            await table.oracle.check_view(
                f"GetView({reader}) at the end", SPECTATOR if reader is None else reader, got.view
            )
        legal = await client.stub.ListLegalMoves(
            pb.ListLegalMovesRequest(game_id=table.game_id), metadata=table.metadata(0)
        )
        assert not legal.moves
        await close_watches(table, before_start, final.version)

        assert not table.oracle.problems, report(table.oracle.problems)
        assert not (problems := await rebuild_problems(server.store, table.game_id)), problems
    finally:
        await stop_watches(table)


# ----- a retried move ------------------------------------------------------------------


async def test_a_retried_move_gets_its_first_answer(server: Running, client: Client) -> None:
    """SubmitMove: "Retrying with the same request_id returns the first answer without
    playing the move again", also after the game has moved on. The answer must be the
    one given at the move's version, not the seat's view of a later position (which
    would show cards that were still in the stock at that version)."""
    table = await open_table(client, server.store, "tranca-000", 2, 201, SINGLE_DEAL)
    await start_table(table)
    first = await play_one(table)
    metadata = table.metadata(first.seat)

    again = await client.stub.SubmitMove(first.request, metadata=metadata)
    assert again.replayed
    assert again.version == first.response.version
    assert again.view == first.response.view

    # Both seats play a full turn: the retrying seat has drawn a card since.
    while table.moves < 8 or table.view.turn != first.seat:
        await play_one(table)
    assert table.view.status == pb.GAME_STATUS_PLAYING
    late = await client.stub.SubmitMove(first.request, metadata=metadata)
    assert late.replayed
    assert late.version == first.response.version
    assert (await server.store.game(table.game_id)).version == table.view.version
    await table.oracle.check_view("SubmitMove retried", first.seat, late.view)
    assert not table.oracle.problems, report(table.oracle.problems)
    assert late.view == first.response.view


# ----- 4: a restart ---------------------------------------------------------------------


@contextlib.asynccontextmanager
async def restarted_server(url: str) -> AsyncIterator[Running]:
    # As the conftest's servers: limits have their own tests.
    async with running_server(server_config(url)) as running:
        yield running


async def test_a_game_outlives_a_server_restart(
    server: Running, client: Client, db_url: str
) -> None:
    table = await open_table(client, server.store, "tranca-000", 2, 301)
    await start_table(table)
    last = await play_until(table, 25)
    assert last is not None
    assert table.view.status == pb.GAME_STATUS_PLAYING
    readers: list[int | None] = [0, 1, SPECTATOR, None]
    before = {
        r: (
            await client.stub.GetView(
                pb.GetViewRequest(game_id=table.game_id), metadata=table.metadata(r)
            )
        ).view
        for r in readers
    }

    await server.stop()
    async with (
        restarted_server(db_url) as restarted,
        grpc.aio.insecure_channel(f"127.0.0.1:{restarted.port}") as channel,
    ):
        table.client = Client(channel, client.api_key)
        table.oracle.store = restarted.store
        stub = table.client.stub
        after = {
            r: (
                await stub.GetView(
                    pb.GetViewRequest(game_id=table.game_id), metadata=table.metadata(r)
                )
            ).view
            for r in readers
        }
        for r in readers:
            assert after[r] == before[r], f"reader {r}'s view changed over the restart"
            await table.oracle.check_view(
                f"GetView({r}) after restart", SPECTATOR if r is None else r, after[r]
            )

        # The last move before the stop, retried after it, is not played again.
        retried = await stub.SubmitMove(last.request, metadata=table.metadata(last.seat))
        assert retried.replayed
        assert retried.version == last.response.version
        assert retried.view == last.response.view

        # Play goes on to the end of the deal, watched from before the stop.
        resumed_at = table.view.version
        try:
            await open_watches(table, from_version=resumed_at - 5)
            await play_until(table)
            assert table.view.status == pb.GAME_STATUS_FINISHED
            assert table.view.version > resumed_at
            await close_watches(table, resumed_at - 4, table.view.version)
        finally:
            await stop_watches(table)
        assert not table.oracle.problems, report(table.oracle.problems)
        problems = await rebuild_problems(restarted.store, table.game_id)
        assert not problems, problems


async def test_a_server_writing_snapshot_schema_1_keeps_them_self_contained(
    client: Client, server: Running
) -> None:
    """During an upgrade from a release that reads only schema 1, ``--snapshot-schema
    1`` writes snapshots such a release reads: schema 1, with the setup inside. Both
    formats are read back alike."""
    from tranca.store.codec import loads

    store = server.store
    store.snapshot_schema = 1
    try:
        gid, tokens = await client.new_game()
        view = (
            await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.app())
        ).view
        done = await client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=gid,
                expected_version=view.version,
                request_id="s1",
                move=pb.Move(draw=pb.DrawMove()),
            ),
            metadata=client.player(tokens[view.turn]),
        )
        row = await store.move_path.game(gid)
        assert row is not None and row.version == done.version
        stored = loads(row.snapshot)
        assert stored["schema"] == 1 and "setup" in stored
        # Readable without the setup column, as a schema-1 reader reads it.
        alone = GameState.from_dict(stored)
        assert alone.to_dict() == (await store.game(gid)).state.to_dict()
    finally:
        store.snapshot_schema = 3
