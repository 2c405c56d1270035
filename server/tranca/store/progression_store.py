"""Experience, levels and achievements in the database: the settlement's writes
(``ProgressionTransaction``, on the settlement's connection, so that they commit
with the game's settled flag or not at all) and the reads of GetProgression
(``ProgressionStore``).

Exactly once: ``progression_matches`` has one row per app, match and player, and
``player_achievements`` one per app, player and achievement; both are written with
"insert, ignoring a duplicate", and only what was inserted counts. The players'
``player_progress`` rows are locked in player id order (PostgreSQL) before they are
read, so two settlements that share a player count one after the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..platform import PlayerId
from ..platform.progression import (
    BEST_STREAK,
    STREAK,
    Achievement,
    Progress,
    Rules,
    level_of,
    match_deal_results,
)
from ..services.moves import now_ms
from ..services.policy import AppPolicy
from ..table.events import Event
from ..table.game import GameState
from .codec import action_from_text, dumps, loads
from .database import insert_ignoring_duplicates
from .models import App, MoveLog, PlayerAchievementRow, PlayerProgressRow, ProgressionMatchRow
from .notifications_store import write_events
from .repository import Store

PROGRESSION_TABLES = (PlayerProgressRow, PlayerAchievementRow, ProgressionMatchRow)


def _progress(row: Any) -> Progress:
    counters = loads(row.counters) if row.counters else {}
    return Progress(int(row.xp), {str(k): int(v) for k, v in counters.items()})


class ProgressionTransaction:
    """A settlement's progression reads and writes on its connection
    (``services.progression.ProgressionWork``)."""

    def __init__(self, conn: AsyncConnection, app_id: str, game_id: str, state: GameState) -> None:
        self.conn = conn
        self.app_id = app_id
        self.game_id = game_id
        self.state = state

    async def progression_rules(self) -> Rules:
        return await _rules(self.conn, self.app_id)

    async def deal_results(self) -> list[dict[str, Any]]:
        actions = []
        if self.state.deal_number > 1:
            rows = await self.conn.execute(
                select(MoveLog.action)
                .where(MoveLog.game_id == self.game_id)
                .order_by(MoveLog.version)
            )
            actions = [action_from_text(r.action) for r in rows]
        return match_deal_results(self.state, self.state.setup, lambda: actions)

    async def count_match(self, player: PlayerId, xp: int, counted_id: str = "") -> bool:
        # RETURNING says whether the row was inserted, on both databases (a
        # statement's rowcount is not reliable through every driver).
        result = await self.conn.execute(
            insert_ignoring_duplicates(self.conn, ProgressionMatchRow)
            .values(
                app_id=self.app_id,
                game_id=counted_id or self.game_id,
                player_id=player,
                xp=xp,
                counted_ms=now_ms(),
            )
            .returning(ProgressionMatchRow.player_id)
        )
        return result.first() is not None

    async def lock_progress(self, players: Sequence[PlayerId]) -> dict[PlayerId, Progress]:
        ids = sorted(players)
        await self.conn.execute(
            insert_ignoring_duplicates(self.conn, PlayerProgressRow),
            [
                {
                    "app_id": self.app_id,
                    "player_id": p,
                    "xp": 0,
                    "level": 1,
                    "counters": "{}",
                    "updated_ms": now_ms(),
                }
                for p in ids
            ],
        )
        rows = (
            await self.conn.execute(
                select(PlayerProgressRow)
                .where(
                    PlayerProgressRow.app_id == self.app_id, PlayerProgressRow.player_id.in_(ids)
                )
                .order_by(PlayerProgressRow.player_id)
                .with_for_update()
            )
        ).all()
        unlocked = await _unlocked(self.conn, self.app_id, ids)
        out = {p: Progress() for p in ids}
        for r in rows:
            p = _progress(r)
            out[r.player_id] = Progress(p.xp, p.counters, frozenset(unlocked.get(r.player_id, {})))
        return out

    async def write_progress(
        self, player: PlayerId, progress: Progress, level: int, unlocked: Sequence[Achievement]
    ) -> list[Achievement]:
        now = now_ms()
        await self.conn.execute(
            update(PlayerProgressRow)
            .where(PlayerProgressRow.app_id == self.app_id, PlayerProgressRow.player_id == player)
            .values(
                xp=progress.xp,
                level=level,
                counters=dumps(dict(sorted(progress.counters.items()))),
                updated_ms=now,
            )
        )
        written: list[Achievement] = []
        for a in unlocked:
            result = await self.conn.execute(
                insert_ignoring_duplicates(self.conn, PlayerAchievementRow)
                .values(
                    app_id=self.app_id,
                    player_id=player,
                    achievement_id=a.id,
                    game_id=self.game_id,
                    unlocked_ms=now,
                )
                .returning(PlayerAchievementRow.achievement_id)
            )
            if result.first() is not None:
                written.append(a)
        return written

    async def publish(self, events: Sequence[Event]) -> None:
        await write_events(self.conn, self.app_id, events, now_ms())


async def _unlocked(
    conn: AsyncConnection, app_id: str, players: Sequence[str]
) -> dict[str, dict[str, int]]:
    rows = await conn.execute(
        select(
            PlayerAchievementRow.player_id,
            PlayerAchievementRow.achievement_id,
            PlayerAchievementRow.unlocked_ms,
        ).where(PlayerAchievementRow.app_id == app_id, PlayerAchievementRow.player_id.in_(players))
    )
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        out.setdefault(str(r.player_id), {})[str(r.achievement_id)] = int(r.unlocked_ms)
    return out


class ProgressionStore:
    """GetProgression's reads (``services.progression.ProgressionReads``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def progress_of(self, app_id: str, player_id: str) -> tuple[Progress, dict[str, int]]:
        async with self.store.reading() as conn:
            row = (
                await conn.execute(
                    select(PlayerProgressRow).where(
                        PlayerProgressRow.app_id == app_id, PlayerProgressRow.player_id == player_id
                    )
                )
            ).first()
            unlocked = await _unlocked(conn, app_id, [player_id])
        progress = Progress() if row is None else _progress(row)
        return progress, unlocked.get(player_id, {})


