"""The move path's own PostgreSQL connection pool (store/move_path.py), with stand-in
connections: it never opens more than its size, serves waiters in order, replaces
a broken connection, and loses no slot to a waiter that gives up."""

from __future__ import annotations

import asyncio

import pytest

from tranca.store.postgres import ConnectionPool

pytestmark = pytest.mark.asyncio


class FakeConnection:
    def __init__(self, number: int) -> None:
        self.number = number
        self.closed = False

    def is_closed(self) -> bool:
        return self.closed

    def terminate(self) -> None:
        self.closed = True

    async def close(self) -> None:
        self.closed = True


class Opener:
    def __init__(self, fail: int = 0) -> None:
        self.opened: list[FakeConnection] = []
        self.fail = fail

    async def __call__(self) -> FakeConnection:
        await asyncio.sleep(0)
        if self.fail:
            self.fail -= 1
            raise OSError("connection refused")
        conn = FakeConnection(len(self.opened))
        self.opened.append(conn)
        return conn


async def test_never_more_connections_than_its_size_and_waiters_in_order() -> None:
    opener = Opener()
    pool = ConnectionPool(opener, 2)
    a = await pool.acquire()
    b = await pool.acquire()
    served: list[int] = []

    async def wait(tag: int) -> None:
        conn = await pool.acquire()
        served.append(tag)
        pool.release(conn, broken=False)

    waiters = [asyncio.create_task(wait(i)) for i in range(3)]
    await asyncio.sleep(0.01)
    assert served == [] and len(opener.opened) == 2
    pool.release(a, broken=False)
    pool.release(b, broken=False)
    await asyncio.gather(*waiters)
    assert served == [0, 1, 2]
    assert len(opener.opened) == 2  # the same two connections went round


async def test_a_broken_connection_is_closed_and_replaced() -> None:
    opener = Opener()
    pool = ConnectionPool(opener, 1)
    first = await pool.acquire()
    waiting = asyncio.create_task(pool.acquire())
    await asyncio.sleep(0.01)
    pool.release(first, broken=True)
    second = await waiting
    assert first.closed and second is not first and not second.closed
    assert len(opener.opened) == 2


async def test_a_waiter_that_gives_up_keeps_no_slot() -> None:
    opener = Opener()
    pool = ConnectionPool(opener, 1)
    held = await pool.acquire()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.01):
            await pool.acquire()
    pool.release(held, broken=True)  # frees the only slot
    again = await asyncio.wait_for(pool.acquire(), 1)  # not lost to the gone waiter
    assert not again.closed


async def test_a_failed_open_frees_its_slot() -> None:
    opener = Opener(fail=1)
    pool = ConnectionPool(opener, 1)
    with pytest.raises(OSError):
        await pool.acquire()
    conn = await asyncio.wait_for(pool.acquire(), 1)
    assert not conn.closed


async def test_close_closes_the_idle_connections() -> None:
    opener = Opener()
    pool = ConnectionPool(opener, 2)
    a = await pool.acquire()
    pool.release(a, broken=False)
    await pool.close()
    assert a.closed
