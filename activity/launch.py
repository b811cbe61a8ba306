"""The table message's "Open the table" button: it starts the Activity in that channel for whoever presses it.

Discord starts the Activity when the button's interaction is answered with LAUNCH_ACTIVITY
(``interaction.response.launch_activity()``, discord.py ≥ 2.6); the Activity then signs in and
finds the table of its channel by itself (activity/server.py), so the button carries nothing but
the channel, and a press on an old message still works.  The button is on the table messages only
while this bot serves the Activity (``Delivery.table_messages.offers_activity``, set by bot.py).
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from cogs.delivery.answers import lang_of, reply
from cogs.custom_ids import OPEN_ACTIVITY_TEMPLATE
from i18n import t

log = logging.getLogger(__name__)

__all__ = ["OPEN_TEMPLATE", "OpenActivity"]

OPEN_TEMPLATE = OPEN_ACTIVITY_TEMPLATE


class OpenActivity(discord.ui.DynamicItem[discord.ui.Button], template=OPEN_TEMPLATE):
    """A press of "Open the table"."""

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any, /):
        return cls(item)

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.response.launch_activity()
        except discord.HTTPException as error:  # the application's Activities are off on the Developer Portal
            log.warning("could not launch the Activity: %s", error)
            await reply(interaction, t(lang_of(interaction), "activity.error.launch_failed"))
