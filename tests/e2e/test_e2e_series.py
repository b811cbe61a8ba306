"""A table is a series of games (issue 8): who leads each game, joining and
leaving between games, host hand-over, idle tables, and a restart between games."""

from __future__ import annotations

import pytest

from i18n import t
from tests.e2e.driver import TableDriver, field_value
from tests.e2e.test_e2e_full_game import open_table
from tienlen.table import Phase


def lead_text(driver: TableDriver) -> str:
    return field_value(driver.table, t("en", "table.lead")) or ""


def live_table(bot, driver):
    return bot.tables.table(driver.channel_id)


async def finish_game(fake, driver) -> None:
    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between", what="the game to end")


async def next_game(fake, driver, host) -> None:
    number = driver.table.text()
    await fake.click(host, driver.table, driver.custom_id("next"))
    await fake.wait_for(lambda: driver.phase() == "playing" and driver.table.text() != number)


def expect_lead(bot, driver, reason: str) -> str:
    """The table says who leads and why; the engine agrees on the seat."""
    table = live_table(bot, driver)
    game = table.game
    leader = table.game_seats[game.turn].name
    assert lead_text(driver) == t("en", f"lead.{reason}", name=leader)
    return leader


@pytest.mark.parametrize("rules_name", ["mien-nam", "iwin", "mien-bac"])
async def test_three_games_with_the_right_leader_each_time(fake_discord, start_bot, make_bot, rules_name):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    players = fake.users[:4]
    driver = await open_table(fake, players, rules_name)

    # Game 1: the holder of the lowest card (3♠ with four players) leads.
    expect_lead(bot, driver, "first-game")
    table = live_table(bot, driver)
    game = table.game
    assert game.hand(game.turn)[0].code == "3S"
    await finish_game(fake, driver)
    table = live_table(bot, driver)
    first_winner = table.last_result.winner_seat_name

    # Game 2: the previous winner leads with anything.
    host = driver.user_named(next(seat.name for seat in table.seats if seat.user_id == table.host_id))
    await next_game(fake, driver, host)
    table = live_table(bot, driver)
    leader = expect_lead(bot, driver, "penalty" if table.last_result.penalty_leader else "previous-winner")
    if not table.last_result.penalty_leader:
        assert leader == first_winner
    assert table.game.required_card is None
    await finish_game(fake, driver)
    table = live_table(bot, driver)
    winner, second = table.last_result.winner_seat_name, table.last_result.second_seat_name

    # The winner leaves between games: no penalty, the seat frees up.
    leaver = driver.user_named(winner)
    result = await fake.click(leaver, driver.table, driver.custom_id("leave"))
    assert result.content == t("en", "reply.left")
    driver.players.remove(leaver)
    table = live_table(bot, driver)
    assert table.seat_of(leaver.id) is None

    # Game 3: mien-nam / iwin go back to the 3♠ rule; mien-bac gives the lead to the second.
    host = driver.user_named(next(seat.name for seat in table.seats if seat.user_id == table.host_id))
    await next_game(fake, driver, host)
    if rules_name == "mien-bac":
        assert expect_lead(bot, driver, "second-place") == second
    else:
        expect_lead(bot, driver, "winner-left")
        table = live_table(bot, driver)
        lowest = min(card.index for seat in range(table.game.players) for card in table.game.hand(seat))
        assert table.game.hand(table.game.turn)[0].index == lowest
    await finish_game(fake, driver)
    assert live_table(bot, driver).games_played == 3
    assert t("en", "table.tally", games=3) in driver.table.text()


async def test_join_leave_and_host_handover_between_games(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    alice, bob, carol, dave = fake.users[:4]
    driver = await open_table(fake, [alice, bob], "mien-nam")
    await finish_game(fake, driver)

    joined = await fake.click(carol, driver.table, driver.custom_id("join"))
    assert joined.content == t("en", "reply.joined")
    driver.players.append(carol)
    handed = await fake.slash(alice, "tienlen host", options={"user": bob})
    assert handed.content == t("en", "reply.host_changed", name="bob")
    assert live_table(bot, driver).host_id == bob.id
    refused = await fake.click(alice, driver.table, driver.custom_id("next"))
    assert refused.content == t("en", "reply.ready", ready=1, humans=3)  # not host: just ready

    left = await fake.click(bob, driver.table, driver.custom_id("leave"))
    assert left.content == t("en", "reply.left")
    driver.players.remove(bob)
    assert live_table(bot, driver).host_id == alice.id  # the next seated human

    configured = await fake.slash(alice, "tienlen config", bet=20, turn_seconds=15)
    assert configured.content == t("en", "reply.configured")
    table = live_table(bot, driver)
    assert (table.bet, table.turn_seconds) == (20, 15)

    started = await fake.click(alice, driver.table, driver.custom_id("next"))
    assert started.ephemeral
    await fake.wait_for(lambda: driver.phase() == "playing")
    assert [seat.name for seat in live_table(bot, driver).game_seats] == ["alice", "carol"]
    await finish_game(fake, driver)

    ended = await fake.slash(alice, "tienlen end")
    assert not ended.ephemeral and t("en", "reply.session_tally") in ended.content
    assert bot.tables.table(driver.channel_id) is None
    await fake.wait_for(lambda: bot.delivery.kept() == 0, what="nothing kept of the closed table and its players")


async def test_every_human_ready_starts_the_next_game(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    alice, bob = fake.users[:2]
    driver = await open_table(fake, [alice, bob], "mien-nam")
    await finish_game(fake, driver)
    await fake.click(bob, driver.table, driver.custom_id("next"))
    assert live_table(bot, driver).phase is Phase.BETWEEN
    await fake.click(alice, driver.table, driver.custom_id("next"))  # alice is host anyway
    await fake.wait_for(lambda: driver.phase() == "playing")


async def test_idle_lobby_closes_itself(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot(idle_minutes=0.01)  # 0.6 s
    await start_bot(bot)
    created = await fake.slash(fake.users[0], "tienlen create")
    driver = TableDriver(fake, created.message, players=[fake.users[0]])
    await fake.wait_for(lambda: bot.tables.table(driver.channel_id) is None, timeout=10, what="the idle table to close")
    await fake.wait_for(lambda: any(t("en", "closed.idle") in m.text() for m in fake.messages()))
    await fake.wait_for(lambda: driver.phase() == "closed", what="the table message to lose its buttons")


async def test_a_game_in_progress_is_never_closed_by_idleness(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot(idle_minutes=0.04)  # 2.4 s: time enough to open the table on a busy machine
    await start_bot(bot)
    driver = await open_table(fake, fake.users[:2], "mien-nam")
    import asyncio

    await asyncio.sleep(3.0)
    assert live_table(bot, driver) is not None and driver.phase() == "playing"


async def test_restart_between_two_games_keeps_the_series(fake_discord, start_bot, make_bot):
    fake = fake_discord
    first = await start_bot(make_bot())
    driver = await open_table(fake, fake.users[:3], "mien-nam")
    await finish_game(fake, driver)
    table = live_table(first.bot, driver)
    winner = table.last_result.winner_seat_name
    host = driver.user_named(next(seat.name for seat in table.seats if seat.user_id == table.host_id))
    await first.stop()
    second = make_bot()
    await start_bot(second)
    await next_game(fake, driver, host)
    assert expect_lead(second, driver, "previous-winner") == winner
    assert live_table(second, driver).games_played == 1
