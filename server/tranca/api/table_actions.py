"""A seat's table actions: VoteAnnul and AddEntropy (GameService)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..v1 import game_pb2 as pb

if TYPE_CHECKING:
    from .servicer import GameService


async def vote_annul(
    svc: GameService, request: pb.VoteAnnulRequest, context: Any
) -> pb.VoteAnnulResponse:
    raise NotImplementedError("VoteAnnul")


async def add_entropy(
    svc: GameService, request: pb.AddEntropyRequest, context: Any
) -> pb.AddEntropyResponse:
    raise NotImplementedError("AddEntropy")
