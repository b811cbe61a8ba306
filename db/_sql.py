"""Small SQL helpers that differ by backend (SQLite or PostgreSQL).

Kept in one place so that repository code reads the same on both databases.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Executable, Result, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

Insert = sqlite.Insert | postgresql.Insert


def dialect_of(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


def insert_for(session: AsyncSession, table: Table | Any) -> Insert:
    """An INSERT that supports ``on_conflict_do_nothing/_do_update`` here."""
    if dialect_of(session) == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


async def core(session: AsyncSession, statement: Executable, parameters: Any = None) -> Result[Any]:
    """Execute a Core statement on the session's connection and transaction.

    Bypasses the ORM's bulk UPDATE/INSERT machinery (identity-map
    synchronisation), which costs more than the statement itself here: the
    data layer never keeps ORM objects alive across statements.
    """
    connection = await session.connection()
    return await connection.execute(statement, parameters)
