"""What delivery keeps of a table goes when the table closes or a player leaves.

The messenger keeps, per table and player, the newest hand, the DM hand
message, whether their DMs are closed, their ephemeral view, and a lock per
hand message; per table, the last snapshot and its editor.  A bot that runs for
months sees many thousands of tables: none of it may stay once they are gone,
and forgetting must not break a hand edit that is still in flight.
"""

from __future__ import annotations

import asyncio

import discord
from types import SimpleNamespace

from cogs.delivery import Delivery
from runtime.snapshot import hand_of, snapshot_of
from runtime.state import TableState
from tienlen import Game
from tienlen.table import Seat, Table

CHANNEL, GUILD, ALICE, BOB = 100, 200, 1, 2
NOW_ID = discord.utils.time_snowflake(discord.utils.utcnow())
"""A message id of a message made now (not too old to edit)."""


class FakeMessage:
    """A message whose edits wait while ``gate`` is closed (an edit in flight)."""

    def __init__(self, message_id: int) -> None:
        self.id = message_id
        self.attachments: list = []
        self.edits: list[dict] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.editing = asyncio.Event()

    async def edit(self, **kwargs):
        self.editing.set()
        await self.gate.wait()
        self.edits.append(kwargs)
        return self


class FakeBot:
    """Just enough of discord.Client for the messenger: DM channels, messages by id."""

    def __init__(self) -> None:
        self.sent: dict[int, FakeMessage] = {}  # DM channel (= user) -> the hand message sent there

    def get_guild(self, guild_id: int):
        return None

    async def create_dm(self, user):
        return SimpleNamespace(id=user.id)

    def get_partial_messageable(self, channel_id: int, **_kwargs):
        async def send(**_message):
            self.sent[channel_id] = FakeMessage(NOW_ID + channel_id)
            return self.sent[channel_id]

        async def history(limit: int):
            for message in ():  # a DM channel with nothing in it yet
                yield message

        return SimpleNamespace(send=send, get_partial_message=lambda message_id: FakeMessage(message_id),
                               history=history)


def playing() -> TableState:
    table = Table.create(channel_id=CHANNEL, guild_id=GUILD, host=Seat.human(ALICE, "An"), rules_name="mien-nam", bet=10)
    table.join(Seat.human(BOB, "Bao"))
    table.start_game(Game(table.rules, ["3S 9H 10H", "4D 5D 6C"]), 1)
    return TableState(table=table, message_id=NOW_ID)


def lobby_of_alice() -> TableState:
    """The same channel's table once Bao has gone (a lobby with An alone)."""
    table = Table.create(channel_id=CHANNEL, guild_id=GUILD, host=Seat.human(ALICE, "An"), rules_name="mien-nam", bet=10)
    return TableState(table=table, message_id=NOW_ID)


async def settled() -> None:
    """Wait for the messenger's background work: DMs being sent, table edits."""
    while pending := [task for task in asyncio.all_tasks() if not task.done()
                      and task.get_name().startswith(("dm-send-", "table-editor-"))]:
        await asyncio.gather(*pending)


async def dealt() -> tuple[FakeBot, Messenger, TableState]:
    """A messenger that has shown a game's deal: the table, and An's and Bao's DMs."""
    bot = FakeBot()
    messenger = Delivery(bot=bot)
    state = playing()
    snapshot = snapshot_of(state, version=1)
    await messenger.table_changed(snapshot)
    await messenger.hands_dealt(snapshot, {0: hand_of(state, 0), 1: hand_of(state, 1)})
    await settled()
    return bot, messenger, state


async def test_a_closed_table_leaves_nothing_behind():
    bot, messenger, state = await dealt()
    assert set(bot.sent) == {ALICE, BOB} and messenger.kept() > 0

    await messenger.table_changed(snapshot_of(state, version=2, closed=True))
    await settled()
    assert messenger.kept() == 0


async def test_a_player_who_left_is_forgotten_and_the_others_are_kept():
    bot, messenger, state = await dealt()
    with_both = messenger.kept()

    await messenger.table_changed(snapshot_of(lobby_of_alice(), version=2))
    await settled()
    assert 0 < messenger.kept() < with_both
    # An's DM is still hers: the next view of her hand edits it in place.
    await messenger.hands.send_dm(ALICE, hand_of(state, 0, selected=tuple(state.table.game.hand(0)[:1])), lang="en")
    assert len(bot.sent[ALICE].edits) == 1


async def test_forgetting_a_table_does_not_break_a_hand_edit_in_flight():
    bot, messenger, state = await dealt()
    dm = bot.sent[ALICE]
    dm.gate.clear()  # Discord has not answered this edit yet
    newer = hand_of(state, 0, selected=tuple(state.table.game.hand(0)[:1]))
    refresh = asyncio.create_task(messenger.hands.send_dm(ALICE, newer, lang="en"))
    await dm.editing.wait()  # the refresh holds the DM's lock and waits for Discord

    await messenger.table_changed(snapshot_of(state, version=2, closed=True))
    waited = []

    async def while_busy():  # the answer to a press on that DM waits for the edit in flight
        waited.append(True)
        dm.gate.set()

    async with messenger.hands.holding(CHANNEL, ALICE, while_busy, in_dm=True):
        assert dm.edits, "the answer did not wait for the edit in flight"
    await refresh
    await settled()
    assert waited == [True] and len(dm.edits) == 1
    assert messenger.kept() == 0


async def test_an_answer_that_lands_after_the_table_closed_is_not_kept():
    messenger = Delivery(bot=FakeBot())
    messenger.tables = SimpleNamespace(table=lambda channel_id: None, db=None)  # the table has just closed
    hand = hand_of(playing(), 0)
    messenger.hands.remember_dm(CHANNEL, ALICE, FakeMessage(7), hand)
    messenger.hands.remember_ephemeral(SimpleNamespace(user=SimpleNamespace(id=ALICE)), hand, lang="en", message_id=8)
    assert messenger.kept() == 0
