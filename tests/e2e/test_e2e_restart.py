"""Restarts: stop the bot mid-game (cleanly, then by crashing), start a new bot
on the same database and fake Discord, and finish the game; the result equals
an uninterrupted replay of the stored actions and no chip is paid twice."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

import db
from db.models import LedgerRow
from i18n import t
from tests.e2e.driver import heading_of
from tests.e2e.test_e2e_full_game import open_table, summary_message
from tienlen import Game


async def _play_some(driver, moves: int) -> None:
    for _ in range(moves):
        user = await driver.wait_for_human_turn()
        assert user is not None, "the game ended too early for this test"
        await driver.play_turn(user)


async def _check_settled_once(bot, fake, game_id: int, humans) -> None:
    stored = await db.load_game(bot.database, game_id)
    record = dict(stored.record)
    record["actions"] = list(stored.actions)
    replay = Game.from_json(record)
    assert replay.finished
    assert stored.outcome is not None
    assert stored.outcome["settlement"] == {str(seat): units for seat, units in replay.settlement().items()}
    async with bot.database.read() as session:
        entries = await session.scalar(
            select(func.count()).select_from(LedgerRow).where(LedgerRow.game_id == game_id)
        )
    assert entries == len(humans)
    for seat, user in enumerate(humans):
        account = await db.get_account(bot.database, fake.guild.id, user.id)
        expected = bot.settings.starting_chips + replay.settlement()[seat] * 10
        assert account.balance == expected


@pytest.mark.parametrize("how", ["clean", "crash"])
async def test_restart_mid_game_then_finish(fake_discord, start_bot, make_bot, how):
    fake = fake_discord
    humans = fake.users[:3]
    first = await start_bot(make_bot())
    driver = await open_table(fake, humans, "mien-nam")
    await _play_some(driver, 5)
    game_id = first.bot.tables.table(driver.channel_id).game_id
    if how == "clean":
        await first.stop()
    else:
        await first.crash()
    second_bot = make_bot()
    await start_bot(second_bot)
    await fake.wait_for(lambda: "restarted" in driver.table.text(), what="the restored table message")
    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between")
    await _check_settled_once(second_bot, fake, game_id, humans)


async def test_crash_between_the_paid_last_move_and_the_next_game_settles_once(
        fake_discord, start_bot, make_bot, monkeypatch):
    """The last move and its settlement are one transaction; the table moves
    on to "between games" in the next one.  A crash between the two leaves a
    paid game whose table still plays it: the next process moves it on, posts
    the summary, and pays nothing again."""
    import runtime.steps

    fake = fake_discord
    humans = fake.users[:2]
    first = await start_bot(make_bot())
    driver = await open_table(fake, humans, "mien-nam")
    real_conclude = runtime.steps._STEPS[runtime.steps.Conclude]

    def crash_instead(*args, **kwargs):
        raise RuntimeError("power cut")

    monkeypatch.setitem(runtime.steps._STEPS, runtime.steps.Conclude, crash_instead)
    game_id = first.bot.tables.table(driver.channel_id).game_id

    def finished() -> bool:
        return first.bot.tables.table(driver.channel_id).game.finished

    while not finished():  # the game ends; the table never gets to "between"
        user = await driver.wait_for_human_turn(timeout=5)
        await driver.play_turn(user)
        await fake.wait_for(lambda: finished() or driver.hand_says_turn(driver.user_named(driver.turn_name())))
    assert driver.phase() == "playing"
    await first.crash()
    monkeypatch.setitem(runtime.steps._STEPS, runtime.steps.Conclude, real_conclude)
    second_bot = make_bot()
    await start_bot(second_bot)
    await fake.wait_for(lambda: driver.phase() == "between", what="the restored game to move on")
    await fake.wait_for(lambda: summary_message(fake), what="the summary, posted by the new process")
    await _check_settled_once(second_bot, fake, game_id, humans)
    third_bot = make_bot()
    await second_bot.close()
    await start_bot(third_bot)  # a second restart must not pay again
    await _check_settled_once(third_bot, fake, game_id, humans)
    summaries = [m for m in fake.messages() if heading_of(m) == t("en", "summary.title")]
    assert len(summaries) == 1


def _live_hands(fake, user) -> list:
    """The user's DM messages that still carry hand buttons."""
    return [message for message in fake.dm_messages(user) if not message.deleted and message.has_component_prefix("tl:h:")]


async def test_a_restarted_bot_takes_over_the_hands_the_old_process_sent(fake_discord, start_bot, make_bot):
    """The new process did not send the DM hands it finds: it reads the DM history once, edits the hand of
    this game in place and deletes older ones, so no stale Pass button stays live."""
    fake = fake_discord
    humans = fake.users[:3]
    first = await start_bot(make_bot())
    driver = await open_table(fake, humans, "mien-nam")
    await _play_some(driver, 3)
    before = {user.id: _live_hands(fake, user) for user in humans}
    assert all(len(hands) == 1 for hands in before.values())
    history_reads = "GET /channels/{channel_id}/messages"
    assert not fake.route_counts()[history_reads], "a table opened by this process has no one else's hands"
    await first.crash()
    mark = fake.mark()
    await start_bot(make_bot())
    await fake.wait_for(lambda: "restarted" in driver.table.text(), what="the restored table message")
    await _play_some(driver, 2)
    for user in humans:
        assert _live_hands(fake, user) == before[user.id], "the old hand was not taken over"
    await driver.play_to_the_end()
    assert all(len(_live_hands(fake, user)) <= 1 for user in humans)
    assert fake.route_counts(mark)[history_reads] == len(humans)  # once a player, not once a change
