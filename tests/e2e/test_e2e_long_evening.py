"""A table that plays all evening: Discord's one-hour edit limit never freezes it.

Discord limits edits of messages older than an hour (a few per window, then
429 with code 30046).  The bot edits no message older than 55 minutes (its
age from its snowflake), posts a fresh table message for every deal and every
result, and when Discord refuses an edit all the same it posts a fresh
message at once instead of waiting out the retries.
"""

from __future__ import annotations

import logging

from cogs.delivery.limits import EDIT_AGE_LIMIT
from tests.e2e.driver import TableDriver

FRESH = EDIT_AGE_LIMIT.total_seconds() / 60


def turn_name(bot, driver) -> str | None:
    table = bot.tables.table(driver.channel_id)
    if table is None or table.game is None or table.game.finished or table.game.turn is None:
        return None
    return table.game_seats[table.game.turn].name


async def play_game_watching_the_turn(fake, bot, driver) -> set[int]:
    """Play one game to its end; after every human move the table names who is on
    turn within 2 s.  The ids of the table messages the game was shown in."""
    shown: set[int] = set()
    for _ in range(400):
        user = await driver.wait_for_human_turn(timeout=15)
        if user is None:
            return shown
        shown.add(driver.table.id)
        await driver.play_turn(user)
        await fake.wait_for(lambda: driver.phase() != "playing" or driver.turn_name() == turn_name(bot, driver)
                            or turn_name(bot, driver) is None, timeout=2.0, what="the table to name the player on turn")
        shown.add(driver.table.id)
    raise AssertionError("the game did not end")


def edits_of_old_messages(fake, *, besides: int) -> list[str]:
    """Edits the fake applied to messages older than the bot's limit when edited (``besides``: one left out)."""
    found = []
    for message in fake.all_messages(include_deleted=True):
        created = message.created_at
        if message.id == besides:
            continue
        for revision_time in message.edit_times:
            if (revision_time - created).total_seconds() / 60 >= FRESH + 0.5:
                found.append(f"{message.id} at {(revision_time - created).total_seconds() / 60:.1f} min")
    return found


async def test_three_games_on_a_table_whose_message_is_59_minutes_old(fake_discord, start_bot, make_bot, caplog):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    caplog.set_level(logging.INFO)
    alice, bob = fake.users[:2]

    with fake.backdated(minutes=59):  # the table was opened an hour ago
        created = await fake.slash(alice, "tienlen create", rules="mien-nam", bet=10)
    first = created.message
    driver = TableDriver(fake, first, "mien-nam", players=[alice, bob])
    await fake.click(bob, driver.table, driver.custom_id("join"))
    await fake.click(alice, driver.table, driver.custom_id("ai"))
    await fake.click(alice, driver.table, driver.custom_id("ai"))
    await fake.wait_for(lambda: driver.table.id != first.id, what="a fresh lobby message (the first is too old)")
    assert first.deleted  # retired: one table message at a time

    games: list[set[int]] = []
    aged = 0
    for number in range(1, 4):
        start = "start" if number == 1 else "next"
        before = driver.table.id
        await fake.click(alice, driver.table, driver.custom_id(start))  # the host deals the next game at once
        await fake.wait_for(lambda: driver.phase() == "playing" and driver.table.id != before,
                            what=f"game {number} in a fresh table message")
        if number == 3:  # Discord counts this message as over an hour old, though its id says otherwise
            aged = fake.age_message(driver.table, minutes=62).id
        games.append(await play_game_watching_the_turn(fake, bot, driver))
        await fake.wait_for(lambda: driver.phase() == "between", what=f"the end of game {number}")

    assert all(games) and not (games[0] & games[1]) and not (games[1] & games[2]) and not (games[0] & games[2])

    def live() -> list:
        return [m for m in fake.messages() if m.has_component_prefix("tl:t:")]

    await fake.wait_for(lambda: len(live()) == 1, what=f"one live table message, not {live()}")  # old ones deleted
    assert edits_of_old_messages(fake, besides=aged) == []
    assert all(refusal.message_id in games[2] for refusal in fake.edit_limit_refusals)  # only the aged one
    logged = [record for record in caplog.records if record.levelno >= logging.WARNING
              and ("30046" in record.getMessage() or "rate limited" in record.getMessage())]
    assert logged == []
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
