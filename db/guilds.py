"""Per-guild settings chosen by each server's admins, and who changed them.

The time zone that defines a "day" for daily chips, the language of public
table messages, and the server's own economy and table defaults.  A setting
left at None is the bot's default (its environment settings); every change
is stored with who made it and when, in the same transaction."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from collections.abc import Mapping
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from db._sql import insert_for
from db.database import Database
from db.errors import InvalidTimezone
from db.coltypes import utcnow
from db.models import DEFAULT_TIMEZONE, GuildSettingChangeRow, GuildSettingsRow
from db.records import GuildSettings, SettingChange
from db.validation import MAX_AMOUNT, require_id

SETTINGS = ("timezone", "locale", "starting_chips", "daily_chips", "default_rules", "default_bet",
            "default_turn_seconds", "ai_allowed", "table_channels", "daily_min_account_days",
            "ranked_only")
"""Every setting a server can change, by its column."""


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
        return _settings(guild_id, await session.get(GuildSettingsRow, guild_id))


async def set_guild_timezone(db: Database, guild_id: int, tz_name: str) -> GuildSettings:
    """Set the time zone for daily claims; raises InvalidTimezone if unknown."""
    return await _upsert(db, guild_id, timezone=tz_name)


async def set_guild_locale(db: Database, guild_id: int, locale: str | None) -> GuildSettings:
    """Set (or clear, with None) the guild's preferred locale, e.g. ``vi``."""
    return await _upsert(db, guild_id, locale=locale)


async def change_guild_settings(
    db: Database, guild_id: int, user_id: int, changes: Mapping[str, Any]
) -> GuildSettings:
    """Apply ``changes`` (setting → value; None: back to the default) and
    record each one with who made it, in one transaction."""
    require_id(user_id, what="user_id")
    return await _upsert(db, guild_id, changed_by=user_id, **changes)


async def recent_setting_changes(db: Database, guild_id: int, limit: int = 5) -> list[SettingChange]:
    """The guild's last setting changes, newest first."""
    require_id(guild_id, what="guild_id")
    async with db.read() as session:
        rows = await session.scalars(
            select(GuildSettingChangeRow)
            .where(GuildSettingChangeRow.guild_id == guild_id)
            .order_by(GuildSettingChangeRow.id.desc())
            .limit(limit)
        )
        return [SettingChange(user_id=row.user_id, name=row.name, value=row.value, created_at=row.created_at)
                for row in rows]


def _checked(name: str, value: Any) -> Any:
    """The value as stored; ValueError for what no server may store."""
    if name not in SETTINGS:
        raise ValueError(f"not a setting: {name!r}")
    if value is None:
        return None
    if name == "timezone":
        resolve_timezone(value)
    elif name in ("locale", "default_rules"):
        if not isinstance(value, str) or not 0 < len(value) <= 16:
            raise ValueError(f"{name} must be a short name, got {value!r}")
    elif name in ("ai_allowed", "ranked_only"):
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be true or false")
    elif name == "table_channels":
        channels = tuple(value)
        for channel_id in channels:
            require_id(channel_id, what="channel_id")
        return sorted(set(channels))
    elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_AMOUNT:
        raise ValueError(f"{name} must be a whole number from 0 to 2**53, got {value!r}")
    return value


def _settings(guild_id: int, row: GuildSettingsRow | None) -> GuildSettings:
    if row is None:
        return GuildSettings(guild_id, DEFAULT_TIMEZONE, None)
    values = {name: getattr(row, name) for name in SETTINGS}
    values["timezone"] = values["timezone"] or DEFAULT_TIMEZONE
    if values["table_channels"] is not None:
        values["table_channels"] = tuple(values["table_channels"])
    return GuildSettings(guild_id, **values)


async def _upsert(db: Database, guild_id: int, *, changed_by: int | None = None, **values: Any) -> GuildSettings:
    require_id(guild_id, what="guild_id")
    checked = {name: _checked(name, value) for name, value in values.items()}
    if "timezone" in checked and checked["timezone"] is None:
        checked["timezone"] = DEFAULT_TIMEZONE
    async with db.write() as session:
        statement = insert_for(session, GuildSettingsRow).values(guild_id=guild_id, **checked)
        await session.execute(statement.on_conflict_do_update(index_elements=["guild_id"], set_=checked))
        if changed_by is not None and checked:
            now = utcnow()
            await session.execute(insert(GuildSettingChangeRow), [
                {"guild_id": guild_id, "user_id": changed_by, "name": name, "value": value, "created_at": now}
                for name, value in checked.items()])
        row = await session.get(GuildSettingsRow, guild_id)
        await session.refresh(row)
        return _settings(guild_id, row)
