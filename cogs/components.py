"""Persistent buttons and select menus, dispatched by their ``custom_id``.

Every component is a :class:`discord.ui.DynamicItem` whose ``custom_id``
carries the table's channel (and, for hand controls, the game number), so a
click keeps working after a restart and from a DM.  A ``custom_id`` never
decides *who* acts: that is always ``interaction.user``; a crafted id can at
most name a table the user is not seated at, which is refused politely.

Layouts:
    ``tl:t:{action}:{channel}``                 table message buttons
    ``tl:h:{action}:{channel}:{game}[:{mask}]`` a player's hand controls
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from i18n import t
from runtime.snapshot import HandSnapshot, TableSnapshot
from tienlen import Combo, format_cards
from tienlen.cards import Card, mask_of
from tienlen.table import Phase

if TYPE_CHECKING:
    from cogs.tienlen_cog import TienLenCog

__all__ = ["TableButton", "HandButton", "HandSelect", "table_view", "hand_view", "DYNAMIC_ITEMS", "QUICK_LIMIT"]

QUICK_LIMIT = 25  # Discord's maximum options in a select menu
TABLE_TEMPLATE = r"tl:t:(?P<action>join|leave|ai|start|hand|next):(?P<channel>[0-9]{1,20})"
HAND_TEMPLATE = (
    r"tl:h:(?P<action>play|pass|clear):(?P<channel>[0-9]{1,20}):(?P<game>[0-9]{1,20})"
    r"(?::(?P<mask>[0-9a-f]{1,13}))?"
)
SELECT_TEMPLATE = r"tl:h:(?P<action>cards|quick):(?P<channel>[0-9]{1,20}):(?P<game>[0-9]{1,20})"


def _cog(interaction: discord.Interaction) -> "TienLenCog":
    return interaction.client.get_cog("TienLenCog")  # type: ignore[attr-defined,return-value]


class TableButton(discord.ui.DynamicItem[discord.ui.Button], template=TABLE_TEMPLATE):
    """A button on the public table message."""

    def __init__(self, action: str, channel_id: int, *, label: str = "", style: Any = None, emoji: str | None = None):
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=style or discord.ButtonStyle.secondary,
                emoji=emoji,
                custom_id=f"tl:t:{action}:{channel_id}",
            )
        )
        self.action = action
        self.channel_id = channel_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any, /):
        return cls(match["action"], int(match["channel"]), label=item.label or "", style=item.style, emoji=None)

    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_table_button(interaction, self.action, self.channel_id)


class HandButton(discord.ui.DynamicItem[discord.ui.Button], template=HAND_TEMPLATE):
    """Play / Pass / Clear under a player's private hand."""

    def __init__(self, action: str, channel_id: int, game_id: int, mask: int | None = None, *,
                 label: str = "", style: Any = None, disabled: bool = False):
        suffix = f":{mask:x}" if mask is not None else ""
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=style or discord.ButtonStyle.secondary,
                disabled=disabled,
                custom_id=f"tl:h:{action}:{channel_id}:{game_id}{suffix}",
            )
        )
        self.action, self.channel_id, self.game_id, self.mask = action, channel_id, game_id, mask

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any, /):
        mask = int(match["mask"], 16) if match["mask"] else None
        return cls(match["action"], int(match["channel"]), int(match["game"]), mask, label=item.label or "",
                   style=item.style)

    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_hand_action(interaction, self.action, self.channel_id, self.game_id, self.mask, ())


class HandSelect(discord.ui.DynamicItem[discord.ui.Select], template=SELECT_TEMPLATE):
    """The card picker (multi-select) and the quick-play menu of legal plays."""

    def __init__(self, action: str, channel_id: int, game_id: int, *, options: list[discord.SelectOption] | None = None,
                 placeholder: str = "", max_values: int = 1):
        options = options or [discord.SelectOption(label="-", value="-")]
        super().__init__(
            discord.ui.Select(
                custom_id=f"tl:h:{action}:{channel_id}:{game_id}",
                options=options,
                placeholder=placeholder or None,
                min_values=1,
                max_values=min(max_values, len(options)),
            )
        )
        self.action, self.channel_id, self.game_id = action, channel_id, game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select, match: Any, /):
        select = cls(match["action"], int(match["channel"]), int(match["game"]), options=list(item.options),
                     placeholder=item.placeholder or "", max_values=item.max_values)
        return select

    async def callback(self, interaction: discord.Interaction) -> None:
        values = tuple(self.item.values)
        await _cog(interaction).on_hand_action(interaction, self.action, self.channel_id, self.game_id, None, values)


DYNAMIC_ITEMS = (TableButton, HandButton, HandSelect)


