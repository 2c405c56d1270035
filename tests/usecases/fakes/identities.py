"""The fake of the identities' port (services/identity_sign_in.py): identities linked
to players, and the identity tokens spent."""

from __future__ import annotations


class IdentitiesMemory:
    """``IdentityRepository`` in memory."""

    def __init__(self) -> None:
        self.links: dict[tuple[str, str, str], str] = {}
        self.spent: dict[str, int] = {}

    async def identity_player(self, app_id: str, issuer: str, subject: str) -> str | None:
        return self.links.get((app_id, issuer, subject))

    async def link_identity(
        self, app_id: str, issuer: str, subject: str, player_id: str, now: int
    ) -> tuple[str, bool]:
        key = (app_id, issuer, subject)
        if key in self.links:
            return self.links[key], False
        self.links[key] = player_id
        return player_id, True

    async def spend_identity_token(self, token_hash: str, expires_at: int, now: int) -> bool:
        for gone in [h for h, until in self.spent.items() if until < now]:
            del self.spent[gone]
        if token_hash in self.spent:
            return False
        self.spent[token_hash] = expires_at
        return True
