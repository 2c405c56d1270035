"""Which database errors mean "the database is away" (UNAVAILABLE) rather than a bug."""

import asyncio

import pytest
from asyncpg import exceptions as pg
from sqlalchemy.exc import DBAPIError, OperationalError, ProgrammingError

from tranca.services.errors import Unavailable
from tranca.store.errors import Bounded, outages_as_unavailable
from tranca.store.errors import unavailable as _unavailable


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


async def test_a_database_call_past_its_deadline_is_unavailable() -> None:
    with pytest.raises(Unavailable) as raised:
        async with Bounded(0.01):
            await asyncio.sleep(5)
    assert isinstance(raised.value.__cause__, TimeoutError)


async def test_a_bounded_call_maps_outages_and_lets_bugs_and_cancellation_through() -> None:
    with pytest.raises(Unavailable) as raised:
        async with Bounded(5):
            raise ConnectionRefusedError("refused")
    assert isinstance(raised.value.__cause__, ConnectionRefusedError)
    with pytest.raises(ValueError, match="a bug"):
        async with Bounded(5):
            raise ValueError("a bug")
    # A cancelled caller stays cancelled, even when an outage was being handled.
    with pytest.raises(asyncio.CancelledError):
        async with Bounded(5):
            try:
                raise OSError("connection reset")
            finally:
                raise asyncio.CancelledError
    async with Bounded(5):  # a call within its deadline is left alone
        await asyncio.sleep(0)


def test_outages_outside_a_deadline_are_unavailable_and_bugs_are_not() -> None:
    with pytest.raises(Unavailable), outages_as_unavailable():
        raise wrapped(pg.AdminShutdownError("terminating connection"))
    with pytest.raises(ProgrammingError), outages_as_unavailable():
        raise ProgrammingError("SELEC 1", {}, Exception("syntax error"))
