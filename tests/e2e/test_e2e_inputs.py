"""Every input gets a precise answer in the player's language, and no card reaches a log line.

Forged and odd values are sent the way a modified client could send them
(``force=True``: the fake Discord skips the client's own checks).  Each
answer is a specific catalogue message, private, within 3 s; nothing stored
changes; and the bot logs no unexpected error.
"""

from __future__ import annotations

import asyncio
import logging
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

import db
from cogs.inputs import ECHO_LIMIT
from cogs.layouts.words import error_text
from i18n import t
from runtime import logs
from tests.e2e.test_e2e_full_game import open_table
from tienlen.cards import cards_of

GENERIC = t("en", "error.generic")


def unexpected(caplog) -> list[logging.LogRecord]:
    """Errors logged by the bot's own code (a refusal is never one)."""
    return [record for record in caplog.records if record.levelno >= logging.ERROR
            and record.name.split(".")[0] in ("cogs", "runtime", "bot", "db", "tienlen")]


async def stored(bot) -> tuple:
    """Everything the database holds that a refused input must not change."""
    from db.models import AccountRow, GameActionRow, GameRow, LedgerRow, TableRow

    async with bot.database.read() as session:
        tables = (await session.execute(select(TableRow.channel_id, TableRow.state, TableRow.game_id))).all()
        games = (await session.execute(select(GameRow.id, GameRow.status))).all()
        actions = (await session.execute(select(GameActionRow.game_id, GameActionRow.seq))).all()
        accounts = (await session.execute(select(AccountRow.user_id, AccountRow.balance))).all()
        ledger = (await session.execute(select(LedgerRow.id))).all()
    return tuple(sorted(tables)), tuple(sorted(games)), tuple(sorted(actions)), tuple(sorted(accounts)), len(ledger)


async def playing(fake, make_bot, start_bot, **bot_options):
    bot = make_bot(**bot_options)
    await start_bot(bot)
    driver = await open_table(fake, fake.users[:2], "mien-nam")
    user = await driver.wait_for_human_turn()
    return bot, driver, user


def quick_id(message) -> str:
    return next(cid for cid in message.custom_ids() if cid.startswith("tl:h:quick:"))


@pytest.mark.parametrize("values", [[""], ["-1"], ["zz"], ["1" * 14], ["ffffffffffffffff"], ["0"], [],
                                    ["10", "20"], ["10000000000000000000000000"]])
async def test_a_forged_quick_play_is_refused_as_no_longer_offered(fake_discord, start_bot, make_bot, caplog, values):
    fake = fake_discord
    bot, driver, user = await playing(fake, make_bot, start_bot)
    before = await stored(bot)
    message = driver.hand_message(user)
    result = await fake.select(user, message, quick_id(message), values, force=True)
    assert result.ephemeral and result.content == t("en", "error.choice_gone")
    assert await stored(bot) == before and not unexpected(caplog)


async def test_a_card_given_twice_is_named(fake_discord, start_bot, make_bot, caplog):
    fake = fake_discord
    bot, driver, user = await playing(fake, make_bot, start_bot)
    before = await stored(bot)
    typed = await fake.slash(user, "tienlen play", cards="3S 3S")
    assert typed.ephemeral and typed.content == t("en", "error.card_twice", card="3S")
    message = driver.hand_message(user)
    picker = next(cid for cid in message.custom_ids() if cid.startswith("tl:h:cards:"))
    picked = await fake.select(user, message, picker, ["4D", "4D"], force=True)
    assert picked.content == t("en", "error.card_twice", card="4D")
    assert await stored(bot) == before and not unexpected(caplog)


async def test_very_long_card_text_is_answered_and_cut(fake_discord, start_bot, make_bot, caplog):
    fake = fake_discord
    bot, driver, user = await playing(fake, make_bot, start_bot)
    result = await fake.slash(user, "tienlen play", cards="x" * 6000, force=True)
    assert result.ephemeral and len(result.content) < 300
    assert "x" * ECHO_LIMIT + "…" in result.content and "x" * (ECHO_LIMIT + 1) not in result.content
    assert not unexpected(caplog)


@pytest.mark.parametrize("command", ["chips balance", "chips daily", "leaderboard", "tienlen create", "tienlen join"])
async def test_server_commands_sent_from_a_dm_are_refused_politely(fake_discord, start_bot, make_bot, caplog, command):
    fake = fake_discord
    await start_bot(make_bot(sync_globally=True))
    result = await fake.slash(fake.users[0], command, dm=True, force=True)
    assert result.ephemeral and result.content == t("en", "error.guild_only")
    assert not unexpected(caplog)


async def test_server_commands_are_declared_for_servers_only(fake_discord, start_bot, make_bot):
    fake = fake_discord
    await start_bot(make_bot(sync_globally=True))
    for name in ("tienlen", "chips", "leaderboard"):
        command = fake.commands.find(name, None)
        assert command.get("contexts") == [0] or command.get("dm_permission") is False, name


