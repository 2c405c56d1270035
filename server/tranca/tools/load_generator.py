"""``LoadGenerator``: concurrent bot games through the public API, paced, retried
through a server's outages, and verified afterwards from the server's own answers
(the command is ``tranca.tools.loadgen``)."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import grpc

from ..v1 import game_pb2 as pb
from ..v1 import game_pb2_grpc as pb_grpc
from .load_report import latency_summary, mark_window
from .loadgen_turns import move_bytes, plan_turn

# Failures that say nothing was done, or that the outcome is unknown: a call is sent
# again (a move with the same request id, applied once however often it is sent).
RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,  # a rate limit: wait and send it again
}
# The channels reconnect quickly once a server is back (gRPC's default backoff grows
# to two minutes between attempts).
CHANNEL_OPTIONS = [
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


class OutOfTime(Exception):
    """A call that was still failing (UNAVAILABLE, ...) when its time ran out."""


class Refused(Exception):
    """A refusal every game would meet (an API key, a preset): the run stops."""


class _Abandoned(Exception):
    """A game that cannot be played on (a seat taken by an attempt whose answer was
    lost, an unexpected refusal): it is left and a new one begins."""


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    conflicts: int = 0
    draws_refused: int = 0  # turn-opening draws the preset refused (also in errors)
    acked: dict[str, dict[str, int]] = field(default_factory=dict)  # game -> request -> version
    # game -> version -> the move acknowledged at it (its bytes, text cleared): the
    # verification compares every logged move with it, a turn's moves one by one.
    acked_moves: dict[str, dict[int, bytes]] = field(default_factory=dict)
    turns: int = 0  # SubmitTurn calls answered (--turns)
    turns_refused: int = 0  # turns the service refused at one of their moves (--turns)
    moves: int = 0
    deals: int = 0
    watch_updates: int = 0  # updates the seats' watch streams received (--watch)
    retries: int = 0  # calls sent again after a failure in RETRYABLE
    games_abandoned: int = 0  # games left after a refusal their loop did not expect

    def reset(self) -> None:
        self.latencies.clear()
        self.errors.clear()
        self.conflicts = 0
        self.draws_refused = 0
        self.moves = 0
        self.deals = 0
        self.watch_updates = 0
        self.retries = 0
        self.games_abandoned = 0
        self.turns = 0
        self.turns_refused = 0


class Pacer:
    """Slots at ``rate`` a second, evenly spaced and shared by every game: a game
    waits for the next free slot before its move. A slot missed (the games were all
    busy) is not made up later, so the offered rate is at most ``rate``."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self.next = 0.0

    async def wait(self) -> None:
        now = time.perf_counter()
        slot = max(self.next, now)
        self.next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


