"""The scale benchmark's watchers (bench/scale.py): many WatchGame streams over the
stored games, opened over several channels, checked live and closed."""

from __future__ import annotations

import asyncio
import contextlib
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc

from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc

if TYPE_CHECKING:  # mypy reads bench/ as the package it is
    from bench.scale_seed import Seeded, SeededGame
else:
    try:  # run as a script, bench/ is on sys.path
        from scale_seed import Seeded, SeededGame
    except ImportError:  # imported as a module of bench (the tests)
        from bench.scale_seed import Seeded, SeededGame


def _app(api_key: str) -> tuple[tuple[str, str], ...]:
    return (("x-api-key", api_key),)


def _player(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@dataclass
class Watcher:
    game: SeededGame
    credential: str  # "player" or "app"
    metadata: tuple[tuple[str, str], ...]
    call: Any = None  # grpc.aio.UnaryStreamCall
    version: int = -1  # of the last view received
    open_ms: float = 0.0
    error: str = ""


class WatchPool:
    """WatchGame streams over the stored games that are not over (a finished game's
    stream ends after its last view). Each game's seated players watch it first,
    one stream per player token (as a player's app would), and further streams
    use the API key (as an app's dashboard would): the server allows a player
    token only a few streams at once."""

    def __init__(self, address: str, seeded: Seeded, count: int, channels: int) -> None:
        self.address = address
        self.seeded = seeded
        live = [g for g in seeded.games if g.status != "finished"]
        random.Random(len(live)).shuffle(live)
        self.watchers: list[Watcher] = []
        for i in range(count if live else 0):
            game = live[i % len(live)]
            k = i // len(live)  # this game's k-th watcher
            tokens = [t for t in game.tokens if t]
            if k < len(tokens):
                self.watchers.append(Watcher(game, "player", _player(tokens[k])))
            else:
                self.watchers.append(Watcher(game, "app", _app(seeded.api_key)))
        # Separate subchannel pools: each channel is its own connection.
        self.channels = [
            grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
            for _ in range(max(1, channels))
        ]

    async def open(
        self, concurrency: int, timeout: float, watchers: list[Watcher] | None = None
    ) -> None:
        """Open ``watchers`` (default: every one of the pool; a slice of them to open
        in steps), each until its first view."""
        sem = asyncio.Semaphore(concurrency)

        async def one(i: int, w: Watcher) -> None:
            stub = pb_grpc.GameServiceStub(self.channels[i % len(self.channels)])
            async with sem:
                started = time.perf_counter()
                w.call = stub.WatchGame(
                    pb.WatchGameRequest(game_id=w.game.game_id), metadata=w.metadata
                )
                try:
                    first = await asyncio.wait_for(w.call.read(), timeout)
                except (grpc.aio.AioRpcError, TimeoutError) as e:
                    w.error = e.code().name if isinstance(e, grpc.aio.AioRpcError) else "TIMEOUT"
                    return
                w.open_ms = (time.perf_counter() - started) * 1000
                if first is grpc.aio.EOF:
                    w.error = "ENDED"
                else:
                    w.version = first.view.version

        chosen = self.watchers if watchers is None else watchers
        await asyncio.gather(*(one(i, w) for i, w in enumerate(chosen)))

    def still_open(self) -> int:
        """Streams that delivered their first view and have not ended since."""
        return sum(1 for w in self.watchers if w.version >= 0 and not w.call.done())

    async def probe(self, timeout: float = 10.0) -> dict[str, Any]:
        """One move in a watched game in progress: every stream on that game must
        deliver it, or the streams are open but not being served."""
        on_game: dict[str, list[Watcher]] = {}
        for w in self.watchers:
            if w.version >= 0 and w.game.status == "playing" and all(w.game.tokens):
                on_game.setdefault(w.game.game_id, []).append(w)
        if not on_game:
            return {"checked": False}
        game_id, watchers = max(on_game.items(), key=lambda kv: len(kv[1]))
        game = watchers[0].game
        stub = pb_grpc.GameServiceStub(self.channels[0])
        try:
            view = (
                await stub.GetView(
                    pb.GetViewRequest(game_id=game_id),
                    metadata=_app(self.seeded.api_key),
                    timeout=10,
                )
            ).view
            md = _player(game.tokens[view.turn])
            legal = await stub.ListLegalMoves(
                pb.ListLegalMovesRequest(game_id=game_id), metadata=md, timeout=10
            )
            done = await stub.SubmitMove(
                pb.SubmitMoveRequest(
                    game_id=game_id,
                    expected_version=legal.version,
                    request_id=uuid.uuid4().hex,
                    move=legal.moves[0],
                ),
                metadata=md,
                timeout=10,
            )
        except grpc.aio.AioRpcError as e:
            # The probe could not be made: a failed check, not a crash of the run.
            return {
                "checked": True,
                "streams": len(watchers),
                "delivered": 0,
                "error": e.code().name,
            }
        delivered: list[Watcher] = []

        async def follow(w: Watcher) -> None:
            # Read until the probe's version: a stream opened at an older version
            # first catches up through the versions in between.
            while w.version < done.version:
                update = await w.call.read()
                if update is grpc.aio.EOF:
                    return
                w.version = update.view.version
            delivered.append(w)

        with contextlib.suppress(TimeoutError, grpc.aio.AioRpcError):
            await asyncio.wait_for(asyncio.gather(*(follow(w) for w in watchers)), timeout)
        return {"checked": True, "streams": len(watchers), "delivered": len(delivered)}

    async def fanout(self, games: int, timeout: float = 15.0) -> dict[str, Any]:
        """The fan-out delay: up to ``games`` watched games in progress are moved one
        after the other, and for each stream on the moved game the time from the
        mover's acknowledgement to the stream's delivery of that version (0 when the
        update came first) is recorded; p50 and p99 over all of them."""
        on_game: dict[str, list[Watcher]] = {}
        for w in self.watchers:
            live = w.version >= 0 and not w.call.done()
            if live and w.game.status == "playing" and all(w.game.tokens):
                on_game.setdefault(w.game.game_id, []).append(w)
        picked = sorted(on_game.items(), key=lambda kv: -len(kv[1]))[:games]
        stub = pb_grpc.GameServiceStub(self.channels[0])
        delays: list[float] = []
        missed = 0
        for game_id, watchers in picked:
            game = watchers[0].game
            try:
                view = (
                    await stub.GetView(
                        pb.GetViewRequest(game_id=game_id),
                        metadata=_app(self.seeded.api_key),
                        timeout=10,
                    )
                ).view
                # Streams still behind catch up first, so that only this move is timed.
                await asyncio.wait_for(
                    asyncio.gather(*(_read_to(w, view.version) for w in watchers)), timeout
                )
                md = _player(game.tokens[view.turn])
                legal = await stub.ListLegalMoves(
                    pb.ListLegalMovesRequest(game_id=game_id), metadata=md, timeout=10
                )
                arrived: dict[int, float] = {}
                target = legal.version + 1
                readers = [
                    asyncio.ensure_future(_timed_read(w, target, arrived, i))
                    for i, w in enumerate(watchers)
                ]
                done = await stub.SubmitMove(
                    pb.SubmitMoveRequest(
                        game_id=game_id,
                        expected_version=legal.version,
                        request_id=uuid.uuid4().hex,
                        move=legal.moves[0],
                    ),
                    metadata=md,
                    timeout=10,
                )
                acked = time.perf_counter()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.gather(*readers), timeout)
                for r in readers:
                    r.cancel()
                assert done.version == target
                delays += [max(0.0, arrived[i] - acked) * 1000 for i in arrived]
                missed += len(watchers) - len(arrived)
            except (grpc.aio.AioRpcError, TimeoutError) as e:
                missed += len(watchers)
                print(f"  fan-out probe of {game_id}: {e!r}", file=sys.stderr)
        q = statistics.quantiles(delays, n=100) if len(delays) >= 2 else delays * 99
        return {
            "games": len(picked),
            "streams": len(delays) + missed,
            "delivered": len(delays),
            "missed": missed,
            "delay_p50_ms": round(q[49], 2) if q else None,
            "delay_p99_ms": round(q[98], 2) if q else None,
        }

    async def close(self) -> None:
        for w in self.watchers:
            if w.call is not None:
                w.call.cancel()
        for channel in self.channels:
            await channel.close()

    def summary(self) -> dict[str, Any]:
        opened = [w for w in self.watchers if w.version >= 0]
        times = sorted(w.open_ms for w in opened)
        q = statistics.quantiles(times, n=100) if len(times) >= 2 else times * 99
        return {
            "requested": len(self.watchers),
            "opened": len(opened),
            "games_watched": len({w.game.game_id for w in self.watchers}),
            "by_player_token": sum(1 for w in opened if w.credential == "player"),
            "by_api_key": sum(1 for w in opened if w.credential == "app"),
            "errors": dict(Counter(w.error for w in self.watchers if w.error)),
            "first_view_p50_ms": round(q[49], 1) if q else None,
            "first_view_p99_ms": round(q[98], 1) if q else None,
        }


async def _timed_read(w: Watcher, version: int, arrived: dict[int, float], key: int) -> None:
    await _read_to(w, version)
    arrived[key] = time.perf_counter()


async def _read_to(w: Watcher, version: int) -> None:
    """Read ``w``'s stream until it has delivered ``version``."""
    while w.version < version:
        update = await w.call.read()
        if update is grpc.aio.EOF:
            raise TimeoutError("the stream ended")
        w.version = update.view.version
