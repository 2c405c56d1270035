"""The move log partitioned by game on PostgreSQL: ``move_log`` becomes a table
``PARTITION BY HASH (game_id)`` with ``PARTITIONS`` partitions, kept in a schema of
their own (``move_log_parts``: the service and the models see only ``move_log``).
SQLite is left as it is.

Why: one log table grows without bound; hash partitions keep each one's indexes a
fraction of the whole (a game's moves are all in one partition, so every query of
the service, which names its game, reads one), let VACUUM and a rebuild work one
partition at a time, and give the same key as a distributed PostgreSQL (Citus)
distributes by (docs/OPERATIONS.md, "Partitions and sharding").

On an existing database the rows are copied: the old table is renamed, the new one
created with the same columns, keys and foreign key, the rows copied in one
``INSERT ... SELECT``, and the old one dropped, all in the migration's transaction
(the log is locked meanwhile: run it in a maintenance window on a big database, or
with the steps in the operations guide).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PARTITIONS = 16
SCHEMA = "move_log_parts"

COLUMNS = """
    game_id VARCHAR(32) NOT NULL,
    version BIGINT NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    request_id VARCHAR(128),
    actor VARCHAR(16) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE DEFAULT now() NOT NULL,
    CONSTRAINT pk_move_log PRIMARY KEY (game_id, version),
    CONSTRAINT uq_move_log_request UNIQUE (game_id, request_id),
    CONSTRAINT fk_move_log_game_id_games FOREIGN KEY (game_id) REFERENCES games (id)
"""
COPY = (
    "INSERT INTO move_log (game_id, version, seat, action, request_id, actor, created_at)"
    " SELECT game_id, version, seat, action, request_id, actor, created_at FROM {}"
)


def _set_aside() -> None:
    """The current table renamed, with its constraints (their indexes' names are the
    schema's), for the copy."""
    op.execute("ALTER TABLE move_log RENAME TO move_log_old")
    for name in ("pk_move_log", "uq_move_log_request", "fk_move_log_game_id_games"):
        op.execute(f"ALTER TABLE move_log_old RENAME CONSTRAINT {name} TO {name}_old")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _set_aside()
    op.execute(f"CREATE TABLE move_log ({COLUMNS}) PARTITION BY HASH (game_id)")
    op.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    for i in range(PARTITIONS):
        op.execute(
            f"CREATE TABLE {SCHEMA}.move_log_p{i:02d} PARTITION OF move_log"
            f" FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {i})"
        )
    op.execute(COPY.format("move_log_old"))
    op.execute("DROP TABLE move_log_old")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _set_aside()
    op.execute(f"CREATE TABLE move_log ({COLUMNS})")
    op.execute(COPY.format("move_log_old"))
    op.execute("DROP TABLE move_log_old")  # its partitions with it
    op.execute(f"DROP SCHEMA IF EXISTS {SCHEMA}")
