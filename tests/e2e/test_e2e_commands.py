"""Every slash command and table button, their refusals, chips and languages."""

from __future__ import annotations

import db
from i18n import t
from tests.e2e.driver import TableDriver
from tests.e2e.test_e2e_full_game import open_table


async def test_lobby_commands_and_their_refusals(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot(sync_globally=True)  # global commands also show in DMs
    await start_bot(bot)
    alice, bob, carol = fake.users[:3]

    in_dm = await fake.slash(alice, "tienlen create", dm=True, force=True)
    assert in_dm.content == t("en", "error.guild_only")
    no_table = await fake.slash(bob, "tienlen join")
    assert no_table.content == t("en", "error.no_table")

    created = await fake.slash(alice, "tienlen create", rules="iwin", bet=5)
    assert not created.ephemeral and "Iwin" in created.message.text()
    again = await fake.slash(bob, "tienlen create")
    assert again.content == t("en", "error.table_exists")

    assert (await fake.slash(bob, "tienlen join")).content == t("en", "reply.joined")
    assert (await fake.slash(bob, "tienlen join")).content == t("en", "error.already_seated")
    assert (await fake.slash(bob, "tienlen start")).content == t("en", "error.host_only")
    added = await fake.slash(alice, "tienlen addbot", level="hard")
    assert added.content == t("en", "reply.ai_added", level=t("en", "level.hard"))
    assert (await fake.slash(alice, "tienlen removebot")).content == t("en", "reply.ai_removed")
    assert (await fake.slash(alice, "tienlen removebot")).content == t("en", "error.no_ai_seat")
    assert (await fake.slash(bob, "tienlen leave")).content == t("en", "reply.left")
    assert (await fake.slash(alice, "tienlen start")).content == t("en", "error.need_players", min=2, max=4)
    assert (await fake.slash(carol, "tienlen end")).content == t("en", "error.host_only")
    ended = await fake.slash(alice, "tienlen end")
    assert t("en", "reply.ended") in ended.content


async def test_typed_play_pass_hand_and_autocomplete(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    driver = await open_table(fake, fake.users[:2], "mien-nam")
    user = await driver.wait_for_human_turn()
    hand = await fake.slash(user, "tienlen hand")
    assert hand.ephemeral and t("en", "hand.your_turn") in hand.message.text()

    choices = await fake.autocomplete(user, "tienlen play", "cards", "3")
    assert choices and all("3S" in choice["value"] for choice in choices)  # the first play must hold 3♠
    cannot_pass = await fake.slash(user, "tienlen pass")
    assert cannot_pass.content == t("en", "error.lead_cannot_pass")
    bad = await fake.slash(user, "tienlen play", cards="3S 1H")
    assert bad.content == t("en", "error.bad_card", token="1H")
    def actions() -> int:
        return len(bot.tables.table(driver.channel_id).game.actions)

    before = actions()
    played = await fake.slash(user, "tienlen play", cards=choices[0]["value"])
    assert played.ephemeral and actions() == before + 1

    other = await driver.wait_for_human_turn()
    passed = await fake.slash(other, "tienlen pass")
    assert passed.ephemeral and actions() == before + 2


async def test_rules_help_pages(fake_discord, start_bot, make_bot):
    fake = fake_discord
    await start_bot(make_bot())
    alice = fake.users[0]
    shown = await fake.slash(alice, "tienlen rules", preset="mien-bac")
    assert shown.ephemeral and "1/6" in shown.message.text()
    next_id = next(cid for cid in shown.message.custom_ids() if cid.endswith(":1"))
    turned = await fake.click(alice, shown.message, next_id)
    assert "2/6" in turned.message.text()
    await fake.slash(alice, "tienlen create", rules="iwin", turn_seconds=45)
    table_rules = await fake.slash(alice, "tienlen rules")
    assert "45" in table_rules.message.text()  # the table's own turn time


async def test_chips_daily_balance_leaderboard_history_and_stats(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    alice, bob = fake.users[:2]
    balance = await fake.slash(alice, "chips balance")
    assert balance.content == t("en", "chips.balance", name="alice", balance="1,000")
    daily = await fake.slash(alice, "chips daily")
    assert daily.content == t("en", "chips.daily", amount="200", balance="1,200")
    again = await fake.slash(alice, "chips daily")
    assert "already claimed" in again.content
    nobody = await fake.slash(alice, "chips balance", options={"user": bob})
    assert nobody.content == t("en", "chips.no_account", name="bob")

    driver = await open_table(fake, [alice, bob], "mien-nam")
    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between")
    for by in ("chips", "wins", "winrate"):
        board = await fake.slash(alice, "leaderboard", by=by)
        assert not board.ephemeral
        if by != "winrate":
            assert str(alice.id) in board.message.text() and str(bob.id) in board.message.text()
    history = await fake.slash(alice, "tienlen history")
    assert "alice" in history.message.text() and "bob" in history.message.text()
    stats = await fake.slash(bob, "tienlen stats", options={"user": alice})
    assert t("en", "stats.title", name="alice") in stats.message.text()


async def test_not_enough_chips_to_sit_down(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    alice, bob = fake.users[:2]
    await fake.slash(alice, "tienlen create", bet=50)  # mien-nam asks for 14 bets: 700 chips
    await db.get_or_create_account(bot.database, fake.guild.id, bob.id, starting_chips=1000)
    await db.get_or_create_account(bot.database, fake.guild.id, alice.id, starting_chips=1000)
    await db.transfer(bot.database, fake.guild.id, bob.id, alice.id, 900, reason="transfer", key="test:gift")
    refused = await fake.slash(bob, "tienlen join")
    assert refused.content == t("en", "error.not_enough_chips", need="700", have="100")


async def test_leaving_mid_game_is_a_loss_with_the_penalty(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    alice, bob, carol = fake.users[:3]
    driver = await open_table(fake, [alice, bob, carol], "mien-nam")
    left = await fake.click(carol, driver.table, driver.custom_id("leave"))
    assert left.content == t("en", "reply.left_game")
    driver.players.remove(carol)
    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between")
    account = await db.get_account(bot.database, fake.guild.id, carol.id)
    # Last of three: 2B to the winner, plus the 1B leave penalty to each of the two others.
    assert account.balance == 1000 - (2 + 2) * 10
    table = bot.tables.table(driver.channel_id)
    assert table.seat_of(carol.id) is None


async def test_server_manager_aborts_a_game_without_moving_chips(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    alice, bob = fake.users[:2]
    admin = fake.add_user("admin", manage_guild=True)
    driver = await open_table(fake, [alice, bob], "mien-nam")
    ended = await fake.slash(admin, "tienlen end")
    assert t("en", "reply.ended") in ended.content
    for user in (alice, bob):
        assert (await db.get_account(bot.database, fake.guild.id, user.id)).balance == 1000
    await fake.wait_for(lambda: driver.phase() == "closed")


async def test_vietnamese_players_and_servers(fake_discord, start_bot, make_bot):
    fake = fake_discord
    vi_guild = fake.add_guild("Sòng bài", preferred_locale="vi")
    channel = fake.add_channel("tien-len", guild=vi_guild)
    an = fake.add_user("an", locale="vi", guild=vi_guild)
    binh = fake.add_user("binh", locale="en-US", guild=vi_guild)
    await start_bot(make_bot(dev_guild_id=vi_guild.id))
    created = await fake.slash(an, "tienlen create", channel=channel)
    assert "Miền Nam" in created.message.text() and t("vi", "button.join") in created.message.text()
    joined = await fake.slash(binh, "tienlen join", channel=channel)
    assert joined.content == t("en", "reply.joined")  # English user, English reply
    again = await fake.slash(an, "tienlen join", channel=channel)
    assert again.content == t("vi", "error.already_seated")
    registered = {command["name"]: command for command in fake.commands.list(vi_guild.id)}
    group = registered["tienlen"]
    assert group["description_localizations"]["vi"] == t("vi", "cmd.tienlen")
    create = next(option for option in group["options"] if option["name"] == "create")
    assert create["name_localizations"]["vi"] == "tạo-bàn"
    driver = TableDriver(fake, created.message, players=[an, binh])
    await fake.click(an, driver.table, f"tl:t:start:{channel.id}")
    dm = await fake.wait_for(lambda: fake.latest_with_component(an, "tl:h:"))
    assert t("vi", "hand.title", count=13) in dm.text()
