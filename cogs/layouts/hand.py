"""A player's own hand (their DM, or the ephemeral "My hand" view): cards, the picture, the controls.

Sent only to the hand's owner.  The picture numbers the cards as the card
picker does; quick plays list the legal plays one tap away (every chop first);
Play plays the picked cards, Pass passes, Clear empties the pick.  Pass is
shown when the player may pass, disabled while it is someone else's turn, and
left out when it is their turn but they may not (they lead the round).
"""

from __future__ import annotations

import discord
from discord import ui

from cogs.custom_ids import hand_id
from cogs.layouts.style import accent_for, button, heading, panel, picture, row
from cogs.layouts.words import combo_name, play_text
from i18n import t
from runtime.snapshot import HandSnapshot
from tienlen import Combo, format_cards
from tienlen.cards import Card, mask_of

__all__ = ["hand_layout", "hand_lines", "quick_plays", "QUICK_LIMIT", "HAND_IMAGE"]

HAND_IMAGE = "hand.jpg"
QUICK_LIMIT = 25  # Discord's maximum options in a select menu


def hand_layout(hand: HandSnapshot, lang: str, *, image: str | None = HAND_IMAGE,
                notice: str | None = None) -> ui.LayoutView:
    """The hand message; ``image``: the attached picture of the cards (None: none)."""
    items: list[ui.Item | None] = [heading(t(lang, "hand.title", count=len(hand.cards)), *hand_lines(hand, lang, notice))]
    if image and hand.cards:
        items.append(picture(image, description=format_cards(hand.cards)))
    items += _controls(hand, lang)
    return panel(accent_for(None), items)  # a hand has no rule set of its own to colour by


def hand_lines(hand: HandSnapshot, lang: str, notice: str | None = None) -> list[str]:
    """What the player may do now, what is on the table, and their cards."""
    lines = [notice] if notice else []
    if hand.finished:
        lines.append(t(lang, "hand.game_over"))
    elif not hand.in_play:
        lines.append(t(lang, "hand.out"))
    elif hand.is_turn:
        lines += _turn_lines(hand, lang)
    else:
        if hand.out_of_turn:
            lines.append(t(lang, "hand.can_chop"))
        elif hand.turn_name:
            lines.append(t(lang, "hand.wait_for", name=hand.turn_name))
        else:
            lines.append(t(lang, "hand.wait"))
        if hand.top is not None:
            lines.append(t(lang, "hand.on_table", play=play_text(hand.top, lang)))
    if hand.selected:
        lines.append(t(lang, "hand.selected", cards=format_cards(hand.selected)))
    lines.append(format_cards(hand.cards))
    return lines


def _turn_lines(hand: HandSnapshot, lang: str) -> list[str]:
    lines = [t(lang, "hand.your_turn")]
    if hand.deadline is not None:
        lines.append(t(lang, "table.deadline", when=f"<t:{int(hand.deadline)}:R>"))
    if hand.top is None:  # leading: what the rules allow, and no passing
        lines.append(t(lang, "hand.must_include", card=str(hand.required)) if hand.required is not None
                     else t(lang, "hand.lead"))
    else:
        lines.append(t(lang, "hand.top", play=play_text(hand.top, lang)))
        lines.append(t(lang, "hand.beat_or_pass" if hand.legal else "hand.cannot_beat"))
    return lines


def _controls(hand: HandSnapshot, lang: str) -> list[ui.Item]:
    if hand.finished or not hand.in_play or not hand.cards:
        return []
    channel, game = hand.channel_id, hand.game_id
    playable = {card for combo in hand.legal for card in combo.cards}
    selected = set(hand.selected)
    options = [_card_option(i + 1, card, card in selected, card in playable) for i, card in enumerate(hand.cards)]
    rows: list[ui.Item] = [row(ui.Select(custom_id=hand_id("cards", channel, game), options=options,
                                         placeholder=t(lang, "hand.pick"), min_values=1, max_values=len(options)))]
    quick = quick_plays(hand.legal)
    if quick and (hand.is_turn or hand.out_of_turn):
        rows.append(row(_quick_select(hand, quick, lang)))
    mask = mask_of(hand.selected)
    can_act = hand.is_turn or hand.out_of_turn
    buttons = [button(hand_id("play", channel, game, mask), t(lang, "button.play"), discord.ButtonStyle.success,
                      disabled=not (can_act and mask))]
    if hand.can_pass or not hand.is_turn:
        buttons.append(button(hand_id("pass", channel, game), t(lang, "button.pass"), discord.ButtonStyle.danger,
                              disabled=not hand.can_pass))
    buttons.append(button(hand_id("clear", channel, game), t(lang, "button.clear"), disabled=not mask))
    rows.append(row(*buttons))
    return rows


def _quick_select(hand: HandSnapshot, quick: list[Combo], lang: str) -> ui.Select:
    options = [
        discord.SelectOption(label=format_cards(combo.cards)[:100], value=f"{combo.mask:x}",
                             description=(("💥 " if combo.bomb else "") + combo_name(combo, lang))[:100])
        for combo in quick
    ]
    placeholder = t(lang, "hand.quick_chop" if hand.out_of_turn else "hand.quick", count=len(hand.legal))
    return ui.Select(custom_id=hand_id("quick", hand.channel_id, hand.game_id), options=options,
                     placeholder=placeholder, min_values=1, max_values=1)


def _card_option(position: int, card: Card, selected: bool, playable: bool) -> discord.SelectOption:
    return discord.SelectOption(label=f"{position}. {card.symbol}", value=card.code, default=selected,
                                description=None if playable else "—")


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
