"""Players' profiles in the database, for ``services/profiles.py``
(``ProfilesStore`` is its ``ProfileRepository``): what a profile may hold is
decided there; this module stores and loads. A unique display name is the
database's to decide: the folded name is a unique key in the app, so of two players
taking one name at once, on any replicas, one has it and the other is told."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from ..services.profiles import Profile
from .models import PlayerProfile, PlayerSession
from .repository import Store

__all__ = ["ProfilesStore"]


class ProfilesStore:
    """The profiles of one database (``services.profiles.ProfileRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def profile(self, app_id: str, player_id: str) -> Profile | None:
        q = select(
            PlayerProfile.display_name,
            PlayerProfile.avatar_url,
            PlayerProfile.locale,
            PlayerProfile.country,
        ).where(PlayerProfile.app_id == app_id, PlayerProfile.player_id == player_id)
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        if row is None:
            return None
        return Profile(row.display_name, row.avatar_url, row.locale, row.country)

    async def profiles_of(self, app_id: str, player_ids: Sequence[str]) -> dict[str, Profile]:
        q = select(
            PlayerProfile.player_id,
            PlayerProfile.display_name,
            PlayerProfile.avatar_url,
            PlayerProfile.locale,
            PlayerProfile.country,
        ).where(PlayerProfile.app_id == app_id, PlayerProfile.player_id.in_(list(player_ids)))
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return {
            r.player_id: Profile(r.display_name, r.avatar_url, r.locale, r.country) for r in rows
        }

    async def save_profile(
        self, app_id: str, player_id: str, profile: Profile, name_key: str | None, now: int
    ) -> bool:
        values = {
            "display_name": profile.display_name,
            "name_key": name_key,
            "avatar_url": profile.avatar_url,
            "locale": profile.locale,
            "country": profile.country,
            "updated_ms": now,
        }
        try:
            async with self.store.writing() as conn:
                dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
                insert = dialect.insert(PlayerProfile).values(
                    app_id=app_id, player_id=player_id, **values
                )
                await conn.execute(
                    insert.on_conflict_do_update(
                        index_elements=[PlayerProfile.app_id, PlayerProfile.player_id],
                        set_=values,
                    )
                )
        except IntegrityError as exc:
            # The folded name is another player's (ux_player_profiles_name); any
            # other integrity error is a bug and surfaces as one.
            if "name_key" in str(exc.orig) or "ux_player_profiles_name" in str(exc.orig):
                return False
            raise
        return True

    async def rename_sessions(self, app_id: str, player_id: str, display_name: str) -> None:
        async with self.store.writing() as conn:
            await conn.execute(
                update(PlayerSession)
                .where(PlayerSession.app_id == app_id, PlayerSession.player_id == player_id)
                .values(display_name=display_name)
            )
