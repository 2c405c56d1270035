"""The state a move wrote is kept for the next read of its game in that process
(``Store.seat_game``, docs/PERFORMANCE.md): with two replicas taking turns at one
game, each reading at versions the other wrote, every answer is the game as stored
and the log folds to the stored snapshot."""

from __future__ import annotations

import random
import uuid

import grpc

from tranca.server import Running
from tranca.table.game import rebuild
from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc


async def test_moves_through_two_replicas_see_the_stored_game(replicas: list[Running]) -> None:
    _, key = await replicas[0].store.create_app(f"kept-{uuid.uuid4().hex[:6]}")
    app = (("x-api-key", key),)
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{r.port}") for r in replicas]
    stubs = [pb_grpc.GameServiceStub(c) for c in channels]
    rng = random.Random(3)
    try:
        created = await stubs[0].CreateGame(
            pb.CreateGameRequest(rules=pb.Rules(preset="tranca-000"), players=2, seed=5),
            metadata=app,
        )
        gid = created.game.game_id
        tokens = [
            (
                await stubs[0].JoinGame(pb.JoinGameRequest(game_id=gid, seat=s), metadata=app)
            ).player_token
            for s in range(2)
        ]
        view = (await stubs[0].StartGame(pb.StartGameRequest(game_id=gid), metadata=app)).view
        for _ in range(60):
            if view.status != pb.GAME_STATUS_PLAYING:
                break
            md = (("authorization", f"Bearer {tokens[view.turn]}"),)
            # Mostly the same replica twice in a row (its kept state is used), now
            # and then the other (its kept state, if any, is of an older version).
            here = rng.random() < 0.3
            stub = stubs[int(here)]
            legal = await stub.ListLegalMoves(pb.ListLegalMovesRequest(game_id=gid), metadata=md)
            done = await stubs[int(not here)].SubmitMove(
                pb.SubmitMoveRequest(
                    game_id=gid,
                    expected_version=legal.version,
                    request_id=uuid.uuid4().hex,
                    move=rng.choice(list(legal.moves)),
                ),
                metadata=md,
            )
            stored = await replicas[rng.randrange(2)].store.game(gid)
            assert stored.version == done.version
            other = await stubs[rng.randrange(2)].GetView(
                pb.GetViewRequest(game_id=gid), metadata=md
            )
            assert other.view == done.view
            view = done.view
        rows = await replicas[0].store.log(gid)
        game = await replicas[1].store.game(gid)
        assert rebuild(game.state.setup, [r.action for r in rows]).to_dict() == (
            game.state.to_dict()
        )
    finally:
        for c in channels:
            await c.close()
