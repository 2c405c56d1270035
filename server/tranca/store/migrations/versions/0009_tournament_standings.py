"""Tournaments keep their standings (``tournaments.standings``, JSON), written with
every change that moves them (a result, a pairing's byes, a withdrawal) in the
transaction that records it, so that reading a tournament does not compute them.
NULL for a tournament stored before: its standings are computed when it is read,
until its next change stores them. And ``tournaments.due_at`` (epoch ms, indexed):
when a scheduled tournament needs a replica's sweeper next (a round to start, a
round's deadline), claimed as games' ``deadline_at`` is. And what ListTournaments
filters and shows without reading the configuration: ``preset``, ``format``,
``start_at`` (epoch ms, 0: not scheduled) and ``entrants`` (entrants in), with an
index by app and status. Tournaments stored before get NULLs there (shown as
unknown, 0).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("standings", sa.Text(), nullable=True))
        batch.add_column(sa.Column("due_at", sa.BigInteger(), nullable=True))
        batch.create_index(op.f("ix_tournaments_due_at"), ["due_at"], unique=False)
        batch.add_column(sa.Column("preset", sa.String(64), nullable=True))
        batch.add_column(sa.Column("format", sa.String(32), nullable=True))
        batch.add_column(sa.Column("start_at", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("entrants", sa.Integer(), nullable=True))
        batch.create_index(op.f("ix_tournaments_app_id_status"), ["app_id", "status"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_index(op.f("ix_tournaments_app_id_status"))
        batch.drop_column("entrants")
        batch.drop_column("start_at")
        batch.drop_column("format")
        batch.drop_column("preset")
        batch.drop_index(op.f("ix_tournaments_due_at"))
        batch.drop_column("due_at")
        batch.drop_column("standings")
