"""Presence and robots: Heartbeat and ReclaimSeat (GameService).

A seat whose player is silent for longer than the table's grace period is played by a
robot (``tranca.store.sweeper``) until the player takes it back here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..v1 import game_pb2 as pb

if TYPE_CHECKING:
    from .servicer import GameService


async def heartbeat(
    svc: GameService, request: pb.HeartbeatRequest, context: Any
) -> pb.HeartbeatResponse:
    raise NotImplementedError("Heartbeat")


async def reclaim_seat(
    svc: GameService, request: pb.ReclaimSeatRequest, context: Any
) -> pb.ReclaimSeatResponse:
    raise NotImplementedError("ReclaimSeat")
