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

from collections.abc import Mapping
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry, NullPool

DEFAULT_URL = "sqlite+aiosqlite:///tienlen.db"

SQLITE_BUSY_TIMEOUT_SECONDS = 30

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


def _install_sqlite_hooks(engine: Engine, *, foreign_keys: bool) -> None:
    def on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # The driver must not emit BEGIN itself; on_begin does.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_SECONDS * 1000}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
        cursor.close()

    def on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(SQLITE_BEGIN_OPTION, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    event.listen(engine, "connect", on_connect)
    event.listen(engine, "begin", on_begin)
