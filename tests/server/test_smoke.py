from tranca.v1 import game_pb2 as pb

from .conftest import Client


async def test_a_game_starts_and_a_move_is_played(client: Client) -> None:
    gid, tokens = await client.new_game()
    view = (
        await client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=client.player(tokens[0]))
    ).view
    assert view.status == pb.GAME_STATUS_PLAYING
    turn = view.turn
    legal = await client.stub.ListLegalMoves(
        pb.ListLegalMovesRequest(game_id=gid), metadata=client.player(tokens[turn])
    )
    assert legal.moves
    done = await client.stub.SubmitMove(
        pb.SubmitMoveRequest(
            game_id=gid, expected_version=legal.version, request_id="r1", move=legal.moves[0]
        ),
        metadata=client.player(tokens[turn]),
    )
    assert done.version == legal.version + 1
