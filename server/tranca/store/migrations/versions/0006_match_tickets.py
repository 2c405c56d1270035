"""Quick play: ``match_tickets`` (a player or a party waiting for a table of one kind,
then the table it was matched at; a retried request finds its ticket by its
request id), and ``ticket_players`` (each player's one waiting
ticket: its primary key keeps a player from waiting twice, whichever replica is
asked).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "match_tickets",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_ids", sa.Text(), nullable=False),
        sa.Column("display_names", sa.Text(), nullable=False),
        sa.Column("preset", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("competitive", sa.Boolean(), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("robots_after_ms", sa.BigInteger(), nullable=False),
        sa.Column("turn_seconds", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False, server_default=""),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("ended_ms", sa.BigInteger(), nullable=True),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("seats", sa.Text(), nullable=True),
        sa.Column("request_id", sa.String(64), nullable=True),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name=op.f("fk_match_tickets_app_id_apps")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match_tickets")),
        sa.UniqueConstraint("app_id", "request_id", name="uq_match_tickets_request"),
    )
    op.create_index(
        "ix_match_tickets_waiting", "match_tickets", ["status", "created_ms"], unique=False
    )
    op.create_index(op.f("ix_match_tickets_app_id"), "match_tickets", ["app_id"], unique=False)
    op.create_table(
        "ticket_players",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("ticket_id", sa.String(32), nullable=False),
        sa.ForeignKeyConstraint(
            ["ticket_id"],
            ["match_tickets.id"],
            name=op.f("fk_ticket_players_ticket_id_match_tickets"),
        ),
        sa.PrimaryKeyConstraint("app_id", "player_id", name=op.f("pk_ticket_players")),
    )
    op.create_index(
        op.f("ix_ticket_players_ticket_id"), "ticket_players", ["ticket_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_ticket_players_ticket_id"), table_name="ticket_players")
    op.drop_table("ticket_players")
    op.drop_index(op.f("ix_match_tickets_app_id"), table_name="match_tickets")
    op.drop_index("ix_match_tickets_waiting", table_name="match_tickets")
    op.drop_table("match_tickets")
