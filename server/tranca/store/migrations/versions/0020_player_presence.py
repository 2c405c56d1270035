"""Presence: ``player_presence``, one row per player of an app who was seen or made
a choice (services/player_presence.py): when they were last seen, whether they said
they are away, and who may see it.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_presence",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("last_seen_ms", sa.BigInteger(), nullable=False),
        sa.Column("away", sa.Boolean(), nullable=False),
        sa.Column("visibility", sa.String(16), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_player_presence_app_id_apps")
        ),
        sa.PrimaryKeyConstraint("app_id", "player_id", name=op.f("pk_player_presence")),
    )


def downgrade() -> None:
    op.drop_table("player_presence")
