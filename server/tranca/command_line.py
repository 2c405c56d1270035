"""The command line's conventions, shared by ``tranca`` and ``tranca loadtest``: every
mistake and refusal is one line on stderr, exit status 2 for a usage error and 1 for a
refusal at run time (``cli.py``'s docstring), and the databases named on a command
line are checked before anything uses them."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

USAGE = 2  # exit status of a usage error
REFUSED = 1  # exit status of a refusal at run time
DEFAULT_DATABASE_URL = "sqlite:///tranca.db"


class Refusal(Exception):
    """A refusal at run time: ``main`` prints it as one line and exits with 1."""


def usage_error(prog: str, message: str) -> NoReturn:
    """A usage error in one line on stderr, exit status 2."""
    print(f"{prog}: error: {message} (see {prog} --help)", file=sys.stderr, flush=True)
    raise SystemExit(USAGE)


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line (argparse prints its usage first)."""

    def error(self, message: str) -> NoReturn:
        usage_error(self.prog, message)


def first_line(exc: BaseException) -> str:
    """An exception's message, in one line (SQLAlchemy's run over several)."""
    cause = getattr(exc, "orig", None) or exc
    text = str(cause).strip() or type(cause).__name__
    return text.splitlines()[0]


# ----- databases -------------------------------------------------------------------------


def database_url(parser: argparse.ArgumentParser, url: str) -> str:
    """``url`` with its async driver, or a usage error if it is neither SQLite nor
    PostgreSQL (the only databases the service supports)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    from .store.database import normalise_url

    normalised = normalise_url(url)
    try:
        make_url(normalised)
    except ArgumentError:
        normalised = ""
    if not normalised.startswith(("sqlite+aiosqlite:///", "postgresql+asyncpg://")):
        parser.error(
            f"argument --database-url: {url!r} is not sqlite:///PATH or "
            "postgresql://USER@HOST/DATABASE"
        )
    return normalised


def shown(url: str) -> str:
    """A database URL as a user would type it, its password hidden."""
    from sqlalchemy.engine import make_url

    shown = make_url(url).render_as_string(hide_password=True)
    return shown.replace("sqlite+aiosqlite://", "sqlite://").replace(
        "postgresql+asyncpg://", "postgresql://"
    )


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL; None for PostgreSQL and an in-memory database."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    name = parsed.database or ""
    if not parsed.drivername.startswith("sqlite") or name in ("", ":memory:"):
        return None
    if name.startswith("file:"):  # a SQLite URI
        return None
    return Path(name)


async def require_schema(url: str, *, pgbouncer: bool = False) -> None:
    """Refuse a database that is not there or not at this release's schema head, and
    create nothing while finding out (SQLite creates a file it is asked to open)."""
    from .store import migrate

    named = shown(url)
    path = sqlite_file(url)
    if path is not None and not path.is_file():
        raise Refusal(
            f"there is no database at {path.absolute()}: "
            f"`tranca migrate --database-url {named}` creates it"
        )
    current = await migrate.current_revision(url, pgbouncer=pgbouncer)
    head = migrate.head_revision()
    if current != head:
        state = "has no schema" if current is None else f"has schema {current}"
        raise Refusal(
            f"the database at {named} {state}, not this release's {head}: "
            f"run `tranca migrate --database-url {named}` first"
        )


@contextlib.contextmanager
def database_errors(url: str) -> Iterator[None]:
    """A database that cannot be opened or reached, as a refusal in one line."""
    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from .services.errors import ServiceError

    try:
        yield
    except (SQLAlchemyError, ServiceError, CommandError, OSError) as exc:
        raise Refusal(f"cannot use the database at {shown(url)}: {first_line(exc)}") from exc
