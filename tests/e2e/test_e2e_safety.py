"""Refusals and private information, end to end: DMs closed, wrong user, wrong
turn, illegal plays, double clicks, stale and crafted buttons, and a scan of
everything public for cards still in someone's hand."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from i18n import t
from tests.e2e.driver import YOUR_TURN, TableDriver
from tests.e2e.test_e2e_full_game import open_table

from tienlen.cards import cards_of


def hand_of(bot, user):
    table = next(iter(bot.tables.tables))
    seat = table.game_seat_of(user.id)
    return table.game.hand(seat)


async def test_dms_closed_player_plays_through_the_ephemeral_view(fake_discord, start_bot, make_bot):
    fake = fake_discord
    await start_bot(make_bot())
    closed = fake.users[1]
    closed.dms_open = False
    driver = await open_table(fake, fake.users[:3], "mien-nam")
    driver.ephemeral_hands[closed.id] = None
    # The bot tried to DM the hand and Discord refused (403).
    await fake.wait_for(lambda: any(r.status == 403 for r in fake.requests), what="the refused DM")
    assert not [m for m in fake.dm_messages(closed) if m.has_component_prefix("tl:h:")]
    first = await driver.open_hand(closed)
    assert t("en", "hand.dms_closed") in first.text()
    second = await driver.open_hand(closed)
    assert t("en", "hand.dms_closed") not in second.text()  # said once
    await driver.play_to_the_end()
    assert driver.phase() == "between"


async def test_an_ephemeral_hand_follows_the_game_without_being_opened_again(fake_discord, start_bot, make_bot):
    """A player whose DMs are closed opens "My hand" once: the bot keeps that
    ephemeral view current (their turn, what to beat, their cards) until the
    game ends, as it does a DM; opening a newer view deletes the older one."""
    fake = fake_discord
    await start_bot(make_bot())
    closed = fake.users[1]
    closed.dms_open = False
    driver = await open_table(fake, fake.users[:3], "mien-nam")
    driver.reopen_ephemeral = False
    await fake.wait_for(lambda: any(r.status == 403 for r in fake.requests), what="the refused DM")
    older = await driver.open_hand(closed)
    view = await driver.open_hand(closed)
    await fake.wait_for(lambda: older.deleted, what="the replaced ephemeral hand to be deleted")
    assert not view.deleted
    await driver.play_to_the_end()  # waits for the view to say "your turn" before each of its moves
    assert driver.phase() == "between"
    # A new picture cannot come by a webhook edit (discord-api-docs #7529): such a refresh posts the
    # view again and deletes the old one, so the player always has exactly one live view.
    current = driver.hand_message(closed)
    assert current is not None and not current.deleted
    live = [m for m in fake.all_messages(include_deleted=False)
            if m.ephemeral_to is closed and any("tl:h:" in text for text in m.revision_texts())]
    assert live == [current]
    refreshes = [r for r in fake.requests if r.key in ("PATCH /webhooks/{app_id}/{token}/messages/{message_id}",
                                                       "POST /webhooks/{app_id}/{token}")]
    assert refreshes, "the view changed only through the player's own presses"
    refused = [r for r in fake.requests if r.key == "PATCH /webhooks/{app_id}/{token}/messages/{message_id}"
               and r.status == 400]
    assert len(refused) <= 1, "once Discord refused a new picture in a webhook edit, the bot stops asking"


async def test_a_move_made_in_the_dm_also_updates_an_open_ephemeral_view(fake_discord, start_bot, make_bot):
    """A player with open DMs who also opened "My hand" in the channel, then
    plays from the DM: the ephemeral view follows (it does not keep offering
    the cards just played)."""
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    driver = await open_table(fake, fake.users[:3], "mien-nam")
    leader = await driver.wait_for_human_turn()
    dm = [message for message in fake.dm_messages(leader) if message.has_component_prefix("tl:h:")][-1]
    view = (await fake.click(leader, driver.table, driver.custom_id("hand"))).message
    shown_before = view.text()
    driver.reopen_ephemeral = False
    driver.ephemeral_hands[leader.id] = dm  # the message the driver plays from: the DM
    assert await driver.play_turn(leader) == "played"  # the first lead: always a play

    def live_view() -> Any:
        # A refresh with a new picture may come as a new view that replaces this one (discord-api-docs #7529).
        if not view.deleted:
            return view
        return fake.latest_message(leader, prefix="tl:h:", where=lambda m: m.ephemeral and not m.deleted)

    await fake.wait_for(lambda: (live := live_view()) is not None and live.text() != shown_before,
                        what="the ephemeral view to follow the DM move")
    current = live_view()
    assert YOUR_TURN in shown_before and YOUR_TURN not in current.text()
    assert not [cid for cid in current.custom_ids() if cid.startswith("tl:h:quick:")]  # nothing to play from it now


async def test_refusals_leave_the_game_unchanged(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    alice, bob, carol = fake.users[:3]
    driver = await open_table(fake, [alice, bob], "mien-nam")
    on_turn = await driver.wait_for_human_turn()
    waiting = bob if on_turn is alice else alice
    game = bot.tables.table(driver.channel_id).game
    actions_before = len(game.actions)
    channel, game_id = driver.channel_id, bot.tables.table(driver.channel_id).game_id

    spectator = await fake.click(carol, driver.table, driver.custom_id("hand"))
    assert spectator.ephemeral and t("en", "reply.spectator") in spectator.content

    crafted = await fake.click(carol, driver.table, f"tl:h:play:{channel}:{game_id}:1", force=True)
    assert crafted.ephemeral and crafted.content == t("en", "error.stale")

    typed = await fake.slash(carol, "tienlen pass")
    assert typed.ephemeral and typed.content == t("en", "error.not_in_game")

    # Hands are sent one by one: the waiting player's may come after the turn shows.
    own = await fake.wait_for(lambda: driver.hand_message(waiting), what="the waiting player's hand")
    pass_id = next(cid for cid in own.custom_ids() if cid.startswith("tl:h:pass:"))
    wrong_turn = await fake.click(waiting, own, pass_id, force=True)
    assert wrong_turn.ephemeral and wrong_turn.content == t("en", "error.not_your_turn")

    someone_elses = hand_of(bot, on_turn)[0]
    stolen = await fake.slash(waiting, "tienlen play", cards=someone_elses.code)
    assert stolen.ephemeral and stolen.content in (
        t("en", "error.not_your_turn"), t("en", "error.not_in_hand", cards=str(someone_elses)))
    own_turn_steal = await fake.slash(on_turn, "tienlen play", cards=hand_of(bot, waiting)[0].code)
    assert own_turn_steal.content == t("en", "error.not_in_hand", cards=str(hand_of(bot, waiting)[0]))

    stale = await fake.click(on_turn, driver.hand_message(on_turn), f"tl:h:pass:{channel}:{game_id + 99}", force=True)
    assert stale.content == t("en", "error.stale")

    unknown = await fake.click(on_turn, driver.table, "something:else", force=True)
    assert unknown.ephemeral and unknown.content == t("en", "error.stale")

    # An illegal play: two cards of different ranks are no combination.
    hand = hand_of(bot, on_turn)
    lowest, highest = hand[0], hand[-1]
    message = driver.hand_message(on_turn)
    picker = next(cid for cid in message.custom_ids() if cid.startswith("tl:h:cards:"))
    picked = await fake.select(on_turn, message, picker, [lowest.code, highest.code])
    play_id = next(cid for cid in picked.message.custom_ids() if cid.startswith("tl:h:play:"))
    illegal = await fake.click(on_turn, picked.message, play_id)
    assert illegal.ephemeral and illegal.content == t("en", "error.not_a_combo")
    assert len(bot.tables.table(driver.channel_id).game.actions) == actions_before


async def test_double_click_plays_once(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    driver = await open_table(fake, fake.users[:2], "mien-nam")
    user = await driver.wait_for_human_turn()
    game = bot.tables.table(driver.channel_id).game
    before = len(game.actions)
    message = driver.hand_message(user)
    quick = next(cid for cid in message.custom_ids() if cid.startswith("tl:h:quick:"))
    value = message.component(quick)["options"][0]["value"]
    first, second = await asyncio.gather(
        fake.select(user, message, quick, [value]), fake.select(user, message, quick, [value])
    )
    assert len(bot.tables.table(driver.channel_id).game.actions) == before + 1
    refused = [result for result in (first, second) if result.ephemeral and result.content]
    assert len(refused) == 1


async def test_buttons_of_a_finished_game_are_refused(fake_discord, start_bot, make_bot):
    fake = fake_discord
    await start_bot(make_bot())
    driver = await open_table(fake, fake.users[:2], "mien-nam")
    old_hand = await fake.wait_for(lambda: driver.hand_message(fake.users[0]))
    pass_id = next(cid for cid in old_hand.custom_ids() if cid.startswith("tl:h:pass:"))
    await driver.play_to_the_end()
    # The DM was edited to its final state (no buttons); an old client could still send the click.
    result = await fake.click(fake.users[0], old_hand, pass_id, force=True)
    assert result.ephemeral and result.content == t("en", "error.stale")


CARD_TEXT = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([SCDH♠♣♦♥])(?![a-z])")


def cards_in(text: str) -> set[str]:
    return {rank + {"♠": "S", "♣": "C", "♦": "D", "♥": "H"}.get(suit, suit) for rank, suit in CARD_TEXT.findall(text)}


async def test_no_hidden_card_in_public_messages_or_info_logs(fake_discord, start_bot, make_bot, caplog):
    fake = fake_discord
    bot = make_bot()
    caplog.set_level(logging.INFO)
    await start_bot(bot)
    driver = await open_table(fake, fake.users[:4], "mien-nam")
    checked = 0
    while True:
        user = await driver.wait_for_human_turn()
        if user is None:
            break
        table = bot.tables.table(driver.channel_id)
        hidden = set()
        for seat in range(table.game.players):
            hidden |= {card.code for card in cards_of(table.game.hand_mask(seat))}
        public = "\n".join(fake.public_texts())
        logs = "\n".join(record.getMessage() for record in caplog.records if record.levelno >= logging.INFO)
        assert not cards_in(public) & hidden, "a card still in a hand appears in a public message"
        assert not cards_in(logs) & hidden, "a card still in a hand appears in an INFO log line"
        checked += 1
        await driver.play_turn(user)
    assert checked > 10


async def test_silent_player_times_out_then_the_ai_takes_over(fake_discord, start_bot, make_bot):
    fake = fake_discord
    await start_bot(make_bot())
    alice, bob = fake.users[:2]
    created = await fake.slash(alice, "tienlen create", rules="mien-nam", bet=10, turn_seconds=1)
    driver = TableDriver(fake, created.message, "mien-nam", players=[alice, bob])
    await fake.click(bob, driver.table, driver.custom_id("join"))
    await fake.click(alice, driver.table, driver.custom_id("start"))
    # Nobody touches anything: time-outs, then AFK take-over, then the AI finishes the game.
    await fake.wait_for(lambda: driver.phase() == "between", timeout=30, what="the game to end on its own")
    history = "\n".join(driver.table_history())
    assert t("en", "event.timeout", name="alice") in history or t("en", "event.timeout", name="bob") in history
    assert "AFK" in history

