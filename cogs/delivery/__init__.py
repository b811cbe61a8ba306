"""Delivery: where each layout goes in Discord, and how it gets there.

The one place between the pure layouts (:mod:`cogs.layouts`) and Discord.
:class:`Delivery` is the runtime's :class:`~runtime.outbox.Notifier` and the
cogs' way to answer with a table or a hand.  Its parts, one concern each:

* :mod:`cogs.delivery.tables` — each table's one live message: edits coalesced
  and paced, a fresh message at the bottom for each deal and each result, none
  edited past Discord's one-hour edit limit;
* :mod:`cogs.delivery.hands` — each player's DM and ephemeral hand messages;
* :mod:`cogs.delivery.answers` — answering an interaction on time (first answer,
  deferral, the edit of the pressed message), errors in the user's language;
* :mod:`cogs.delivery.limits` — Discord's rate limits, the one-hour edit limit
  (30046) and the REST trace that watches them;
* :mod:`cogs.delivery.pictures` — the pictures, drawn off the event loop.

When Discord fails (5xx, 429, no connection) table edits and DMs are retried
until it recovers, with one warning per outage; a summary Discord did not
take is handed back to the runtime's outbox (:class:`runtime.outbox.Undelivered`),
which tries again.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Awaitable

import aiohttp
import discord

from cogs.delivery.answers import lang_of, send_public
from cogs.delivery.hands import HandMessages
from cogs.delivery.limits import ChannelBudget, EditLimits, Outages, is_outage
from cogs.delivery.pictures import final_file
from cogs.delivery.tables import TableMessages
from cogs.layouts.summary import FINAL_IMAGE, summary_layout
from cogs.layouts.table import table_layout
from i18n import language_of, t
from runtime.outbox import Undelivered
from runtime.snapshot import GameSummary, HandSnapshot, TableSnapshot
from tienlen.table import Phase

if TYPE_CHECKING:
    from runtime.service import TableService

log = logging.getLogger(__name__)

__all__ = ["Delivery"]


class Delivery:
    """The runtime's voice in Discord (see the module docstring)."""

    def __init__(self, bot: discord.Client, *, edit_interval: float = 0.0, budget: ChannelBudget | None = None,
                 edit_limits: EditLimits | None = None) -> None:
        self.bot = bot
        self.budget = budget or ChannelBudget()
        self.edit_limits = edit_limits
        self.outages = Outages()
        self.tables: "TableService | None" = None
        self.table_messages = TableMessages(bot, budget=self.budget, outages=self.outages, edit_limits=edit_limits,
                                            public_lang=self.public_lang, store_message=self._store_message,
                                            edit_interval=edit_interval)
        self.hands = HandMessages(bot, outages=self.outages, edit_limits=edit_limits,
                                  database=lambda: self.tables.db if self.tables is not None else None,
                                  table_gone=self._gone)

    # --------------------------------------------------------- language
    def public_lang(self, guild_id: int, chosen: str | None = None) -> str:
        """The language of a public message: the one the server chose, else its Discord language."""
        if chosen is not None:
            return language_of(chosen)
        guild = self.bot.get_guild(guild_id)
        return language_of(guild.preferred_locale if guild else None)

    # --------------------------------------------------------- Notifier
    async def table_changed(self, snapshot: TableSnapshot) -> None:
        if snapshot.closed or snapshot.phase is not Phase.PLAYING:
            self.hands.forget(snapshot.channel_id, keep=() if snapshot.closed else _users(snapshot))
        if snapshot.closed:
            reason = next((event.other for event in snapshot.events if event.kind == "closed"), "ended")
            if reason != "ended":  # /tienlen end answers publicly itself
                await self.announce_closed(snapshot.channel_id, snapshot.guild_id, reason, snapshot.language)
        self.table_messages.changed(snapshot)

    async def hands_dealt(self, snapshot: TableSnapshot, hands: dict[int, HandSnapshot]) -> None:
        self.hands.forget(snapshot.channel_id, keep=_users(snapshot))  # who left since the last game
        for seat, hand in hands.items():
            user_id = snapshot.seats[seat].user_id
            if user_id is not None:
                await self.hands.show(user_id, hand, new_game=True)

    async def hand_changed(self, snapshot: TableSnapshot, hand: HandSnapshot) -> None:
        user_id = snapshot.seats[hand.seat].user_id if hand.seat < len(snapshot.seats) else None
        if user_id is not None:
            await self.hands.show(user_id, hand, new_game=False)

    async def post_summary(self, channel_id: int, guild_id: int, summary: GameSummary) -> None:
        """Post the end-of-game summary; raise Undelivered while Discord fails."""
        lang = self.public_lang(guild_id, summary.language)
        picture = await final_file(FINAL_IMAGE, summary.final_hands)
        channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            await channel.send(view=summary_layout(summary, lang), files=[picture])
        except (discord.HTTPException, aiohttp.ClientError, OSError, asyncio.TimeoutError) as error:
            if is_outage(error):
                self.outages.failed("summaries", error)
                raise Undelivered(str(error)) from error
            # Refused for good (no permission, the channel is gone): nothing to retry.
            log.warning("could not post the summary in %s: %s", channel_id, error)
            return
        self.outages.recovered("summaries")

    # ------------------------------------------------------------ the cogs' side
    async def open_table(self, interaction: discord.Interaction, create: Awaitable[TableSnapshot]) -> None:
        """Answer /tienlen create with the new table's message, in public.

        ``create`` opens the table; the table editor waits for this answer, so
        the table gets one message (this one), not a second from the editor."""
        channel_id = interaction.channel_id
        assert channel_id is not None
        async with self.table_messages.opening(channel_id):
            snapshot = await create
            self.hands.opened_here(snapshot.channel_id)
            lang = self.public_lang(snapshot.guild_id, snapshot.language)
            layout = table_layout(snapshot, lang, activity=self.table_messages.offers_activity)
            message = await send_public(interaction, view=layout)
            if message is not None:
                self.table_messages.opened(snapshot, message, layout)
                await self._store_message(snapshot.channel_id, message.id)

    async def answer_hand(self, interaction: discord.Interaction, hand: HandSnapshot, *, update: bool,
                          notice: str | None = None) -> None:
        """Answer with the player's hand: the pressed message (``update``) or a new ephemeral one."""
        await self.hands.answer(interaction, hand, update=update, notice=notice)

    def dm_notice(self, interaction: discord.Interaction, channel_id: int) -> str | None:
        """The one-time note that the player's DMs are closed, in their language (None: nothing to say)."""
        if self.hands.take_dm_notice(channel_id, interaction.user.id):
            return t(lang_of(interaction), "hand.dms_closed")
        return None

    async def refresh_ephemeral(self, user_id: int, hand: HandSnapshot) -> None:
        await self.hands.refresh_ephemeral(user_id, hand)

    async def announce_closed(self, channel_id: int, guild_id: int, reason: str, chosen: str | None = None) -> None:
        lang = self.public_lang(guild_id, chosen)
        channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            await channel.send(t(lang, f"closed.{reason}"))
        except discord.HTTPException:
            log.warning("could not announce a closed table in %s", channel_id)

    # ------------------------------------------------------------ upkeep
    def kept(self) -> int:
        """How many tables and (table, player) pairs anything is kept of (tests, leaks)."""
        return len(self.table_messages.kept()) + self.hands.kept()

    async def close(self) -> None:
        await self.table_messages.close()
        await self.hands.close()

    async def _store_message(self, channel_id: int, message_id: int) -> None:
        if self.tables is not None:
            await self.tables.set_message(channel_id, message_id)

    def _gone(self, channel_id: int) -> bool:
        """The table closed: an answer that lands after that must not bring back what was forgotten."""
        return self.tables is not None and self.tables.table(channel_id) is None


def _users(snapshot: TableSnapshot) -> frozenset[int]:
    return frozenset(seat.user_id for seat in snapshot.seats if seat.user_id is not None)
