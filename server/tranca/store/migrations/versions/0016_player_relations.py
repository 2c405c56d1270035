"""Friends and blocks: ``player_relations``, one row per side of a pair of players
(services/friends.py), keyed by the app, the player and the other player, so that a
player's list is read in the key's order and counted by it.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_relations",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("other_id", sa.String(128), nullable=False),
        sa.Column("relation", sa.String(24), nullable=False),
        sa.Column("since_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_player_relations_app_id_apps")
        ),
        sa.PrimaryKeyConstraint(
            "app_id", "player_id", "other_id", name=op.f("pk_player_relations")
        ),
    )


def downgrade() -> None:
    op.drop_table("player_relations")
