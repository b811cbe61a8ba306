"""Engine construction: one URL in, an AsyncEngine set up for its backend out.

SQLite (the default, a file next to the bot) and PostgreSQL are both driven
through SQLAlchemy's asyncio extension.  On SQLite the driver's own
transaction handling is switched off and this module emits BEGIN itself, as
SQLAlchemy's documentation recommends, so that write units of work take the
database lock at ``BEGIN IMMEDIATE``: concurrent writers then queue on
``busy_timeout`` instead of failing with "database is locked" half-way
through, and no write is ever based on a stale read.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry, NullPool

DEFAULT_URL = "sqlite+aiosqlite:///tienlen.db"

SQLITE_BUSY_TIMEOUT_SECONDS = 30

# Switching a fresh file to WAL needs an exclusive lock and SQLite does not
# call the busy handler for it, so processes opening a new database together
# can get "database is locked" at once; they retry for this long instead.
_WAL_SWITCH_RETRY_SECONDS = 5.0
_WAL_SWITCH_RETRY_PAUSE = 0.02

# Execution option read by the "begin" hook: how a SQLite transaction begins.
SQLITE_BEGIN_OPTION = "tienlen_sqlite_begin"


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
    options: dict[str, Any] = {"echo": echo}
    if not pooled:
        options["poolclass"] = NullPool
    if is_sqlite(url):
        args = {"timeout": SQLITE_BUSY_TIMEOUT_SECONDS, **(connect_args or {})}
        engine = create_async_engine(url, connect_args=args, **options)
        _install_sqlite_hooks(engine.sync_engine, foreign_keys=foreign_keys)
        return engine
    # A long-running bot outlives server restarts and idle-connection reaping.
    options["pool_pre_ping"] = True
    return create_async_engine(url, connect_args=dict(connect_args or {}), **options)


def sqlite_pragmas(*, foreign_keys: bool = True) -> list[str]:
    """The PRAGMAs every connection runs once busy_timeout and WAL are set.

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
        connection.exec_driver_sql(f"BEGIN {mode}")

    event.listen(engine, "connect", on_connect)
    event.listen(engine, "begin", on_begin)


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
