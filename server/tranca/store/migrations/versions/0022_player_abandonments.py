"""Abandonment: ``player_abandonments``, one row per player who abandoned a rated
match (platform/abandonment.py, written by its settlement): how, when, and until
when quick play refuses them a ticket. A player's count is their rows.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_abandonments",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("how", sa.String(8), nullable=False),
        sa.Column("abandoned_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("cooldown_until", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_player_abandonments_app_id_apps")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_player_abandonments_game_id_games")
        ),
        sa.PrimaryKeyConstraint(
            "app_id", "player_id", "game_id", name=op.f("pk_player_abandonments")
        ),
    )


def downgrade() -> None:
    op.drop_table("player_abandonments")
