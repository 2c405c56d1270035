"""The fake of the apps' and game tokens' ports: API keys, seat tokens."""

from __future__ import annotations

import uuid

from tranca.services.credentials import hash_secret, new_api_key
from tranca.services.ports import (
    AppRecord,
    SeatGame,
    SeatToken,
    TokenRecord,
)

from .records import (
    MemoryState,
    StoredToken,
    _copy,
)


class AppsMemory(MemoryState):
    """The apps' and game tokens' ports, in memory."""

    # ----- apps and credentials -------------------------------------------------------

    def add_app(
        self, name: str = "app", permissions: frozenset[str] = frozenset()
    ) -> tuple[AppRecord, str]:
        key = new_api_key()
        app = AppRecord(uuid.uuid4().hex, name, permissions)
        self.apps[app.id] = (app, hash_secret(key), False)
        return app, key

    def revoke_app(self, app_id: str) -> None:
        app, key_hash, _ = self.apps[app_id]
        self.apps[app_id] = (app, key_hash, True)

    async def app_by_key(self, key: str) -> AppRecord | None:
        wanted = hash_secret(key)
        for app, key_hash, revoked in self.apps.values():
            if key_hash == wanted and not revoked:
                return app
        return None

    def _working(self, token: str) -> StoredToken | None:
        found = self.tokens.get(hash_secret(token))
        if found is None or found.revoked or found.token.expires_at <= self.now:
            return None
        game = self.games[found.game_id]
        if self.apps[game.app_id][2]:
            return None
        return found

    async def token(self, token: str) -> TokenRecord | None:
        found = self._working(token)
        if found is None:
            return None
        t = found.token
        return TokenRecord(found.game_id, t.seat, t.player_name, t.token_hash)

    async def seat_game(self, token: str) -> SeatGame | None:
        found = self._working(token)
        if found is None:
            return None
        g = self.games[found.game_id]
        t = found.token
        return SeatGame(
            TokenRecord(g.id, t.seat, t.player_name, t.token_hash),
            g.app_id,
            g.version,
            _copy(g.state),
            g.deadline_at,
        )

    async def add_token(self, game_id: str, token: SeatToken) -> None:
        self.tokens[token.token_hash] = StoredToken(game_id, token, self.now / 1000)
