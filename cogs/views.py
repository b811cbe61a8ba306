"""The components the bot posts: table buttons, a player's hand controls, rules pages.

Outgoing only: plain buttons and select menus whose ``custom_id`` says what
they do (:mod:`cogs.custom_ids`); the clicks come back through
:mod:`cogs.components`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from cogs.custom_ids import admin_id, hand_id, replay_id, rules_id, table_id
from cogs.presenter import combo_name
from i18n import t
from runtime.snapshot import HandSnapshot, TableSnapshot
from tienlen import Combo, format_cards
from tienlen.cards import Card, mask_of
from tienlen.table import Phase

if TYPE_CHECKING:
    from runtime.replays import ReplayGame

__all__ = ["table_view", "hand_view", "rules_view", "reset_view", "replay_view", "replay_shared_view",
           "summary_view", "quick_plays", "QUICK_LIMIT"]

QUICK_LIMIT = 25  # Discord's maximum options in a select menu


def _button(custom_id: str, label: str | None, style: discord.ButtonStyle = discord.ButtonStyle.secondary, *,
            emoji: str | None = None, disabled: bool = False) -> discord.ui.Button:
    return discord.ui.Button(label=label, style=style, emoji=emoji, disabled=disabled, custom_id=custom_id)


def table_view(snapshot: TableSnapshot, lang: str) -> discord.ui.View:
    """Buttons under the public table message, for its current phase."""
    view = discord.ui.View(timeout=None)
    channel = snapshot.channel_id
    primary, secondary, success, danger = (discord.ButtonStyle.primary, discord.ButtonStyle.secondary,
                                           discord.ButtonStyle.success, discord.ButtonStyle.danger)
    if snapshot.closed:
        return view
    if snapshot.phase is Phase.PLAYING:
        view.add_item(_button(table_id("hand", channel), t(lang, "button.hand"), primary, emoji="🃏"))
        view.add_item(_button(table_id("leave", channel), t(lang, "button.leave_game"), danger))
        return view
    if snapshot.phase is Phase.BETWEEN:
        view.add_item(_button(table_id("next", channel), t(lang, "button.next"), success, emoji="▶️"))
    view.add_item(_button(table_id("join", channel), t(lang, "button.join"), primary))
    view.add_item(_button(table_id("leave", channel), t(lang, "button.leave"), secondary))
    if not snapshot.ranked:  # a ranked table seats people only
        view.add_item(_button(table_id("ai", channel), t(lang, "button.add_ai"), secondary, emoji="🤖"))
    if snapshot.phase is Phase.LOBBY:
        view.add_item(_button(table_id("start", channel), t(lang, "button.start"), success))
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

    Pass is shown when the player may pass, disabled while it is someone
    else's turn, and left out when it is their turn but they may not (they
    lead the round)."""
    view = discord.ui.View(timeout=None)
    if hand.finished or not hand.in_play or not hand.cards:
        return view
    channel, game = hand.channel_id, hand.game_id
    playable = {card for combo in hand.legal for card in combo.cards}
    selected = set(hand.selected)
    options = [_card_option(i + 1, card, card in selected, card in playable) for i, card in enumerate(hand.cards)]
    view.add_item(discord.ui.Select(custom_id=hand_id("cards", channel, game), options=options,
                                    placeholder=t(lang, "hand.pick"), min_values=1, max_values=len(options)))
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
        view.add_item(discord.ui.Select(custom_id=hand_id("quick", channel, game), options=quick_options,
                                        placeholder=placeholder, min_values=1, max_values=1))
    mask = mask_of(hand.selected)
    can_act = hand.is_turn or hand.out_of_turn
    view.add_item(_button(hand_id("play", channel, game, mask), t(lang, "button.play"), discord.ButtonStyle.success,
                          disabled=not (can_act and mask)))
    if hand.can_pass or not hand.is_turn:
        view.add_item(_button(hand_id("pass", channel, game), t(lang, "button.pass"), discord.ButtonStyle.danger,
                              disabled=not hand.can_pass))
    view.add_item(_button(hand_id("clear", channel, game), t(lang, "button.clear"), disabled=not mask))
    return view


def rules_view(source: str, page: int, pages: int, lang: str) -> discord.ui.View:
    """Previous / next page of a rules explanation."""
    view = discord.ui.View(timeout=None)
    view.add_item(_button(rules_id(source, max(0, page - 1)), t(lang, "button.previous"), disabled=page == 0))
    view.add_item(_button(rules_id(source, min(pages - 1, page + 1)), t(lang, "button.next_page"),
                          disabled=page >= pages - 1))
    return view


def reset_view(request_id: int, lang: str) -> discord.ui.View:
    """Confirm or cancel a reset of every balance."""
    view = discord.ui.View(timeout=None)
    view.add_item(_button(admin_id("reset", request_id), t(lang, "button.confirm_reset"), discord.ButtonStyle.danger))
    view.add_item(_button(admin_id("keep", request_id), t(lang, "button.cancel")))
    return view


def replay_view(game: "ReplayGame", step: int, lang: str) -> discord.ui.View:
    """⏮ ◀ ▶ ⏭, the next chop and Share, under a replay shown at ``step``."""
    view = discord.ui.View(timeout=None)
    game_id, replay = game.game_id, game.replay
    at_start, at_end = step <= 0, step >= replay.steps
    for action, emoji, disabled in (("first", "⏮️", at_start), ("prev", "◀️", at_start), ("next", "▶️", at_end),
                                    ("last", "⏭️", at_end)):
        view.add_item(_button(replay_id(action, game_id, step), None, emoji=emoji, disabled=disabled))
    view.add_item(_button(replay_id("chop", game_id, step), t(lang, "button.replay_chop"), emoji="💥",
                          disabled=replay.next_chop(step) is None))
    share = _button(replay_id("share", game_id, step), t(lang, "button.share"), discord.ButtonStyle.primary,
                    emoji="📢")
    share.row = 1
    view.add_item(share)
    return view


def replay_shared_view(game_id: int, step: int, lang: str) -> discord.ui.View:
    """Under a step someone shared: open the replay there, privately, for whoever presses."""
    view = discord.ui.View(timeout=None)
    view.add_item(_button(replay_id("open", game_id, step), t(lang, "button.watch"), discord.ButtonStyle.primary,
                          emoji="🎬"))
    return view


def summary_view(game_id: int | None, lang: str) -> discord.ui.View | None:
    """The Replay button under an end-of-game summary."""
    if not game_id:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(_button(replay_id("open", game_id, 0), t(lang, "button.replay"), discord.ButtonStyle.primary,
                          emoji="🎬"))
    return view
