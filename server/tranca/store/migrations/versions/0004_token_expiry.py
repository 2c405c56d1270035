"""Token lifetimes: ``player_tokens.expires_at``, when a player token stops being
valid (milliseconds since the epoch). Tokens issued before this revision had no
lifetime: they get the server's default one (7 days) from the upgrade.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The server's default token lifetime when this revision was written (Config).
DEFAULT_LIFETIME_MS = 7 * 24 * 3600 * 1000


def upgrade() -> None:
    # Nullable, then filled: a token without an expiry is never accepted (a lookup
    # compares it with the clock), so no row may stay NULL.
    with op.batch_alter_table("player_tokens") as tokens:
        tokens.add_column(sa.Column("expires_at", sa.BigInteger(), nullable=True))
    expires = int(time.time() * 1000) + DEFAULT_LIFETIME_MS
    op.execute(
        sa.text(
            "UPDATE player_tokens SET expires_at = :expires WHERE expires_at IS NULL"
        ).bindparams(expires=expires)
    )


def downgrade() -> None:
    with op.batch_alter_table("player_tokens") as tokens:
        tokens.drop_column("expires_at")
