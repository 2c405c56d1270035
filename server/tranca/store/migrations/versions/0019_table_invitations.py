"""Invitations to a table: ``games.owner_id`` (the player who owns a table: whose
session created it, or whom the app named) and ``table_invitations``, one row per
invitation (services/invitations.py), read by the invitee's and the inviter's lists
newest first and by the private table's admission (game, invitee).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("owner_id", sa.String(128), nullable=True))
    op.create_table(
        "table_invitations",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("inviter_id", sa.String(128), nullable=False),
        sa.Column("invitee_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("expires_ms", sa.BigInteger(), nullable=False),
        sa.Column("answered_ms", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_table_invitations_app_id_apps")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_table_invitations_game_id_games")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_invitations")),
    )
    op.create_index(
        "ix_table_invitations_invitee",
        "table_invitations",
        ["app_id", "invitee_id", "created_ms"],
    )
    op.create_index(
        "ix_table_invitations_inviter",
        "table_invitations",
        ["app_id", "inviter_id", "created_ms"],
    )
    op.create_index("ix_table_invitations_game", "table_invitations", ["game_id", "invitee_id"])


def downgrade() -> None:
    op.drop_index("ix_table_invitations_game", table_name="table_invitations")
    op.drop_index("ix_table_invitations_inviter", table_name="table_invitations")
    op.drop_index("ix_table_invitations_invitee", table_name="table_invitations")
    op.drop_table("table_invitations")
    with op.batch_alter_table("games") as games:
        games.drop_column("owner_id")
