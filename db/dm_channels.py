"""Users' direct-message channels with the bot, remembered across processes.

Opening a DM channel is a REST call Discord limits to 5 per 5 s per bot; the
channel between the bot and a user never changes, so once known it is kept
here and any process (a new owner after a takeover) can write to it at once.
"""

from __future__ import annotations

from sqlalchemy import select

from db._sql import insert_for
from db.database import Database
from db.models import DmChannelRow
from db.validation import require_id


async def remember_dm_channel(db: Database, user_id: int, channel_id: int) -> None:
    require_id(user_id, what="user_id")
    require_id(channel_id, what="channel_id")
    async with db.write() as session:
        statement = insert_for(session, DmChannelRow).values(user_id=user_id, channel_id=channel_id)
        await session.execute(statement.on_conflict_do_update(index_elements=["user_id"],
                                                              set_={"channel_id": channel_id}))


async def dm_channel_of(db: Database, user_id: int) -> int | None:
    """The user's DM channel id, if the bot has opened one before."""
    async with db.read() as session:
        return await session.scalar(select(DmChannelRow.channel_id).where(DmChannelRow.user_id == user_id))
