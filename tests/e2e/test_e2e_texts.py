"""What players read through a real game, in English and Vietnamese: a lobby is
a lobby, the first play's rule is said the same way on the table and in the
leader's hand, the leader gets no Pass button (and is told why when typing
/tienlen pass), and counts read as numbers should (1 bet, 2 bets)."""

from __future__ import annotations

import re

from i18n import t
from tests.e2e.driver import TableDriver, field_value, footer_of, shown_text, titled

LANGS = ("en", "vi")


class BilingualDriver(TableDriver):
    """The scripted players of driver.py, reading the table and hands in either language."""

    lang: str = "en"

    def turn_name(self) -> str | None:
        value = field_value(self.table, t(self.lang, "table.now")) or ""
        match = re.search(r"\*\*(.+?)\*\*", value)
        return match.group(1) if match else None

    def hand_says_turn(self, user) -> bool:
        message = self.hand_message(user)
        return message is not None and any(t(lang, "hand.your_turn") in shown_text(message) for lang in LANGS)


def hand_buttons(message) -> set[str]:
    return {cid.split(":")[2] for cid in message.custom_ids() if cid.startswith("tl:h:")}


async def test_a_game_read_in_english_and_vietnamese(fake_discord, start_bot, make_bot):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    alice, bob = fake.users[:2]
    bob.locale = "vi"

    created = await fake.slash(alice, "tienlen create", rules="mien-nam", bet=10)
    table_message = created.message
    footer = footer_of(table_message)
    assert footer == t("en", "table.footer_lobby") and "0" not in footer  # not "Game 0"
    driver = BilingualDriver(fake, table_message, "mien-nam", players=[alice, bob])
    await fake.click(bob, table_message, driver.custom_id("join"))
    await fake.click(alice, table_message, driver.custom_id("start"))

    table = bot.tables.table(driver.channel_id)
    game = table.game
    leader_seat = game.turn
    leader = driver.user_named(table.game_seats[leader_seat].name)
    follower = bob if leader is alice else alice
    lang_of = {alice.id: "en", bob.id: "vi"}

    # The table says what the rule says: the opening play must contain the lowest card.
    await fake.wait_for(lambda: field_value(driver.table, t("en", "table.lead")), what="the deal on the table")
    assert field_value(driver.table, t("en", "table.on_table")) == t("en", "table.opening_lowest", name=leader.name)
    assert field_value(driver.table, t("en", "table.lead")) == t("en", "lead.first-game", name=leader.name)

    # The leader's DM names the card, offers no Pass; the other player's Pass is there but disabled.
    leader_hand = await fake.wait_for(lambda: driver.hand_says_turn(leader) and driver.hand_message(leader))
    lang = lang_of[leader.id]
    assert t(lang, "hand.must_include", card=str(game.required_card)) in leader_hand.text()
    assert "pass" not in hand_buttons(leader_hand) and "play" in hand_buttons(leader_hand)
    waiting = await fake.wait_for(lambda: driver.hand_message(follower), what="the other player's DM")
    assert "pass" in hand_buttons(waiting)
    assert next(c for c in waiting.walk_components() if c.get("custom_id", "").startswith("tl:h:pass"))["disabled"]

    # Typed, the pass is refused with the reason, in the player's language.
    refused = await fake.slash(leader, "tienlen pass")
    assert refused.ephemeral and refused.content == t(lang, "error.lead_cannot_pass")

    # One move later the follower must beat it, and may pass.
    await driver.play_turn(leader)
    follower_hand = await fake.wait_for(lambda: driver.hand_says_turn(follower) and driver.hand_message(follower))
    other = lang_of[follower.id]
    assert t(other, "hand.top", play="").rstrip() in follower_hand.text()
    assert "pass" in hand_buttons(follower_hand)
    assert any(t(other, key) in follower_hand.text() for key in ("hand.beat_or_pass", "hand.cannot_beat"))

    await driver.play_to_the_end()
    await fake.wait_for(lambda: driver.phase() == "between", what="the end of the game")
    title = t("en", "summary.title")
    summary = await fake.wait_for(lambda: titled(fake, title), what="the summary")
    text = summary.text()
    assert t("en", "summary.payments", chips=t("en", "count.chips", count=10)) in text  # 1 bet = 10 chips
    assert not re.search(r"\b1 bets\b|\b1 chips\b|\b1 cards\b|\b1 games\b", text + driver.table.text())
    assert footer_of(driver.table) == t("en", "table.footer_between", number=1)
    assert t("en", "table.tally", games=1, count=1) in driver.table.text()  # "This session (1 game)"


async def test_a_vietnamese_server_reads_its_table_in_vietnamese(fake_discord, start_bot, make_bot):
    fake = fake_discord
    fake.guild.preferred_locale = "vi"
    alice, bob = fake.users[:2]
    alice.locale = bob.locale = "vi"
    await start_bot(make_bot())
    created = await fake.slash(alice, "tienlen create", rules="mien-bac", bet=1)
    table_message = created.message
    assert footer_of(table_message) == t("vi", "table.footer_lobby")
    assert "Cược **1** chip" in table_message.text()
    driver = BilingualDriver(fake, table_message, "mien-bac", players=[alice, bob])
    driver.lang = "vi"
    await fake.click(bob, table_message, driver.custom_id("join"))
    await fake.click(alice, table_message, driver.custom_id("start"))
    await fake.wait_for(lambda: field_value(driver.table, t("vi", "table.lead")), what="the deal on the table")
    leader = driver.turn_name()
    # Northern rules: the lowest card's holder leads, with any play.
    assert field_value(driver.table, t("vi", "table.on_table")) == t("vi", "table.opening_free", name=leader)
    leader_hand = await fake.wait_for(lambda: driver.hand_says_turn(driver.user_named(leader))
                                      and driver.hand_message(driver.user_named(leader)))
    assert t("vi", "hand.lead") in leader_hand.text()
    assert "pass" not in hand_buttons(leader_hand)
