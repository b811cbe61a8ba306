"""Ranked play and memories through the fake Discord: a four-person game moves
ratings (the summary shows each change, /leaderboard ranks by them), the game
replays step by step to its end, a step can be shared, and /tienlen profile
answers with a picture."""

from __future__ import annotations

import re

import db
from i18n import t
from tests.e2e.test_e2e_full_game import open_table, summary_message
from tienlen import Game
from tienlen.cards import Card


from tests.e2e.driver import field_value as field, footer_of as footer, heading_of


def replay_button(message, action):
    return next(cid for cid in message.custom_ids() if cid.startswith(f"tl:p:{action}:"))


async def test_four_people_rated_replayed_and_profiled(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    players = fake.users[:4]
    driver = await open_table(fake, players, "mien-nam")
    await driver.play_to_the_end()
    summary = await fake.wait_for(lambda: summary_message(fake), what="the summary")

    # The summary: each person's rating change, and a Replay button.
    lines = field(summary, t("en", "summary.ratings")).splitlines()
    changes = {}
    for line in lines:
        name, after, change = re.fullmatch(r"(.+): ([\d,]+) \(([+-][\d,]+)\)", line).groups()
        changes[name] = (int(after.replace(",", "")), int(change.replace(",", "")))
    assert set(changes) == {user.name for user in players}
    for user in players:
        rating = await db.player_rating(bot.database, fake.guild.id, user.id)
        after, change = changes[user.name]
        assert rating.games == 1 and rating.peak >= after and after - change == 1000
    game_id = int(replay_button(summary, "open").split(":")[3])

    # /leaderboard ranks by rating by default; one game each: all provisional.
    board = await fake.slash(players[0], "leaderboard")
    posted = board.message if not board.ephemeral else (await board.wait_followups())[0]
    assert t("en", "leaderboard.by_rating") in heading_of(posted)
    provisional = field(posted, t("en", "leaderboard.provisional", games=10))
    assert all(f"<@{user.id}>" in provisional for user in players)

    # /tienlen replay: the channel's last game, stepped to its end.
    stored = await db.load_game(bot.database, game_id)
    shown = await fake.slash(players[1], "tienlen replay")
    assert shown.ephemeral
    message = shown.message
    assert footer(message).startswith(f"Step 0/{len(stored.actions)}")
    assert [a.filename for a in message.attachments] == ["replay.jpg"]
    for step in range(1, len(stored.actions) + 1):
        result = await fake.click(players[1], message, replay_button(message, "next"))
        message = result.message
        assert footer(message).startswith(f"Step {step}/{len(stored.actions)}")
        assert message.attachments[0].data[:3] == b"\xff\xd8\xff"
    assert field(message, t("en", "summary.places")) is not None
    assert message.component(replay_button(message, "next"))["disabled"]
    back = await fake.click(players[1], message, replay_button(message, "first"))
    assert footer(back.message).startswith("Step 0/")

    # The autocomplete offers the player's own games.
    choices = await fake.autocomplete(players[1], "tienlen replay", "game", "")
    assert [choice["value"] for choice in choices] == [game_id]

    # Share: the step shown goes to the channel, with a button that opens the replay.
    shared = await fake.click(players[1], back.message, replay_button(back.message, "share"))
    public = shared.message if not shared.ephemeral else (await shared.wait_followups())[0]
    assert not public.ephemeral and public.attachments
    opened = await fake.click(players[2], public, replay_button(public, "open"))
    assert opened.ephemeral and footer(opened.message).startswith("Step 0/")

    # /tienlen profile: a picture of the rating and chips over the rated games.
    profile = await fake.slash(players[0], "tienlen profile")
    picture = profile.message.attachments[0]
    assert picture.filename == "profile.jpg" and picture.data[:3] == b"\xff\xd8\xff"

    # /tienlen stats shows the rating, its rank and the peak.
    stats = await fake.slash(players[0], "tienlen stats")
    assert f"**{t('en', 'stats.peak')}:**" in stats.message.text() and "(#" in stats.message.text()


async def test_a_running_game_is_not_replayed(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    driver = await open_table(fake, fake.users[:2], "mien-nam")
    await fake.wait_for(lambda: driver.phase() == "playing")
    running = bot.tables.table(driver.channel_id).game_id
    refused = await fake.slash(fake.users[0], "tienlen replay", game=running)
    assert refused.ephemeral and "still being played" in refused.content
    nothing = await fake.slash(fake.users[0], "tienlen replay")
    assert nothing.ephemeral and t("en", "error.replay_none") == nothing.content


async def test_a_ranked_table_seats_people_only(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    host = fake.users[0]
    created = await fake.slash(host, "tienlen create", ranked=True)
    assert t("en", "table.ranked") in created.message.text()
    assert not created.message.has_component_prefix("tl:t:ai:")  # no dead Add AI button
    refused = await fake.slash(host, "tienlen addbot")
    assert refused.ephemeral and refused.content == t("en", "error.ranked_no_ai")


async def test_a_two_player_replay_never_shows_an_undealt_card(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    players = fake.users[:2]
    driver = await open_table(fake, players, "mien-nam")
    await driver.play_to_the_end()
    await fake.wait_for(lambda: summary_message(fake), what="the summary")
    game_id = bot.tables.table(driver.channel_id).game_id or (await db.latest_finished_game(
        bot.database, fake.guild.id, driver.channel_id))
    stored = await db.load_game(bot.database, game_id)
    dealt = {card for hand in Game.from_json(dict(stored.record)).dealt for card in hand}
    undealt = {Card.from_index(index) for index in range(52)} - dealt
    assert len(undealt) == 26
    message = (await fake.slash(players[0], "tienlen replay")).message
    while not message.component(replay_button(message, "next"))["disabled"]:
        message = (await fake.click(players[0], message, replay_button(message, "next"))).message
    texts = " ".join(message.revision_texts())
    tokens = set(re.findall(r"(?:10|[2-9JQKA])[♠♣♦♥]", texts))
    assert tokens and not tokens & {card.symbol for card in undealt}
    assert str(stored.record["seed"]) not in texts


async def test_a_server_can_rate_only_ranked_tables(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    admin = fake.add_user("admin", manage_guild=True)
    saved = await fake.slash(admin, "tienlen-admin settings", ranked_only=True)
    assert t("en", "setting.ranked_only") in saved.message.text()
    assert (await db.get_guild_settings(bot.database, fake.guild.id)).ranked_only is True
    driver = await open_table(fake, fake.users[:2], "mien-nam")
    await driver.play_to_the_end()
    summary = await fake.wait_for(lambda: summary_message(fake), what="the summary")
    assert field(summary, t("en", "summary.ratings")) is None
    assert await db.player_rating(bot.database, fake.guild.id, fake.users[0].id) is None


async def test_replay_buttons_work_after_a_restart(fake_discord, start_bot, make_bot):
    fake = fake_discord
    first = await start_bot(make_bot())
    players = fake.users[:2]
    driver = await open_table(fake, players, "mien-nam")
    await driver.play_to_the_end()
    summary = await fake.wait_for(lambda: summary_message(fake), what="the summary")
    shown = (await fake.click(players[0], summary, replay_button(summary, "open"))).message
    await first.stop()
    await start_bot(make_bot())
    stepped = await fake.click(players[0], shown, replay_button(shown, "next"))
    assert footer(stepped.message).startswith("Step 1/")
