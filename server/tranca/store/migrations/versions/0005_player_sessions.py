"""Player sessions: an end user's session with an app (``player_sessions``: the
access and refresh tokens' hashes, their lifetimes, the rotated refresh token's
hash for reuse detection), each app's policy for its players (``apps.policy``,
JSON), and the session a seat token was issued to (``player_tokens.session_id``),
so that signing out or revoking a player revokes its seat tokens in the same
transaction.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("apps") as apps:
        apps.add_column(sa.Column("policy", sa.Text(), nullable=False, server_default="{}"))
    op.create_table(
        "player_sessions",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("display_name", sa.String(200), nullable=False, server_default=""),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("access_hash", sa.String(64), nullable=False),
        sa.Column("access_expires_at", sa.BigInteger(), nullable=False),
        sa.Column("refresh_hash", sa.String(64), nullable=False),
        sa.Column("refresh_expires_at", sa.BigInteger(), nullable=False),
        sa.Column("previous_refresh_hash", sa.String(64), nullable=True),
        sa.Column("refreshed", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("revoked", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("address", sa.String(64), nullable=False, server_default=""),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("last_used_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"], ["apps.id"], name=op.f("fk_player_sessions_app_id_apps")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_sessions")),
        sa.UniqueConstraint("access_hash", name=op.f("uq_player_sessions_access_hash")),
        sa.UniqueConstraint("refresh_hash", name=op.f("uq_player_sessions_refresh_hash")),
    )
    op.create_index(
        "ix_player_sessions_player", "player_sessions", ["app_id", "player_id"], unique=False
    )
    op.create_index(
        op.f("ix_player_sessions_previous_refresh_hash"),
        "player_sessions",
        ["previous_refresh_hash"],
        unique=False,
    )
    with op.batch_alter_table("player_tokens") as tokens:
        tokens.add_column(sa.Column("session_id", sa.String(32), nullable=True))
        tokens.create_index(op.f("ix_player_tokens_session_id"), ["session_id"], unique=False)
        tokens.create_index(op.f("ix_player_tokens_player_id"), ["player_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("player_tokens") as tokens:
        tokens.drop_index(op.f("ix_player_tokens_player_id"))
        tokens.drop_index(op.f("ix_player_tokens_session_id"))
        tokens.drop_column("session_id")
    op.drop_index(op.f("ix_player_sessions_previous_refresh_hash"), table_name="player_sessions")
    op.drop_index("ix_player_sessions_player", table_name="player_sessions")
    op.drop_table("player_sessions")
    with op.batch_alter_table("apps") as apps:
        apps.drop_column("policy")
