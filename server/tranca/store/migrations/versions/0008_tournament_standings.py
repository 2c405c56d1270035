"""Tournaments keep their standings (``tournaments.standings``, JSON), written with
every change that moves them (a result, a pairing's byes, a withdrawal) in the
transaction that records it, so that reading a tournament does not compute them.
NULL for a tournament stored before: its standings are computed when it is read,
until its next change stores them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("standings", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("standings")
