"""Fixtures of the runtime tests: table services on a database that fails on purpose.

``make_harness`` runs on SQLite; ``make_any_harness`` on SQLite and, when
``TEST_DATABASE_URL`` is set, on PostgreSQL too (a schema of its own per test).
"""

from __future__ import annotations

import pytest

from tests.db.conftest import BACKENDS, PG_URL, _pg_execute
from tests.runtime.support import Harness


async def _harnesses(tmp_path, backend: dict):
    made: list[Harness] = []

    async def make(**settings) -> Harness:
        harness = await Harness(tmp_path, **backend, **settings).start()
        made.append(harness)
        return harness

    try:
        yield make
    finally:
        for harness in made:
            await harness.close()


@pytest.fixture
async def make_harness(tmp_path):
    async for make in _harnesses(tmp_path, {}):
        yield make


@pytest.fixture(params=BACKENDS)
async def make_any_harness(request, tmp_path):
    if request.param == "sqlite":
        async for make in _harnesses(tmp_path, {}):
            yield make
        return
    import uuid

    schema = f"test_runtime_{uuid.uuid4().hex[:12]}"
    await _pg_execute(f'CREATE SCHEMA "{schema}"')
    try:
        async for make in _harnesses(tmp_path, {"url": PG_URL,
                                                "connect_args": {"server_settings": {"search_path": schema}}}):
            yield make
    finally:
        await _pg_execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
