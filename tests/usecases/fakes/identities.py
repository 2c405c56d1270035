"""The fake of the identities' port (services/identity_sign_in.py): identities linked
to players, and the identity tokens spent."""

from __future__ import annotations

from tranca.services.identity_links import LinkedIdentity, Unlinked


class IdentitiesMemory:
    """``IdentityRepository`` in memory."""

    def __init__(self) -> None:
        self.links: dict[tuple[str, str, str], str] = {}
        self.linked_at: dict[tuple[str, str, str], int] = {}
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
        self.linked_at[key] = now
        return player_id, True

    async def spend_identity_token(self, token_hash: str, expires_at: int, now: int) -> bool:
        for gone in [h for h, until in self.spent.items() if until < now]:
            del self.spent[gone]
        if token_hash in self.spent:
            return False
        self.spent[token_hash] = expires_at
        return True

    async def identities_of(self, app_id: str, player_id: str) -> list[LinkedIdentity]:
        mine = [
            LinkedIdentity(issuer, subject, self.linked_at[(app, issuer, subject)])
            for (app, issuer, subject), owner in self.links.items()
            if app == app_id and owner == player_id
        ]
        return sorted(mine, key=lambda i: (i.linked_at, i.issuer, i.subject))

    async def unlink_identity(
        self, app_id: str, issuer: str, subject: str, player_id: str, *, keep_one: bool
    ) -> Unlinked:
        mine = await self.identities_of(app_id, player_id)
        if not any((i.issuer, i.subject) == (issuer, subject) for i in mine):
            return Unlinked.NOT_LINKED
        if keep_one and len(mine) == 1:
            return Unlinked.LAST
        del self.links[(app_id, issuer, subject)]
        return Unlinked.UNLINKED
