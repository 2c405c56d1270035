"""Experience, levels and achievements (services/progression.py): ``player_progress``
(a player's XP, level and counters per app), ``player_achievements`` (one row per
app, player and achievement unlocked) and ``progression_matches`` (one row per app,
match and player counted: a match counts once).

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
# The revisions 0021 and 0022 of the same issue come first once merged.
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_progress",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("xp", sa.BigInteger(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("counters", sa.Text(), nullable=False),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_player_progress_app_id_apps")
        ),
        sa.PrimaryKeyConstraint("app_id", "player_id", name=op.f("pk_player_progress")),
    )
    op.create_table(
        "player_achievements",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("achievement_id", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("unlocked_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_player_achievements_app_id_apps")
        ),
        sa.PrimaryKeyConstraint(
            "app_id", "player_id", "achievement_id", name=op.f("pk_player_achievements")
        ),
    )
    op.create_table(
        "progression_matches",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("xp", sa.BigInteger(), nullable=False),
        sa.Column("counted_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_progression_matches_app_id_apps")
        ),
        sa.PrimaryKeyConstraint(
            "app_id", "game_id", "player_id", name=op.f("pk_progression_matches")
        ),
    )


def downgrade() -> None:
    op.drop_table("progression_matches")
    op.drop_table("player_achievements")
    op.drop_table("player_progress")
