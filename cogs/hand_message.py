"""A player's private hand message, wherever it lives (DM or ephemeral view):
what it shows, its picture, and the edit that brings it up to date.

The picture is redrawn (and re-uploaded) only when the cards or the selection
changed; what a message shows (:class:`ShownHand`) says whether it needs an
edit at all, and keeps it from going back to an older view of the game.
"""

from __future__ import annotations

import asyncio
import io
from functools import lru_cache
from typing import Any, NamedTuple

import discord

from cogs.views import hand_view
from cogs.presenter import hand_embed
from runtime.snapshot import HandSnapshot
from tienlen.cards import cards_of, mask_of

__all__ = ["HAND_IMAGE", "ShownHand", "shown_hand", "needs_edit", "hand_files", "hand_message", "hand_edit"]

HAND_IMAGE = "hand.jpg"


class ShownHand(NamedTuple):
    """What a hand message shows now, as far as its next edit cares."""

    fingerprint: tuple[Any, ...]
    """Everything the rendered message shows: equal fingerprints need no edit."""
    picture: tuple[int, int]
    """What the picture depends on: the cards and the selection."""
    age: tuple[int, int]
    """The game and how many actions it had (HandSnapshot.version)."""


def shown_hand(hand: HandSnapshot) -> ShownHand:
    """The record of a message once it shows ``hand``."""
    cards, selected = mask_of(hand.cards), mask_of(hand.selected)
    fingerprint = (hand.game_id, cards, tuple(c.mask for c in hand.legal), hand.is_turn, hand.can_pass,
                   hand.out_of_turn, hand.top, hand.in_play, hand.finished, selected)
    return ShownHand(fingerprint, (cards, selected), (hand.game_id, hand.version))


def needs_edit(hand: HandSnapshot, shown: ShownHand) -> bool:
    """Whether a message that shows ``shown`` should be edited to show ``hand``:
    it shows something else, and not a newer view of the same game (hand
    refreshes run in the background while a press is answered in the
    foreground, so an older view can arrive last: it must not undo the newer one)."""
    game_id, version = shown.age
    if hand.game_id == game_id and hand.version < version:
        return False
    return shown_hand(hand).fingerprint != shown.fingerprint


@lru_cache(maxsize=512)
def _hand_picture(cards_mask: int, selected_mask: int) -> bytes:
    from render import render_hand

    return render_hand(cards_of(cards_mask), selected=cards_of(selected_mask))


async def hand_files(hand: HandSnapshot) -> list[discord.File]:
    """The hand picture (numbered cards matching the picker), drawn off the event loop."""
    if not hand.cards:
        return []
    data = await asyncio.to_thread(_hand_picture, mask_of(hand.cards), mask_of(hand.selected))
    return [discord.File(io.BytesIO(data), filename=HAND_IMAGE)]


async def hand_message(hand: HandSnapshot, lang: str, *, notice: str | None = None) -> dict[str, Any]:
    """Keyword arguments of a new message showing ``hand`` (embed, buttons, picture)."""
    return {
        "embed": hand_embed(hand, lang, image=HAND_IMAGE if hand.cards else None, notice=notice),
        "view": hand_view(hand, lang),
        "files": await hand_files(hand),
    }


async def hand_edit(hand: HandSnapshot, lang: str, shown: ShownHand) -> dict[str, Any]:
    """Keyword arguments of the edit bringing a message that shows ``shown`` to
    ``hand``; the picture stays when it did not change."""
    kwargs: dict[str, Any] = {
        "embed": hand_embed(hand, lang, image=HAND_IMAGE if hand.cards else None),
        "view": hand_view(hand, lang),
    }
    if shown_hand(hand).picture != shown.picture:
        kwargs["attachments"] = await hand_files(hand)
    return kwargs
