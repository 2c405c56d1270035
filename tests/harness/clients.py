"""The tests' gRPC client of the game service: one channel, credentials per call."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict, Unpack

import grpc

from tranca.v1 import game_pb2 as pb
from tranca.v1 import game_pb2_grpc as pb_grpc


class GameOptions(TypedDict, total=False):
    """The fields of a CreateGameRequest besides its rules, players and seed."""

    deck: Iterable[str]
    spectators_allowed: bool
    label: str
    table: pb.TableOptions


class Client:
    """A test client: one channel, credentials per call."""

    def __init__(self, channel: grpc.aio.Channel, api_key: str) -> None:
        self.stub = pb_grpc.GameServiceStub(channel)
        self.channel = channel
        self.api_key = api_key

    def app(self) -> tuple[tuple[str, str], ...]:
        return (("x-api-key", self.api_key),)

    @staticmethod
    def player(token: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {token}"),)

    async def new_game(
        self,
        preset: str = "tranca-000",
        players: int = 2,
        seed: int = 7,
        **kwargs: Unpack[GameOptions],
    ) -> tuple[str, list[str]]:
        """Create, seat every player and start; returns the game id and the tokens."""
        created = await self.stub.CreateGame(
            pb.CreateGameRequest(
                rules=pb.Rules(preset=preset), players=players, seed=seed, **kwargs
            ),
            metadata=self.app(),
        )
        gid = created.game.game_id
        tokens = []
        for seat in range(players):
            joined = await self.stub.JoinGame(
                pb.JoinGameRequest(game_id=gid, seat=seat, player_name=f"p{seat}"),
                metadata=self.app(),
            )
            tokens.append(joined.player_token)
        await self.stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=self.app())
        return gid, tokens
