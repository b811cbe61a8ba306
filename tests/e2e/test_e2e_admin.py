"""Server settings for admins, through the fake Discord: each setting takes effect
where it should (and never in a running game), a non-admin is refused, invalid
values are refused with the range, servers keep their own economies, and a
balance reset keeps every balance the sum of its ledger."""

from __future__ import annotations

from sqlalchemy import func, select

import db
from cogs.layouts.words import error_text
from db.models import AccountRow, LedgerRow
from i18n import t
from tests.e2e.driver import TableDriver
from tests.e2e.test_e2e_full_game import open_table

ADMIN = "tienlen-admin settings"


async def balance(bot, guild_id: int, user) -> int:
    account = await db.get_account(bot.database, guild_id, user.id)
    return account.balance


async def test_a_member_who_cannot_manage_the_server_is_refused(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    refused = await fake.slash(fake.users[0], ADMIN, starting_chips=5, force=True)
    assert refused.ephemeral and refused.content == t("en", "error.admin_only")
    reset = await fake.slash(fake.users[0], "tienlen-admin reset-balances", force=True)
    assert reset.content == t("en", "error.admin_only")
    assert (await db.get_guild_settings(bot.database, fake.guild.id)).starting_chips is None
    assert await db.recent_setting_changes(bot.database, fake.guild.id) == []


async def test_invalid_values_are_refused_with_what_is_allowed(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    admin = fake.add_user("admin", manage_guild=True)
    cases = [({"starting_chips": 0}, "bad_starting_chips", {"min": 1, "max": 10_000_000}),
             ({"daily_chips": -3}, "bad_daily_chips", {"min": 0, "max": 1_000_000}),
             ({"account_days": 99999}, "bad_account_days", {"min": 0, "max": 3650}),
             ({"turn_seconds": 500}, "bad_turn_seconds", {"min": 1, "max": 120}),
             ({"timezone": "Mars/Olympus"}, "bad_timezone", {"timezone": "Mars/Olympus"}),
             ({"language": "fr"}, "bad_language", {"known": "auto, vi, en"}),
             ({"rules": "poker"}, "unknown_rules", {"rules": "poker", "known": "mien-nam, iwin, mien-bac"})]
    for options, code, params in cases:
        result = await fake.slash(admin, ADMIN, options=options, force=True)
        assert result.ephemeral and result.content == error_text(code, "en", params), options
    assert await db.recent_setting_changes(bot.database, fake.guild.id) == []


async def test_settings_show_their_defaults_and_the_last_changes(fake_discord, start_bot, make_bot):
    fake = fake_discord
    await start_bot(make_bot())
    admin = fake.add_user("admin", manage_guild=True)
    shown = await fake.slash(admin, ADMIN)
    assert shown.ephemeral and t("en", "admin.no_changes") in shown.message.text()
    saved = await fake.slash(admin, ADMIN, starting_chips=500, timezone="Europe/Paris")
    text = saved.message.text()
    assert t("en", "admin.saved") in text and t("en", "admin.applies") in text
    assert "500" in text and "Europe/Paris" in text and t("en", "admin.default") in text
    assert t("en", "admin.change_line", user=f"<@{admin.id}>", setting=t("en", "setting.starting_chips"),
             when="").strip() in text
    back = await fake.slash(admin, ADMIN, restore="starting_chips")
    assert "1,000" in back.message.text()


async def test_each_setting_applies_to_new_tables_and_next_games_never_to_a_running_game(
        fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    admin = fake.add_user("admin", manage_guild=True)
    alice, bob = fake.users[:2]
    driver = await open_table(fake, [alice, bob], "mien-nam", bet=10, ai=1)
    first_game = bot.tables.table(driver.channel_id).game_id
    allowed = fake.add_channel("tables-only")
    elsewhere = fake.add_channel("elsewhere")
    await fake.slash(admin, ADMIN, options={"rules": "mien-bac", "bet": 25, "turn_seconds": 30, "language": "vi",
                                            "ai_seats": False, "starting_chips": 700, "daily_chips": 300,
                                            "allow_channel": allowed})

    # The running game keeps what it was dealt with.
    table = bot.tables.table(driver.channel_id)
    assert (table.game_id, table.bet, table.rules.name) == (first_game, 10, "mien-nam")
    assert t("en", "table.now") in driver.table.text()  # still in English

    # New players start with the server's chips; daily chips are the server's.
    carol = fake.add_user("carol")
    await fake.slash(carol, "chips balance")
    assert await balance(bot, fake.guild.id, carol) == 700
    daily = await fake.slash(carol, "chips daily")
    assert daily.ephemeral and await balance(bot, fake.guild.id, carol) == 1000

    # New tables: only in the allowed channel, with the server's defaults, in Vietnamese.
    refused = await fake.slash(carol, "tienlen create", channel=elsewhere)
    assert refused.content == error_text("channel_not_allowed", "en", {"channels": (allowed.id,)})
    created = await fake.slash(carol, "tienlen create", channel=allowed)
    new_table = bot.tables.table(allowed.id)
    assert (new_table.rules.name, new_table.bet, new_table.turn_seconds) == ("mien-bac", 25, 30)
    assert t("vi", "table.lobby") in created.message.text()
    added = await fake.slash(carol, "tienlen addbot", channel=allowed)
    assert added.content == t("en", "error.ai_off")

    # The open table's next game: AI seats are off now, and it is dealt in Vietnamese.
    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between")
    refused_deal = await fake.click(alice, driver.table, driver.custom_id("next"))
    assert refused_deal.content == t("en", "error.ai_off")
    await fake.slash(alice, "tienlen removebot")
    await fake.click(alice, driver.table, driver.custom_id("next"))
    await fake.wait_for(lambda: driver.phase() == "playing" and t("vi", "table.now") in driver.table.text(),
                        what="the next game, in Vietnamese")


async def test_two_servers_keep_their_own_economies(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot(sync_globally=True)
    await start_bot(bot)
    alice = fake.users[0]
    admin = fake.add_user("admin", manage_guild=True)
    second = fake.add_guild_on_shard(0, 1, "Second", members=[alice, admin])
    await fake.slash(admin, ADMIN, starting_chips=500, daily_chips=50)
    await fake.slash(alice, "chips balance")
    await fake.slash(alice, "chips balance", channel=second.channels[0])
    assert await balance(bot, fake.guild.id, alice) == 500
    assert await balance(bot, second.id, alice) == 1000
    await fake.slash(alice, "chips daily")
    await fake.slash(alice, "chips daily", channel=second.channels[0])
    assert await balance(bot, fake.guild.id, alice) == 550
    assert await balance(bot, second.id, alice) == 1200
    assert (await db.get_guild_settings(bot.database, second.id)).starting_chips is None


async def test_daily_chips_wait_for_the_account_age_the_server_set(fake_discord, start_bot, make_bot):
    fake = fake_discord
    await start_bot(make_bot())
    admin = fake.add_user("admin", manage_guild=True)
    await fake.slash(admin, ADMIN, account_days=30)
    young = await fake.slash(fake.users[0], "chips daily")  # the fake's users were made just now
    assert young.content == t("en", "error.account_too_new", days=30)
    await fake.slash(admin, ADMIN, account_days=0)
    claimed = await fake.slash(fake.users[0], "chips daily")
    assert claimed.content != t("en", "error.account_too_new", days=30)


async def test_a_balance_reset_keeps_every_balance_the_sum_of_its_ledger(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    admin = fake.add_user("admin", manage_guild=True)
    alice, bob = fake.users[:2]
    driver = await open_table(fake, [alice, bob], "mien-nam")
    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between")
    await fake.slash(alice, "chips daily")
    await fake.slash(admin, ADMIN, starting_chips=2000)
    asked = await fake.slash(admin, "tienlen-admin reset-balances")
    assert "2,000" in asked.message.text()
    confirm = next(cid for cid in asked.message.custom_ids() if cid.startswith("tl:a:reset:"))
    not_admin = await fake.click(alice, asked.message, confirm, force=True)
    assert not_admin.content == t("en", "error.admin_only")
    done = await fake.click(admin, asked.message, confirm)
    assert "2,000" in (done.message or asked.message).text()
    async with bot.database.read() as session:
        balances = dict((await session.execute(select(AccountRow.user_id, AccountRow.balance)
                                               .where(AccountRow.guild_id == fake.guild.id))).all())
        sums = dict((await session.execute(select(LedgerRow.user_id, func.sum(LedgerRow.amount))
                                           .where(LedgerRow.guild_id == fake.guild.id)
                                           .group_by(LedgerRow.user_id))).all())
    assert set(balances.values()) == {2000} and balances == sums
