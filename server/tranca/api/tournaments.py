"""TournamentService: tournaments whose tables are GameService games."""

from __future__ import annotations

from ..store.repository import Store
from ..v1 import platform_pb2_grpc as pb_grpc
from .limits import RateLimiter


class TournamentService(pb_grpc.TournamentServiceServicer):
    def __init__(self, store: Store, app_limiter: RateLimiter) -> None:
        self.store = store
        self.app_limiter = app_limiter
