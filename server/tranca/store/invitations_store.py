"""Invitations to a table in the database, for ``services/invitations.py``
(``InvitationsStore`` is its ``InvitationsRepository``, and ``Games``'
``PrivateTableGuests``; quick play reads its pairs of players): the rows of
``table_invitations``, each written with its events in one transaction.

A new invitation is read, counted and written under a lock on (table, invitee), so
that two invitations of one player to one table at once, on two replicas, make one:
the second finds the first pending. On PostgreSQL the lock is a transaction-scoped
advisory lock on that key (released at commit, which PgBouncer's transaction pooling
keeps); on SQLite every writer's IMMEDIATE transaction is the lock. An answer is a
compare-and-set on the status (``pending`` to what it becomes): of two answers at
once, one is written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import and_, delete, func, insert, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import InstrumentedAttribute

from ..platform.friendships import Pair, Relation
from ..platform.invitations import InvitationKind, Status, TableStage, admits
from ..services.invitations import (
    CheckCounts,
    Direction,
    Events,
    InvitationRecord,
    TableFacts,
)
from ..services.paging import Position
from ..services.profiles import PublicProfile
from ..table.game import FINISHED, WAITING
from .friends_store import FriendsStore
from .models import Game, PlayerRelation, TableInvitation
from .notifications_store import write_events
from .repository import Store

__all__ = ["InvitationsStore", "delete_invitations", "move_invitations", "rewrite_owner"]

_LOCK_SQL = text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))")


def _record(r: Any) -> InvitationRecord:
    return InvitationRecord(
        r.id,
        r.app_id,
        r.game_id,
        r.inviter_id,
        r.invitee_id,
        InvitationKind(r.kind),
        Status(r.status),
        int(r.created_ms),
        int(r.expires_ms),
        None if r.answered_ms is None else int(r.answered_ms),
    )


def _stage(status: str) -> TableStage:
    if status == WAITING:
        return TableStage.WAITING
    return TableStage.OVER if status == FINISHED else TableStage.PLAYING


class InvitationsStore:
    """The invitations of one database (``services.invitations.InvitationsRepository``)."""

    def __init__(self, store: Store, clock: Callable[[], int]) -> None:
        self.store = store
        self.clock = clock
        self.friends = FriendsStore(store)

    async def player_known(self, app_id: str, player_id: str) -> bool:
        return await self.friends.player_known(app_id, player_id)

    async def profiles_of(self, app_id: str, player_ids: Sequence[str]) -> dict[str, PublicProfile]:
        return await self.friends.profiles_of(app_id, player_ids)

    async def pair(self, app_id: str, player_id: str, other_id: str) -> Pair:
        q = select(PlayerRelation.player_id, PlayerRelation.relation).where(
            PlayerRelation.app_id == app_id,
            or_(
                and_(PlayerRelation.player_id == player_id, PlayerRelation.other_id == other_id),
                and_(PlayerRelation.player_id == other_id, PlayerRelation.other_id == player_id),
            ),
        )
        async with self.store.reading() as conn:
            sides = {r.player_id: Relation(r.relation) for r in (await conn.execute(q)).all()}
        return Pair(sides.get(player_id, Relation.NONE), sides.get(other_id, Relation.NONE))

    async def owner_of(self, game_id: str) -> str | None:
        async with self.store.reading() as conn:
            row = (await conn.execute(select(Game.owner_id).where(Game.id == game_id))).first()
        return None if row is None else row.owner_id

    async def add_invitation(
        self, new: InvitationRecord, check: CheckCounts, events: Events, now: int
    ) -> tuple[InvitationRecord, bool]:
        async with self.store.writing() as conn:
            if conn.dialect.name == "postgresql":
                key = f"invitation:{new.game_id}:{new.invitee_id}"
                await conn.execute(_LOCK_SQL, {"key": key})
            live = (
                TableInvitation.status == Status.PENDING.value,
                TableInvitation.expires_ms > now,
            )
            found = (
                await conn.execute(
                    select(TableInvitation).where(
                        TableInvitation.game_id == new.game_id,
                        TableInvitation.invitee_id == new.invitee_id,
                        *live,
                    )
                )
            ).first()
            if found is not None:
                return _record(found), False
            sent = await _count(conn, new.app_id, TableInvitation.inviter_id, new.inviter_id, now)
            received = await _count(
                conn, new.app_id, TableInvitation.invitee_id, new.invitee_id, now
            )
            check(sent, received)
            await conn.execute(
                insert(TableInvitation).values(
                    id=new.id,
                    app_id=new.app_id,
                    game_id=new.game_id,
                    inviter_id=new.inviter_id,
                    invitee_id=new.invitee_id,
                    kind=new.kind.value,
                    status=new.status.value,
                    created_ms=new.created_ms,
                    expires_ms=new.expires_ms,
                    answered_ms=None,
                )
            )
            await write_events(conn, new.app_id, events(new), now)
        return new, True

    async def invitation(self, app_id: str, invitation_id: str) -> InvitationRecord | None:
        q = select(TableInvitation).where(
            TableInvitation.app_id == app_id, TableInvitation.id == invitation_id
        )
        async with self.store.reading() as conn:
            found = (await conn.execute(q)).first()
        return None if found is None else _record(found)

    async def set_status(
        self, invitation_id: str, status: Status, now: int, events: Events
    ) -> InvitationRecord | None:
        async with self.store.writing() as conn:
            result = await conn.execute(
                update(TableInvitation)
                .where(
                    TableInvitation.id == invitation_id,
                    TableInvitation.status == Status.PENDING.value,
                )
                .values(status=status.value, answered_ms=now)
            )
            if not result.rowcount:
                return None
            row = (
                await conn.execute(
                    select(TableInvitation).where(TableInvitation.id == invitation_id)
                )
            ).one()
            done = _record(row)
            await write_events(conn, done.app_id, events(done), now)
        return done

    async def invitations(
        self,
        app_id: str,
        player_id: str,
        direction: Direction,
        status: Status | None,
        now: int,
        before: Position | None,
        limit: int,
    ) -> list[InvitationRecord]:
        sides = []
        if direction != Direction.SENT:
            sides.append(TableInvitation.invitee_id == player_id)
        if direction != Direction.RECEIVED:
            sides.append(TableInvitation.inviter_id == player_id)
        q = select(TableInvitation).where(TableInvitation.app_id == app_id, or_(*sides))
        if status == Status.PENDING:
            q = q.where(
                TableInvitation.status == Status.PENDING.value, TableInvitation.expires_ms > now
            )
        elif status == Status.EXPIRED:
            # Pending ones past their expiry, and those whose table moved on (the use
            # case keeps those that read expired).
            q = q.where(TableInvitation.status == Status.PENDING.value)
        elif status is not None:
            q = q.where(TableInvitation.status == status.value)
        if before is not None:
            q = q.where(
                or_(
                    TableInvitation.created_ms < before.created,
                    and_(
                        TableInvitation.created_ms == before.created,
                        TableInvitation.id < before.row_id,
                    ),
                )
            )
        q = q.order_by(TableInvitation.created_ms.desc(), TableInvitation.id.desc()).limit(limit)
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return [_record(r) for r in rows]

    async def tables(self, game_ids: Sequence[str]) -> dict[str, TableFacts]:
        if not game_ids:
            return {}
        q = select(Game.id, Game.preset, Game.players, Game.label, Game.status).where(
            Game.id.in_(list(game_ids))
        )
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return {r.id: TableFacts(r.preset, int(r.players), r.label, _stage(r.status)) for r in rows}

    async def admitted(self, app_id: str, game_id: str, player_id: str, spectator: bool) -> bool:
        """A private table's guests without its code (``Games``' ``PrivateTableGuests``):
        a pending or accepted invitation of the player to the table that admits to
        what they ask for (a pending one not past its expiry), its owner, or a
        friend of its owner."""
        now = self.clock()
        q = select(TableInvitation.kind, TableInvitation.status, TableInvitation.expires_ms).where(
            TableInvitation.app_id == app_id,
            TableInvitation.game_id == game_id,
            TableInvitation.invitee_id == player_id,
            TableInvitation.status.in_([Status.PENDING.value, Status.ACCEPTED.value]),
        )
        async with self.store.reading() as conn:
            for r in (await conn.execute(q)).all():
                live = r.status == Status.ACCEPTED.value or int(r.expires_ms) > now
                if live and admits(InvitationKind(r.kind), spectator):
                    return True
            owner = (
                await conn.execute(select(Game.owner_id).where(Game.id == game_id))
            ).scalar_one_or_none()
            if owner is None:
                return False
            if owner == player_id:
                return True
            friend = await conn.execute(
                select(PlayerRelation.relation).where(
                    PlayerRelation.app_id == app_id,
                    PlayerRelation.player_id == owner,
                    PlayerRelation.other_id == player_id,
                    PlayerRelation.relation == Relation.FRIEND.value,
                )
            )
            return friend.first() is not None


async def _count(
    conn: AsyncConnection, app_id: str, column: InstrumentedAttribute[str], player_id: str, now: int
) -> int:
    q = select(func.count()).where(
        TableInvitation.app_id == app_id,
        column == player_id,
        TableInvitation.status == Status.PENDING.value,
        TableInvitation.expires_ms > now,
    )
    return int((await conn.execute(q)).scalar_one())


async def delete_invitations(conn: AsyncConnection, app_id: str, player_id: str) -> int:
    """Every invitation the player sent or received (an erasure), in the caller's
    transaction; how many rows went."""
    result = await conn.execute(
        delete(TableInvitation).where(
            TableInvitation.app_id == app_id,
            or_(TableInvitation.inviter_id == player_id, TableInvitation.invitee_id == player_id),
        )
    )
    return int(result.rowcount or 0)


async def move_invitations(conn: AsyncConnection, app_id: str, merged: str, kept: str) -> int:
    """The merged player's invitations given to the kept player (a merge of accounts),
    in the caller's transaction; an invitation between the two goes (one person does
    not invite themselves). How many rows changed."""
    gone = await conn.execute(
        delete(TableInvitation).where(
            TableInvitation.app_id == app_id,
            or_(
                and_(TableInvitation.inviter_id == merged, TableInvitation.invitee_id == kept),
                and_(TableInvitation.inviter_id == kept, TableInvitation.invitee_id == merged),
            ),
        )
    )
    changed = int(gone.rowcount or 0)
    for column in ("inviter_id", "invitee_id"):
        result = await conn.execute(
            update(TableInvitation)
            .where(TableInvitation.app_id == app_id, getattr(TableInvitation, column) == merged)
            .values({column: kept})
        )
        changed += int(result.rowcount or 0)
    return changed


async def rewrite_owner(conn: AsyncConnection, app_id: str, player_id: str, now_is: str) -> int:
    """The tables the player owns owned by ``now_is`` (a merge: the kept account; an
    erasure: the pseudonym), in the caller's transaction; how many."""
    result = await conn.execute(
        update(Game)
        .where(Game.app_id == app_id, Game.owner_id == player_id)
        .values(owner_id=now_is)
    )
    return int(result.rowcount or 0)
