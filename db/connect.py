"""Engine construction: one URL in, an AsyncEngine set up for its backend out.

SQLite (the default, a file next to the bot) and PostgreSQL are both driven
through SQLAlchemy's asyncio extension.  On SQLite the driver's own
transaction handling is switched off and this module emits BEGIN itself, as
SQLAlchemy's documentation recommends, so that write units of work take the
database lock at ``BEGIN IMMEDIATE``: concurrent writers then queue on
``busy_timeout`` instead of failing with "database is locked" half-way
through, and no write is ever based on a stale read.

SQLite statements go through a leaner adapter of aiosqlite than
SQLAlchemy's own (see :class:`_OneHopAiosqlite`): aiosqlite runs every call
in its own thread, and SQLAlchemy's cursor makes three or four such calls per
statement (open a cursor, execute, fetch, close) where one does.

PostgreSQL connections are checked for life at checkout without the round
trips of ``pool_pre_ping`` (see :func:`_install_liveness_checks`).
"""

from __future__ import annotations

import asyncio
import collections
import sqlite3
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import aiosqlite
from sqlalchemy import event, exc
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry, NullPool
from sqlalchemy.util import await_

DEFAULT_URL = "sqlite+aiosqlite:///tienlen.db"

SQLITE_BUSY_TIMEOUT_SECONDS = 30

# Switching a fresh file to WAL needs an exclusive lock and SQLite does not
# call the busy handler for it, so processes opening a new database together
# can get "database is locked" at once; they retry for this long instead.
_WAL_SWITCH_RETRY_SECONDS = 5.0
_WAL_SWITCH_RETRY_PAUSE = 0.02

# Execution option read by the "begin" hook: how a SQLite transaction begins.
SQLITE_BEGIN_OPTION = "tienlen_sqlite_begin"

# A pooled PostgreSQL connection that sat unused this long is pinged before
# it is handed out (see _install_liveness_checks).  Links that drop idle
# connections without a word (NAT, load balancers) wait minutes, not seconds.
IDLE_PING_SECONDS = 30.0


def is_sqlite(url: str | URL) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def create_engine_for(
    url: str | URL,
    *,
    connect_args: Mapping[str, Any] | None = None,
    foreign_keys: bool = True,
    pooled: bool = True,
    echo: bool = False,
) -> AsyncEngine:
    """Build an AsyncEngine for ``url`` with this project's per-backend set-up.

    ``foreign_keys=False`` is for migrations only: SQLite must not enforce
    foreign keys while a batch migration drops and recreates a parent table.
    """
    # Statement parameters carry hands and played cards: an error's text must
    # never quote them (they would reach the log with its traceback).
    options: dict[str, Any] = {"echo": echo, "hide_parameters": True}
    if not pooled:
        options["poolclass"] = NullPool
    else:
        # Last in, first out: a lone writer keeps reusing the connection it
        # just gave back, whose prepared statements (PostgreSQL) and driver
        # thread (aiosqlite) are warm, instead of cycling through every
        # connection a busy moment opened.
        options["pool_use_lifo"] = True
        # Connections kept open between bursts: beyond pool_size, a returned
        # connection is closed, and the next burst pays for a new one
        # (connect, set-up queries, every statement prepared again).  Eight
        # concurrent PostgreSQL writers at the default of five reached 60 %
        # of the raw driver's settlements/s, 84 % with ten.
        options["pool_size"] = 10
    if is_sqlite(url):
        args = {"timeout": SQLITE_BUSY_TIMEOUT_SECONDS, **(connect_args or {})}
        engine = create_async_engine(url, connect_args=args, module=_ONE_HOP_AIOSQLITE, **options)
        _install_sqlite_hooks(engine.sync_engine, foreign_keys=foreign_keys)
        return engine
    engine = create_async_engine(url, connect_args=dict(connect_args or {}), **options)
    _install_liveness_checks(engine.sync_engine)
    return engine


