"""Profiles: ``player_profiles``, each player's display name, avatar URL, locale and
country, with the folded name unique in the app where the app asks for unique names
(``name_key``; NULL otherwise, and NULLs never collide).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_profiles",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("display_name", sa.String(200), nullable=False),
        sa.Column("name_key", sa.String(200), nullable=True),
        sa.Column("avatar_url", sa.String(500), server_default="", nullable=False),
        sa.Column("locale", sa.String(16), server_default="", nullable=False),
        sa.Column("country", sa.String(2), server_default="", nullable=False),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_player_profiles_app_id_apps")
        ),
        sa.PrimaryKeyConstraint("app_id", "player_id", name=op.f("pk_player_profiles")),
    )
    op.create_index(
        "ux_player_profiles_name", "player_profiles", ["app_id", "name_key"], unique=True
    )


def downgrade() -> None:
    op.drop_index("ux_player_profiles_name", table_name="player_profiles")
    op.drop_table("player_profiles")
