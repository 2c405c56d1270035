"""The fake of the notifications' ports: events, webhooks, the outbox of deliveries."""

from __future__ import annotations

from collections.abc import Sequence

from tranca.services.notifications import StoredEvent
from tranca.services.webhooks import ClaimedDelivery, DeliveryRecord, Outcome, WebhookConfig
from tranca.table.events import Event

from .records import StoredDelivery
from .sessions import SessionsMemory


class NotificationsMemory(SessionsMemory):
    """The notifications' ports, in memory."""

    # ----- notifications ----------------------------------------------------------------

    def _write_events(self, app_id: str, events: Sequence[Event]) -> list[int]:
        """As the databases do in the change's transaction: each event, and its
        delivery if the app has an enabled webhook."""
        ids = []
        hooked = self.webhooks.get(app_id, ("", "", False))[2]
        for e in events:
            stored = StoredEvent(
                len(self.events) + 1, e.player_id, str(e.kind), e.game_id, dict(e.payload),
                self.now,
            )  # fmt: skip
            self.events.append((app_id, stored))
            ids.append(stored.id)
            if hooked:
                delivery_id = len(self.outbox) + 1
                self.outbox[delivery_id] = StoredDelivery(
                    delivery_id, stored.id, app_id, next_attempt_at=self.now
                )
        return ids

    async def player_events(
        self, app_id: str, player_id: str, after_id: int, limit: int
    ) -> list[StoredEvent]:
        found = [
            e
            for a, e in self.events
            if a == app_id and e.player_id == player_id and e.id > after_id
        ]
        return found[:limit]

    async def publish_events(self, app_id: str, events: Sequence[Event]) -> list[int]:
        return self._write_events(app_id, events)

    async def set_webhook(self, app_id: str, url: str, secret: str) -> None:
        self.webhooks[app_id] = (url, secret, True)

    async def webhook(self, app_id: str) -> WebhookConfig | None:
        found = self.webhooks.get(app_id)
        return None if found is None else WebhookConfig(found[0], found[2], self.now / 1000)

    async def delete_webhook(self, app_id: str) -> bool:
        return self.webhooks.pop(app_id, None) is not None

    def _delivery(self, d: StoredDelivery) -> DeliveryRecord:
        event = self.events[d.event_id - 1][1]
        return DeliveryRecord(
            d.id, d.event_id, event.kind, event.player_id, d.status, d.attempts,
            d.next_attempt_at if d.status == "pending" else None, d.last_status_code,
            d.last_error, d.delivered_at, event.created_at,
        )  # fmt: skip

    async def deliveries(
        self, app_id: str, status: str | None, before_id: int | None, limit: int
    ) -> list[DeliveryRecord]:
        rows = [
            d
            for d in sorted(self.outbox.values(), key=lambda d: -d.id)
            if d.app_id == app_id
            and (status is None or d.status == status)
            and (before_id is None or d.id < before_id)
        ]
        return [self._delivery(d) for d in rows[:limit]]

    async def delivery(self, app_id: str, delivery_id: int) -> DeliveryRecord | None:
        d = self.outbox.get(delivery_id)
        return None if d is None or d.app_id != app_id else self._delivery(d)

    async def redeliver(self, app_id: str, delivery_id: int, now: int) -> bool:
        d = self.outbox.get(delivery_id)
        if d is None or d.app_id != app_id or d.status != "failed":
            return False
        d.status, d.attempts, d.next_attempt_at, d.lease_until = "pending", 0, now, None
        return True

    async def claim_deliveries(
        self, now: int, lease_until: int, limit: int
    ) -> list[ClaimedDelivery]:
        due = sorted(
            (d for d in self.outbox.values() if d.status == "pending" and d.next_attempt_at <= now),
            key=lambda d: d.next_attempt_at,
        )[:limit]
        out = []
        for d in due:
            d.next_attempt_at = d.lease_until = lease_until
            d.attempts += 1
            url, secret, enabled = self.webhooks.get(d.app_id, (None, None, False))
            live = enabled and url is not None
            out.append(
                ClaimedDelivery(
                    d.id, d.attempts, lease_until, self.events[d.event_id - 1][1],
                    url if live else None, secret if live else None,
                )
            )  # fmt: skip
        return out

    async def record(self, outcomes: Sequence[Outcome]) -> None:
        for o in outcomes:
            d = self.outbox[o.delivery_id]
            if d.status != "pending":
                continue
            if o.error is None:
                d.status, d.delivered_at, d.lease_until = "delivered", o.at, None
                d.last_status_code, d.last_error = o.status_code, None
            elif d.lease_until == o.lease_until:
                d.lease_until, d.last_status_code, d.last_error = None, o.status_code, o.error
                if o.next_attempt_at is None:
                    d.status = "failed"
                else:
                    d.next_attempt_at = o.next_attempt_at

    async def prune(self, events_before: int, delivered_before: int, limit: int) -> int:
        gone = [
            i
            for i, d in self.outbox.items()
            if d.status == "delivered" and (d.delivered_at or 0) < delivered_before
        ][:limit]
        for i in gone:
            del self.outbox[i]
        return len(gone)
