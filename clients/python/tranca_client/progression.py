"""Experience, levels and achievements (``tranca.v1.ProgressionService``) for both
clients: ``progression`` reads a player's XP, level, the XP of this level and of the
next, and every achievement of the app with how far the player is towards it.

The app's key reads any of its players (``player_id`` required); a player's session
token (``client.with_token(access_token)``) reads its own player (``player_id``
empty) or any other player of the app, as a public profile. Rated matches grant
them once settled (003: practice tables "no conseguirás logros y no subirás de
nivel"); an unlock and a new level reach the player as ``achievement_unlocked`` and
``level_up`` events (``watch_player_events``).
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ._auth import ANY
from .v1 import progression_pb2 as xpb
from .v1 import progression_pb2_grpc as xpb_grpc

if TYPE_CHECKING:
    from .async_client import AsyncTrancaClient

T = TypeVar("T")

__all__ = ["AsyncProgression", "Progression"]


class AsyncProgression:
    """The progression's calls of ``AsyncTrancaClient``."""

    if TYPE_CHECKING:
        _progression: xpb_grpc.ProgressionServiceAsyncStub

        async def _unary(
            self, method: Any, request: Any, auth: str, *, retry: bool, conflicts: bool = False
        ) -> Any: ...

    async def progression(self, player_id: str = "") -> xpb.GetProgressionResponse:
        """A player's XP, level and achievements (empty ``player_id`` with a session:
        its own player)."""
        out: xpb.GetProgressionResponse = await self._unary(
            self._progression.GetProgression,
            xpb.GetProgressionRequest(player_id=player_id),
            ANY,
            retry=True,
        )
        return out


class Progression:
    """The progression's calls of the blocking ``TrancaClient``."""

    if TYPE_CHECKING:

        @property
        def aio(self) -> AsyncTrancaClient: ...

        def _run(self, coro: Coroutine[Any, Any, T]) -> T: ...

    def progression(self, player_id: str = "") -> xpb.GetProgressionResponse:
        """See ``AsyncTrancaClient.progression``."""
        return self._run(self.aio.progression(player_id))
