"""The fake of the profiles' port (services/profiles.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tranca.services.profiles import Profile

from .records import StoredSession


class ProfilesMemory:
    """``ProfileRepository`` in memory: one folded name a player where names are
    unique, as the database's key has it."""

    def __init__(self, sessions: dict[str, StoredSession] | None = None) -> None:
        self.sessions = sessions if sessions is not None else {}
        self.profiles: dict[tuple[str, str], Profile] = {}
        self.name_keys: dict[tuple[str, str], str | None] = {}

    async def profile(self, app_id: str, player_id: str) -> Profile | None:
        return self.profiles.get((app_id, player_id))

    async def profiles_of(self, app_id: str, player_ids: Sequence[str]) -> dict[str, Profile]:
        return {p: self.profiles[(app_id, p)] for p in player_ids if (app_id, p) in self.profiles}

    async def save_profile(
        self, app_id: str, player_id: str, profile: Profile, name_key: str | None, now: int
    ) -> bool:
        if name_key is not None:
            for (app, other), key in self.name_keys.items():
                if app == app_id and other != player_id and key == name_key:
                    return False
        self.profiles[(app_id, player_id)] = profile
        self.name_keys[(app_id, player_id)] = name_key
        return True

    async def rename_sessions(self, app_id: str, player_id: str, display_name: str) -> None:
        for session_id, stored in self.sessions.items():
            if (stored.new.app_id, stored.new.player_id) == (app_id, player_id):
                renamed = replace(stored.new, display_name=display_name)
                self.sessions[session_id] = replace(stored, new=renamed)
