"""Fixtures of the runtime tests: table services on a database that fails on purpose."""

from __future__ import annotations

import pytest

from tests.runtime.support import Harness


@pytest.fixture
async def make_harness(tmp_path):
    made: list[Harness] = []

    async def make(**settings) -> Harness:
        harness = await Harness(tmp_path, **settings).start()
        made.append(harness)
        return harness

    yield make
    for harness in made:
        await harness.close()