@pytest.mark.parametrize("options, key, params", [
    ({"rules": "poker"}, "error.unknown_rules", {"rules": "poker", "known": "mien-nam, iwin, mien-bac"}),
    ({"bet": 0}, "error.bad_bet", {"min": 1, "max": 1_000_000}),
    ({"bet": -5}, "error.bad_bet", {"min": 1, "max": 1_000_000}),
    ({"bet": 10**12}, "error.bad_bet", {"min": 1, "max": 1_000_000}),
    ({"bet": "ten"}, "error.bad_bet", {"min": 1, "max": 1_000_000}),
    ({"turn_seconds": 0}, "error.bad_turn_seconds", {"min": 1, "max": 120}),
    ({"turn_seconds": 500}, "error.bad_turn_seconds", {"min": 1, "max": 120}),
])
async def test_forged_table_options_are_refused_with_what_is_allowed(fake_discord, start_bot, make_bot, caplog,
                                                                     options, key, params):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    result = await fake.slash(fake.users[0], "tienlen create", force=True, **options)
    assert result.ephemeral and result.content == error_text(key.split(".")[1], "en", params)
    assert bot.tables.table(fake.channel.id) is None and not unexpected(caplog)


async def test_unknown_level_and_order_are_refused(fake_discord, start_bot, make_bot, caplog):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)
    await fake.slash(fake.users[0], "tienlen create")
    level = await fake.slash(fake.users[0], "tienlen addbot", level="godlike", force=True)
    assert level.content == t("en", "error.bad_level", known="easy, normal, hard")
    order = await fake.slash(fake.users[0], "leaderboard", by="luck", force=True)
    assert order.ephemeral and order.content == t("en", "error.bad_order", known="rating, chips, wins, winrate")
    assert not unexpected(caplog)


async def test_refusals_stay_private_when_the_bot_is_busy(fake_discord, start_bot, make_bot, monkeypatch):
    """Twenty `/tienlen end` from a player who is not the host, at once, while the bot defers at once."""
    import cogs.delivery.answers

    fake = fake_discord
    await start_bot(make_bot())
    alice, bob = fake.users[:2]
    await open_table(fake, [alice, bob], "mien-nam")
    monkeypatch.setattr(cogs.delivery.answers, "BUSY", 0)  # as with many interactions in progress: defer at once
    results = await asyncio.gather(*(fake.slash(bob, "tienlen end") for _ in range(20)))
    for result in results:
        final = await result.wait_final() if result.deferred else result.message
        assert result.ephemeral and final.ephemeral_to is not None
        assert final.content == t("en", "error.host_only")
    assert not [m for m in fake.messages() if t("en", "error.host_only") in m.text()]


async def test_a_public_success_after_a_busy_deferral_is_public(fake_discord, start_bot, make_bot, monkeypatch):
    import cogs.delivery.answers

    fake = fake_discord
    monkeypatch.setattr(cogs.delivery.answers, "BUSY", 0)
    await start_bot(make_bot())
    created = await fake.slash(fake.users[0], "tienlen create")
    assert created.deferred and (await created.wait_final()).ephemeral_to is not None
    table = await fake.wait_for(lambda: next(
        (m for m in fake.messages() if any(cid.startswith("tl:t:join:") for cid in m.custom_ids())), None))
    assert table.ephemeral_to is None  # everyone sees the table
    joined = await fake.click(fake.users[1], table, f"tl:t:join:{fake.channel.id}")
    assert joined.ephemeral


async def test_an_error_no_input_explains_is_counted_and_logged_once(fake_discord, start_bot, make_bot, caplog,
                                                                   monkeypatch):
    fake = fake_discord
    bot = make_bot()
    await start_bot(bot)

    async def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(bot.tables, "create_table", broken)
    result = await fake.slash(fake.users[0], "tienlen create")
    assert result.content == GENERIC
    assert bot.metrics.unexpected_errors._value.get() == 1
    errors = unexpected(caplog)
    assert len(errors) == 1 and errors[0].exc_info is not None


async def test_no_card_of_any_hand_in_a_log_line_when_writes_fail(fake_discord, start_bot, make_bot, caplog,
                                                                  monkeypatch):
    """The database refuses writes mid-game (a real driver error on every INSERT): the players are told,
    the log says so, and no line at INFO or above shows a card still in a hand."""
    import sqlite3

    import db.hot

    fake = fake_discord
    caplog.set_level(logging.INFO)
    logs.install([caplog.handler])
    bot, driver, user = await playing(fake, make_bot, start_bot)
    hidden = set()
    game = bot.tables.table(driver.channel_id).game
    for seat in range(game.players):
        hidden |= {card.code for card in cards_of(game.hand_mask(seat))}
        hidden |= {card.symbol for card in cards_of(game.hand_mask(seat))}
    fetch = db.hot._Aiosqlite.fetch

    async def refusing(self, sql, parameters, many=False):
        if sql.lstrip().upper().startswith("INSERT"):
            raise self.failure(sqlite3.OperationalError("disk I/O error"), sql, parameters)
        return await fetch(self, sql, parameters, many)

    monkeypatch.setattr(db.hot._Aiosqlite, "fetch", refusing)
    message = driver.hand_message(user)
    refused = await fake.select(user, message, quick_id(message), [message.component(quick_id(message))
                                                                    ["options"][0]["value"]])
    assert refused.content == t("en", "error.storage_down")
    text = caplog.text
    assert "failing writes" in text
    found = {token for token in re.findall(r"10[SCDH♠♣♦♥]|[2-9JQKA][SCDH♠♣♦♥]", text)} & hidden
    assert not found, f"cards of hands in the log: {sorted(found)}"


