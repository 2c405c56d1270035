"""NotificationService: protobuf in, a use case of ``services.notifications`` or
``services.webhooks``, protobuf out. Nothing else happens here."""

from __future__ import annotations

from collections.abc import AsyncIterator

import orjson

from ..services.errors import malformed
from ..services.notifications import Notifications, StoredEvent
from ..services.webhooks import DeliveryRecord, DeliveryStatus, WebhookConfig, Webhooks
from ..v1 import notifications_pb2 as pb
from ..v1 import notifications_pb2_grpc as pb_grpc
from .context import Ctx, credentials
from .servicer import rpc, stream_rpc

STATUS_FILTER = {
    pb.DELIVERY_STATUS_UNSPECIFIED: None,
    pb.DELIVERY_STATUS_PENDING: DeliveryStatus.PENDING,
    pb.DELIVERY_STATUS_DELIVERED: DeliveryStatus.DELIVERED,
    pb.DELIVERY_STATUS_FAILED: DeliveryStatus.FAILED,
}
STATUS_PB = {status: code for code, status in STATUS_FILTER.items() if status is not None}


def event_to_pb(e: StoredEvent) -> pb.PlayerEvent:
    return pb.PlayerEvent(
        id=e.id,
        player_id=e.player_id,
        kind=e.kind,
        game_id=e.game_id or "",
        payload_json=orjson.dumps(e.payload).decode(),
        created_at_ms=e.created_at,
    )


def webhook_to_pb(hook: WebhookConfig) -> pb.Webhook:
    return pb.Webhook(url=hook.url, enabled=hook.enabled, created_at=int(hook.created_at))


def delivery_to_pb(d: DeliveryRecord) -> pb.WebhookDelivery:
    return pb.WebhookDelivery(
        delivery_id=str(d.id),
        event_id=d.event_id,
        kind=d.kind,
        player_id=d.player_id,
        status=STATUS_PB.get(DeliveryStatus(d.status), pb.DELIVERY_STATUS_UNSPECIFIED),
        attempts=d.attempts,
        next_attempt_at_ms=d.next_attempt_at or 0,
        last_status_code=d.last_status_code or 0,
        last_error=d.last_error or "",
        delivered_at_ms=d.delivered_at or 0,
        created_at_ms=d.created_at,
    )


class NotificationService(pb_grpc.NotificationServiceServicer):
    def __init__(self, notifications: Notifications, webhooks: Webhooks) -> None:
        self.notifications = notifications
        self.webhooks = webhooks

    @rpc("ListPlayerEvents")
    async def ListPlayerEvents(
        self, request: pb.ListPlayerEventsRequest, context: Ctx
    ) -> pb.ListPlayerEventsResponse:
        page = await self.notifications.page(
            credentials(context), request.player_id, request.after_id, request.page_size
        )
        return pb.ListPlayerEventsResponse(
            events=[event_to_pb(e) for e in page.events], next_after_id=page.next_after_id
        )

    @stream_rpc("WatchPlayerEvents")
    async def WatchPlayerEvents(
        self, request: pb.WatchPlayerEventsRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchPlayerEventsResponse]:
        events = self.notifications.watch(credentials(context), request.player_id, request.after_id)
        async for event in events:
            yield pb.WatchPlayerEventsResponse(event=event_to_pb(event))

    @rpc("SetWebhook")
    async def SetWebhook(
        self, request: pb.SetWebhookRequest, context: Ctx
    ) -> pb.SetWebhookResponse:
        new = await self.webhooks.set(credentials(context), request.url)
        return pb.SetWebhookResponse(webhook=webhook_to_pb(new.webhook), signing_secret=new.secret)

    @rpc("GetWebhook")
    async def GetWebhook(
        self, request: pb.GetWebhookRequest, context: Ctx
    ) -> pb.GetWebhookResponse:
        hook = await self.webhooks.get(credentials(context))
        return pb.GetWebhookResponse(webhook=webhook_to_pb(hook))

    @rpc("DeleteWebhook")
    async def DeleteWebhook(
        self, request: pb.DeleteWebhookRequest, context: Ctx
    ) -> pb.DeleteWebhookResponse:
        return pb.DeleteWebhookResponse(deleted=await self.webhooks.delete(credentials(context)))

    @rpc("ListWebhookDeliveries")
    async def ListWebhookDeliveries(
        self, request: pb.ListWebhookDeliveriesRequest, context: Ctx
    ) -> pb.ListWebhookDeliveriesResponse:
        if request.status not in STATUS_FILTER:
            raise malformed(f"unknown delivery status {request.status}")
        page = await self.webhooks.list_deliveries(
            credentials(context),
            STATUS_FILTER[request.status],
            request.page_size,
            request.page_token,
        )
        return pb.ListWebhookDeliveriesResponse(
            deliveries=[delivery_to_pb(d) for d in page.deliveries],
            next_page_token=page.next_page_token,
        )

    @rpc("RedeliverWebhook")
    async def RedeliverWebhook(
        self, request: pb.RedeliverWebhookRequest, context: Ctx
    ) -> pb.RedeliverWebhookResponse:
        done = await self.webhooks.redeliver(credentials(context), request.delivery_id)
        return pb.RedeliverWebhookResponse(delivery=delivery_to_pb(done))
