"""Keeps a player's ephemeral "My hand" view up to date after every move.

An ephemeral message can only be changed through the interaction that made
it, and only while that interaction's token lives (15 minutes).  So the cog
hands over each interaction that shows a hand in a guild channel, and after
each move the runtime's hand refresh edits that message like the DM: "your
turn", what to beat, the new cards.  One live view per player and table: an
older one is deleted when a newer one is shown, so no stale buttons remain
that the player could mistake for the current hand.  Edits of interaction
messages do not count against the bot's global rate limit.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Callable

import aiohttp
import discord

from cogs.hand_message import ShownHand, hand_edit, needs_edit, shown_hand
from runtime.snapshot import HandSnapshot

log = logging.getLogger(__name__)

__all__ = ["EphemeralHands", "TOKEN_LIFETIME"]

TOKEN_LIFETIME = 14 * 60.0
"""Seconds an interaction's message stays editable here (Discord allows 15 min)."""


@dataclass
class _Shown:
    interaction: discord.Interaction
    message_id: int | None
    """The ephemeral message's id (None if Discord did not say)."""
    original: bool
    """Whether it is the interaction's own response (else a follow-up)."""
    lang: str
    shows: ShownHand
    expires: float


class EphemeralHands:
    """The latest ephemeral hand view of each (table, player), and its refresh."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._shown: dict[tuple[int, int], _Shown] = {}
        self._cleanups: set[asyncio.Task[None]] = set()

    def remember(self, interaction: discord.Interaction, hand: HandSnapshot, *, lang: str,
                 message_id: int | None, original: bool = True) -> None:
        """``interaction`` has just shown ``hand`` ephemerally to its user, in
        message ``message_id``: its own response, or a follow-up."""
        key = (hand.channel_id, interaction.user.id)
        previous = self._shown.get(key)
        self._shown[key] = _Shown(interaction, message_id, original, lang, shown_hand(hand),
                                  self._clock() + TOKEN_LIFETIME)
        if previous is not None and previous.message_id not in (None, message_id):
            self._delete_later(previous)

    def forget(self, channel_id: int, user_id: int) -> None:
        """The player left the table (or it closed): their view is no longer kept current."""
        self._shown.pop((channel_id, user_id), None)

    def kept(self) -> set[tuple[int, int]]:
        """The (table, player) pairs whose view is kept current."""
        return set(self._shown)

    async def refresh(self, user_id: int, hand: HandSnapshot) -> None:
        """Show ``hand`` in the player's live ephemeral view, if they have one."""
        key = (hand.channel_id, user_id)
        shown = self._shown.get(key)
        if shown is None:
            return
        if self._clock() >= shown.expires:
            del self._shown[key]
            return
        if not needs_edit(hand, shown.shows):
            return
        kwargs = await hand_edit(hand, shown.lang, shown.shows)
        try:
            if shown.original:
                await shown.interaction.edit_original_response(**kwargs)
            else:
                assert shown.message_id is not None
                await shown.interaction.followup.edit_message(shown.message_id, **kwargs)
        except (discord.HTTPException, aiohttp.ClientError, OSError, asyncio.TimeoutError) as error:
            # Dismissed by the player, token gone, or Discord failing: the
            # player can always press "My hand" again.
            if self._shown.get(key) is shown:
                del self._shown[key]
            log.debug("could not refresh an ephemeral hand at table %s: %s", hand.channel_id, error)
            return
        shown.shows = shown_hand(hand)

    def _delete_later(self, shown: _Shown) -> None:
        task = asyncio.create_task(self._delete_quietly(shown), name="delete-old-ephemeral-hand")
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    @staticmethod
    async def _delete_quietly(shown: _Shown) -> None:
        try:
            if shown.original:
                await shown.interaction.delete_original_response()
            elif shown.message_id is not None:
                await shown.interaction.followup.delete_message(shown.message_id)
        except (discord.HTTPException, aiohttp.ClientError, OSError, asyncio.TimeoutError):
            log.debug("could not delete a replaced ephemeral hand", exc_info=True)
