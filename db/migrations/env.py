"""Alembic environment for the bot's database (async template style).

Two ways in: the bot passes an open connection in ``config.attributes``
(see ``db.migrate``); the ``alembic`` command line builds its own engine from
``DATABASE_URL`` or ``sqlalchemy.url`` in alembic.ini.
"""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

from db.connect import DEFAULT_URL, create_engine_for
from db.models import Base

config = context.config
target_metadata = Base.metadata

# Only the CLI has an ini file; the bot keeps its own logging set-up.
if config.config_file_name is not None and config.attributes.get("connection") is None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _cli_url() -> str:
    return os.environ.get("DATABASE_URL") or config.get_main_option("sqlalchemy.url") or DEFAULT_URL


def run_migrations_offline() -> None:
    context.configure(
        url=_cli_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite can only change most things by rebuilding the table.
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations() -> None:
    engine = create_engine_for(_cli_url(), foreign_keys=False, pooled=False)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        do_run_migrations(connection)
    else:
        asyncio.run(run_async_migrations())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
