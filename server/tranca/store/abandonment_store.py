"""Abandonments in the database (``player_abandonments``): written by a match's
settlement, on its transaction (``GameSettlement``'s methods call these), and read
for a player's profile and quick play's cooldown (``AbandonmentsStore``)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform.abandonment import SeatChange
from ..services.abandonment import AbandonmentRecord, PlayerAbandonments
from ..services.policy import AppPolicy
from ..table.action_kinds import ActionKind
from .codec import action_from_text, loads
from .database import insert_ignoring_duplicates
from .models import App, MoveLog, PlayerAbandonment
from .move_path import utc_datetime
from .repository import Store

__all__ = [
    "AbandonmentsStore",
    "app_policy",
    "record_abandonments",
    "seat_changes",
]


async def app_policy(conn: AsyncConnection, app_id: str) -> AppPolicy:
    """The app's policy, the defaults where it set none."""
    row = (await conn.execute(select(App.policy).where(App.id == app_id))).first()
    return AppPolicy() if row is None else AppPolicy.from_dict(loads(row.policy))


async def seat_changes(conn: AsyncConnection, game_id: str) -> list[SeatChange]:
    """The game's "robot" and "return" rows with their times (the codec writes an
    action's kind first, so a prefix finds them without reading every move)."""
    rows = (
        await conn.execute(
            select(MoveLog.action, MoveLog.created_at)
            .where(
                MoveLog.game_id == game_id,
                or_(
                    MoveLog.action.like(f'{{"kind":"{ActionKind.ROBOT}"%'),
                    MoveLog.action.like(f'{{"kind":"{ActionKind.RETURN}"%'),
                ),
            )
            .order_by(MoveLog.version)
        )
    ).all()
    out: list[SeatChange] = []
    for r in rows:
        action = action_from_text(r.action)
        at = int(utc_datetime(r.created_at).timestamp() * 1000)
        out.append(SeatChange(action.seat, action.kind, action.by, at))
    return out


async def record_abandonments(
    conn: AsyncConnection, app_id: str, records: Sequence[AbandonmentRecord]
) -> None:
    """Each once: a repeat of the same (player, match) is ignored."""
    if not records:
        return
    await conn.execute(
        insert_ignoring_duplicates(conn, PlayerAbandonment),
        [
            {
                "app_id": app_id,
                "player_id": r.player_id,
                "game_id": r.game_id,
                "how": r.how,
                "abandoned_at": r.at,
                "cooldown_until": r.cooldown_until,
            }
            for r in records
        ],
    )


class AbandonmentsStore:
    """Reads of players' abandonments (their profiles, quick play's cooldown)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def abandonments(self, app_id: str, player_id: str) -> PlayerAbandonments:
        q = select(
            func.count(PlayerAbandonment.game_id), func.max(PlayerAbandonment.cooldown_until)
        ).where(PlayerAbandonment.app_id == app_id, PlayerAbandonment.player_id == player_id)
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).one()
        until = None if row[1] is None else utc_datetime(row[1])
        return PlayerAbandonments(int(row[0] or 0), until)
