"""Players' events, apps' webhooks and the outbox of deliveries, on a database (the
repository of ``services/notifications.py`` and ``services/webhooks.py``).

A change of a game writes its events and their deliveries in its own statement
(``postgres.py``, ``sqlite.py``); everything else about them is here, through
SQLAlchemy: the reads, the events no change carries (``publish_events``), and the
sweeper's side of the outbox. A claim locks the due rows with ``FOR UPDATE SKIP
LOCKED`` on PostgreSQL, so replicas claiming at once take different rows and never
wait for each other (SQLite, which has one writer at a time, leaves the clause out:
its IMMEDIATE transaction is the lock).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, exists, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..services.moves import now_ms
from ..services.notifications import StoredEvent
from ..services.webhooks import (
    ClaimedDelivery,
    DeliveryRecord,
    DeliveryStatus,
    Outcome,
    WebhookConfig,
)
from ..table.events import Event
from .codec import dumps, loads
from .database import insert_ignoring_duplicates
from .models import AppWebhook, PlayerEvent, WebhookDelivery
from .move_path import epoch_seconds
from .repository import Store

__all__ = ["NotificationsStore"]

PENDING = DeliveryStatus.PENDING.value
DELIVERED = DeliveryStatus.DELIVERED.value
FAILED = DeliveryStatus.FAILED.value


_EVENT_COLUMNS = (
    PlayerEvent.id,
    PlayerEvent.player_id,
    PlayerEvent.kind,
    PlayerEvent.game_id,
    PlayerEvent.payload,
    PlayerEvent.created_at,
)


def _event(row: Any) -> StoredEvent:
    return StoredEvent(
        int(row.id),
        row.player_id,
        row.kind,
        row.game_id,
        loads(row.payload),
        int(row.created_at),
    )


_DELIVERY_COLUMNS = (
    WebhookDelivery.id,
    WebhookDelivery.event_id,
    PlayerEvent.kind,
    PlayerEvent.player_id,
    WebhookDelivery.status,
    WebhookDelivery.attempts,
    WebhookDelivery.next_attempt_at,
    WebhookDelivery.last_status_code,
    WebhookDelivery.last_error,
    WebhookDelivery.delivered_at,
    PlayerEvent.created_at,
)


def _delivery(row: Any) -> DeliveryRecord:
    pending = row.status == PENDING
    return DeliveryRecord(
        int(row.id),
        int(row.event_id),
        row.kind,
        row.player_id,
        row.status,
        int(row.attempts),
        int(row.next_attempt_at) if pending else None,
        row.last_status_code,
        row.last_error,
        row.delivered_at,
        int(row.created_at),
    )


class NotificationsStore:
    """``EventRepository`` and ``WebhookRepository`` on one database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ----- events -----------------------------------------------------------------------

    async def player_events(
        self, app_id: str, player_id: str, after_id: int, limit: int
    ) -> list[StoredEvent]:
        q = (
            select(PlayerEvent)
            .where(
                PlayerEvent.app_id == app_id,
                PlayerEvent.player_id == player_id,
                PlayerEvent.id > after_id,
            )
            .order_by(PlayerEvent.id)
            .limit(limit)
        )
        async with self.store.reading() as conn:
            return [_event(r) for r in (await conn.execute(q)).all()]

    async def publish_events(self, app_id: str, events: Sequence[Event]) -> list[int]:
        async with self.store.writing() as conn:
            return await write_events(conn, app_id, events, now_ms())

    # ----- the app's webhook ------------------------------------------------------------

    async def set_webhook(self, app_id: str, url: str, secret: str) -> None:
        async with self.store.writing() as conn:
            done = await conn.execute(
                update(AppWebhook)
                .where(AppWebhook.app_id == app_id)
                .values(url=url, secret=secret, enabled=True)
            )
            if done.rowcount == 0:
                await conn.execute(
                    insert_ignoring_duplicates(conn, AppWebhook).values(
                        app_id=app_id, url=url, secret=secret, enabled=True
                    )
                )

    async def webhook(self, app_id: str) -> WebhookConfig | None:
        q = select(AppWebhook.url, AppWebhook.enabled, AppWebhook.created_at).where(
            AppWebhook.app_id == app_id
        )
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        if row is None:
            return None
        return WebhookConfig(row.url, bool(row.enabled), epoch_seconds(row.created_at))

    async def delete_webhook(self, app_id: str) -> bool:
        async with self.store.writing() as conn:
            done = await conn.execute(delete(AppWebhook).where(AppWebhook.app_id == app_id))
        return bool(done.rowcount)

    async def deliveries(
        self, app_id: str, status: str | None, before_id: int | None, limit: int
    ) -> list[DeliveryRecord]:
        q = (
            select(*_DELIVERY_COLUMNS)
            .join(PlayerEvent, PlayerEvent.id == WebhookDelivery.event_id)
            .where(WebhookDelivery.app_id == app_id)
        )
        if status is not None:
            q = q.where(WebhookDelivery.status == status)
        if before_id is not None:
            q = q.where(WebhookDelivery.id < before_id)
        q = q.order_by(WebhookDelivery.id.desc()).limit(limit)
        async with self.store.reading() as conn:
            return [_delivery(r) for r in (await conn.execute(q)).all()]

    async def delivery(self, app_id: str, delivery_id: int) -> DeliveryRecord | None:
        q = (
            select(*_DELIVERY_COLUMNS)
            .join(PlayerEvent, PlayerEvent.id == WebhookDelivery.event_id)
            .where(WebhookDelivery.app_id == app_id, WebhookDelivery.id == delivery_id)
        )
        async with self.store.reading() as conn:
            row = (await conn.execute(q)).first()
        return None if row is None else _delivery(row)

    async def redeliver(self, app_id: str, delivery_id: int, now: int) -> bool:
        async with self.store.writing() as conn:
            done = await conn.execute(
                update(WebhookDelivery)
                .where(
                    WebhookDelivery.id == delivery_id,
                    WebhookDelivery.app_id == app_id,
                    WebhookDelivery.status == FAILED,
                )
                .values(status=PENDING, attempts=0, next_attempt_at=now, lease_until=None)
            )
        return bool(done.rowcount)

    # ----- the sweeper's side ------------------------------------------------------------

    async def claim_deliveries(
        self, now: int, lease_until: int, limit: int
    ) -> list[ClaimedDelivery]:
        due = WebhookDelivery.status == PENDING, WebhookDelivery.next_attempt_at <= now
        # Most sweeps find nothing due: a plain read first, so that they take no write
        # lock (SQLite's is the whole database's) for nothing.
        async with self.store.reading() as conn:
            if (
                await conn.execute(select(WebhookDelivery.id).where(*due).limit(1))
            ).first() is None:
                return []
        async with self.store.writing() as conn:
            claimed = [
                int(r[0])
                for r in (
                    await conn.execute(
                        select(WebhookDelivery.id)
                        .where(*due)
                        .order_by(WebhookDelivery.next_attempt_at)
                        .limit(limit)
                        .with_for_update(skip_locked=True)
                    )
                ).all()
            ]
            if not claimed:
                return []
            await conn.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id.in_(claimed))
                .values(
                    next_attempt_at=lease_until,
                    lease_until=lease_until,
                    attempts=WebhookDelivery.attempts + 1,
                )
            )
            rows = (
                await conn.execute(
                    select(
                        WebhookDelivery.id.label("delivery_id"),
                        WebhookDelivery.attempts,
                        *_EVENT_COLUMNS,
                        AppWebhook.url,
                        AppWebhook.secret,
                        AppWebhook.enabled,
                    )
                    .join(PlayerEvent, PlayerEvent.id == WebhookDelivery.event_id)
                    .outerjoin(AppWebhook, AppWebhook.app_id == WebhookDelivery.app_id)
                    .where(WebhookDelivery.id.in_(claimed))
                    .order_by(WebhookDelivery.id)
                )
            ).all()
        out = []
        for r in rows:
            live = r.url is not None and bool(r.enabled)
            out.append(
                ClaimedDelivery(
                    int(r.delivery_id),
                    int(r.attempts),
                    lease_until,
                    _event(r),
                    r.url if live else None,
                    r.secret if live else None,
                )
            )
        return out

    async def record(self, outcomes: Sequence[Outcome]) -> None:
        delivered: dict[tuple[int, int], list[int]] = {}  # (status, at) -> ids
        for o in outcomes:
            if o.error is None and o.status_code is not None:
                delivered.setdefault((o.status_code, o.at), []).append(o.delivery_id)
        async with self.store.writing() as conn:
            # Whoever's claim it was: an event delivered is delivered (a replica whose
            # lease ran out mid-POST may still be the one that got the 2xx).
            for (code, at), ids in delivered.items():
                await conn.execute(
                    update(WebhookDelivery)
                    .where(WebhookDelivery.id.in_(ids), WebhookDelivery.status == PENDING)
                    .values(
                        status=DELIVERED,
                        delivered_at=at,
                        lease_until=None,
                        last_status_code=code,
                        last_error=None,
                    )
                )
            for o in outcomes:
                if o.error is None:
                    continue
                values: dict[str, Any] = {
                    "lease_until": None,
                    "last_status_code": o.status_code,
                    "last_error": o.error[:200],
                }
                if o.next_attempt_at is None:
                    values["status"] = FAILED
                else:
                    values["next_attempt_at"] = o.next_attempt_at
                await conn.execute(
                    update(WebhookDelivery)
                    .where(
                        WebhookDelivery.id == o.delivery_id,
                        WebhookDelivery.status == PENDING,
                        WebhookDelivery.lease_until == o.lease_until,
                    )
                    .values(**values)
                )

    async def prune(self, events_before: int, delivered_before: int, limit: int) -> int:
        # A plain read first: mostly there is nothing old enough, and no write
        # transaction is needed to learn it.
        async with self.store.reading() as conn:
            old_event = (
                await conn.execute(
                    select(PlayerEvent.id).where(PlayerEvent.created_at < events_before).limit(1)
                )
            ).first()
            old_delivery = (
                await conn.execute(
                    select(WebhookDelivery.id)
                    .where(
                        WebhookDelivery.status == DELIVERED,
                        WebhookDelivery.delivered_at < delivered_before,
                    )
                    .limit(1)
                )
            ).first()
        if old_event is None and old_delivery is None:
            return 0
        async with self.store.writing() as conn:
            # Delivered rows, oldest first by id (their delivery time grows with it,
            # near enough), read from the primary key rather than a scan.
            oldest = (
                await conn.execute(
                    select(WebhookDelivery.id, WebhookDelivery.delivered_at)
                    .where(WebhookDelivery.status == DELIVERED)
                    .order_by(WebhookDelivery.id)
                    .limit(limit)
                )
            ).all()
            gone_deliveries = [
                int(r.id)
                for r in oldest
                if r.delivered_at is not None and r.delivered_at < delivered_before
            ]
            if gone_deliveries:
                await conn.execute(
                    delete(WebhookDelivery).where(WebhookDelivery.id.in_(gone_deliveries))
                )
            # Old events, from the oldest id on, with their deliveries unless one is
            # still pending (its event is still to be sent).
            pending = exists().where(
                WebhookDelivery.event_id == PlayerEvent.id, WebhookDelivery.status == PENDING
            )
            old = (
                await conn.execute(
                    select(PlayerEvent.id, PlayerEvent.created_at)
                    .where(~pending)
                    .order_by(PlayerEvent.id)
                    .limit(limit)
                )
            ).all()
            gone_events = [int(r.id) for r in old if r.created_at < events_before]
            if gone_events:
                await conn.execute(
                    delete(WebhookDelivery).where(WebhookDelivery.event_id.in_(gone_events))
                )
                await conn.execute(delete(PlayerEvent).where(PlayerEvent.id.in_(gone_events)))
        return len(gone_deliveries) + len(gone_events)


async def write_events(
    conn: AsyncConnection, app_id: str, events: Sequence[Event], now: int
) -> list[int]:
    """The events, and their deliveries if the app has an enabled webhook, in the
    caller's transaction (with the change they belong to): their ids."""
    ids: list[int] = []
    if not events:
        return ids
    hooked = (
        await conn.execute(
            select(AppWebhook.app_id).where(
                AppWebhook.app_id == app_id, AppWebhook.enabled.is_(True)
            )
        )
    ).first() is not None
    for e in events:
        result = await conn.execute(
            insert(PlayerEvent)
            .values(
                app_id=app_id,
                player_id=e.player_id,
                kind=str(e.kind),
                game_id=e.game_id,
                payload=dumps(e.payload),
                created_at=now,
            )
            .returning(PlayerEvent.id)
        )
        event_id = int(result.scalar_one())
        ids.append(event_id)
        if hooked:
            await conn.execute(
                insert(WebhookDelivery).values(
                    event_id=event_id,
                    app_id=app_id,
                    status=PENDING,
                    attempts=0,
                    next_attempt_at=now,
                )
            )
    return ids
