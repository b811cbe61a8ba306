"""Server settings with their audit trail, and resetting a server's balances."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

import db as dblayer
from db import Database, InvalidTimezone
from db.models import AccountRow, LedgerRow
from tests.db.dbtest_support import GUILD, OTHER_GUILD, START


async def test_changes_are_stored_with_who_and_when(db: Database) -> None:
    settings = await dblayer.get_guild_settings(db, GUILD)
    assert settings.starting_chips is None and settings.ai_allowed is None  # the bot's defaults
    await dblayer.change_guild_settings(db, GUILD, 7, {"starting_chips": 500, "ai_allowed": False})
    changed = await dblayer.change_guild_settings(db, GUILD, 8, {"table_channels": [3, 2, 3], "locale": "vi"})
    assert (changed.starting_chips, changed.ai_allowed, changed.table_channels, changed.locale) == (500, False, (2, 3), "vi")
    back = await dblayer.change_guild_settings(db, GUILD, 8, {"starting_chips": None})
    assert back.starting_chips is None and back.ai_allowed is False
    history = await dblayer.recent_setting_changes(db, GUILD, limit=5)
    assert [(change.user_id, change.name, change.value) for change in history] == [
        (8, "starting_chips", None), (8, "locale", "vi"), (8, "table_channels", [2, 3]), (7, "ai_allowed", False),
        (7, "starting_chips", 500)]
    assert (await dblayer.get_guild_settings(db, OTHER_GUILD)).ai_allowed is None  # another server's own


async def test_impossible_values_are_refused(db: Database) -> None:
    with pytest.raises(InvalidTimezone):
        await dblayer.change_guild_settings(db, GUILD, 7, {"timezone": "Mars/Olympus"})
    for changes in ({"daily_chips": -1}, {"ai_allowed": "yes"}, {"no_such": 1}, {"table_channels": [-4]}):
        with pytest.raises(ValueError):
            await dblayer.change_guild_settings(db, GUILD, 7, changes)
    assert await dblayer.recent_setting_changes(db, GUILD) == []


async def balances_and_ledgers(db: Database, guild_id: int) -> list[tuple[int, int, int]]:
    async with db.read() as session:
        accounts = (await session.execute(select(AccountRow.user_id, AccountRow.balance)
                                          .where(AccountRow.guild_id == guild_id))).all()
        sums = dict((await session.execute(select(LedgerRow.user_id, func.sum(LedgerRow.amount))
                                           .where(LedgerRow.guild_id == guild_id).group_by(LedgerRow.user_id))).all())
    return sorted((user, balance, sums[user]) for user, balance in accounts)


async def test_a_reset_keeps_every_balance_the_sum_of_its_ledger(db: Database, make_accounts) -> None:
    await make_accounts(1, 2, 3)
    await make_accounts(1, guild_id=OTHER_GUILD)
    await dblayer.grant(db, GUILD, 1, 250, reason="admin_grant", key="gift-1")
    await dblayer.transfer(db, GUILD, 2, 3, 400, reason="transfer", key="pay-1")
    changed = await dblayer.reset_balances(db, GUILD, amount=800, key="reset:1")
    assert changed == 3
    rows = await balances_and_ledgers(db, GUILD)
    assert [balance for _, balance, _ in rows] == [800, 800, 800]
    assert all(balance == total for _, balance, total in rows)
    assert await dblayer.reset_balances(db, GUILD, amount=800, key="reset:1") == 0  # the same reset again
    assert [balance for _, balance, _ in await balances_and_ledgers(db, OTHER_GUILD)] == [START]  # not theirs