# ------------------------------------------------------------------ fuzzing
_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)
_IDS = st.one_of(st.integers(-5, 2**70).map(str), _TEXT)
FORGED_IDS = st.one_of(
    st.builds(lambda action, channel: f"tl:t:{action}:{channel}",
              st.sampled_from(["join", "leave", "ai", "start", "hand", "next", "end", "x"]), _IDS),
    st.builds(lambda action, channel, game, mask: f"tl:h:{action}:{channel}:{game}{mask}",
              st.sampled_from(["play", "pass", "clear", "x"]), _IDS, _IDS,
              st.one_of(st.just(""), st.text("0123456789abcdefg:", max_size=16).map(lambda m: ":" + m))),
    st.builds(lambda source, page: f"tl:r:{source}:{page}",
              st.sampled_from(["mien-nam", "table-1", "poker", ""]), _IDS),
    st.builds(lambda action, game, step: f"tl:p:{action}:{game}:{step}",
              st.sampled_from(["first", "prev", "next", "last", "chop", "share", "open", "x"]), _IDS, _IDS),
    _TEXT,
)
OPTION_VALUES = st.one_of(st.none(), st.integers(-2**63, 2**63), _TEXT, st.sampled_from(["", "0", "-1"]))


async def test_fuzzed_components_and_options_get_a_private_answer_and_change_nothing(
        fake_discord, start_bot, make_bot, caplog):
    """Generated custom ids, select values and option values, sent by a spectator and by a player
    to every command and component: each one answered privately within 3 s (the fake fails any
    interaction left unanswered), the stored data unchanged, no unexpected error logged."""
    fake = fake_discord
    bot, driver, player = await playing(fake, make_bot, start_bot)
    spectator = fake.users[2]
    loop = asyncio.get_running_loop()
    before = await stored(bot)
    commands = ["tienlen play", "tienlen create", "tienlen config", "tienlen addbot", "tienlen rules", "leaderboard",
                "tienlen replay"]

    async def one(kind: str, user_index: int, custom_id: str, values: list[str], command: str, value) -> None:
        user = (spectator, player)[user_index]
        if kind == "click":
            result = await fake.click(user, driver.table, custom_id, force=True)
        elif kind == "select":
            message = driver.hand_message(player)
            target = custom_id if custom_id.startswith("tl:") else quick_id(message)
            result = await fake.select(user, message, target, values, force=True)
        else:
            option = {"tienlen play": "cards", "tienlen create": "bet", "tienlen config": "turn_seconds",
                      "tienlen addbot": "level", "tienlen rules": "preset", "leaderboard": "by",
                      "tienlen replay": "game"}[command]
            if value is None and option == "cards":
                value = ""
            result = await fake.slash(user, command, options={option: value}, force=True)
        final = await result.wait_final() if result.deferred else result.message
        assert result.ephemeral or (final is not None and final.ephemeral_to is not None), (kind, custom_id, value)
        assert final is None or GENERIC not in final.text(), (kind, custom_id, values, command, value)

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(kind=st.sampled_from(["click", "select", "slash"]), user_index=st.integers(0, 1), custom_id=FORGED_IDS,
           values=st.lists(_TEXT, max_size=3), command=st.sampled_from(commands), value=OPTION_VALUES)
    def fuzz(kind, user_index, custom_id, values, command, value):
        if kind == "select" and user_index == 1 and custom_id.startswith("tl:h:quick:"):
            values = [v for v in values if not re.fullmatch(r"[0-9a-f]{1,13}", v)] or ["zz"]  # never a real play
        if kind == "slash" and command == "tienlen play" and user_index == 1:
            value = "zz " + str(value)  # never a real play
        if kind == "slash" and command == "leaderboard" and value in (None, "rating", "chips", "wins", "winrate"):
            value = "luck"  # a leaderboard is a public answer: only refusals here
        asyncio.run_coroutine_threadsafe(one(kind, user_index, custom_id, values, command, value), loop).result(30)

    await asyncio.to_thread(fuzz)
    assert await stored(bot) == before
    assert not unexpected(caplog)
    assert bot.metrics.unexpected_errors._value.get() == 0
