"""PlayerService: an app's players' ratings, ranking points, leaderboards and chips."""

from __future__ import annotations

from ..store.repository import Store
from ..v1 import platform_pb2_grpc as pb_grpc
from .limits import RateLimiter


class PlayerService(pb_grpc.PlayerServiceServicer):
    def __init__(self, store: Store, app_limiter: RateLimiter) -> None:
        self.store = store
        self.app_limiter = app_limiter
