"""The platform: table deadlines, settlement and invite codes on games; player ids and
addresses on tokens; seat presence; ratings; ranking points; the chip ledger;
tournaments.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _now() -> sa.Column[Any]:
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    )


def upgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.add_column(sa.Column("deadline_at", sa.BigInteger(), nullable=True))
        games.add_column(sa.Column("settled", sa.Boolean(), server_default="0", nullable=False))
        games.add_column(sa.Column("invite_hash", sa.String(64), nullable=True))
    # Games that ended before this release had nothing to settle. Only finished rows
    # are touched: games in play (served meanwhile by the old pods) are not locked.
    op.execute("UPDATE games SET settled = true WHERE status = 'finished'")
    if op.get_bind().dialect.name == "postgresql":
        # Built without blocking the moves of a live deployment (docs/OPERATIONS.md).
        with op.get_context().autocommit_block():
            op.create_index(
                "ix_games_deadline", "games", ["deadline_at"], postgresql_concurrently=True
            )
            op.create_index(
                "ix_games_unsettled", "games", ["status", "settled"], postgresql_concurrently=True
            )
    else:
        op.create_index("ix_games_deadline", "games", ["deadline_at"])
        op.create_index("ix_games_unsettled", "games", ["status", "settled"])
    with op.batch_alter_table("player_tokens") as tokens:
        tokens.add_column(sa.Column("player_id", sa.String(128), nullable=True))
        tokens.add_column(sa.Column("address", sa.String(64), server_default="", nullable=False))

    op.create_table(
        "seat_presence",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("last_seen_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_seat_presence"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_seat_presence_game_id_games"),
    )
    op.create_table(
        "player_ratings",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("app_id", "player_id", name="pk_player_ratings"),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name="fk_player_ratings_app_id_apps"),
    )
    op.create_table(
        "ranking_awards",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("awarded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("app_id", "game_id", "player_id", name="pk_ranking_awards"),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name="fk_ranking_awards_app_id_apps"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_ranking_awards_game_id_games"),
    )
    op.create_index("ix_ranking_awards_app_time", "ranking_awards", ["app_id", "awarded_at"])
    op.create_table(
        "chip_accounts",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("account", sa.String(200), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("app_id", "account", name="pk_chip_accounts"),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name="fk_chip_accounts_app_id_apps"),
    )
    op.create_table(
        "chip_entries",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("txn", sa.String(64), nullable=False),
        sa.Column("account", sa.String(200), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("reference", sa.String(128), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        _now(),
        sa.PrimaryKeyConstraint("id", name="pk_chip_entries"),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name="fk_chip_entries_app_id_apps"),
    )
    op.create_index("ix_chip_entries_account", "chip_entries", ["app_id", "account", "id"])
    op.create_index("ix_chip_entries_reference", "chip_entries", ["app_id", "reference"])
    op.create_table(
        "chip_operations",
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        _now(),
        sa.PrimaryKeyConstraint("app_id", "key", name="pk_chip_operations"),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name="fk_chip_operations_app_id_apps"),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("config", sa.Text(), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        _now(),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name="fk_tournaments_app_id_apps"),
    )
    op.create_index("ix_tournaments_app_id", "tournaments", ["app_id"])
    op.create_table(
        "tournament_games",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("tournament_id", sa.String(32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", name="pk_tournament_games"),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_tournament_games_game_id_games"
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_games_tournament_id_tournaments",
        ),
        sa.UniqueConstraint("tournament_id", "round", "table_no", name="uq_tournament_games_table"),
    )
    op.create_index("ix_tournament_games_tournament_id", "tournament_games", ["tournament_id"])


def downgrade() -> None:
    op.drop_table("tournament_games")
    op.drop_table("tournaments")
    op.drop_table("chip_operations")
    op.drop_table("chip_entries")
    op.drop_table("chip_accounts")
    op.drop_table("ranking_awards")
    op.drop_table("player_ratings")
    op.drop_table("seat_presence")
    with op.batch_alter_table("player_tokens") as tokens:
        tokens.drop_column("address")
        tokens.drop_column("player_id")
    op.drop_index("ix_games_unsettled", "games")
    op.drop_index("ix_games_deadline", "games")
    with op.batch_alter_table("games") as games:
        games.drop_column("invite_hash")
        games.drop_column("settled")
        games.drop_column("deadline_at")
