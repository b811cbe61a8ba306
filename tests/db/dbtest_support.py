"""Shared values for the data-layer tests (imported by conftest and tests).

Named uniquely because pytest puts this directory on sys.path.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import asyncpg

import db.hot as db_hot
from db import Database


@dataclass(frozen=True)
class Backend:
    """Where a test's database lives, and how to open more handles on it."""

    name: str
    url: str
    connect_args: dict[str, Any]
    pg_schema: str | None = None

    def open(self) -> Database:
        return Database.from_url(self.url, connect_args=self.connect_args)


GUILD = 111_111_111_111_111_111
OTHER_GUILD = 222_222_222_222_222_222
CHANNEL = 333_333_333_333_333_333
START = 1_000


def human(user_id: int, name: str | None = None) -> dict[str, Any]:
    return {"user_id": user_id, "name": name or f"player{user_id}", "ai": None}


def robot(level: str = "easy") -> dict[str, Any]:
    return {"user_id": None, "name": f"AI ({level})", "ai": level}


# ------------------------------------------------ a connection lost at COMMIT
@contextlib.contextmanager
def connection_lost_at_commit(*, landed: bool) -> Iterator[None]:
    """Hot writes in this block lose their connection as they COMMIT: after
    the server committed (``landed``: only the answer is lost) or before it
    got the COMMIT (it rolls back).  The loss is raised as each driver raises
    it, so that db.hot classifies it as it would a real one."""
    originals = dict(db_hot._DRIVERS)
    for name, base in originals.items():
        db_hot._DRIVERS[name] = _losing(base, landed)
    try:
        yield
    finally:
        db_hot._DRIVERS.update(originals)


def _losing(base: type, landed: bool) -> type:
    class Losing(base):  # type: ignore[misc, valid-type]
        async def commit(self) -> None:
            if landed:
                await base.commit(self)
            elif self.dialect.driver == "aiosqlite":
                await base.rollback(self)
            if self.dialect.driver == "asyncpg":
                if not landed:  # the server goes away first, rolling back; COMMIT fails as asyncpg fails it
                    with contextlib.suppress(asyncpg.PostgresError):
                        await self.connection.execute("SELECT pg_terminate_backend(pg_backend_pid())")
                    await base.commit(self)
                self.connection.terminate()
                error: Exception = asyncpg.exceptions.ConnectionDoesNotExistError(
                    "connection was closed in the middle of operation")
            else:
                error = sqlite3.OperationalError("no active connection")
            self.in_transaction = False
            raise self.failure(error, "COMMIT", None)

    return Losing
