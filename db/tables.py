"""Saved table state, one row per channel, so tables survive a restart.

The runtime saves a table's whole state (seats, host, options, series) with
every change that alters it, through :func:`db.commit_changes`; the state is
opaque to this layer, the game the table plays is a column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, select

from db._sql import insert_for
from db.coltypes import utcnow
from db.database import Database
from db.models import TableRow
from db.records import StoredTable
from db.validation import require_id


async def save_table(
    db: Database, channel_id: int, guild_id: int, state: Mapping[str, Any], *, game_id: int | None = None
) -> None:
    """Insert or replace the table state of ``channel_id`` (playing ``game_id``)."""
    require_id(channel_id, what="channel_id")
    require_id(guild_id, what="guild_id")
    values = {"guild_id": guild_id, "state": dict(state), "game_id": game_id, "updated_at": utcnow()}
    async with db.write() as session:
        statement = insert_for(session, TableRow).values(channel_id=channel_id, **values)
        await session.execute(
            statement.on_conflict_do_update(index_elements=["channel_id"], set_=values)
        )


async def delete_table(db: Database, channel_id: int) -> bool:
    """Forget the table of ``channel_id``; True if there was one."""
    async with db.write() as session:
        deleted = await session.scalar(
            delete(TableRow).where(TableRow.channel_id == channel_id).returning(TableRow.channel_id)
        )
    return deleted is not None


async def load_tables(db: Database) -> list[StoredTable]:
    """Every saved table, by channel id."""
    async with db.read() as session:
        rows = await session.scalars(select(TableRow).order_by(TableRow.channel_id))
        return [
            StoredTable(channel_id=row.channel_id, guild_id=row.guild_id, state=row.state,
                        updated_at=row.updated_at, game_id=row.game_id)
            for row in rows
        ]


async def table_guild(db: Database, channel_id: int) -> int | None:
    """The guild of the table in ``channel_id`` (None: no table there)."""
    async with db.read() as session:
        return await session.scalar(select(TableRow.guild_id).where(TableRow.channel_id == channel_id))
