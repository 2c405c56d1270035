"""The fake of the player sessions' ports: app policies, sessions, refresh rotation."""

from __future__ import annotations

from dataclasses import astuple

from tranca.services.paging import Position
from tranca.services.policy import AppPolicy
from tranca.services.ports import (
    SessionRecord,
)
from tranca.services.sessions import (
    NewSession,
    RefreshOutcome,
    Revoked,
    Rotation,
    SessionInfo,
)

from .credentials import AppsMemory
from .records import StoredSession


class SessionsMemory(AppsMemory):
    """The player sessions' ports, in memory."""

    # ----- player sessions --------------------------------------------------------------

    def _live_app(self, app_id: str) -> bool:
        return app_id in self.apps and not self.apps[app_id][2]

    async def app_policy(self, app_id: str) -> AppPolicy | None:
        return self.policies.get(app_id, AppPolicy()) if self._live_app(app_id) else None

    async def set_app_policy(self, app_id: str, policy: AppPolicy) -> None:
        self.policies[app_id] = policy

    async def create_session(self, new: NewSession) -> None:
        self.sessions[new.session_id] = StoredSession(
            new,
            new.access_hash,
            new.access_expires_at,
            new.refresh_hash,
            new.refresh_expires_at,
            family_hash=new.family_hash,
            last_used_at=new.now,
        )

    def _session_record(self, s: StoredSession) -> SessionRecord:
        n = s.new
        return SessionRecord(
            n.session_id,
            n.app_id,
            n.player_id,
            n.display_name,
            n.kind,
            s.access_hash,
            s.refresh_expires_at,
            self.policies.get(n.app_id, AppPolicy()),
        )

    async def session(self, access_hash: str, now: int) -> SessionRecord | None:
        for s in self.sessions.values():
            if (
                s.access_hash == access_hash
                and not s.revoked
                and s.access_expires_at > now
                and self._live_app(s.new.app_id)
            ):
                return self._session_record(s)
        return None

    async def rotate_refresh(
        self, rotation: Rotation
    ) -> tuple[RefreshOutcome, SessionRecord | None]:
        for s in self.sessions.values():
            if (
                s.refresh_hash == rotation.refresh_hash
                and not s.revoked
                and s.refresh_expires_at > rotation.now
                and self._live_app(s.new.app_id)
            ):
                policy = self.policies.get(s.new.app_id, AppPolicy())
                if rotation.family_hash is None:
                    s.previous_refresh_hash = s.refresh_hash
                    s.family_hash = rotation.new_family_hash
                s.access_hash = rotation.access_hash
                s.access_expires_at = policy.access_expiry(rotation.now)
                s.refresh_hash = rotation.new_refresh_hash
                s.refresh_expires_at = policy.refresh_expiry(rotation.now)
                s.last_used_at = rotation.now
                return RefreshOutcome.ROTATED, self._session_record(s)
        for s in self.sessions.values():
            of_it = s.previous_refresh_hash == rotation.refresh_hash or (
                rotation.family_hash is not None and s.family_hash == rotation.family_hash
            )
            if of_it and s.refresh_hash != rotation.refresh_hash:
                await self.end_session(s.new.session_id)
                return RefreshOutcome.REUSED, None
        return RefreshOutcome.UNKNOWN, None

    async def end_session(self, session_id: str) -> Revoked:
        s = self.sessions.get(session_id)
        ended = 0
        if s is not None and not s.revoked:
            s.revoked, ended = True, 1
        tokens = 0
        for t in self.tokens.values():
            if t.token.session_id == session_id and not t.revoked:
                t.revoked, tokens = True, tokens + 1
        return Revoked(ended, tokens)

    async def revoke_player(self, app_id: str, player_id: str) -> Revoked:
        ended = tokens = 0
        for s in self.sessions.values():
            if s.new.app_id == app_id and s.new.player_id == player_id and not s.revoked:
                s.revoked, ended = True, ended + 1
        for t in self.tokens.values():
            game = self.games[t.game_id]
            if game.app_id == app_id and t.token.player_id == player_id and not t.revoked:
                t.revoked, tokens = True, tokens + 1
        return Revoked(ended, tokens)

    async def list_sessions(
        self,
        app_id: str,
        player_id: str,
        live_only: bool,
        now: int,
        limit: int,
        after: Position | None,
    ) -> list[SessionInfo]:
        rows = [
            SessionInfo(
                s.new.session_id,
                s.new.player_id,
                s.new.display_name,
                s.new.kind,
                s.new.now,
                s.last_used_at,
                s.access_expires_at,
                s.refresh_expires_at,
                s.revoked,
                s.new.address,
            )
            for s in self.sessions.values()
            if s.new.app_id == app_id
            and (not player_id or s.new.player_id == player_id)
            and (not live_only or (not s.revoked and s.refresh_expires_at > now))
        ]
        rows.sort(key=lambda r: (r.created_at, r.session_id), reverse=True)
        if after is not None:
            rows = [r for r in rows if (r.created_at, r.session_id) < astuple(after)]
        return rows[:limit]
