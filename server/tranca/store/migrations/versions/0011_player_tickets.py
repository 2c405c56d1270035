"""Quick play: ``player_tickets``, every ticket a player is or was in (one row per
player of each ticket, with the ticket's ``created_ms``), so that a player's tickets
are listed newest first (ListQuickPlayTickets) by an index. Filled from the tickets
stored before.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Tickets copied per statement while filling the table.
BATCH = 1000


def upgrade() -> None:
    player_tickets = op.create_table(
        "player_tickets",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("ticket_id", sa.String(32), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ticket_id"],
            ["match_tickets.id"],
            name=op.f("fk_player_tickets_ticket_id_match_tickets"),
        ),
        sa.PrimaryKeyConstraint("app_id", "player_id", "ticket_id", name=op.f("pk_player_tickets")),
    )
    op.create_index(
        "ix_player_tickets_newest",
        "player_tickets",
        ["app_id", "player_id", "created_ms", "ticket_id"],
        unique=False,
    )
    tickets = sa.table(
        "match_tickets",
        sa.column("id", sa.String),
        sa.column("app_id", sa.String),
        sa.column("player_ids", sa.Text),
        sa.column("created_ms", sa.BigInteger),
    )
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(tickets.c.id, tickets.c.app_id, tickets.c.player_ids, tickets.c.created_ms)
    )
    while chunk := rows.fetchmany(BATCH):
        copied = [
            {"app_id": r.app_id, "player_id": p, "ticket_id": r.id, "created_ms": r.created_ms}
            for r in chunk
            for p in json.loads(r.player_ids)
        ]
        if copied:
            bind.execute(sa.insert(player_tickets), copied)


def downgrade() -> None:
    op.drop_index("ix_player_tickets_newest", table_name="player_tickets")
    op.drop_table("player_tickets")
