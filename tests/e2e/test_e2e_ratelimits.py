"""Discord's real rate limits: a busy table (AI seats moving without pause)
edits its message as fast as the channel's bucket allows, never draws a 429,
and each edit shows the latest state (the human's moves appear)."""

from __future__ import annotations

from tests.e2e.test_e2e_full_game import open_table

EDIT_ROUTE = "PATCH /channels/{channel_id}/messages/{message_id}"


async def test_a_busy_table_follows_the_bucket_and_draws_no_429(fake_discord, start_bot, make_bot):
    fake = fake_discord
    fake.rate_limits.time_scale = 1.0  # Discord's own windows: 5 edits per 5 s per channel
    await start_bot(make_bot(ai_delay_seconds=0.0))
    mark = fake.mark()
    driver = await open_table(fake, fake.users[:1], "mien-nam", ai=3)
    for _ in range(4):  # three AI moves between two of ours: bursts of changes
        user = await driver.wait_for_human_turn(timeout=20)
        if user is None:
            break
        await driver.play_turn(user)

    edits = [request for request in fake.requests_since(mark)
             if request.key == EDIT_ROUTE and request.path.split("/")[-3] == str(fake.channel.id)]
    assert fake.rate_limited.total() == 0, fake.rate_limited
    assert len(edits) > 5  # more than one bucket's worth: the pacing was needed


async def test_changes_while_the_bucket_is_empty_become_one_edit_of_the_latest_state(
        fake_discord, start_bot, make_bot):
    """The editor waits for the refill *before* it renders, so what it sends is
    the newest state, once, rather than each stale state in turn."""
    fake = fake_discord
    handle = await start_bot(make_bot())
    bot = handle.bot
    alice, bob, carol = fake.users[:3]
    table = (await fake.slash(alice, "tienlen create", rules="mien-nam", bet=10)).message
    await fake.wait_for(lambda: bot.tables.state(fake.channel.id).message_id is not None, what="the table message")
    await bot.tables.flush()

    bot.budget.observe("PATCH", fake.channel.id, remaining=0, reset_after=0.6)  # Discord: bucket empty
    mark = fake.mark()
    await fake.click(bob, table, f"tl:t:join:{fake.channel.id}")
    await fake.click(carol, table, f"tl:t:join:{fake.channel.id}")
    await fake.click(alice, table, f"tl:t:ai:{fake.channel.id}")
    await fake.wait_for(lambda: "Bot Lan" in table.text(), timeout=5, what="the edit after the refill")

    edits = [request for request in fake.requests_since(mark) if request.key == EDIT_ROUTE]
    assert len(edits) == 1  # three changes, one edit
    assert all(name in table.text() for name in ("bob", "carol", "Bot Lan"))


async def test_a_move_is_shown_while_a_players_dm_channel_waits_for_discords_bucket(fake_discord, start_bot, make_bot):
    """Discord lets a bot open only a few DM channels at a time: a deal to new
    players waits for that bucket.  The table message must not wait behind it,
    and the DM that arrives late shows the hand as it is then, not as dealt."""
    fake = fake_discord
    fake.rate_limits.set_limit("dm-create", 1, 250.0)  # one DM channel every 5 s at the fixture's time scale
    handle = await start_bot(make_bot())
    alice, bob = fake.users[:2]
    driver = await open_table(fake, [alice, bob], "mien-nam")
    leader = await fake.wait_for(lambda: driver.user_named(driver.turn_name() or ""), what="the leader")
    driver.ephemeral_hands[leader.id] = None  # the leader plays from "My hand" (an interaction's own answer)
    before = driver.table.text()
    await driver.play_turn(leader)
    assert driver.table.text() != before
    late = [user for user in (alice, bob) if fake.latest_with_component(user, "tl:h:") is None]
    assert late, "the move was shown only once every DM channel was open"

    dm = await fake.wait_for(lambda: fake.latest_with_component(late[0], "tl:h:"), timeout=15, what="the late DM")
    await handle.bot.tables.flush()
    assert len(dm.revisions) == 1, "the late DM showed the dealt hand, then the game as it is"
