"""A player's private hand message, wherever it lives (DM or ephemeral view):
what it shows, its picture, and the edit that brings it up to date.

The picture is redrawn (and re-uploaded) only when the cards or the selection
changed; the fingerprint says whether the message needs an edit at all, and
the age keeps a message from going back to an older view of the game.
"""

from __future__ import annotations

import asyncio
import io
from functools import lru_cache
from typing import Any

import discord

from cogs.components import hand_view
from cogs.presenter import hand_embed
from runtime.snapshot import HandSnapshot
from tienlen.cards import cards_of, mask_of

__all__ = ["HAND_IMAGE", "hand_fingerprint", "hand_age", "is_older", "picture_key", "hand_files", "hand_edit"]

HAND_IMAGE = "hand.jpg"


def hand_fingerprint(hand: HandSnapshot) -> tuple[Any, ...]:
    """What a rendered hand message shows; equal fingerprints need no edit."""
    return (hand.game_id, mask_of(hand.cards), tuple(c.mask for c in hand.legal), hand.is_turn, hand.can_pass,
            hand.out_of_turn, hand.top, hand.in_play, hand.finished, mask_of(hand.selected))


def hand_age(hand: HandSnapshot) -> tuple[int, int]:
    """Which game and how far into it a hand view is (see :func:`is_older`)."""
    return hand.game_id, hand.version


def is_older(hand: HandSnapshot, shown_age: tuple[int, int] | None) -> bool:
    """Whether ``hand`` is an older view of the game a message shows now.

    Hand refreshes run in the background while a press is answered in the
    foreground, so an older view can arrive last: it must not undo the newer one."""
    return shown_age is not None and hand.game_id == shown_age[0] and hand.version < shown_age[1]


def picture_key(hand: HandSnapshot) -> tuple[int, int]:
    """What the hand picture depends on: the cards and the selection."""
    return mask_of(hand.cards), mask_of(hand.selected)


@lru_cache(maxsize=512)
def _hand_picture(cards_mask: int, selected_mask: int) -> bytes:
    from render import render_hand

    return render_hand(cards_of(cards_mask), selected=cards_of(selected_mask))


async def hand_files(hand: HandSnapshot) -> list[discord.File]:
    """The hand picture (numbered cards matching the picker), drawn off the event loop."""
    if not hand.cards:
        return []
    data = await asyncio.to_thread(_hand_picture, *picture_key(hand))
    return [discord.File(io.BytesIO(data), filename=HAND_IMAGE)]


async def hand_edit(hand: HandSnapshot, lang: str, shown_picture: tuple[int, int]) -> dict[str, Any]:
    """Keyword arguments of the edit showing ``hand`` in a message whose
    picture is ``shown_picture``; the picture stays when it did not change."""
    kwargs: dict[str, Any] = {
        "embed": hand_embed(hand, lang, image=HAND_IMAGE if hand.cards else None),
        "view": hand_view(hand, lang),
    }
    if picture_key(hand) != shown_picture:
        kwargs["attachments"] = await hand_files(hand)
    return kwargs
