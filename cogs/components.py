"""The clicks on the bot's components, parsed from their ``custom_id`` and handed on.

Every component is answered by a :class:`discord.ui.DynamicItem` made for
the bot at start-up (:func:`component_handlers`): discord.py matches a
click's ``custom_id`` against the templates of :mod:`cogs.custom_ids`, so a
click works after a restart and from a DM, and the handler hands the parsed
parts to the :class:`Controls` it was made for (the game cog).  Incoming
only: the components themselves are built by :mod:`cogs.views`.
"""

from __future__ import annotations

from typing import Any, Protocol

import discord

from cogs.custom_ids import (
    ADMIN_TEMPLATE, HAND_TEMPLATE, REPLAY_TEMPLATE, RULES_TEMPLATE, SELECT_TEMPLATE, TABLE_TEMPLATE,
)

__all__ = ["Controls", "AdminControls", "component_handlers"]


class Controls(Protocol):
    """What the clicks are handed to."""

    async def on_table_button(self, interaction: discord.Interaction, action: str, channel_id: int) -> None: ...

    async def on_hand_action(self, interaction: discord.Interaction, action: str, channel_id: int, game_id: int,
                             mask: int | None, values: tuple[str, ...]) -> None: ...

    async def on_rules_page(self, interaction: discord.Interaction, source: str, page: int) -> None: ...

    async def on_replay_button(self, interaction: discord.Interaction, action: str, game_id: int,
                               step: int) -> None: ...


class AdminControls(Protocol):
    """What an admin's confirmation buttons are handed to."""

    async def on_admin_button(self, interaction: discord.Interaction, action: str, request_id: int) -> None: ...


def component_handlers(controls: Controls, admin: AdminControls) -> tuple[type[discord.ui.DynamicItem[Any]], ...]:
    """The dynamic items that hand every click on the bot's components to ``controls``
    (an admin's confirmations to ``admin``)."""

    class TableButton(discord.ui.DynamicItem[discord.ui.Button], template=TABLE_TEMPLATE):
        """A button on the public table message."""

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any, /):
            button = cls(item)
            button.action, button.channel_id = match["action"], int(match["channel"])
            return button

        async def callback(self, interaction: discord.Interaction) -> None:
            await controls.on_table_button(interaction, self.action, self.channel_id)

    class HandButton(discord.ui.DynamicItem[discord.ui.Button], template=HAND_TEMPLATE):
        """Play / Pass / Clear under a player's private hand."""

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any, /):
            button = cls(item)
            button.action, button.channel_id, button.game_id = match["action"], int(match["channel"]), int(match["game"])
            button.mask = int(match["mask"], 16) if match["mask"] else None
            return button

        async def callback(self, interaction: discord.Interaction) -> None:
            await controls.on_hand_action(interaction, self.action, self.channel_id, self.game_id, self.mask, ())

    class HandSelect(discord.ui.DynamicItem[discord.ui.Select], template=SELECT_TEMPLATE):
        """The card picker (multi-select) and the quick-play menu of legal plays."""

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select, match: Any, /):
            select = cls(item)
            select.action, select.channel_id, select.game_id = match["action"], int(match["channel"]), int(match["game"])
            return select

        async def callback(self, interaction: discord.Interaction) -> None:
            await controls.on_hand_action(interaction, self.action, self.channel_id, self.game_id, None,
                                          tuple(self.item.values))

    class RulesPage(discord.ui.DynamicItem[discord.ui.Button], template=RULES_TEMPLATE):
        """Previous / next page of a rules explanation (works for anyone, any time)."""

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any, /):
            button = cls(item)
            button.source, button.page = match["source"], int(match["page"])
            return button

        async def callback(self, interaction: discord.Interaction) -> None:
            await controls.on_rules_page(interaction, self.source, self.page)

    class AdminButton(discord.ui.DynamicItem[discord.ui.Button], template=ADMIN_TEMPLATE):
        """Confirm or cancel what an admin asked for (a balance reset)."""

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any, /):
            button = cls(item)
            button.action, button.request_id = match["action"], int(match["request"])
            return button

        async def callback(self, interaction: discord.Interaction) -> None:
            await admin.on_admin_button(interaction, self.action, self.request_id)

    class ReplayButton(discord.ui.DynamicItem[discord.ui.Button], template=REPLAY_TEMPLATE):
        """A replay's step, share and open buttons (they work for anyone, any time)."""

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any, /):
            button = cls(item)
            button.action, button.game_id, button.step = match["action"], int(match["game"]), int(match["step"])
            return button

        async def callback(self, interaction: discord.Interaction) -> None:
            await controls.on_replay_button(interaction, self.action, self.game_id, self.step)

    return TableButton, HandButton, HandSelect, RulesPage, AdminButton, ReplayButton
