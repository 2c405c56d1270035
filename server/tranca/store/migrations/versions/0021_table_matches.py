"""Tables that outlive their match: ``table_matches``, one row per match played at a
table after its first (services/rematch.py). A table's id is its first match's game
id; a rematch creates the next match's game and its row in one transaction, and the
primary key (table, match number) lets exactly one rematch create it, whichever
replica confirms first.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "table_matches",
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("match_number", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_table_matches_game_id_games")
        ),
        sa.PrimaryKeyConstraint("table_id", "match_number", name=op.f("pk_table_matches")),
        sa.UniqueConstraint("game_id", name=op.f("uq_table_matches_game_id")),
    )


def downgrade() -> None:
    op.drop_table("table_matches")
