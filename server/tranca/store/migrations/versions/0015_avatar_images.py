"""Uploaded avatars: ``avatar_images``, each player's one small WebP with the digest of
its bytes (the profile's ``avatar_url`` names it, the browser port finds it by it).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "avatar_images",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name=op.f("fk_avatar_images_app_id_apps")),
        sa.PrimaryKeyConstraint("app_id", "player_id", name=op.f("pk_avatar_images")),
    )
    op.create_index(op.f("ix_avatar_images_digest"), "avatar_images", ["digest"])


def downgrade() -> None:
    op.drop_index(op.f("ix_avatar_images_digest"), table_name="avatar_images")
    op.drop_table("avatar_images")
