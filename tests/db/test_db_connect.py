"""db.connect's SQLite adapter: however SQLAlchemy combines its ways of
closing a connection (graceful close, forced close, pool close), each
finishes and aiosqlite's thread ends: a close must never wait forever on a
thread that already stopped."""

from __future__ import annotations

import asyncio
import itertools
import time

import aiosqlite
import pytest
from sqlalchemy import text

from db.connect import _ONE_HOP_AIOSQLITE, _OneHopConnection, create_engine_for, stopped_driver_threads_ended

BOUND = 5.0  # seconds; each step takes milliseconds, a hang never ends


async def _connection(tmp_path) -> _OneHopConnection:
    driver = await aiosqlite.connect(str(tmp_path / "closing.db"))
    return _OneHopConnection(_ONE_HOP_AIOSQLITE, driver)


async def _finishes(awaitable) -> bool:
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=BOUND)
    if not done:
        task.cancel()
    return bool(done)


async def _thread_ends(connection: _OneHopConnection) -> bool:
    thread = connection._connection._thread
    for _ in range(int(BOUND / 0.01)):
        if not thread.is_alive():
            return True
        await asyncio.sleep(0.01)
    return False


async def test_a_cancelled_graceful_close_after_a_forced_close_finishes(tmp_path) -> None:
    """What SQLAlchemy does when the task invalidating a connection is cancelled
    while its shielded graceful close is queued, and the close is cancelled too."""
    connection = await _connection(tmp_path)
    graceful = asyncio.ensure_future(connection._terminate_graceful_close())
    await asyncio.sleep(0)  # the graceful close is queued on the driver's thread
    connection._terminate_force_close()
    graceful.cancel()
    assert await _finishes(asyncio.wait({graceful}))
    assert await _thread_ends(connection)


@pytest.mark.parametrize("order", list(itertools.permutations(["graceful", "force", "graceful-again"])))
async def test_every_order_of_closing_finishes(tmp_path, order) -> None:
    connection = await _connection(tmp_path)
    for step in order:
        if step == "force":
            connection._terminate_force_close()
        else:
            assert await _finishes(connection._terminate_graceful_close())
    assert await _thread_ends(connection)


async def test_the_pool_closes_an_engine_whose_work_was_cancelled_twice(tmp_path) -> None:
    """End to end: statements cancelled (twice, as a shutdown does) in the
    middle of their work, then the engine disposed; nothing is left waiting.
    (A smoke test of the whole path: its timing rarely hits the race that the
    tests above set up step by step.)"""
    engine = create_engine_for(f"sqlite+aiosqlite:///{tmp_path / 'engine.db'}")

    async def busy() -> None:
        while True:
            async with engine.connect() as connection:
                await connection.execute(text("SELECT 1"))

    tasks = [asyncio.ensure_future(busy()) for _ in range(4)]
    await asyncio.sleep(0.05)
    for _ in range(2):
        for task in tasks:
            task.cancel()
        await asyncio.sleep(0)
    assert await _finishes(asyncio.wait(tasks))
    assert await _finishes(engine.dispose())


def _queue_slow_work(connection: _OneHopConnection, seconds: float) -> None:
    """Work already on the driver's thread when it is told to stop (the thread finishes it first)."""
    connection._connection._tx.put_nowait((None, lambda: time.sleep(seconds)))


async def test_disposing_waits_until_stopped_driver_threads_have_ended(tmp_path) -> None:
    """A forced close returns at once; the thread ends later and reports to the
    loop, which must still be running then (else a warning in the thread)."""
    connection = await _connection(tmp_path)
    thread = connection._connection._thread
    _queue_slow_work(connection, 0.2)
    connection._terminate_force_close()
    assert thread.is_alive()
    assert await stopped_driver_threads_ended(timeout=BOUND)
    assert not thread.is_alive()


async def test_waiting_for_driver_threads_is_bounded(tmp_path) -> None:
    connection = await _connection(tmp_path)
    _queue_slow_work(connection, 1.0)
    connection._terminate_force_close()
    assert not await stopped_driver_threads_ended(timeout=0.05)
    assert await stopped_driver_threads_ended(timeout=BOUND)
