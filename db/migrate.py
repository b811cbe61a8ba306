"""Running the Alembic migrations from inside the bot.

The bot calls :func:`upgrade_to_head` (through ``Database.upgrade``) at
start-up; anything that stops the schema from reaching the newest revision
becomes a :class:`~db.errors.SchemaError` with a one-line message for the
operator.  Developers can also run ``alembic upgrade head`` with the
repository's ``alembic.ini``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.util.exc import CommandError
from sqlalchemy import exc as sa_exc
from sqlalchemy import text
from sqlalchemy.engine import Connection, make_url

from db.connect import SQLITE_BEGIN_OPTION, create_engine_for, is_sqlite
from db.errors import SchemaError

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

# Any fixed number: PostgreSQL advisory lock taken while migrating, so that
# several bot processes starting together migrate one after the other.
_PG_MIGRATION_LOCK = 0x7469656E6C656E  # "tienlen"


def alembic_config(url: str | None = None) -> Config:
    """An Alembic Config pointing at this package's migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("path_separator", "os")
    if url is not None:
        # ConfigParser would read a '%' in a password as interpolation.
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


async def upgrade_to_head(url: str, *, connect_args: Mapping[str, Any] | None = None) -> None:
    """Bring the database at ``url`` to the newest schema revision."""
    _check_sqlite_directory(url)
    # Foreign keys stay off on SQLite while tables may be rebuilt; checked after.
    engine = create_engine_for(url, connect_args=connect_args, foreign_keys=False, pooled=False)
    # BEGIN IMMEDIATE on SQLite: a second process migrating at the same time
    # waits for the first instead of failing on a stale read.
    exclusive = engine.execution_options(**{SQLITE_BEGIN_OPTION: "IMMEDIATE"})
    try:
        async with exclusive.begin() as connection:
            await connection.run_sync(_upgrade_on, alembic_config(url))
    except SchemaError:
        raise
    except Exception as error:
        raise SchemaError(_describe_failure(url, error)) from error
    finally:
        await engine.dispose()


def _check_sqlite_directory(url: str) -> None:
    """Refuse early when a SQLite file's folder is missing: clearer than the
    driver's "unable to open database file", and it spares aiosqlite a failed
    connect, whose worker thread can outlive the event loop."""
    if not is_sqlite(url):
        return
    path = make_url(url).database
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    folder = Path(path).expanduser().resolve().parent
    if not folder.is_dir():
        where = make_url(url).render_as_string(hide_password=True)
        raise SchemaError(f"cannot open database {where}: folder {folder} does not exist")


def _upgrade_on(connection: Connection, config: Config) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
    if connection.dialect.name == "sqlite":
        _check_sqlite_foreign_keys(connection)


def _check_sqlite_foreign_keys(connection: Connection) -> None:
    broken = connection.execute(text("PRAGMA foreign_key_check")).fetchall()
    if broken:
        tables = sorted({row[0] for row in broken})
        raise SchemaError(
            f"database upgrade left rows with broken foreign keys in {', '.join(tables)}"
        )


def _describe_failure(url: str, error: BaseException) -> str:
    where = make_url(url).render_as_string(hide_password=True)
    detail = _first_line(error)
    if isinstance(error, CommandError) and "Can't locate revision" in detail:
        return (
            f"database {where} has schema revision unknown to this bot "
            f"(made by a newer version?): {detail}"
        )
    if isinstance(error, (OSError, sa_exc.OperationalError, sa_exc.InterfaceError)):
        return f"cannot open database {where}: {detail}"
    if is_sqlite(url) and isinstance(error, sa_exc.DatabaseError):
        return f"cannot use database {where}: {detail}"
    return f"database {where} could not be upgraded: {type(error).__name__}: {detail}"


def _first_line(error: BaseException) -> str:
    text_ = str(getattr(error, "orig", None) or error).strip()
    return text_.splitlines()[0] if text_ else type(error).__name__
