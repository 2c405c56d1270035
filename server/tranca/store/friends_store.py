"""Friends and blocks in the database, for ``services/friends.py`` (``FriendsStore``
is its ``FriendsRepository``): both sides of a pair in ``player_relations``, changed
together in one transaction with the events that tell the players.

A change of a pair is read, decided and written under a lock on the pair, so that
two players asking each other at once, on two replicas, meet one after the other:
the second finds the first's request and accepts it. On PostgreSQL the lock is a
transaction-scoped advisory lock on the pair's key (the rows may not exist yet, so
there is nothing to lock with FOR UPDATE), released at commit, which PgBouncer's
transaction pooling keeps; on SQLite every writer's IMMEDIATE transaction is the
lock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy import delete, func, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.friendships import Counts, Outcome, Pair, Relation
from ..platform.matchmaking import Apart, apart_key
from ..services.friends import Applied, Decide, Relationship
from ..services.profiles import PublicProfile
from ..table.events import Event
from .database import insert_ignoring_duplicates
from .models import PlayerProfile, PlayerRelation, PlayerSession
from .notifications_store import write_events
from .repository import Store

__all__ = ["FriendsStore", "delete_relations", "move_relations"]

_LOCK_SQL = text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))")


class FriendsStore:
    """The relations of one database (``services.friends.FriendsRepository``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def player_known(self, app_id: str, player_id: str) -> bool:
        sessions = select(PlayerSession.id).where(
            PlayerSession.app_id == app_id, PlayerSession.player_id == player_id
        )
        profiles = select(PlayerProfile.player_id).where(
            PlayerProfile.app_id == app_id, PlayerProfile.player_id == player_id
        )
        async with self.store.reading() as conn:
            if (await conn.execute(sessions.limit(1))).first() is not None:
                return True
            return (await conn.execute(profiles.limit(1))).first() is not None

    async def change_pair(
        self,
        app_id: str,
        actor: str,
        other: str,
        decide: Decide,
        events: Callable[[Pair, Outcome], Sequence[Event]],
        now: int,
    ) -> Applied:
        async with self.store.writing() as conn:
            if conn.dialect.name == "postgresql":
                low, high = sorted((actor, other))
                key = f"relation:{app_id}:{len(low)}:{low}:{high}"
                await conn.execute(_LOCK_SQL, {"key": key})
            sides = await _sides(conn, app_id, actor, other)
            before = Pair(
                sides.get((actor, other), (Relation.NONE, 0))[0],
                sides.get((other, actor), (Relation.NONE, 0))[0],
            )
            mine = await _counts(conn, app_id, actor)
            theirs = await _counts(conn, app_id, other)
            outcome = decide(before, mine, theirs)
            if outcome.change is None:
                return Applied(before, outcome, sides.get((actor, other), (Relation.NONE, 0))[1])
            await _write_side(conn, app_id, actor, other, before.mine, outcome.after.mine, now)
            await _write_side(conn, app_id, other, actor, before.theirs, outcome.after.theirs, now)
            await write_events(conn, app_id, events(before, outcome), now)
        kept_since = sides.get((actor, other), (Relation.NONE, now))[1]
        since = now if outcome.after.mine != before.mine else kept_since
        return Applied(before, outcome, since)

    async def kept_apart(self, players: Sequence[tuple[str, str]]) -> Apart:
        """Quick play's pairs kept apart (``services.matchmaker.KeptApart``): of the
        players given, each pair of an app one of whom blocked the other."""
        by_app: dict[str, set[str]] = {}
        for app_id, player_id in players:
            by_app.setdefault(app_id, set()).add(player_id)
        found: set[tuple[str, str, str]] = set()
        async with self.store.reading() as conn:
            for app_id, ids in by_app.items():
                if len(ids) < 2:
                    continue
                wanted = sorted(ids)
                q = select(PlayerRelation.player_id, PlayerRelation.other_id).where(
                    PlayerRelation.app_id == app_id,
                    PlayerRelation.relation == Relation.BLOCKED.value,
                    PlayerRelation.player_id.in_(wanted),
                    PlayerRelation.other_id.in_(wanted),
                )
                for r in (await conn.execute(q)).all():
                    found.add(apart_key(app_id, r.player_id, r.other_id))
        return frozenset(found)

    async def relations(
        self,
        app_id: str,
        player_id: str,
        kinds: frozenset[Relation],
        after: str,
        limit: int,
    ) -> list[Relationship]:
        q = (
            select(PlayerRelation.other_id, PlayerRelation.relation, PlayerRelation.since_ms)
            .where(
                PlayerRelation.app_id == app_id,
                PlayerRelation.player_id == player_id,
                PlayerRelation.other_id > after,
            )
            .order_by(PlayerRelation.other_id)
            .limit(limit)
        )
        if kinds:
            q = q.where(PlayerRelation.relation.in_(sorted(k.value for k in kinds)))
        async with self.store.reading() as conn:
            rows = (await conn.execute(q)).all()
        return [Relationship(r.other_id, Relation(r.relation), int(r.since_ms)) for r in rows]

    async def profiles_of(self, app_id: str, player_ids: Sequence[str]) -> dict[str, PublicProfile]:
        """Each player's public profile; where one set none, the name of their latest
        session (the name they play under), so that a list never shows a bare id."""
        ids = list(dict.fromkeys(player_ids))
        if not ids:
            return {}
        profiles = select(
            PlayerProfile.player_id,
            PlayerProfile.display_name,
            PlayerProfile.avatar_url,
            PlayerProfile.country,
        ).where(PlayerProfile.app_id == app_id, PlayerProfile.player_id.in_(ids))
        latest = (
            select(PlayerSession.player_id, func.max(PlayerSession.created_ms).label("at"))
            .where(PlayerSession.app_id == app_id, PlayerSession.player_id.in_(ids))
            .group_by(PlayerSession.player_id)
            .subquery()
        )
        names = (
            select(PlayerSession.player_id, PlayerSession.display_name)
            .join(
                latest,
                (PlayerSession.player_id == latest.c.player_id)
                & (PlayerSession.created_ms == latest.c.at),
            )
            .where(PlayerSession.app_id == app_id)
        )
        async with self.store.reading() as conn:
            found = {
                r.player_id: PublicProfile(r.player_id, r.display_name, r.avatar_url, r.country)
                for r in (await conn.execute(profiles)).all()
            }
            for r in (await conn.execute(names)).all():
                if r.player_id not in found and r.display_name:
                    found[r.player_id] = PublicProfile(r.player_id, r.display_name, "", "")
        return found


async def _sides(
    conn: AsyncConnection, app_id: str, actor: str, other: str
) -> dict[tuple[str, str], tuple[Relation, int]]:
    q = select(
        PlayerRelation.player_id,
        PlayerRelation.other_id,
        PlayerRelation.relation,
        PlayerRelation.since_ms,
    ).where(
        PlayerRelation.app_id == app_id,
        ((PlayerRelation.player_id == actor) & (PlayerRelation.other_id == other))
        | ((PlayerRelation.player_id == other) & (PlayerRelation.other_id == actor)),
    )
    return {
        (r.player_id, r.other_id): (Relation(r.relation), int(r.since_ms))
        for r in (await conn.execute(q)).all()
    }


async def _counts(conn: AsyncConnection, app_id: str, player_id: str) -> Counts:
    q = (
        select(PlayerRelation.relation, func.count())
        .where(PlayerRelation.app_id == app_id, PlayerRelation.player_id == player_id)
        .group_by(PlayerRelation.relation)
    )
    by_kind = {r[0]: int(r[1]) for r in (await conn.execute(q)).all()}
    return Counts(
        friends=by_kind.get(Relation.FRIEND.value, 0),
        pending_sent=by_kind.get(Relation.REQUEST_SENT.value, 0),
        blocked=by_kind.get(Relation.BLOCKED.value, 0),
    )


async def _write_side(
    conn: AsyncConnection,
    app_id: str,
    player_id: str,
    other_id: str,
    was: Relation,
    now_is: Relation,
    now: int,
) -> None:
    if was == now_is:
        return
    await conn.execute(
        delete(PlayerRelation).where(
            PlayerRelation.app_id == app_id,
            PlayerRelation.player_id == player_id,
            PlayerRelation.other_id == other_id,
        )
    )
    if now_is != Relation.NONE:
        await conn.execute(
            insert_ignoring_duplicates(conn, PlayerRelation).values(
                app_id=app_id,
                player_id=player_id,
                other_id=other_id,
                relation=now_is.value,
                since_ms=now,
            )
        )


async def delete_relations(conn: AsyncConnection, app_id: str, player_id: str) -> int:
    """Every relation of the player, both sides (an erasure), in the caller's
    transaction; how many rows went."""
    result = await conn.execute(
        delete(PlayerRelation).where(
            PlayerRelation.app_id == app_id,
            (PlayerRelation.player_id == player_id) | (PlayerRelation.other_id == player_id),
        )
    )
    return int(result.rowcount or 0)


async def move_relations(conn: AsyncConnection, app_id: str, merged: str, kept: str) -> int:
    """The merged player's relations given to the kept player (a merge of accounts),
    in the caller's transaction: where both had a relation to the same player, the
    kept player's stays; a relation between the two goes. Both sides of each pair move
    together, so every pair still holds. How many pairs moved."""
    rows = (
        await conn.execute(
            select(PlayerRelation.other_id, PlayerRelation.relation, PlayerRelation.since_ms).where(
                PlayerRelation.app_id == app_id, PlayerRelation.player_id == merged
            )
        )
    ).all()
    kept_others = set(
        (
            await conn.execute(
                select(PlayerRelation.other_id).where(
                    PlayerRelation.app_id == app_id, PlayerRelation.player_id == kept
                )
            )
        ).scalars()
    )
    inverse = (
        await conn.execute(
            select(
                PlayerRelation.player_id, PlayerRelation.relation, PlayerRelation.since_ms
            ).where(PlayerRelation.app_id == app_id, PlayerRelation.other_id == merged)
        )
    ).all()
    theirs = {r.player_id: (r.relation, int(r.since_ms)) for r in inverse}
    # Players who hold a relation to the kept account already (a block it was not
    # told of, where the kept side has no row): their pair with it stays as it is.
    toward_kept = set(
        (
            await conn.execute(
                select(PlayerRelation.player_id).where(
                    PlayerRelation.app_id == app_id, PlayerRelation.other_id == kept
                )
            )
        ).scalars()
    )
    taken = kept_others | toward_kept | {kept}
    await delete_relations(conn, app_id, merged)
    moved = 0
    for r in rows:
        if r.other_id in taken:
            continue
        await conn.execute(
            insert_ignoring_duplicates(conn, PlayerRelation).values(
                app_id=app_id,
                player_id=kept,
                other_id=r.other_id,
                relation=r.relation,
                since_ms=int(r.since_ms),
            )
        )
        back = theirs.get(r.other_id)
        if back is not None:
            await conn.execute(
                insert_ignoring_duplicates(conn, PlayerRelation).values(
                    app_id=app_id,
                    player_id=r.other_id,
                    other_id=kept,
                    relation=back[0],
                    since_ms=back[1],
                )
            )
        moved += 1
    # A pair where only the other side has a row (they blocked the merged player):
    # their block follows the person to the kept account, unless they already have a
    # relation to it.
    for other, (relation, since) in theirs.items():
        if other in taken or any(r.other_id == other for r in rows):
            continue
        await conn.execute(
            insert_ignoring_duplicates(conn, PlayerRelation).values(
                app_id=app_id, player_id=other, other_id=kept, relation=relation, since_ms=since
            )
        )
        moved += 1
    return moved
