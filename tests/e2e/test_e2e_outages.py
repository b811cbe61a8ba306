"""Discord failing for a while (503s on table edits and DMs): the bot retries,
the table and the hands catch up, and the log says so once, without a
traceback per attempt."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import discord
import pytest

from tests.e2e.test_e2e_full_game import open_table


def server_error() -> discord.DiscordServerError:
    return discord.DiscordServerError(SimpleNamespace(status=503, reason="Service Unavailable"), "upstream down")


@pytest.fixture
def discord_down(monkeypatch):
    """While ``state.down`` is set, message edits and sends fail with 503."""
    state = SimpleNamespace(down=False, failures=0)
    edit, send = discord.PartialMessage.edit, discord.PartialMessageable.send

    async def failing_edit(self, *args, **kwargs):
        if state.down:
            state.failures += 1
            raise server_error()
        return await edit(self, *args, **kwargs)

    async def failing_send(self, *args, **kwargs):
        if state.down:
            state.failures += 1
            raise server_error()
        return await send(self, *args, **kwargs)

    monkeypatch.setattr(discord.PartialMessage, "edit", failing_edit)
    monkeypatch.setattr(discord.PartialMessageable, "send", failing_send)
    return state


async def test_the_table_and_hands_catch_up_after_an_outage_with_one_warning(
        fake_discord, start_bot, make_bot, discord_down, caplog, monkeypatch):
    import cogs.delivery.hands
    import cogs.delivery.tables

    for module in (cogs.delivery.tables, cogs.delivery.hands):
        monkeypatch.setattr(module, "RETRY_FIRST", 0.05)
        monkeypatch.setattr(module, "RETRY_MAX", 0.2)
    fake = fake_discord
    await start_bot(make_bot())
    caplog.set_level(logging.INFO)
    alice, bob = fake.users[:2]

    discord_down.down = True  # Discord breaks just before the deal
    driver = await open_table(fake, [alice, bob], "mien-nam")
    await fake.wait_for(lambda: discord_down.failures >= 6, timeout=10, what="several failed attempts")
    assert driver.phase() == "lobby" and not fake.dm_messages(alice)  # nothing got through

    discord_down.down = False
    await fake.wait_for(lambda: driver.phase() == "playing", timeout=10, what="the table to catch up")
    await fake.wait_for(lambda: fake.dm_messages(alice) and fake.dm_messages(bob), timeout=10,
                        what="the hands to be sent again")
    await driver.play_to_the_end()

    warnings = [record.getMessage() for record in caplog.records if record.name == "cogs.delivery.limits"]
    assert sum("failing table edits" in line for line in warnings) == 1
    assert sum("failing DMs" in line for line in warnings) == 1
    assert sum("work again" in line for line in warnings) == 2
    assert not [record for record in caplog.records if record.exc_info and record.name.startswith("cogs")]



async def test_a_summary_that_drew_a_503_is_posted_again_once(fake_discord, start_bot, make_bot, monkeypatch):
    """The first post of the end-of-game summary answers 503: it is posted again, once."""
    import runtime.outbox
    from i18n import t
    from tests.e2e.driver import heading_of
    from tests.e2e.test_e2e_full_game import summary_message

    monkeypatch.setattr(runtime.outbox, "RETRY_FIRST", 0.05)
    fake = fake_discord
    await start_bot(make_bot())
    send, refused = discord.PartialMessageable.send, []

    async def first_summary_fails(self, *args, **kwargs):
        view = kwargs.get("view")
        title = f"## {t('en', 'summary.title')}"
        if view is not None and any(title in getattr(item, "content", "") for item in view.walk_children()) \
                and not refused:
            refused.append(title)
            raise server_error()
        return await send(self, *args, **kwargs)

    monkeypatch.setattr(discord.PartialMessageable, "send", first_summary_fails)
    driver = await open_table(fake, fake.users[:2], "mien-nam")
    await driver.play_to_the_end()
    assert await fake.wait_for(lambda: summary_message(fake), what="the summary, posted again")
    assert refused
    title = t("en", "summary.title")
    assert sum(heading_of(m) == title for m in fake.messages()) == 1
