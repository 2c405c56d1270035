"""Which database errors mean "the database is away" (UNAVAILABLE) rather than a bug."""

from asyncpg import exceptions as pg
from sqlalchemy.exc import DBAPIError, OperationalError, ProgrammingError

from tranca.store.repository import _unavailable


class Adapted(Exception):
    """Stands for SQLAlchemy's adapter around an asyncpg error."""


def wrapped(inner: BaseException) -> DBAPIError:
    adapted = Adapted(str(inner))
    adapted.__cause__ = inner
    return DBAPIError("SELECT 1", {}, adapted)


def test_connection_errors_raised_as_they_are_are_unavailable() -> None:
    assert _unavailable(pg.CannotConnectNowError("the database system is shutting down"))
    assert _unavailable(pg.ConnectionDoesNotExistError("connection was closed"))
    assert _unavailable(ConnectionRefusedError())
    assert _unavailable(TimeoutError())


def test_connection_errors_wrapped_by_sqlalchemy_are_unavailable() -> None:
    assert _unavailable(wrapped(pg.CannotConnectNowError("the database system is starting up")))
    assert _unavailable(wrapped(pg.AdminShutdownError("terminating connection")))
    assert _unavailable(OperationalError("SELECT 1", {}, Exception("server closed")))


def test_bugs_are_not_unavailable() -> None:
    assert not _unavailable(ValueError("a bug"))
    assert not _unavailable(ProgrammingError("SELEC 1", {}, Exception("syntax error")))
    assert not _unavailable(wrapped(pg.UndefinedTableError("no such table")))
