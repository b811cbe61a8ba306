"""Whole games through the fake Discord, buttons and selects only, for every preset."""

from __future__ import annotations

import re

import pytest

import db
from i18n import t
from tests.e2e.driver import TableDriver, field_value, titled


async def open_table(fake, players, rules_name, *, bet=10, ai=0):
    host, *others = players
    created = await fake.slash(host, "tienlen create", rules=rules_name, bet=bet)
    driver = TableDriver(fake, created.message, rules_name, players=list(players))
    for user in others:
        result = await fake.click(user, driver.table, driver.custom_id("join"))
        assert result.ephemeral
    for _ in range(ai):
        await fake.click(host, driver.table, driver.custom_id("ai"))
    await fake.wait_for(lambda: len(re.findall(r"\n", driver.table.text())) > 0)
    start = await fake.click(host, driver.table, driver.custom_id("start"))
    assert start.ephemeral
    return driver


def summary_message(fake):
    return titled(fake, t("en", "summary.title"))


def chips_lines(message):
    """{name: (net, balance)} from the posted summary."""
    chips = field_value(message, t("en", "summary.chips"), prefix=True)
    assert chips is not None
    out = {}
    for line in chips.splitlines():
        match = re.match(r"(.+): ([+-][\d,]+) \(balance ([\d,]+)\)", line)
        if match:
            out[match.group(1)] = (int(match.group(2).replace(",", "")), int(match.group(3).replace(",", "")))
    return out


@pytest.mark.parametrize("rules_name", ["mien-nam", "iwin", "mien-bac"])
async def test_four_players_play_a_whole_game_to_settlement(fake_discord, start_bot, make_bot, rules_name):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    driver = await open_table(fake, fake.users[:4], rules_name)
    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between", what="the table to wait for the next game")
    summary = await fake.wait_for(lambda: summary_message(fake), what="the summary")
    lines = chips_lines(summary)
    assert set(lines) == {user.name for user in fake.users[:4]}
    for user in fake.users[:4]:
        account = await db.get_account(bot.database, fake.guild.id, user.id)
        net, balance = lines[user.name]
        assert account.balance == balance == bot.settings.starting_chips + net
    assert sum(net for net, _ in lines.values()) <= 0  # zero-sum, minus any rake


async def test_two_humans_and_two_ai_seats(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    driver = await open_table(fake, fake.users[:2], "mien-nam", ai=2)
    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between")
    lines = chips_lines(await fake.wait_for(lambda: summary_message(fake)))
    assert set(lines) == {user.name for user in fake.users[:2]}  # AI seats neither pay nor receive
    for user in fake.users[:2]:
        account = await db.get_account(bot.database, fake.guild.id, user.id)
        assert account.balance == lines[user.name][1]