# ------------------------------------------------------------------ builders
def table_view(snapshot: TableSnapshot, lang: str) -> discord.ui.View:
    """Buttons under the public table message, for its current phase."""
    view = discord.ui.View(timeout=None)
    channel = snapshot.channel_id
    primary, secondary, success, danger = (discord.ButtonStyle.primary, discord.ButtonStyle.secondary,
                                           discord.ButtonStyle.success, discord.ButtonStyle.danger)
    if snapshot.closed:
        return view
    if snapshot.phase is Phase.PLAYING:
        view.add_item(TableButton("hand", channel, label=t(lang, "button.hand"), style=primary, emoji="🃏"))
        view.add_item(TableButton("leave", channel, label=t(lang, "button.leave_game"), style=danger))
        return view
    if snapshot.phase is Phase.BETWEEN:
        view.add_item(TableButton("next", channel, label=t(lang, "button.next"), style=success, emoji="▶️"))
    view.add_item(TableButton("join", channel, label=t(lang, "button.join"), style=primary))
    view.add_item(TableButton("leave", channel, label=t(lang, "button.leave"), style=secondary))
    view.add_item(TableButton("ai", channel, label=t(lang, "button.add_ai"), style=secondary, emoji="🤖"))
    if snapshot.phase is Phase.LOBBY:
        view.add_item(TableButton("start", channel, label=t(lang, "button.start"), style=success))
    return view


def _card_option(position: int, card: Card, selected: bool, playable: bool) -> discord.SelectOption:
    return discord.SelectOption(
        label=f"{position}. {card.symbol}",
        value=card.code,
        default=selected,
        emoji=None,
        description=None if playable else "—",
    )


def quick_plays(legal: tuple[Combo, ...], limit: int = QUICK_LIMIT) -> list[Combo]:
    """Up to ``limit`` legal plays for the menu: every chop, then the lowest of
    each kind and size, then the rest, lowest first."""
    ordered = sorted(legal, key=lambda combo: (combo.bomb is None, combo.size, combo.top))
    chosen: list[Combo] = [combo for combo in ordered if combo.bomb is not None][:limit]
    seen_groups = set()
    for combo in ordered:
        group = (combo.kind, combo.size)
        if combo not in chosen and group not in seen_groups and len(chosen) < limit:
            chosen.append(combo)
        seen_groups.add(group)
    for combo in ordered:
        if len(chosen) >= limit:
            break
        if combo not in chosen:
            chosen.append(combo)
    return sorted(chosen, key=lambda combo: (combo.size, combo.top))


def hand_view(hand: HandSnapshot, lang: str) -> discord.ui.View:
    """The private controls: card picker, quick plays, Play, Pass, Clear.

    Pass is left out for the player leading a round (leading, one cannot pass)
    and shown disabled while it is someone else's turn."""
    from cogs.presenter import combo_name

    view = discord.ui.View(timeout=None)
    if hand.finished or not hand.in_play or not hand.cards:
        return view
    channel, game = hand.channel_id, hand.game_id
    playable = {card for combo in hand.legal for card in combo.cards}
    selected = set(hand.selected)
    options = [_card_option(i + 1, card, card in selected, card in playable) for i, card in enumerate(hand.cards)]
    view.add_item(HandSelect("cards", channel, game, options=options, placeholder=t(lang, "hand.pick"),
                             max_values=len(options)))
    quick = quick_plays(hand.legal)
    if quick and (hand.is_turn or hand.out_of_turn):
        quick_options = [
            discord.SelectOption(
                label=format_cards(combo.cards)[:100],
                value=f"{combo.mask:x}",
                description=(("💥 " if combo.bomb else "") + combo_name(combo, lang))[:100],
            )
            for combo in quick
        ]
        placeholder = t(lang, "hand.quick_chop" if hand.out_of_turn else "hand.quick", count=len(hand.legal))
        view.add_item(HandSelect("quick", channel, game, options=quick_options, placeholder=placeholder))
    mask = mask_of(hand.selected)
    can_act = hand.is_turn or hand.out_of_turn
    view.add_item(HandButton("play", channel, game, mask, label=t(lang, "button.play"),
                             style=discord.ButtonStyle.success, disabled=not (can_act and mask)))
    if not (hand.is_turn and hand.top is None):  # the round's leader cannot pass: no button to press
        view.add_item(HandButton("pass", channel, game, label=t(lang, "button.pass"),
                                 style=discord.ButtonStyle.danger, disabled=not hand.can_pass))
    view.add_item(HandButton("clear", channel, game, label=t(lang, "button.clear"), disabled=not mask))
    return view

