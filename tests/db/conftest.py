"""Fixtures for the data-layer tests: one database per test, on every backend.

SQLite always runs, on a file under ``tmp_path``.  PostgreSQL runs too when
``TEST_DATABASE_URL`` is set: each test gets its own schema (through the
connection's ``search_path``), dropped again when the test ends, so nothing
is left behind in the shared database.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from sqlalchemy.engine import make_url

import db as dblayer
from db import Database
from tests.db.dbtest_support import CHANNEL, GUILD, START, Backend

PG_URL = os.environ.get("TEST_DATABASE_URL")

BACKENDS = [pytest.param("sqlite", id="sqlite")]
if PG_URL:
    BACKENDS.append(pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres))


def _asyncpg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _pg_execute(sql: str) -> None:
    assert PG_URL is not None
    connection = await asyncpg.connect(_asyncpg_dsn(PG_URL))
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    if request.param == "sqlite":
        yield Backend("sqlite", f"sqlite+aiosqlite:///{tmp_path / 'test.db'}", {})
        return
    assert PG_URL is not None
    schema = f"test_db_{uuid.uuid4().hex[:12]}"
    await _pg_execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield Backend(
            "postgresql",
            PG_URL,
            {"server_settings": {"search_path": schema}},
            pg_schema=schema,
        )
    finally:
        await _pg_execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
async def fresh_db(backend: Backend) -> AsyncIterator[Database]:
    """A Database on an empty backend, not migrated."""
    database = backend.open()
    try:
        yield database
    finally:
        await database.dispose()


@pytest.fixture
async def db(fresh_db: Database) -> Database:
    """A Database migrated to head through Database.upgrade(), as the bot does."""
    await fresh_db.upgrade()
    return fresh_db


@pytest.fixture
def make_accounts(db: Database) -> Callable[..., Awaitable[list[int]]]:
    async def make(*user_ids: int, chips: int = START, guild_id: int = GUILD) -> list[int]:
        for user_id in user_ids:
            await dblayer.get_or_create_account(db, guild_id, user_id, starting_chips=chips)
        return list(user_ids)

    return make


@pytest.fixture
def make_game(db: Database) -> Callable[..., Awaitable[int]]:
    async def make(
        seats: list[dict[str, Any]],
        *,
        bet: int = 10,
        guild_id: int = GUILD,
        channel_id: int = CHANNEL,
    ) -> int:
        return await dblayer.create_game(
            db,
            guild_id=guild_id,
            channel_id=channel_id,
            rules="mien-nam",
            options={"turn_seconds": 30},
            bet=bet,
            seats=seats,
            record={"hands": [[0, 1, 2]] * len(seats), "rules": "mien-nam"},
        )

    return make