class LoadGenerator:
    def __init__(
        self,
        addresses: list[str],
        api_key: str,
        *,
        preset: str = "tranca-000",
        players: int = 2,
        channels: int = 4,
        timeout: float = 5.0,
        seed: int = 1,
        think: float = 0.0,
        draw_at_turn_start: bool = True,
        watch: bool = False,
        rate: float = 0.0,
        turns: bool = False,
        planned: bool = False,
    ) -> None:
        self.app = (("x-api-key", api_key),)
        # Moves offered at ``rate`` a second in all, evenly spaced (0: as fast as the
        # games can go): a load set as a fraction of a measured rate, whatever the
        # machine's speed, for the latency at that load.
        self.pacer = Pacer(rate) if rate > 0 else None
        # A pause before each move (uniform in 0.5x to 1.5x), like a player or a bot
        # thinking: with it, N games offer a load below the server's capacity and
        # the latency measured is the service's, not a queue's.
        self.think = think
        self.draw_at_turn_start = draw_at_turn_start
        # Each seat keeps a WatchGame stream open while its game is played, as a
        # client that shows the table does (the Python SDK's ``play_seat``).
        self.watch = watch
        # After a turn's draw, the rest of the turn (melds, adds, the discard) in one
        # SubmitTurn call, chosen from the legal moves the draw's answer listed.
        self.turns = turns
        # The same turns played one SubmitMove a move (the single-move path with the
        # batched path's mix of moves).
        self.planned = planned
        self.preset = preset
        self.players = players
        self.timeout = timeout
        self.rng = random.Random(seed)
        self.addresses = addresses
        # Separate subchannel pools: each channel opens its own connection.
        self.channels = [
            grpc.aio.insecure_channel(addresses[i % len(addresses)], options=CHANNEL_OPTIONS)
            for i in range(max(1, channels))
        ]
        self.stubs = [pb_grpc.GameServiceStub(c) for c in self.channels]
        self.stats = Stats()
        self.deadline = 0.0

    async def close(self) -> None:
        for c in self.channels:
            await c.close()

    async def preflight(self, preset: str, players: int, wait: float = 10.0) -> None:
        """Refuse to start against no server, or one that refuses the API key, the
        preset or the player count: every game would fail the same way."""
        for address, channel in zip(self.addresses, self.channels, strict=False):
            try:
                await asyncio.wait_for(channel.channel_ready(), wait)
            except TimeoutError:
                raise Refused(f"no server answers at {address} (waited {wait:g} s)") from None
        stub = self.stubs[0]
        try:
            listed = await stub.ListPresets(
                pb.ListPresetsRequest(), metadata=self.app, timeout=self.timeout
            )
        except grpc.aio.AioRpcError as e:
            raise Refused(f"the server refused ListPresets: {_status(e)}") from None
        counts = {p.name: list(p.player_counts) for p in listed.presets}
        if preset not in counts:
            raise Refused(f"the server has no preset {preset!r}")
        if players not in counts[preset]:
            raise Refused(f"the server plays {preset} with {counts[preset]} players, not {players}")

    async def _call(self, stub: pb_grpc.GameServiceStub, name: str, request: Any, md: Any) -> Any:
        """One RPC, timed. A failure in RETRYABLE is counted and the same request sent
        again, with a growing pause, until the run's deadline (then ``OutOfTime``: the
        call's outcome stays unknown). Any other failure is counted and raised."""
        for attempt in range(1, 100_000):  # bounded by ``until`` long before
            started = time.perf_counter()
            try:
                reply = await getattr(stub, name)(request, metadata=md, timeout=self.timeout)
                self.stats.latencies[name].append(time.perf_counter() - started)
                return reply
            except grpc.aio.AioRpcError as e:
                self.stats.errors[e.code().name] += 1
                if e.code() not in RETRYABLE:
                    raise
                left = self.deadline - time.perf_counter()
                if left <= 0:
                    raise OutOfTime(f"{name}: {_status(e)}") from e
                self.stats.retries += 1
                await asyncio.sleep(min(0.05 * attempt, 0.5, left))
        raise OutOfTime(name)

    async def _view(self, stub: pb_grpc.GameServiceStub, gid: str) -> pb.GameView:
        answer = await self._call(stub, "GetView", pb.GetViewRequest(game_id=gid), self.app)
        view: pb.GameView = answer.view
        return view

    async def _game(self, stub: pb_grpc.GameServiceStub) -> tuple[str, list[str]]:
        """A new game, every seat joined, started. A refusal of CreateGame stops the
        run (``Refused``); one of a seat or of the start leaves the game
        (``_Abandoned``): after a retry, the first attempt may have been applied."""
        try:
            created = await self._call(
                stub,
                "CreateGame",
                pb.CreateGameRequest(
                    rules=pb.Rules(
                        preset=self.preset, overrides={"target_score": pb.KnobValue(int_value=0)}
                    ),
                    players=self.players,
                ),
                self.app,
            )
        except grpc.aio.AioRpcError as e:
            raise Refused(f"the server refused CreateGame: {_status(e)}") from None
        gid = created.game.game_id
        tokens = []
        try:
            for seat in range(self.players):
                joined = await self._call(
                    stub, "JoinGame", pb.JoinGameRequest(game_id=gid, seat=seat), self.app
                )
                tokens.append(joined.player_token)
            try:
                await self._call(stub, "StartGame", pb.StartGameRequest(game_id=gid), self.app)
            except grpc.aio.AioRpcError as e:
                # Started by an attempt whose answer was lost?
                if e.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                if (await self._view(stub, gid)).status != pb.GAME_STATUS_PLAYING:
                    raise
        except grpc.aio.AioRpcError as e:
            raise _Abandoned(f"game {gid}: {_status(e)}") from e
        self.stats.acked[gid] = {}
        self.stats.acked_moves[gid] = {}
        return gid, tokens

    async def _watch_seat(self, stub: pb_grpc.GameServiceStub, gid: str, token: str) -> None:
        """One seat's watch stream, read until its game is over or it is cancelled."""
        md = (("authorization", f"Bearer {token}"),)
        for _ in range(10_000):  # bounded by the deadline long before
            # An async stream on an aio channel (the generated stub's types are the sync
            # ones).
            stream: Any = stub.WatchGame(pb.WatchGameRequest(game_id=gid), metadata=md)
            try:
                async for update in stream:
                    self.stats.watch_updates += 1
                    if update.HasField("view") and update.view.status == pb.GAME_STATUS_FINISHED:
                        return
                return
            except grpc.aio.AioRpcError as e:
                if e.code() == grpc.StatusCode.CANCELLED:
                    return
                self.stats.errors[f"WatchGame {e.code().name}"] += 1
                if e.code() not in RETRYABLE or time.perf_counter() > self.deadline:
                    return
            await asyncio.sleep(0.2)  # a server went away: watch again once one is back

    async def _play(self, index: int) -> None:
        """Play whole deals until the deadline: bounded by it and by a move count."""
        stub = self.stubs[index % len(self.stubs)]
        rng = random.Random(self.rng.random())
        while time.perf_counter() < self.deadline:
            try:
                gid, tokens = await self._game(stub)
            except OutOfTime:
                return
            except _Abandoned:
                self.stats.games_abandoned += 1
                await asyncio.sleep(0.05)
                continue
            watchers = (
                [asyncio.create_task(self._watch_seat(stub, gid, t)) for t in tokens]
                if self.watch
                else []
            )
            try:
                await self._play_game(stub, rng, gid, tokens)
            except OutOfTime:
                return
            except grpc.aio.AioRpcError:
                # A refusal the loop does not expect (counted by its code): this game
                # is left where it is, and the loop goes on with a new one.
                self.stats.games_abandoned += 1
                await asyncio.sleep(0.05)
            finally:
                for w in watchers:
                    w.cancel()
                await asyncio.gather(*watchers, return_exceptions=True)

    async def _play_game(
        self, stub: pb_grpc.GameServiceStub, rng: random.Random, gid: str, tokens: list[str]
    ) -> None:
        """One game's moves, until it is over or the deadline passes."""
        view = (await self._call(stub, "GetView", pb.GetViewRequest(game_id=gid), self.app)).view
        legal: list[pb.Move] | None = None  # the mover's, from its last answer
        pending: list[pb.Move] = []  # the rest of a planned turn (``planned``)
        for _ in range(2000):
            if view.status != pb.GAME_STATUS_PLAYING or time.perf_counter() > self.deadline:
                break
            if self.pacer is not None:
                await self.pacer.wait()
            elif self.think:
                await asyncio.sleep(self.think * (0.5 + rng.random()))
            md = (("authorization", f"Bearer {tokens[view.turn]}"),)
            blind_draw = not legal and view.phase == pb.PHASE_DRAW and self.draw_at_turn_start
            if blind_draw:
                # A new turn opens with a draw, as a client that reads the phase
                # from its view plays it; the answer then carries the seat's
                # legal moves for the rest of the turn (include_legal_moves).
                legal = [pb.Move(draw=pb.DrawMove())]
            elif not legal:
                listed = await self._call(
                    stub, "ListLegalMoves", pb.ListLegalMovesRequest(game_id=gid), md
                )
                legal = list(listed.moves)
                if listed.version != view.version:
                    view = await self._view(stub, gid)
                    legal = None
                    continue
            if self.turns and view.phase != pb.PHASE_DRAW:
                plan = plan_turn(rng, list(view.hand), legal)
                if len(plan) > 1 or plan[0].WhichOneof("kind") != "draw":
                    done = await self._submit_turn(stub, gid, md, view, plan)
                    if done is None:  # refused or a conflict: read the game again
                        view = await self._view(stub, gid)
                        legal = None
                        continue
                    view = done.view
                    legal = list(done.legal_moves)
                    continue
            if self.planned and view.phase != pb.PHASE_DRAW:
                # The batched path's turns, one SubmitMove a move (the same mix of
                # moves, for a like-for-like comparison); re-planned from the fresh
                # legal moves when the next planned one is no longer among them.
                if not pending or move_bytes(pending[0]) not in {move_bytes(m) for m in legal}:
                    pending = plan_turn(rng, list(view.hand), legal)
                move = pending.pop(0)
            else:
                quick = [m for m in legal if m.WhichOneof("kind") in ("draw", "discard")]
                move = rng.choice(quick if quick and rng.random() < 0.7 else legal)
            request_id = uuid.uuid4().hex
            try:
                done = await self._call(
                    stub,
                    "SubmitMove",
                    pb.SubmitMoveRequest(
                        game_id=gid,
                        expected_version=view.version,
                        request_id=request_id,
                        move=move,
                        include_legal_moves=True,
                    ),
                    md,
                )
            except grpc.aio.AioRpcError as e:
                if blind_draw and e.code() == grpc.StatusCode.FAILED_PRECONDITION:
                    # The preset refuses a draw here: ask for the legal moves.
                    self.stats.draws_refused += 1
                    legal = None
                    continue
                if e.code() == grpc.StatusCode.ABORTED:
                    self.stats.conflicts += 1
                    view = await self._view(stub, gid)
                    legal = None
                    continue
                raise
            self._acknowledged(gid, request_id, done.version, [move])
            view = done.view
            legal = list(done.legal_moves)
        if view.status == pb.GAME_STATUS_FINISHED:
            self.stats.deals += 1

    def _acknowledged(self, gid: str, request_id: str, version: int, moves: list[pb.Move]) -> None:
        """Moves the service acknowledged, the last at ``version``: each recorded at its
        own version for the verification."""
        first = version - len(moves) + 1
        for i, move in enumerate(moves):
            self.stats.acked[gid][f"{request_id}#{i}"] = first + i
            self.stats.acked_moves[gid][first + i] = move_bytes(move)
        self.stats.moves += len(moves)

    async def _submit_turn(
        self,
        stub: pb_grpc.GameServiceStub,
        gid: str,
        md: Any,
        view: pb.GameView,
        plan: list[pb.Move],
    ) -> pb.SubmitTurnResponse | None:
        """``plan`` in one SubmitTurn call. If the service refuses its k-th move (a
        plan made from the legal moves before the first: a later move may have become
        illegal), the k - 1 moves before it are sent as a turn of their own; None if
        nothing was played (a refusal at the first move, or a conflict)."""
        for _ in range(2):
            request_id = uuid.uuid4().hex
            try:
                done: pb.SubmitTurnResponse = await self._call(
                    stub,
                    "SubmitTurn",
                    pb.SubmitTurnRequest(
                        game_id=gid,
                        expected_version=view.version,
                        request_id=request_id,
                        moves=plan,
                        include_legal_moves=True,
                    ),
                    md,
                )
            except grpc.aio.AioRpcError as e:
                if e.code() == grpc.StatusCode.ABORTED:
                    self.stats.conflicts += 1
                    return None
                index = _move_index(e)
                if index is None:
                    raise
                self.stats.turns_refused += 1
                if index <= 1:
                    return None
                plan = plan[: index - 1]
                continue
            self.stats.turns += 1
            self._acknowledged(gid, request_id, done.version, plan)
            return done
        return None

    async def run(self, games: int, seconds: float, warmup: float) -> dict[str, Any]:
        """The same games run through the warm-up into the measured window, so the
        window opens on games already under way (as on a live server), not on all
        of them being created at once."""
        self.deadline = time.perf_counter() + warmup + seconds
        tasks = [asyncio.create_task(self._play(i)) for i in range(games)]
        players = asyncio.gather(*tasks)
        try:
            if warmup > 0:
                await asyncio.wait([players], timeout=warmup)
            self.stats.reset()  # what happened before is warm-up (acknowledgements kept)
            mark_window("open")
            started = time.perf_counter()
            await players
        finally:
            for task in tasks:  # after a Refused, the other games stop too
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        elapsed = time.perf_counter() - started
        mark_window("closed")
        return self.report(games, elapsed)

    def report(self, games: int, elapsed: float) -> dict[str, Any]:
        rpcs = {name: latency_summary(v) for name, v in sorted(self.stats.latencies.items())}
        return {
            "games": games,
            "seconds": round(elapsed, 2),
            "moves": self.stats.moves,
            "moves_per_second": round(self.stats.moves / elapsed, 1) if elapsed else 0.0,
            "deals_finished": self.stats.deals,
            "rpcs": rpcs,
            "errors": dict(self.stats.errors),
            "conflicts": self.stats.conflicts,
            "draws_refused": self.stats.draws_refused,
            "watch_updates": self.stats.watch_updates,
            "retries": self.stats.retries,
            "games_abandoned": self.stats.games_abandoned,
            "turns": self.stats.turns,
            "turns_refused": self.stats.turns_refused,
        }

    async def _replay(
        self, gid: str, until: float, errors: Counter[str]
    ) -> pb.GetReplayResponse | None:
        """The game's replay from any of the addresses, asked again while none answers
        until ``until`` (then ``OutOfTime``); None if the service refuses it."""
        request = pb.GetReplayRequest(game_id=gid)
        for attempt in range(1, 100_000):  # bounded by ``until`` long before
            stub = self.stubs[attempt % len(self.stubs)]
            try:
                reply: pb.GetReplayResponse = await stub.GetReplay(
                    request, metadata=self.app, timeout=self.timeout
                )
                return reply
            except grpc.aio.AioRpcError as e:
                errors[e.code().name] += 1
                if e.code() not in RETRYABLE:
                    return None
                if time.perf_counter() >= until:
                    raise OutOfTime(f"GetReplay: {_status(e)}") from e
                await asyncio.sleep(min(0.05 * attempt, 0.5))
        raise OutOfTime("GetReplay")

    async def verify(self, wait: float = 30.0) -> dict[str, Any]:
        """Every acknowledged move is in the game's replay exactly once, at its version.

        A server is waited for up to ``wait`` seconds; the games whose replay could not
        be read are ``unverified``, with the versions of their acknowledged moves."""
        until = time.perf_counter() + wait
        errors: Counter[str] = Counter()
        unverified: dict[str, list[int]] = {}
        lost = doubled = checked = extra = 0
        out_of_time = False
        for gid, acked in self.stats.acked.items():
            replay = None
            if not out_of_time:
                try:
                    replay = await self._replay(gid, until, errors)
                except OutOfTime:
                    out_of_time = True  # no server: the games left are not asked for
            if replay is None:
                if acked:
                    unverified[gid] = sorted(acked.values())
                continue
            versions = [m.version for m in replay.moves]
            if versions != list(range(1, len(versions) + 1)):
                doubled += 1  # a gap or a repeat in the log itself
            logged_moves = {m.version for m in replay.moves if m.move.WhichOneof("kind")}
            logged_bytes = {m.version: move_bytes(m.move) for m in replay.moves}
            sent = self.stats.acked_moves.get(gid, {})
            for version in acked.values():
                checked += 1
                # Lost: no move at its version, or another move than the one sent.
                if version not in logged_moves or (
                    version in sent and logged_bytes.get(version) != sent[version]
                ):
                    lost += 1
            if len(set(acked.values())) != len(acked):
                doubled += 1
            # Moves in the log that no client saw acknowledged (an answer lost to a
            # timeout): not an error, but reported.
            extra += len(logged_moves - set(acked.values()))
        return {
            "games": len(self.stats.acked),
            "moves_checked": checked,
            "lost": lost,
            "doubled": doubled,
            "logged_not_acknowledged": extra,
            "moves_unverified": sum(len(v) for v in unverified.values()),
            "errors": dict(errors),
            "unverified": unverified,
        }


async def _rebuild_check(database_url: str, game_ids: list[str]) -> int:
    """Games whose stored log does not rebuild to the stored snapshot (0 expected)."""
    from ..store.database import make_engine
    from ..store.repository import Store
    from ..table.game import rebuild

    engine = make_engine(database_url)
    store = Store(engine)
    bad = 0
    try:
        for gid in game_ids:
            game = await store.game(gid)
            rows = await store.log(gid)
            state = rebuild(await store.setup_of(gid), [r.action for r in rows])
            if state.to_dict() != game.state.to_dict() or game.version != len(rows):
                bad += 1
    finally:
        await engine.dispose()
    return bad


def _move_index(e: grpc.aio.AioRpcError) -> int | None:
    """The ``move_index`` of a refused turn's ErrorInfo, if the refusal has one."""
    from google.rpc import error_details_pb2, status_pb2

    for key, value in e.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info) and "move_index" in info.metadata:
                    return int(info.metadata["move_index"])
    return None


def _status(e: grpc.aio.AioRpcError) -> str:
    """A failed call's status in one line."""
    details = (e.details() or "").strip().splitlines()
    return f"{e.code().name}: {details[0]}" if details else e.code().name
