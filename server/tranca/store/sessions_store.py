"""Player sessions and apps' policies in the database, for the use cases of
``services/sessions.py`` (``SessionsStore`` is its ``SessionRepository``). What a
session may do, how long its tokens live and what a reused refresh token means are
decided there; this module stores and loads, each change in one transaction.

The access lookup of a call (``Store.session``) is in ``repository.py`` with the
other credentials' lookups.
"""

from __future__ import annotations

from sqlalchemy import and_, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..services.paging import Position
from ..services.policy import AppPolicy
from ..services.sessions import (
    NewSession,
    RefreshOutcome,
    Revoked,
    Rotation,
    SessionInfo,
    SessionKind,
    SessionRecord,
)
from .codec import dumps, loads
from .models import App, Game, PlayerSession, PlayerToken
from .repository import Store, session_record

__all__ = ["SessionsStore"]


class SessionsStore:
    """The sessions of one database (``services.sessions.SessionRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def app_policy(self, app_id: str) -> AppPolicy | None:
        q = select(App.policy).where(App.id == app_id, App.revoked.is_(False))
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else AppPolicy.from_dict(loads(row.policy))

    async def listed_origins(self) -> frozenset[str]:
        """Every origin a live app's policy lists (apps are few; read whole)."""
        q = select(App.policy).where(App.revoked.is_(False))
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        found: set[str] = set()
        for row in rows:
            found.update(AppPolicy.from_dict(loads(row.policy)).allowed_origins)
        return frozenset(found)

    async def set_app_policy(self, app_id: str, policy: AppPolicy) -> None:
        async with self.store.writing() as conn:
            await conn.execute(
                update(App).where(App.id == app_id).values(policy=dumps(policy.to_dict()))
            )

    async def create_session(self, new: NewSession) -> None:
        async with self.store.writing() as conn:
            await conn.execute(
                insert(PlayerSession).values(
                    id=new.session_id,
                    app_id=new.app_id,
                    player_id=new.player_id,
                    display_name=new.display_name,
                    kind=new.kind.value,
                    access_hash=new.access_hash,
                    access_expires_at=new.access_expires_at,
                    refresh_hash=new.refresh_hash,
                    refresh_expires_at=new.refresh_expires_at,
                    revoked=False,
                    address=new.address,
                    created_ms=new.now,
                    last_used_at=new.now,
                    family_hash=new.family_hash,
                )
            )

    async def rotate_refresh(
        self, rotation: Rotation
    ) -> tuple[RefreshOutcome, SessionRecord | None]:
        q = (
            select(PlayerSession, App.policy)
            .join(App, App.id == PlayerSession.app_id)
            .where(
                PlayerSession.refresh_hash == rotation.refresh_hash,
                PlayerSession.revoked.is_(False),
                PlayerSession.refresh_expires_at > rotation.now,
                App.revoked.is_(False),
            )
        )
        async with self.store.writing() as conn:
            if conn.dialect.name == "postgresql":
                # Two refreshes of one token at once: the second waits here, then finds
                # the token rotated away (and ends the session, as a reuse).
                q = q.with_for_update(of=PlayerSession)
            row = (await conn.execute(q)).first()
            if row is None:
                return await _spent(conn, rotation), None
            policy = AppPolicy.from_dict(loads(row.policy))
            refresh_expires_at = policy.refresh_expiry(rotation.now)
            rotated = update(PlayerSession).where(
                PlayerSession.id == row.id,
                PlayerSession.refresh_hash == rotation.refresh_hash,
            )
            if rotation.family_hash is None:
                # A token from before families: the session's last spent one is known
                # by its hash, and the session takes the new token's family. (A token
                # with a family leaves the hash as it is: the family knows every
                # spent token, and this keeps the last family-less one known too.)
                rotated = rotated.values(
                    previous_refresh_hash=rotation.refresh_hash,
                    family_hash=rotation.new_family_hash,
                )
            done = await conn.execute(
                rotated.values(
                    access_hash=rotation.access_hash,
                    access_expires_at=policy.access_expiry(rotation.now),
                    refresh_hash=rotation.new_refresh_hash,
                    refresh_expires_at=refresh_expires_at,
                    refreshed=PlayerSession.refreshed + 1,
                    last_used_at=rotation.now,
                )
            )
            if done.rowcount != 1:  # SQLite: never (one writer); PostgreSQL: locked above
                return RefreshOutcome.UNKNOWN, None
        record = session_record(row)
        return RefreshOutcome.ROTATED, SessionRecord(
            record.session_id,
            record.app_id,
            record.player_id,
            record.display_name,
            record.kind,
            rotation.access_hash,
            refresh_expires_at,
            record.policy,
        )

    async def end_session(self, session_id: str) -> Revoked:
        async with self.store.writing() as conn:
            return await _end(conn, session_id)

    async def revoke_player(self, app_id: str, player_id: str) -> Revoked:
        async with self.store.writing() as conn:
            sessions = await conn.execute(
                update(PlayerSession)
                .where(
                    PlayerSession.app_id == app_id,
                    PlayerSession.player_id == player_id,
                    PlayerSession.revoked.is_(False),
                )
                .values(revoked=True)
            )
            app_games = select(Game.id).where(Game.app_id == app_id).scalar_subquery()
            tokens = await conn.execute(
                update(PlayerToken)
                .where(
                    PlayerToken.player_id == player_id,
                    PlayerToken.revoked.is_(False),
                    PlayerToken.game_id.in_(app_games),
                )
                .values(revoked=True)
            )
        return Revoked(int(sessions.rowcount), int(tokens.rowcount))

    async def list_sessions(
        self,
        app_id: str,
        player_id: str,
        live_only: bool,
        now: int,
        limit: int,
        after: Position | None,
    ) -> list[SessionInfo]:
        q = select(PlayerSession).where(PlayerSession.app_id == app_id)
        if player_id:
            q = q.where(PlayerSession.player_id == player_id)
        if live_only:
            q = q.where(PlayerSession.revoked.is_(False), PlayerSession.refresh_expires_at > now)
        if after is not None:
            q = q.where(
                or_(
                    PlayerSession.created_ms < after.created,
                    and_(
                        PlayerSession.created_ms == after.created,
                        PlayerSession.id < after.row_id,
                    ),
                )
            )
        q = q.order_by(PlayerSession.created_ms.desc(), PlayerSession.id.desc())
        async with self.store.reading() as conn:
            rows = (await conn.execute(q.limit(limit))).all()
        return [
            SessionInfo(
                s.id,
                s.player_id,
                s.display_name,
                SessionKind(s.kind),
                int(s.created_ms),
                int(s.last_used_at),
                int(s.access_expires_at),
                int(s.refresh_expires_at),
                bool(s.revoked),
                s.address,
            )
            for s in rows
        ]


