"""Player sessions: each session's refresh token family (``family_hash``, unique),
which every refresh token of the session carries, so that any of its spent refresh
tokens, not only the last, is known as one and ends the session; NULL for the
sessions opened before, until their next refresh. And when each session opened by
the server's clock (``created_ms``, epoch ms), the stable order ListPlayerSessions
pages in by position, filled in from ``created_at`` for the sessions already there,
with an index by app.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-15
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# created_at as epoch ms, per database (SQLite keeps it as UTC text).
_CREATED_MS = {
    "postgresql": "CAST(ROUND(EXTRACT(EPOCH FROM created_at) * 1000) AS BIGINT)",
    "sqlite": "CAST(ROUND((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER)",
}


def upgrade() -> None:
    with op.batch_alter_table("player_sessions") as batch:
        batch.add_column(sa.Column("family_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("created_ms", sa.BigInteger(), nullable=True))
    created_ms = _CREATED_MS[op.get_bind().dialect.name]
    op.execute(f"UPDATE player_sessions SET created_ms = {created_ms}")
    with op.batch_alter_table("player_sessions") as batch:
        batch.alter_column("created_ms", existing_type=sa.BigInteger(), nullable=False)
        batch.create_index("ix_player_sessions_family_hash", ["family_hash"], unique=True)
        batch.create_index(
            "ix_player_sessions_app_created", ["app_id", "created_ms", "id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("player_sessions") as batch:
        batch.drop_index("ix_player_sessions_app_created")
        batch.drop_index("ix_player_sessions_family_hash")
        batch.drop_column("created_ms")
        batch.drop_column("family_hash")
