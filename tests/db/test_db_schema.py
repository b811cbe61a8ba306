"""Schema and connection set-up: migrations, the migrated schema equals the
models, clear errors at start-up, SQLite's locking settings."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Column, Integer, MetaData, Table, inspect, text
from sqlalchemy.engine import Connection

from db import Database, SchemaError
from db.migrate import alembic_config
from db.models import Base
from tests.db.dbtest_support import Backend

EXPECTED_TABLES = {
    "dm_channels",
    "cluster_slots",
    "forwarded_interactions",
    "accounts",
    "ledger",
    "games",
    "game_actions",
    "tables",
    "guild_settings",
    "guild_setting_changes",
    "ratings",
    "rating_history",
    "alembic_version",
}


async def _diff(database: Database, metadata: MetaData) -> list[object]:
    def compare(connection: Connection) -> list[object]:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, metadata))

    async with database.engine.connect() as connection:
        return await connection.run_sync(compare)


async def _table_names(database: Database) -> set[str]:
    async with database.engine.connect() as connection:
        return set(await connection.run_sync(lambda sync: inspect(sync).get_table_names()))


async def test_head_schema_equals_models(db: Database) -> None:
    assert await _diff(db, Base.metadata) == []
    assert await _table_names(db) == EXPECTED_TABLES


async def test_schema_comparison_would_catch_a_difference(db: Database) -> None:
    """The check above is not vacuous: an extra table and column show up."""
    metadata = MetaData()
    for table in Base.metadata.sorted_tables:
        table.to_metadata(metadata)
    Table("not_migrated", metadata, Column("id", Integer, primary_key=True))
    metadata.tables["accounts"].append_column(Column("extra", Integer))
    diff = await _diff(db, metadata)
    kinds = {entry[0] if isinstance(entry, tuple) else entry[0][0] for entry in diff}
    assert {"add_table", "add_column"} <= kinds


async def test_upgrade_twice_is_harmless(db: Database) -> None:
    await db.upgrade()
    assert await _diff(db, Base.metadata) == []


async def test_downgrade_to_base_then_upgrade_again(db: Database) -> None:
    def downgrade(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, "base")

    async with db.engine.begin() as connection:
        await connection.run_sync(downgrade)
    assert await _table_names(db) == {"alembic_version"}
    await db.upgrade()
    assert await _diff(db, Base.metadata) == []


async def test_database_from_a_newer_version_is_refused(db: Database) -> None:
    async with db.write() as session:
        await session.execute(text("UPDATE alembic_version SET version_num = 'f00dcafe'"))
    with pytest.raises(SchemaError) as raised:
        await db.upgrade()
    message = str(raised.value)
    assert "\n" not in message
    assert "newer version" in message and "f00dcafe" in message


async def test_unreachable_database_is_a_schema_error(backend: Backend, tmp_path: Path) -> None:
    if backend.name == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'missing-dir' / 'x.db'}"
    else:
        url = "postgresql+asyncpg://postgres@127.0.0.1:9/nowhere"
    database = Database.from_url(url)
    try:
        with pytest.raises(SchemaError) as raised:
            await database.upgrade()
    finally:
        await database.dispose()
    assert "\n" not in str(raised.value)
    assert str(raised.value).startswith("cannot open database")


async def test_password_is_not_shown_in_schema_errors() -> None:
    database = Database.from_url("postgresql+asyncpg://bot:s3cret@127.0.0.1:9/x")
    try:
        with pytest.raises(SchemaError) as raised:
            await database.upgrade()
    finally:
        await database.dispose()
    assert "s3cret" not in str(raised.value)


def test_default_url_is_a_sqlite_file() -> None:
    database = Database.from_url()
    assert database.url == "sqlite+aiosqlite:///tienlen.db"
    assert database.dialect == "sqlite"


async def test_sqlite_connection_settings(db: Database, backend: Backend) -> None:
    if backend.name != "sqlite":
        pytest.skip("SQLite pragmas")
    async with db.read() as session:
        assert (await session.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await session.execute(text("PRAGMA foreign_keys"))).scalar() == 1
        assert (await session.execute(text("PRAGMA busy_timeout"))).scalar() >= 30_000


async def test_sqlite_write_takes_the_lock_at_begin(db: Database, backend: Backend) -> None:
    """Another writer is locked out from a write unit's first statement on,
    while a read unit leaves it free."""
    if backend.name != "sqlite":
        pytest.skip("SQLite locking")
    path = backend.url.removeprefix("sqlite+aiosqlite:///")

    def other_writer_can_begin() -> bool:
        other = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            return True
        except sqlite3.OperationalError as error:
            assert "locked" in str(error)
            return False
        finally:
            other.close()

    async with db.read() as session:
        await session.execute(text("SELECT count(*) FROM accounts"))
        assert other_writer_can_begin()
    async with db.write() as session:
        await session.execute(text("SELECT count(*) FROM accounts"))
        assert not other_writer_can_begin()
    assert other_writer_can_begin()


async def test_foreign_keys_are_enforced(db: Database) -> None:
    from sqlalchemy.exc import IntegrityError

    with pytest.raises(IntegrityError):
        async with db.write() as session:
            await session.execute(
                text(
                    "INSERT INTO game_actions (game_id, seq, action, created_at) "
                    "VALUES (424242, 0, '{}', CURRENT_TIMESTAMP)"
                )
            )


async def test_processes_starting_together_migrate_once(backend: Backend) -> None:
    """Several bot processes upgrading one fresh database at the same time."""
    handles = [backend.open() for _ in range(4)]
    try:
        # return_exceptions: on failure, still let every upgrade finish first.
        outcomes = await asyncio.gather(
            *(handle.upgrade() for handle in handles), return_exceptions=True
        )
        assert outcomes == [None] * len(handles)
        assert await _diff(handles[0], Base.metadata) == []
    finally:
        await asyncio.gather(*(handle.dispose() for handle in handles))
