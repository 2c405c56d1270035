"""The app's one queue of reports (fair play): ``player_reports`` holds a player's
report of another player, of a game or of a chat message, and the findings of the
fair-play signals' job, each with its evidence; an administrator resolves each.
``dedupe_key`` makes a report once: a player's second report of the same thing, or a
signal's finding found again by another replica, is the same row.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_reports",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reporter_id", sa.String(128), nullable=False),
        sa.Column("reported_id", sa.String(128), nullable=False),
        sa.Column("other_id", sa.String(128), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("game_version", sa.BigInteger(), nullable=False),
        sa.Column("room", sa.String(300), nullable=False),
        sa.Column("message_seq", sa.BigInteger(), nullable=False),
        sa.Column("category", sa.String(32), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("dedupe_key", sa.String(200), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("resolution", sa.String(16), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("resolved_by", sa.String(128), nullable=False),
        sa.Column("until_ms", sa.BigInteger(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("resolved_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_player_reports_app_id_apps")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_reports")),
    )
    op.create_index(
        "ux_player_reports_once", "player_reports", ["app_id", "dedupe_key"], unique=True
    )
    op.create_index("ix_player_reports_queue", "player_reports", ["app_id", "status", "id"])
    op.create_index("ix_player_reports_reported", "player_reports", ["app_id", "reported_id"])


def downgrade() -> None:
    op.drop_table("player_reports")
