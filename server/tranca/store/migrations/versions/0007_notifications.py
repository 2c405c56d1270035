"""Notifications: every player's events (``player_events``, written in the
transaction of the change they come from), each app's webhook (``app_webhooks``)
and the outbox of its deliveries (``webhook_deliveries``), which any replica's
sweeper claims, POSTs and records.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As chip_entries' id: BIGINT on PostgreSQL, INTEGER on SQLite (its rowid alias).
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "player_events",
        sa.Column("id", ID, nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name=op.f("fk_player_events_app_id_apps")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_events")),
    )
    op.create_index(
        "ix_player_events_player", "player_events", ["app_id", "player_id", "id"], unique=False
    )
    op.create_table(
        "app_webhooks",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("secret", sa.String(128), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name=op.f("fk_app_webhooks_app_id_apps")),
        sa.PrimaryKeyConstraint("app_id", name=op.f("pk_app_webhooks")),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", ID, nullable=False),
        sa.Column("event_id", ID, nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("next_attempt_at", sa.BigInteger(), nullable=False),
        sa.Column("lease_until", sa.BigInteger(), nullable=True),
        sa.Column("last_status_code", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(200), nullable=True),
        sa.Column("delivered_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_webhook_deliveries_app_id_apps")
        ),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["player_events.id"],
            name=op.f("fk_webhook_deliveries_event_id_player_events"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
        sa.UniqueConstraint("event_id", name=op.f("uq_webhook_deliveries_event_id")),
    )
    op.create_index(
        "ix_webhook_deliveries_due",
        "webhook_deliveries",
        ["status", "next_attempt_at"],
        unique=False,
    )
    op.create_index(
        "ix_webhook_deliveries_app", "webhook_deliveries", ["app_id", "id"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_webhook_deliveries_app", table_name="webhook_deliveries")
    op.drop_index("ix_webhook_deliveries_due", table_name="webhook_deliveries")
    op.drop_table("webhook_deliveries")
    op.drop_table("app_webhooks")
    op.drop_index("ix_player_events_player", table_name="player_events")
    op.drop_table("player_events")
