"""Chat: ``chat_rooms`` (each room's last message number, taken under its row's
lock) and ``chat_messages`` (messages and their amendments, numbered in their room;
an author's client id unique in the room), for services/chat.py.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_rooms",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("room", sa.String(300), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name=op.f("fk_chat_rooms_app_id_apps")),
        sa.PrimaryKeyConstraint("app_id", "room", name=op.f("pk_chat_rooms")),
    )
    op.create_table(
        "chat_messages",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("room", sa.String(300), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("author_key", sa.String(200), nullable=False),
        sa.Column("author_id", sa.String(128), nullable=False),
        sa.Column("author_name", sa.String(200), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("phrase", sa.String(32), nullable=False),
        sa.Column("filtered", sa.Boolean(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column("target_seq", sa.BigInteger(), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=True),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("edited_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name=op.f("fk_chat_messages_app_id_apps")),
        sa.PrimaryKeyConstraint("app_id", "room", "seq", name=op.f("pk_chat_messages")),
    )
    op.create_index(
        "ux_chat_messages_client",
        "chat_messages",
        ["app_id", "room", "author_key", "client_id"],
        unique=True,
    )
    op.create_index("ix_chat_messages_author", "chat_messages", ["app_id", "author_id"])
    op.create_index("ix_chat_messages_created", "chat_messages", ["created_ms"])


def downgrade() -> None:
    op.drop_table("chat_messages")
    op.drop_table("chat_rooms")
