"""The pictures a message carries, drawn off the event loop: the play on top, a hand, the last cards, a replay step, a profile.

A layout names its picture by file name (``attachment://…``); these
functions draw the bytes (CPU-bound, so in a worker thread) and wrap them in
the :class:`discord.File` sent beside the layout.  A hand's picture is cached
by its cards and selection, since every refresh of an unchanged hand would
draw the same picture again.
"""

from __future__ import annotations

import asyncio
import io
from functools import lru_cache
from typing import Callable, Sequence

import discord

from tienlen import Combo
from tienlen.cards import Card, cards_of, mask_of

__all__ = ["play_file", "hand_file", "final_file", "drawn"]


async def drawn(filename: str, draw: Callable[[], bytes]) -> discord.File:
    """``draw()`` in a worker thread, as the attachment ``filename``."""
    data = await asyncio.to_thread(draw)
    return discord.File(io.BytesIO(data), filename=filename)


async def play_file(filename: str, top: Combo, caption: str) -> discord.File:
    """The play on top of the table, captioned with who made it."""
    from render import render_play

    return await drawn(filename, lambda: render_play(top.cards, caption=caption))


@lru_cache(maxsize=512)
def _hand_picture(cards_mask: int, selected_mask: int) -> bytes:
    from render import render_hand

    return render_hand(cards_of(cards_mask), selected=cards_of(selected_mask))


async def hand_file(filename: str, cards: Sequence[Card], selected: Sequence[Card]) -> discord.File:
    """A hand, its cards numbered as the card picker numbers them, the picked ones raised."""
    cards_mask, selected_mask = mask_of(cards), mask_of(selected)
    return await drawn(filename, lambda: _hand_picture(cards_mask, selected_mask))


async def final_file(filename: str, final_hands: Sequence[tuple[str, Sequence[Card]]]) -> discord.File:
    """Every seat's remaining cards at the end of a game."""
    from render import render_final_hands

    return await drawn(filename, lambda: render_final_hands([(name, list(cards)) for name, cards in final_hands]))
