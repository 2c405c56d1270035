"""Uploaded avatars in the database, for ``services/avatars.py`` (``AvatarsStore`` is
its ``AvatarRepository``): the picture is made there; here the player's one avatar
is replaced and their profile made to name it, in one transaction, and a picture is
read back by its digest for the browser port."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from ..services.avatars import StoredAvatar
from ..services.profiles import Profile
from .models import AvatarImage, PlayerProfile
from .repository import Store

__all__ = ["AvatarsStore"]


class AvatarsStore:
    """The avatars of one database (``services.avatars.AvatarRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def save_avatar(
        self, app_id: str, player_id: str, avatar: StoredAvatar, profile: Profile, now: int
    ) -> None:
        async with self.store.writing() as conn:
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            picture = {"digest": avatar.digest, "image": avatar.image, "created_ms": now}
            await conn.execute(
                dialect.insert(AvatarImage)
                .values(app_id=app_id, player_id=player_id, **picture)
                .on_conflict_do_update(
                    index_elements=[AvatarImage.app_id, AvatarImage.player_id], set_=picture
                )
            )
            # The profile names it: only the avatar changes in a profile already kept
            # (its name's place among unique names stays as it is).
            await conn.execute(
                dialect.insert(PlayerProfile)
                .values(
                    app_id=app_id,
                    player_id=player_id,
                    display_name=profile.display_name,
                    name_key=None,
                    avatar_url=profile.avatar_url,
                    locale=profile.locale,
                    country=profile.country,
                    updated_ms=now,
                )
                .on_conflict_do_update(
                    index_elements=[PlayerProfile.app_id, PlayerProfile.player_id],
                    set_={"avatar_url": profile.avatar_url, "updated_ms": now},
                )
            )

    async def avatar_image(self, digest: str) -> bytes | None:
        async with self.store.reading() as conn:
            row = (
                await conn.execute(
                    select(AvatarImage.image).where(AvatarImage.digest == digest).limit(1)
                )
            ).first()
        return None if row is None else bytes(row.image)
