"""Out-of-turn 4 đôi thông through the buttons: the holder's controls offer the
chop as soon as a 2 is on top, and the chop lands although it is not their turn."""

from __future__ import annotations

import random

from i18n import t
from tests.e2e.driver import TableDriver
from tests.e2e.test_e2e_full_game import open_table
from tienlen import RULESETS, Bomb, Game, classify
from tienlen.combos import bombs_beating


def find_deal_seed(players: int = 4) -> int:
    """A test seed whose first deal lets seat lead+1 play a 2 and seat lead+3
    (not next on turn) chop it with four consecutive pairs."""
    rules = RULESETS["mien-nam"]
    two = classify("2S", rules)
    for deal_seed in range(200_000):
        game = Game.deal(rules, players, random.Random(deal_seed).getrandbits(64))
        if game.instant_win is not None:
            continue
        lead = game.turn
        follower, chopper = (lead + 1) % players, (lead + 3) % players
        if game.hand_mask(follower) >> 48 and bombs_beating(game.hand_mask(chopper), two, rules, only=Bomb.FOUR_PAIRS):
            return deal_seed
    raise AssertionError("no suitable deal")


def quick_options(message):
    quick = next(cid for cid in message.custom_ids() if cid.startswith("tl:h:quick:"))
    return quick, message.component(quick)


async def test_out_of_turn_four_pairs_chop_through_the_controls(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot(deal_seed=find_deal_seed())
    await start_bot(bot)
    driver: TableDriver = await open_table(fake, fake.users[:4], "mien-nam")
    table = bot.tables.table(driver.channel_id)
    game = table.game
    lead = game.turn
    names = [seat.name for seat in table.game_seats]
    users = [driver.user_named(name) for name in names]
    leader, follower, chopper = users[lead], users[(lead + 1) % 4], users[(lead + 3) % 4]
    rules = RULESETS["mien-nam"]

    # The leader plays the lowest card alone; the follower puts a 2 on it.
    await driver.wait_for_human_turn()
    quick, menu = quick_options(driver.hand_message(leader))
    single = next(o["value"] for o in menu["options"] if classify(int(o["value"], 16), rules).size == 1)
    await fake.select(leader, driver.hand_message(leader), quick, [single])
    await fake.wait_for(lambda: driver.turn_name() == follower.name and driver.hand_says_turn(follower))
    quick, menu = quick_options(driver.hand_message(follower))
    two = next(o["value"] for o in menu["options"] if classify(int(o["value"], 16), rules).top >= 48)
    await fake.select(follower, driver.hand_message(follower), quick, [two])

    # The chopper is not on turn, yet their hand now offers the chop.
    offer = t("en", "hand.can_chop")
    await fake.wait_for(lambda: offer in driver.hand_message(chopper).text(), what="the chop offer in the DM")
    assert driver.turn_name() != chopper.name
    quick, menu = quick_options(driver.hand_message(chopper))
    bomb = next(o["value"] for o in menu["options"]
                if classify(int(o["value"], 16), rules).bomb is Bomb.FOUR_PAIRS)
    result = await fake.select(chopper, driver.hand_message(chopper), quick, [bomb])
    assert not result.content  # accepted: the hand was updated, no error
    game = bot.tables.table(driver.channel_id).game  # the committed game after the chop
    assert game.top.bomb is Bomb.FOUR_PAIRS and game.top_owner == (lead + 3) % 4
    await fake.wait_for(lambda: "Chặt heo" in driver.table.text(), what="the chop announced on the table")
    assert game.turn == lead  # play continues with the player after the chopper