def _install_liveness_checks(engine: Engine) -> None:
    """Never hand out a dead PostgreSQL connection, without pool_pre_ping's
    round trips at every checkout.

    A long-running bot outlives server restarts and idle-connection reaping.
    ``pool_pre_ping`` survives them by pinging at every checkout: three round
    trips with asyncpg (BEGIN, an empty query, ROLLBACK), more than a whole
    action-log write.  Instead:

    * a connection the server closed (restart, terminated backend, idle
      timeout: the server says goodbye and the event loop sees the socket
      close) is known to asyncpg as closed, checked for free at every
      checkout; it and every connection opened before it are replaced, as a
      failed pre-ping does;
    * a connection unused for IDLE_PING_SECONDS is pinged first, as with
      pool_pre_ping: a link dropped without a word (NAT, firewall) only
      shows when something is sent;
    * a connection that dies in the middle of use fails its transaction,
      and SQLAlchemy then invalidates the pool (the hot paths of
      :mod:`db.hot` run such a transaction again, see Database.hot_write).
    """
    dialect = engine.dialect

    def on_checkin(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info["idle_since"] = time.monotonic()

    def on_checkout(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        if _known_closed(record.driver_connection):
            raise exc.InvalidatePoolError("the server closed this connection")
        idle_since = record.info.pop("idle_since", None)
        if idle_since is None or time.monotonic() - idle_since < IDLE_PING_SECONDS:
            return
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            if dialect.is_disconnect(error, dbapi_connection, None):
                raise exc.InvalidatePoolError(f"ping failed: {error}") from error
            raise

    event.listen(engine, "checkin", on_checkin)
    event.listen(engine, "checkout", on_checkout)


def _known_closed(driver: Any) -> bool:
    """Whether the driver already knows its connection is gone (no round trip)."""
    is_closed = getattr(driver, "is_closed", None)  # asyncpg's
    return driver is None or (is_closed is not None and bool(is_closed()))


def sqlite_pragmas(*, foreign_keys: bool = True) -> list[str]:
    """The PRAGMAs every connection runs once busy_timeout and WAL are set.

    ``synchronous`` stays at SQLite's default, FULL: every commit syncs the
    WAL, so a committed settlement survives even a power cut.  NORMAL would
    sync only at checkpoints (a bot crash still loses nothing, a power cut
    or OS crash may lose the last commits, the file stays consistent); on
    the project machine it made no measurable difference (BENCHMARKS.md),
    so durability wins.

    (Public so that the benchmark's raw-driver side runs exactly these too.)
    """
    return [f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}"]


def _install_sqlite_hooks(engine: Engine, *, foreign_keys: bool) -> None:
    def on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # The driver must not emit BEGIN itself; on_begin does.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_SECONDS * 1000}")
        _enable_wal(cursor)
        for pragma in sqlite_pragmas(foreign_keys=foreign_keys):
            cursor.execute(pragma)
        cursor.close()

    def on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(SQLITE_BEGIN_OPTION, "DEFERRED")
        # Straight on the DBAPI cursor: BEGIN needs none of a statement's
        # compilation, events or result handling.
        cursor = connection.connection.cursor()
        try:
            cursor.execute(sqlite_begin_statement(mode))
        finally:
            cursor.close()

    event.listen(engine, "connect", on_connect)
    event.listen(engine, "begin", on_begin)


def sqlite_begin_statement(mode: str) -> str:
    """SQLite's BEGIN for ``DEFERRED``, ``IMMEDIATE`` or ``EXCLUSIVE``."""
    if mode not in ("DEFERRED", "IMMEDIATE", "EXCLUSIVE"):
        raise ValueError(f"not a SQLite transaction mode: {mode!r}")
    return f"BEGIN {mode}"


def _enable_wal(cursor: Any) -> None:
    """Put the database in WAL mode, retrying while another connection holds
    the lock that the switch needs.

    WAL is persistent, so the switch (and any wait) happens only when a new
    file is first opened; the brief blocking pauses are confined to start-up.
    """
    deadline = time.monotonic() + _WAL_SWITCH_RETRY_SECONDS
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except Exception as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(_WAL_SWITCH_RETRY_PAUSE)


# ------------------------------------------------ one thread hop per statement


def run_statement(
    connection: sqlite3.Connection, operation: str, parameters: Any, many: bool
) -> tuple[Any, int, int | None, list[Any] | None]:
    """In aiosqlite's thread: execute, fetch every row, close; the results.

    (One trip to the thread per statement, for this module's cursor and
    for the hot paths of :mod:`db.hot`.)
    """
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else None
        return description, cursor.rowcount, cursor.lastrowid, rows
    finally:
        cursor.close()


class _OneHopCursor(AsyncAdapt_aiosqlite_cursor):
    """SQLAlchemy's aiosqlite cursor, minus three of its four thread hops.

    SQLAlchemy's adapter opens an aiosqlite cursor, executes, fetches the rows
    and closes the cursor, each a round trip to aiosqlite's thread (queue,
    thread switch, call_soon_threadsafe).  This one does all of it in one
    trip; the rows are buffered exactly as SQLAlchemy's (non server-side)
    cursor buffers them.  Server-side cursors keep SQLAlchemy's own class.
    """

    __slots__ = ("_description", "_rowcount", "_lastrowid", "_arraysize")

    def __init__(self, adapt_connection: AsyncAdapt_aiosqlite_connection) -> None:
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = {}
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None
        self._arraysize = 1

    @property
    def arraysize(self) -> int:
        return self._arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._arraysize = value

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> int:
        return self._lastrowid  # type: ignore[return-value]

    async def _async_soft_close(self) -> None:
        pass  # nothing is open between statements

    def close(self) -> None:
        self._rows.clear()

    async def _run(self, operation: Any, parameters: Any, many: bool) -> None:
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        async with self._adapt_connection._execute_mutex:
            description, rowcount, lastrowid, rows = await connection._execute(
                run_statement, connection._conn, operation, parameters, many
            )
        self._description, self._rowcount, self._lastrowid = description, rowcount, lastrowid
        self._rows = collections.deque(rows or ())

    async def _execute_async(self, operation: Any, parameters: Any) -> Any:
        await self._run(operation, parameters, many=False)

    async def _executemany_async(self, operation: Any, seq_of_parameters: Sequence[Any]) -> Any:
        await self._run(operation, seq_of_parameters, many=True)

    def setinputsizes(self, *inputsizes: Any) -> None:
        pass


class _OneHopConnection(AsyncAdapt_aiosqlite_connection):
    """SQLAlchemy's aiosqlite connection with :class:`_OneHopCursor`, and a
    driver thread that is stopped exactly once.

    aiosqlite's thread ends at the first ``stop()``; anything queued behind it,
    such as the second ``stop()`` its own ``close()`` makes in ``finally``,
    waits forever.  SQLAlchemy can make both: a task cancelled while its
    connection is being invalidated force-closes it while the shielded
    graceful close is still queued, and a cancelled graceful close then hung
    the bot's shutdown.  Every way of closing here goes through
    :func:`_stop_once`.
    """

    __slots__ = ()
    _cursor_cls = _OneHopCursor

    def close(self) -> None:
        await_(self._terminate_graceful_close())

    async def _terminate_graceful_close(self) -> None:
        stopped = _stop_once(self._connection)
        if stopped is not None:
            await stopped

    def _terminate_force_close(self) -> None:
        _stop_once(self._connection)

    def rollback(self) -> None:
        # The pool rolls back every connection it gets back, most of them
        # already committed: skip the thread hop when there is nothing to undo.
        driver: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        if driver._connection is not None and not driver._connection.in_transaction:
            return
        super().rollback()


_STOPPING_THREADS: "weakref.WeakSet[threading.Thread]" = weakref.WeakSet()
"""aiosqlite threads asked to stop; :func:`stopped_driver_threads_ended` waits for them."""


def _stop_once(driver: aiosqlite.Connection) -> asyncio.Future | None:
    """Close the SQLite connection and end aiosqlite's thread after the work
    already queued (a transaction left open is rolled back), unless that was
    asked already; the future resolves when it is done."""
    if not driver._running:
        return None
    _STOPPING_THREADS.add(driver._thread)
    return driver.stop()


async def stopped_driver_threads_ended(timeout: float = 2.0) -> bool:
    """Wait (at most ``timeout`` s) until every aiosqlite thread asked to stop
    has ended; whether they all did.

    A close that was cancelled or forced returns before its thread has
    finished, and the thread then reports to the event loop: if the loop has
    closed by then, the report fails in the thread.  Disposing of a database
    waits here so that its threads end while their loop still runs.  It waits
    for every stopping thread of the process, other databases' included: a
    thread that was told to stop ends within milliseconds, and the wait is
    bounded."""
    deadline = time.monotonic() + timeout
    while any(thread.is_alive() for thread in list(_STOPPING_THREADS)):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.005)
    return True


class _OneHopAiosqlite(AsyncAdapt_aiosqlite_dbapi):
    """The aiosqlite DBAPI module as SQLAlchemy adapts it, with
    :class:`_OneHopCursor` for statements (``create_engine(module=...)``)."""

    def connect(self, *arg: Any, **kw: Any) -> _OneHopConnection:
        creator_fn = kw.pop("async_creator_fn", None)
        connection = creator_fn(*arg, **kw) if creator_fn else self.aiosqlite.connect(*arg, **kw)
        if not creator_fn:
            connection._thread.daemon = True  # as SQLAlchemy does
        return _OneHopConnection(self, await_(connection))


_ONE_HOP_AIOSQLITE = _OneHopAiosqlite(aiosqlite, sqlite3)
