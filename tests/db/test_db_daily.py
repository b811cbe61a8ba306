"""Daily chips: one claim per local calendar day, in the guild's time zone."""

from __future__ import annotations

import datetime as dt

import pytest

import db as dblayer
from db import DailyAlreadyClaimed, Database, InvalidTimezone, Reason
from tests.db.dbtest_support import GUILD, OTHER_GUILD, START

UTC = dt.UTC
DAILY = 100


def at(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


async def claim(db: Database, now: dt.datetime, *, user: int = 1, guild: int = GUILD):
    return await dblayer.claim_daily(db, guild, user, amount=DAILY, starting_chips=START, now=now)


async def test_first_claim_creates_the_account(db: Database) -> None:
    result = await claim(db, at(2026, 3, 1, 10, 0))
    assert (result.amount, result.balance) == (DAILY, START + DAILY)
    account = await dblayer.get_account(db, GUILD, 1)
    assert account.balance == START + DAILY
    assert account.last_daily_at == at(2026, 3, 1, 10, 0)
    reasons = [entry.reason for entry in await dblayer.account_ledger(db, GUILD, 1)]
    assert reasons == [Reason.DAILY, Reason.START_GRANT]


async def test_second_claim_same_local_day_is_refused_with_time_left(db: Database) -> None:
    await claim(db, at(2026, 3, 1, 10, 0))  # 17:00 in Hồ Chí Minh City (UTC+7)
    with pytest.raises(DailyAlreadyClaimed) as raised:
        await claim(db, at(2026, 3, 1, 12, 30))
    # Local midnight is 17:00 UTC.
    assert raised.value.retry_after == dt.timedelta(hours=4, minutes=30)
    assert (await dblayer.get_account(db, GUILD, 1)).balance == START + DAILY


async def test_day_boundary_is_local_midnight_not_utc(db: Database) -> None:
    just_before = at(2026, 3, 1, 16, 59, 59)  # 23:59:59 local
    first = await claim(db, just_before)
    assert first.next_claim_at == at(2026, 3, 1, 17, 0)
    with pytest.raises(DailyAlreadyClaimed) as raised:
        await claim(db, just_before + dt.timedelta(microseconds=500_000))
    assert raised.value.retry_after == dt.timedelta(microseconds=500_000)
    second = await claim(db, at(2026, 3, 1, 17, 0))  # 00:00 local, next day
    assert second.balance == START + 2 * DAILY
    # 23:00 UTC on 1 March is already 2 March locally: claimed.
    with pytest.raises(DailyAlreadyClaimed):
        await claim(db, at(2026, 3, 1, 23, 0))
    keys = [entry.idempotency_key for entry in await dblayer.account_ledger(db, GUILD, 1)]
    assert keys[:2] == [f"daily:{GUILD}:1:2026-03-02", f"daily:{GUILD}:1:2026-03-01"]


async def test_guild_time_zone_is_used(db: Database) -> None:
    settings = await dblayer.set_guild_timezone(db, GUILD, "Europe/London")
    assert settings.timezone == "Europe/London"
    await claim(db, at(2026, 1, 10, 23, 30))
    second = await claim(db, at(2026, 1, 11, 0, 0))
    assert second.balance == START + 2 * DAILY
    # The default zone still applies elsewhere: 23:30 UTC is the next day there.
    await claim(db, at(2026, 1, 10, 16, 0), guild=OTHER_GUILD)
    await claim(db, at(2026, 1, 10, 17, 0), guild=OTHER_GUILD)


async def test_retry_after_spans_a_short_dst_day(db: Database) -> None:
    await dblayer.set_guild_timezone(db, GUILD, "America/New_York")
    # 8 March 2026 has 23 hours in New York; 00:30 EST is 05:30 UTC.
    await claim(db, at(2026, 3, 8, 5, 30))
    with pytest.raises(DailyAlreadyClaimed) as raised:
        await claim(db, at(2026, 3, 8, 5, 31))
    # Next local midnight is 00:00 EDT = 04:00 UTC on 9 March.
    assert raised.value.retry_after == dt.timedelta(hours=22, minutes=29)


async def test_claims_are_per_user_and_per_guild(db: Database) -> None:
    now = at(2026, 3, 1, 10, 0)
    await claim(db, now, user=1)
    await claim(db, now, user=2)
    await claim(db, now, user=1, guild=OTHER_GUILD)
    assert (await dblayer.get_account(db, OTHER_GUILD, 1)).balance == START + DAILY


async def test_bad_time_zone_is_refused(db: Database) -> None:
    for name in ("Mars/Olympus_Mons", "", "../../etc/passwd", "x" * 100):
        with pytest.raises(InvalidTimezone):
            await dblayer.set_guild_timezone(db, GUILD, name)
    assert (await dblayer.get_guild_settings(db, GUILD)).timezone == "Asia/Ho_Chi_Minh"


async def test_naive_now_is_refused(db: Database) -> None:
    with pytest.raises(ValueError):
        await claim(db, dt.datetime(2026, 3, 1, 10, 0))
    assert await dblayer.get_account(db, GUILD, 1) is None


async def test_now_defaults_to_the_clock(db: Database) -> None:
    result = await dblayer.claim_daily(db, GUILD, 1, amount=DAILY, starting_chips=START)
    assert result.balance == START + DAILY
    assert dt.timedelta(0) < result.next_claim_at - dt.datetime.now(UTC) <= dt.timedelta(days=1)


async def test_guild_settings_defaults_and_locale(db: Database) -> None:
    assert await dblayer.get_guild_settings(db, GUILD) == dblayer.GuildSettings(
        GUILD, "Asia/Ho_Chi_Minh", None
    )
    await dblayer.set_guild_locale(db, GUILD, "vi")
    await dblayer.set_guild_timezone(db, GUILD, "Asia/Bangkok")
    assert await dblayer.get_guild_settings(db, GUILD) == dblayer.GuildSettings(
        GUILD, "Asia/Bangkok", "vi"
    )
    await dblayer.set_guild_locale(db, GUILD, None)
    assert (await dblayer.get_guild_settings(db, GUILD)).locale is None
