"""Accounts: ``player_identities``, the identities (an OpenID Connect issuer and
subject, or a custom token's player id) players sign in with, each linked to one
player of its app; and ``spent_identity_tokens``, the identity tokens that opened a
session, kept until they expire so that none opens a second.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_identities",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("issuer", sa.String(200), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("linked_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_player_identities_app_id_apps")
        ),
        sa.PrimaryKeyConstraint("app_id", "issuer", "subject", name=op.f("pk_player_identities")),
    )
    op.create_index(
        "ix_player_identities_player", "player_identities", ["app_id", "player_id"], unique=False
    )
    op.create_table(
        "spent_identity_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_spent_identity_tokens")),
    )
    op.create_index(
        op.f("ix_spent_identity_tokens_expires_at"),
        "spent_identity_tokens",
        ["expires_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_spent_identity_tokens_expires_at"), table_name="spent_identity_tokens")
    op.drop_table("spent_identity_tokens")
    op.drop_index("ix_player_identities_player", table_name="player_identities")
    op.drop_table("player_identities")
