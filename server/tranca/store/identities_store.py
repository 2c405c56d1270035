"""Players' identities and spent identity tokens in the database, for
``services/identity_sign_in.py`` (``IdentitiesStore`` is its
``IdentityRepository``). Which identity makes which player, and what a replayed
token means, are decided there; this module stores and loads, each change in one
transaction, the same statements on SQLite and PostgreSQL.
"""

from __future__ import annotations

from sqlalchemy import delete, select

from ..services.identity_links import LinkedIdentity, Unlinked
from .database import insert_ignoring_duplicates
from .models import PlayerIdentity, SpentIdentityToken
from .repository import Store

__all__ = ["IdentitiesStore"]

# Expired spent tokens forgotten by one spend, at most: the table stays the size of
# the tokens still alive, and no spend waits on a long delete.
FORGET_BATCH = 100


class IdentitiesStore:
    """The identities of one database (``services.identity_sign_in.IdentityRepository``,
    ``services.identity_links.IdentityLinkRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def identity_player(self, app_id: str, issuer: str, subject: str) -> str | None:
        q = select(PlayerIdentity.player_id).where(
            PlayerIdentity.app_id == app_id,
            PlayerIdentity.issuer == issuer,
            PlayerIdentity.subject == subject,
        )
        async with self.store.reading() as conn:
            return (await conn.execute(q)).scalar_one_or_none()

    async def link_identity(
        self, app_id: str, issuer: str, subject: str, player_id: str, now: int
    ) -> tuple[str, bool]:
        # The identity is the key: of two links at once, the database keeps the
        # first and ignores the second, which then reads the player that won.
        add = insert_ignoring_duplicates
        async with self.store.writing() as conn:
            written = await conn.execute(
                add(conn, PlayerIdentity).values(
                    app_id=app_id,
                    issuer=issuer,
                    subject=subject,
                    player_id=player_id,
                    linked_ms=now,
                )
            )
            if written.rowcount == 1:
                return player_id, True
            q = select(PlayerIdentity.player_id).where(
                PlayerIdentity.app_id == app_id,
                PlayerIdentity.issuer == issuer,
                PlayerIdentity.subject == subject,
            )
            owner = (await conn.execute(q)).scalar_one_or_none()
        if owner is None:
            # Unlinked between the two statements: the identity is free again.
            return await self.link_identity(app_id, issuer, subject, player_id, now)
        return owner, False

    async def spend_identity_token(self, token_hash: str, expires_at: int, now: int) -> bool:
        async with self.store.writing() as conn:
            expired = (
                select(SpentIdentityToken.token_hash)
                .where(SpentIdentityToken.expires_at < now)
                .limit(FORGET_BATCH)
            )
            await conn.execute(
                delete(SpentIdentityToken).where(SpentIdentityToken.token_hash.in_(expired))
            )
            written = await conn.execute(
                insert_ignoring_duplicates(conn, SpentIdentityToken).values(
                    token_hash=token_hash, expires_at=expires_at
                )
            )
            return bool(written.rowcount == 1)

    async def identities_of(self, app_id: str, player_id: str) -> list[LinkedIdentity]:
        q = (
            select(PlayerIdentity.issuer, PlayerIdentity.subject, PlayerIdentity.linked_ms)
            .where(PlayerIdentity.app_id == app_id, PlayerIdentity.player_id == player_id)
            .order_by(PlayerIdentity.linked_ms, PlayerIdentity.issuer, PlayerIdentity.subject)
        )
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return [LinkedIdentity(r.issuer, r.subject, r.linked_ms) for r in rows]

    async def unlink_identity(
        self, app_id: str, issuer: str, subject: str, player_id: str, *, keep_one: bool
    ) -> Unlinked:
        async with self.store.writing() as conn:
            # The player's identities locked (PostgreSQL; SQLite writes one at a
            # time): two unlinks at once see each other's outcome.
            mine = (
                select(PlayerIdentity.issuer, PlayerIdentity.subject)
                .where(PlayerIdentity.app_id == app_id, PlayerIdentity.player_id == player_id)
                .with_for_update()
            )
            rows = {(r.issuer, r.subject) for r in (await conn.execute(mine)).all()}
            if (issuer, subject) not in rows:
                return Unlinked.NOT_LINKED
            if keep_one and len(rows) == 1:
                return Unlinked.LAST
            await conn.execute(
                delete(PlayerIdentity).where(
                    PlayerIdentity.app_id == app_id,
                    PlayerIdentity.issuer == issuer,
                    PlayerIdentity.subject == subject,
                    PlayerIdentity.player_id == player_id,
                )
            )
            return Unlinked.UNLINKED
