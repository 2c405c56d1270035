"""Chat's moderation: ``chat_mutes`` (a player's mutes of others), ``chat_reports``
(reports of messages with their evidence, the app's queue) and ``chat_sanctions``
(a player's chat muted or banned until a time), for services/chat_moderation.py.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_mutes",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("muted_id", sa.String(128), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name=op.f("fk_chat_mutes_app_id_apps")),
        sa.PrimaryKeyConstraint("app_id", "player_id", "muted_id", name=op.f("pk_chat_mutes")),
    )
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("reporter_id", sa.String(128), nullable=False),
        sa.Column("reported_id", sa.String(128), nullable=False),
        sa.Column("room", sa.String(300), nullable=False),
        sa.Column("message_seq", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("game_version", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("resolution", sa.String(16), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("until_ms", sa.BigInteger(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("resolved_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name=op.f("fk_chat_reports_app_id_apps")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_reports")),
    )
    op.create_index(
        "ux_chat_reports_once",
        "chat_reports",
        ["app_id", "reporter_id", "room", "message_seq"],
        unique=True,
    )
    op.create_index("ix_chat_reports_queue", "chat_reports", ["app_id", "status", "id"])
    op.create_table(
        "chat_sanctions",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("until_ms", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_chat_sanctions_app_id_apps")
        ),
        sa.PrimaryKeyConstraint("app_id", "player_id", name=op.f("pk_chat_sanctions")),
    )


def downgrade() -> None:
    op.drop_table("chat_sanctions")
    op.drop_table("chat_reports")
    op.drop_table("chat_mutes")
