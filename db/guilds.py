"""Per-guild settings: the time zone that defines a "day" for daily chips,
and the guild's preferred locale for public messages."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from db._sql import insert_for
from db.database import Database
from db.errors import InvalidTimezone
from db.models import DEFAULT_TIMEZONE, GuildSettingsRow
from db.records import GuildSettings
from db.validation import require_id


def resolve_timezone(name: str) -> ZoneInfo:
    """The ZoneInfo for an IANA name such as ``Asia/Ho_Chi_Minh``."""
    if not isinstance(name, str) or not name or len(name) > 64:
        raise InvalidTimezone(f"not a time zone name: {name!r}")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise InvalidTimezone(f"unknown time zone {name!r}") from error


async def guild_timezone(session: AsyncSession, guild_id: int) -> ZoneInfo:
    name = await session.scalar(
        select(GuildSettingsRow.timezone).where(GuildSettingsRow.guild_id == guild_id)
    )
    return ZoneInfo(name or DEFAULT_TIMEZONE)


async def get_guild_settings(db: Database, guild_id: int) -> GuildSettings:
    """The guild's settings; defaults if it never changed any."""
    require_id(guild_id, what="guild_id")
    async with db.read() as session:
        row = await session.get(GuildSettingsRow, guild_id)
        if row is None:
            return GuildSettings(guild_id, DEFAULT_TIMEZONE, None)
        return GuildSettings(guild_id, row.timezone, row.locale)


async def set_guild_timezone(db: Database, guild_id: int, tz_name: str) -> GuildSettings:
    """Set the time zone for daily claims; raises InvalidTimezone if unknown."""
    resolve_timezone(tz_name)
    return await _upsert(db, guild_id, timezone=tz_name)


async def set_guild_locale(db: Database, guild_id: int, locale: str | None) -> GuildSettings:
    """Set (or clear, with None) the guild's preferred locale, e.g. ``vi``."""
    if locale is not None and (not isinstance(locale, str) or not 0 < len(locale) <= 16):
        raise ValueError(f"not a locale: {locale!r}")
    return await _upsert(db, guild_id, locale=locale)


async def _upsert(db: Database, guild_id: int, **values: str | None) -> GuildSettings:
    require_id(guild_id, what="guild_id")
    async with db.write() as session:
        statement = insert_for(session, GuildSettingsRow).values(guild_id=guild_id, **values)
        await session.execute(
            statement.on_conflict_do_update(index_elements=["guild_id"], set_=values)
        )
        row = await session.get(GuildSettingsRow, guild_id)
        assert row is not None
        return GuildSettings(guild_id, row.timezone, row.locale)