async def rename_progression(
    conn: AsyncConnection, app_id: str, player_id: str, replacement: str, rows: dict[str, int]
) -> None:
    """An erased player's progress, achievements and counted matches under their
    pseudonym, as their rating is: the figures stay, the id goes."""
    for table in PROGRESSION_TABLES:
        result = await conn.execute(
            update(table)
            .where(table.app_id == app_id, table.player_id == player_id)
            .values(player_id=replacement)
        )
        rows[table.__tablename__] = int(result.rowcount or 0)


def _folded_counters(kept: dict[str, int], merged: dict[str, int]) -> dict[str, int]:
    """Two players' counters as one: the counts added, the best streak the longer,
    the current streak the kept player's (its last match is the kept account's)."""
    out = dict(kept)
    for name, n in merged.items():
        if name == BEST_STREAK:
            out[name] = max(out.get(name, 0), n)
        elif name != STREAK:
            out[name] = out.get(name, 0) + n
    return out


async def fold_progression(
    conn: AsyncConnection, app_id: str, merged: str, kept: str, rows: dict[str, int]
) -> None:
    """A merged account's progress into the kept one's: XP and counts added, the
    level made again by the app's curve, every achievement either unlocked (the
    earlier unlock kept), the matches counted under the kept id (the two shared no
    table: a merge refuses them)."""
    found = {
        r.player_id: r
        for r in await conn.execute(
            select(PlayerProgressRow).where(
                PlayerProgressRow.app_id == app_id,
                PlayerProgressRow.player_id.in_([merged, kept]),
            )
        )
    }
    if merged in found:
        theirs = _progress(found[merged])
        ours = _progress(found[kept]) if kept in found else Progress()
        xp = ours.xp + theirs.xp
        counters = _folded_counters(dict(ours.counters), dict(theirs.counters))
        rules = await _rules(conn, app_id)
        values = {
            "xp": xp,
            "level": level_of(xp, rules),
            "counters": dumps(dict(sorted(counters.items()))),
            "updated_ms": now_ms(),
        }
        await conn.execute(
            delete(PlayerProgressRow).where(
                PlayerProgressRow.app_id == app_id, PlayerProgressRow.player_id == merged
            )
        )
        if kept in found:
            await conn.execute(
                update(PlayerProgressRow)
                .where(PlayerProgressRow.app_id == app_id, PlayerProgressRow.player_id == kept)
                .values(**values)
            )
        else:
            await conn.execute(
                insert(PlayerProgressRow).values(app_id=app_id, player_id=kept, **values)
            )
        rows["player_progress"] = 1
    unlocked = await _unlocked(conn, app_id, [merged, kept])
    mine, theirs_unlocked = unlocked.get(kept, {}), unlocked.get(merged, {})
    for achievement, at in theirs_unlocked.items():
        if achievement in mine and mine[achievement] <= at:
            continue
        await conn.execute(
            delete(PlayerAchievementRow).where(
                PlayerAchievementRow.app_id == app_id,
                PlayerAchievementRow.player_id == kept,
                PlayerAchievementRow.achievement_id == achievement,
            )
        )
        await conn.execute(
            update(PlayerAchievementRow)
            .where(
                PlayerAchievementRow.app_id == app_id,
                PlayerAchievementRow.player_id == merged,
                PlayerAchievementRow.achievement_id == achievement,
            )
            .values(player_id=kept)
        )
    await conn.execute(
        delete(PlayerAchievementRow).where(
            PlayerAchievementRow.app_id == app_id, PlayerAchievementRow.player_id == merged
        )
    )
    rows["player_achievements"] = len(theirs_unlocked)
    moved = await conn.execute(
        update(ProgressionMatchRow)
        .where(ProgressionMatchRow.app_id == app_id, ProgressionMatchRow.player_id == merged)
        .values(player_id=kept)
    )
    rows["progression_matches"] = int(moved.rowcount or 0)


async def _rules(conn: AsyncConnection, app_id: str) -> Rules:
    row = (await conn.execute(select(App.policy).where(App.id == app_id))).first()
    if row is None or not row.policy:
        return Rules()
    return AppPolicy.from_dict(loads(row.policy)).progression


__all__ = [
    "PROGRESSION_TABLES",
    "ProgressionStore",
    "ProgressionTransaction",
    "fold_progression",
    "rename_progression",
]
