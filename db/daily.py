"""Daily chips: one claim per calendar day in the guild's own time zone.

The day is the guild's local date (``guild_settings.timezone``, default
Asia/Ho_Chi_Minh), and the claim's idempotency key contains it, so the
database's UNIQUE constraint is what finally guarantees one claim a day.
"""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import update

from db import ledger
from db._sql import core
from db.accounts import create_account_if_missing
from db.coltypes import utcnow
from db.database import Database
from db.errors import DailyAlreadyClaimed
from db.guilds import guild_timezone
from db.models import AccountRow
from db.records import DailyClaim, Reason
from db.validation import require_amount, require_id


def daily_key(guild_id: int, user_id: int, day: datetime.date) -> str:
    return f"daily:{guild_id}:{user_id}:{day.isoformat()}"


def local_day(now: datetime.datetime, tz: ZoneInfo) -> datetime.date:
    return now.astimezone(tz).date()


def next_local_midnight(now: datetime.datetime, tz: ZoneInfo) -> datetime.datetime:
    """The first instant of the next local day, in UTC."""
    tomorrow = local_day(now, tz) + datetime.timedelta(days=1)
    midnight = datetime.datetime.combine(tomorrow, datetime.time(0), tzinfo=tz)
    return midnight.astimezone(datetime.UTC)


async def claim_daily(
    db: Database,
    guild_id: int,
    user_id: int,
    *,
    amount: int,
    starting_chips: int,
    now: datetime.datetime | None = None,
) -> DailyClaim:
    """Credit the daily chips, creating the account first if needed.

    A second claim on the same local day raises DailyAlreadyClaimed with the
    time left until the guild's next local midnight.
    """
    require_amount(amount)
    require_amount(starting_chips, what="starting_chips", allow_zero=True)
    require_id(guild_id, what="guild_id")
    require_id(user_id, what="user_id")
    now = _aware(now or utcnow())
    async with db.write() as session:
        tz = await guild_timezone(session, guild_id)
        key = daily_key(guild_id, user_id, local_day(now, tz))
        next_claim_at = next_local_midnight(now, tz)
        await create_account_if_missing(
            session, guild_id, user_id, starting_chips=starting_chips, now=now
        )
        await ledger.lock_balances(session, guild_id, [user_id])
        if await ledger.find_entry(session, key) is not None:
            raise DailyAlreadyClaimed(retry_after=next_claim_at - now)
        updated = await core(
            session,
            update(AccountRow)
            .where(AccountRow.guild_id == guild_id, AccountRow.user_id == user_id)
            .values(balance=AccountRow.balance + amount, last_daily_at=now)
            .returning(AccountRow.balance),
        )
        balance = updated.scalar()
        assert balance is not None, "the account was created or locked above"
        await ledger.append(
            session,
            guild_id=guild_id,
            user_id=user_id,
            amount=amount,
            balance_after=balance,
            reason=Reason.DAILY,
            key=key,
            now=now,
        )
    return DailyClaim(amount=amount, balance=balance, next_claim_at=next_claim_at)


def _aware(now: datetime.datetime) -> datetime.datetime:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    return now.astimezone(datetime.UTC)
