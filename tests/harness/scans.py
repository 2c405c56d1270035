"""A search of a whole database for text: every table the migrations made (read off
the database itself, not the models) and every text column of each, for the tests
that must show a string is nowhere (an erased player's name and id)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, Text, inspect, select, table
from sqlalchemy import column as sql_column
from sqlalchemy.engine import Connection
from sqlalchemy.sql.expression import ColumnClause

# Fewer text columns than this and the scan is not seeing the schema.
SCHEMA_TEXT_COLUMNS = 40


def text_columns(conn: Connection) -> list[tuple[str, str]]:
    """Every (table, column) of a text type, as the database has them."""
    found = inspect(conn)
    return [
        (name, col["name"])
        for name in found.get_table_names()
        for col in found.get_columns(name)
        if isinstance(col["type"], String | Text)
    ]


def text_hits(conn: Connection, needles: tuple[str, ...]) -> list[str]:
    """Each "table.column: needle" where some row's text holds ``needle``."""
    columns = text_columns(conn)
    assert len(columns) > SCHEMA_TEXT_COLUMNS, columns
    hits: list[str] = []
    for name, col in columns:
        target: ColumnClause[Any] = sql_column(col)
        source = table(name, target)
        for needle in needles:
            q = select(target).select_from(source).where(target.contains(needle, autoescape=True))
            if conn.execute(q.limit(1)).first() is not None:
                hits.append(f"{name}.{col}: {needle}")
    return hits