async def _spent(conn: AsyncConnection, rotation: Rotation) -> RefreshOutcome:
    """For a refresh token that rotates no live session: REUSED, the session ended
    with its seat tokens in ``conn``'s transaction, if it is a spent token of a
    session (of its family but not its current token, or a family-less one that was
    its last); else UNKNOWN (the current token of a session expired, ended or of a
    revoked app, which is no reuse, or no token of this server)."""
    spent = PlayerSession.previous_refresh_hash == rotation.refresh_hash
    if rotation.family_hash is not None:
        spent = or_(PlayerSession.family_hash == rotation.family_hash, spent)
    found = (
        await conn.execute(select(PlayerSession.id, PlayerSession.refresh_hash).where(spent))
    ).first()
    if found is None or found.refresh_hash == rotation.refresh_hash:
        return RefreshOutcome.UNKNOWN
    await _end(conn, str(found.id))
    return RefreshOutcome.REUSED


async def _end(conn: AsyncConnection, session_id: str) -> Revoked:
    """A session and the seat tokens it was given, revoked in ``conn``'s transaction."""
    sessions = await conn.execute(
        update(PlayerSession)
        .where(PlayerSession.id == session_id, PlayerSession.revoked.is_(False))
        .values(revoked=True)
    )
    tokens = await conn.execute(
        update(PlayerToken)
        .where(PlayerToken.session_id == session_id, PlayerToken.revoked.is_(False))
        .values(revoked=True)
    )
    return Revoked(int(sessions.rowcount), int(tokens.rowcount))
