"""Watch leases: ``games.watched_until``, until when a replica has watch streams open
on the game; a move's write sends its NOTIFY hint only while it lies ahead.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column without a default: on PostgreSQL a change of the catalogue
    # only, with no table rewrite. Its lock on the table is held for an instant, but
    # it waits behind any transaction still using the table, and moves queue behind
    # it meanwhile (docs/OPERATIONS.md).
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("watched_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.drop_column("watched_until")
