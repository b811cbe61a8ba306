"""A private hand message never goes back to an older view of its game.

Hand refreshes run in the background while a press is answered in the
foreground, so the view made before a move can arrive after the one made
after it. Each HandSnapshot carries the game's action count (its version);
the DM and the ephemeral view refuse a view older than the one they show,
and an answer waits for a refresh in flight and then shows the newest view.
"""

from __future__ import annotations

import asyncio

import discord
from types import SimpleNamespace

import cogs.delivery.hands as messenger_module
from cogs.delivery import Delivery
from runtime.snapshot import HandSnapshot, hand_of
from runtime.state import TableState
from tienlen import Game, classify
from tienlen.table import Seat, Table

CHANNEL, USER = 100, 1


def three_views() -> tuple[HandSnapshot, HandSnapshot, HandSnapshot]:
    """Seat 0's hand before the game's first play, after it, and after the reply."""
    table = Table.create(channel_id=CHANNEL, guild_id=200, host=Seat.human(USER, "An"), rules_name="mien-nam", bet=10)
    table.join(Seat.human(2, "Bao"))
    game = Game(table.rules, ["3S 9H 10H", "4D 5D 6C"])
    table.start_game(game, 1)
    state = TableState(table=table)
    before = hand_of(state, 0)
    game.play(0, classify("3S", table.rules))
    after = hand_of(state, 0)
    game.play(1, classify("4D", table.rules))
    return before, after, hand_of(state, 0)


def test_a_hand_view_counts_the_actions_of_its_game():
    before, after, later = three_views()
    assert (before.version, after.version, later.version) == (0, 1, 2)


class FakeMessage:
    """A DM or ephemeral hand message that records its edits."""

    def __init__(self) -> None:
        self.id = discord.utils.time_snowflake(discord.utils.utcnow())  # made now: not too old to edit
        self.edits: list[dict] = []

    async def edit(self, **kwargs):
        self.edits.append(kwargs)
        return self


async def test_a_dm_keeps_the_newer_view_when_an_older_refresh_comes_last():
    before, after, later = three_views()
    messenger = Delivery(bot=SimpleNamespace()).hands
    message = FakeMessage()
    messenger.remember_dm(CHANNEL, USER, message, after)  # the press's own answer showed "after"
    await messenger.send_dm(USER, before, lang="en")  # the refresh queued before the press
    assert message.edits == []
    await messenger.send_dm(USER, later, lang="en")  # a newer one is shown
    assert len(message.edits) == 1


async def test_an_ephemeral_view_keeps_the_newer_view_when_an_older_refresh_comes_last():
    before, after, later = three_views()
    message = FakeMessage()
    interaction = SimpleNamespace(user=SimpleNamespace(id=USER), edit_original_response=message.edit)
    views = Delivery(bot=SimpleNamespace()).hands
    views.remember_ephemeral(interaction, after, lang="en", message_id=message.id)
    await views.refresh_ephemeral(USER, before)
    assert message.edits == []
    await views.refresh_ephemeral(USER, later)
    assert len(message.edits) == 1


class SlowMessage(FakeMessage):
    """A DM whose edits wait until the test lets them through (a refresh in flight)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()

    async def edit(self, **kwargs):
        await self.gate.wait()
        return await super().edit(**kwargs)


async def dm_refresh_in_flight(shown: HandSnapshot, newer: HandSnapshot):
    """A messenger whose DM shows ``shown`` and is being refreshed to ``newer``
    (the edit waits for ``message.gate``): (messenger, message, the refresh's task)."""
    messenger = Delivery(bot=SimpleNamespace()).hands
    message = SlowMessage()
    messenger.remember_dm(CHANNEL, USER, message, shown)
    refresh = asyncio.create_task(messenger.send_dm(USER, newer, lang="en"))
    await asyncio.sleep(0)
    return messenger, message, refresh


async def test_a_press_answered_while_a_newer_refresh_is_in_flight_shows_the_newer_view(monkeypatch):
    # The press was answered with "after"; the AI moved at once and its refresh
    # ("later") is being sent. The answer must not overwrite it with "after".
    monkeypatch.setattr(messenger_module, "HAND_PATIENCE", 0.01)
    before, after, later = three_views()
    messenger, message, refresh = await dm_refresh_in_flight(before, later)
    deferred, answered = [], []

    async def defer_interaction():
        deferred.append(True)
        message.gate.set()  # Discord answers the refresh meanwhile

    async with messenger.holding(CHANNEL, USER, defer_interaction, in_dm=True):
        answered.append(messenger.newest(USER, after))
    await refresh
    assert deferred == [True]
    assert [hand.version for hand in answered] == [later.version]


async def test_a_slow_dm_does_not_hold_up_an_answer_in_the_channel():
    # The DM refresh waits for Discord (say, the DM-channel bucket); the
    # player's press on their ephemeral view is answered meanwhile.
    _, after, later = three_views()
    messenger, message, refresh = await dm_refresh_in_flight(after, later)

    async def defer_interaction():
        raise AssertionError("the ephemeral view was not being changed")

    async with messenger.holding(CHANNEL, USER, defer_interaction, in_dm=False):
        assert messenger.newest(USER, after) is later
    message.gate.set()
    await refresh


async def test_an_answer_with_no_refresh_in_flight_neither_waits_nor_defers():
    _, after, _ = three_views()
    messenger = Delivery(bot=SimpleNamespace()).hands

    async def defer_interaction():
        raise AssertionError("no refresh was in flight")

    async with messenger.holding(CHANNEL, USER, defer_interaction, in_dm=True):
        assert messenger.newest(USER, after) is after
