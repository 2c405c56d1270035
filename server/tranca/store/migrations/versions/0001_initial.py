"""Initial schema: apps, games, player tokens, move log.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "apps",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("permissions", sa.String(500), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_apps"),
        sa.UniqueConstraint("key_hash", name="uq_apps_key_hash"),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("preset", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(200), nullable=False),
        sa.Column("setup", sa.Text(), nullable=False),
        sa.Column("snapshot", sa.Text(), nullable=False),
        sa.Column("snapshot_schema", sa.Integer(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(["app_id"], ["apps.id"], name="fk_games_app_id_apps"),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
    )
    op.create_index("ix_games_app_id", "games", ["app_id"])
    op.create_index("ix_games_app_created", "games", ["app_id", "created_at"])
    op.create_table(
        "player_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_name", sa.String(200), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_player_tokens_game_id_games"),
        sa.PrimaryKeyConstraint("token_hash", name="pk_player_tokens"),
    )
    op.create_index("ix_player_tokens_game_id", "player_tokens", ["game_id"])
    op.create_table(
        "move_log",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("request_id", sa.String(128), nullable=True),
        sa.Column("actor", sa.String(16), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_move_log_game_id_games"),
        sa.PrimaryKeyConstraint("game_id", "version", name="pk_move_log"),
        sa.UniqueConstraint("game_id", "request_id", name="uq_move_log_request"),
    )


def downgrade() -> None:
    op.drop_table("move_log")
    op.drop_index("ix_player_tokens_game_id", table_name="player_tokens")
    op.drop_table("player_tokens")
    op.drop_index("ix_games_app_created", table_name="games")
    op.drop_index("ix_games_app_id", table_name="games")
    op.drop_table("games")
    op.drop_table("apps")
