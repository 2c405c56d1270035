"""Friendly annulment through the gRPC API (issue 7, item 4; 003 "Finalizar la partida
de forma amistosa (anular partida)"): VoteAnnul, the votes in the view, and the match
annulled with no winner once every player has voted."""

from __future__ import annotations

import grpc
import pytest
from prometheus_client import REGISTRY

from tranca.server import Running
from tranca.v1 import game_pb2 as pb

from ..server.api_calls import refused
from ..server.conftest import Client
from .test_tables import create, seat_all, start

Code = grpc.StatusCode


async def vote(client: Client, game_id: str, token: str, request_id: str) -> pb.VoteAnnulResponse:
    return await client.stub.VoteAnnul(
        pb.VoteAnnulRequest(game_id=game_id, request_id=request_id),
        metadata=Client.player(token),
    )


async def view_of(client: Client, game_id: str) -> pb.GameView:
    got = await client.stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=client.app())
    return got.view


def annulments() -> float:
    return REGISTRY.get_sample_value("tranca_annulments_total") or 0.0


async def started_table(
    client: Client, players: int, annulment_allowed: bool = True
) -> tuple[str, list[str]]:
    table = pb.TableOptions(annulment_allowed=annulment_allowed)
    gid = (await create(client, table, players=players, spectators=True)).game.game_id
    tokens = await seat_all(client, gid, players)
    await start(client, gid)
    return gid, tokens


@pytest.mark.parametrize("players", [2, 4])
async def test_the_match_is_annulled_only_once_every_player_has_voted(
    server: Running, client: Client, players: int
) -> None:
    # 003: "Todos los jugadores deben estar de acuerdo en que la partida finalice, de lo
    # contrario la partida continuará."
    gid, tokens = await started_table(client, players)
    before = annulments()
    for seat in range(players - 1):
        answer = await vote(client, gid, tokens[seat], f"vote-{seat}")
        assert list(answer.votes) == list(range(seat + 1))
        assert not answer.annulled
        view = await view_of(client, gid)
        assert view.status == pb.GAME_STATUS_PLAYING and not view.HasField("match_result")
        assert [s.annul_vote for s in view.seats] == [i <= seat for i in range(players)]
        assert answer.version == view.version
    # The game goes on meanwhile: the seat to act can still play.
    view = await view_of(client, gid)
    legal = await client.stub.ListLegalMoves(
        pb.ListLegalMovesRequest(game_id=gid), metadata=Client.player(tokens[view.turn])
    )
    assert legal.moves
    assert annulments() == before

    last = players - 1
    answer = await vote(client, gid, tokens[last], f"vote-{last}")
    assert answer.annulled and list(answer.votes) == list(range(players))
    # 003: "la partida se anula": no winner, and nothing more can be played.
    view = await view_of(client, gid)
    assert view.status == pb.GAME_STATUS_FINISHED
    assert view.match_result.reason == "annulled"
    assert view.match_result.winner_side == -1
    assert annulments() == before + 1
    await refused(
        client.stub.SubmitMove(
            pb.SubmitMoveRequest(
                game_id=gid,
                expected_version=view.version,
                request_id="late",
                move=legal.moves[0],
            ),
            metadata=Client.player(tokens[view.turn]),
        ),
        Code.FAILED_PRECONDITION,
        "GAME_OVER",
    )
    # The log shows every vote.
    replay = await client.stub.GetReplay(pb.GetReplayRequest(game_id=gid), metadata=client.app())
    voters = [m.seat for m in replay.moves if m.move.text == "annul_vote"]
    assert voters == list(range(players))


async def test_a_seat_votes_once_and_a_retry_gets_the_first_answer(client: Client) -> None:
    gid, tokens = await started_table(client, 2)
    first = await vote(client, gid, tokens[0], "mine")
    # A retry of the same request (a lost answer) is the first answer, not an error.
    again = await vote(client, gid, tokens[0], "mine")
    assert again == first
    # A second vote is refused.
    await refused(
        vote(client, gid, tokens[0], "another"), Code.FAILED_PRECONDITION, "ALREADY_VOTED"
    )
    view = await view_of(client, gid)
    assert view.version == first.version and view.status == pb.GAME_STATUS_PLAYING
    # The vote that annuls, retried after the match is over, still gets its answer.
    closing = await vote(client, gid, tokens[1], "theirs")
    assert closing.annulled
    assert await vote(client, gid, tokens[1], "theirs") == closing
    await refused(vote(client, gid, tokens[1], "late"), Code.FAILED_PRECONDITION, "GAME_OVER")


async def test_a_table_without_annulment_refuses_the_vote(client: Client) -> None:
    # 003: "Algunos juegos tienen la opción de finalizar la partida de forma amistosa".
    gid, tokens = await started_table(client, 2, annulment_allowed=False)
    await refused(
        vote(client, gid, tokens[0], "v"), Code.FAILED_PRECONDITION, "ANNULMENT_NOT_ALLOWED"
    )
    view = await view_of(client, gid)
    assert not any(s.annul_vote for s in view.seats)


async def test_only_a_seated_player_votes_and_only_while_the_match_is_played(
    client: Client,
) -> None:
    table = pb.TableOptions(annulment_allowed=True)
    gid = (await create(client, table, spectators=True)).game.game_id
    tokens = await seat_all(client, gid, 2)
    await refused(
        vote(client, gid, tokens[0], "early"), Code.FAILED_PRECONDITION, "GAME_NOT_STARTED"
    )
    await start(client, gid)
    watcher = await client.stub.JoinGame(
        pb.JoinGameRequest(game_id=gid, spectator=True, player_name="w"), metadata=client.app()
    )
    await refused(vote(client, gid, watcher.player_token, "w"), Code.PERMISSION_DENIED, "SPECTATOR")
    await refused(
        client.stub.VoteAnnul(pb.VoteAnnulRequest(game_id=gid), metadata=client.app()),
        Code.PERMISSION_DENIED,
        "PLAYER_TOKEN_REQUIRED",
    )
    # Another game's token sees no such game.
    other, other_tokens = await started_table(client, 2)
    await refused(vote(client, gid, other_tokens[0], "x"), Code.NOT_FOUND)
    await refused(
        vote(client, gid, tokens[0], "x" * 129), Code.INVALID_ARGUMENT, "MALFORMED_REQUEST"
    )
    assert not any(s.annul_vote for s in (await view_of(client, gid)).seats)
    assert other
