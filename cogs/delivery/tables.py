"""The live table message of each table: one at a time, at the bottom of the channel, never too old to edit.

A table's message is edited in place while it shows the same stage of the
table (the lobby, one game, the pause after it).  A **fresh message** is
posted at the bottom of the channel, and the previous one deleted, when

* a game is dealt (the channel has moved on since the last one),
* a game ends (the summary was just posted: the table comes back below it),
* the message reaches :data:`~cogs.delivery.limits.EDIT_AGE_LIMIT` (Discord
  limits edits of messages older than an hour), or Discord refuses an edit
  with 30046 all the same,
* the message was deleted.

The old message is deleted rather than kept as a record: the summary of each
game is that record, and a second copy of a table without buttons would
only push the live one up.  The new message's id is stored (through
:meth:`runtime.service.TableService.set_message`) before the old one goes, so
a restart finds the current message; should storing fail, the new message is
deleted again and the change tried later, so a table never shows two live
messages.

Edits are coalesced (one in flight per table; changes meanwhile wait for the
next) and paced by the channel's bucket as Discord reports it; an edit that
would change nothing on screen is not sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable

import discord

from cogs.delivery.limits import (
    ChannelBudget, EditLimits, EditRefused, Outages, delete_later, guarded_edit, is_outage, too_old_to_edit,
)
from cogs.delivery.pictures import play_file
from cogs.layouts.table import table_layout
from runtime.snapshot import TableSnapshot
from runtime.store import Refused, Unavailable
from tienlen.table import Phase

log = logging.getLogger(__name__)

__all__ = ["TableMessages", "stage_of"]

RETRY_FIRST, RETRY_MAX = 1.0, 15.0  # seconds between attempts while Discord fails
OPENING_PATIENCE = 5.0
"""Seconds the editor waits for a /tienlen create answer that is posting the table's first message."""


def stage_of(snapshot: TableSnapshot) -> tuple[int, bool]:
    """What one table message shows, from the lobby to the end: (game number, a game being played).

    >>> from types import SimpleNamespace as S
    >>> stage_of(S(game_number=2, phase=Phase.PLAYING)), stage_of(S(game_number=2, phase=Phase.BETWEEN))
    ((2, True), (2, False))
    """
    return snapshot.game_number, snapshot.phase is Phase.PLAYING


@dataclass
class _Shown:
    """The table's current message and what it shows."""

    message_id: int
    stage: tuple[int, bool]
    payload: Any = None
    """The components last sent (an edit that sends the same is skipped)."""
    top: Any = None
    """(game, play on top) the picture shows."""
    attachments: tuple[discord.Attachment, ...] = ()


class TableMessages:
    """Keeps each table's one live message current (see the module docstring)."""

    def __init__(self, bot: discord.Client, *, budget: ChannelBudget, outages: Outages, edit_limits: EditLimits | None,
                 public_lang: Callable[[int, str | None], str], store_message: Callable[[int, int], Awaitable[None]],
                 edit_interval: float = 0.0) -> None:
        self.bot = bot
        self.budget = budget
        self.outages = outages
        self.edit_limits = edit_limits
        self.public_lang = public_lang
        self.store_message = store_message
        self.edit_interval = edit_interval
        self._latest: dict[int, TableSnapshot] = {}
        self._dirty: set[int] = set()
        self._editors: dict[int, asyncio.Task[None]] = {}
        self._shown: dict[int, _Shown] = {}
        self._opening: dict[int, asyncio.Event] = {}
        self._cleanups: set[asyncio.Task[None]] = set()
        self.offers_activity = False
        """The bot serves the Activity: table messages offer "Open the table" (set at start-up)."""
        self.fresh_posts = 0
        """Fresh table messages posted (tests, metrics)."""

    def kept(self) -> set[int]:
        return set(self._latest) | set(self._editors) | set(self._shown) | set(self._opening)

    # ----------------------------------------------------------- changes
    def changed(self, snapshot: TableSnapshot) -> None:
        """The runtime's newest picture of a table: show it (soon, coalesced)."""
        current = self._latest.get(snapshot.channel_id)
        if current is None or snapshot.version >= current.version:
            self._latest[snapshot.channel_id] = snapshot
        self._dirty.add(snapshot.channel_id)
        editor = self._editors.get(snapshot.channel_id)
        if editor is None or editor.done():
            self._editors[snapshot.channel_id] = asyncio.create_task(
                self._edit_loop(snapshot.channel_id), name=f"table-editor-{snapshot.channel_id}")

    @contextlib.asynccontextmanager
    async def opening(self, channel_id: int) -> AsyncIterator[None]:
        """While a /tienlen create answer posts the table's first message, the editor waits for it."""
        self._opening[channel_id] = event = asyncio.Event()
        try:
            yield
        finally:
            event.set()
            if self._opening.get(channel_id) is event:
                del self._opening[channel_id]

    def opened(self, snapshot: TableSnapshot, message: discord.Message, layout: discord.ui.LayoutView) -> None:
        """``message`` (the answer to /tienlen create) shows ``layout`` of ``snapshot``: it is the table's message."""
        self._shown[snapshot.channel_id] = _Shown(message.id, stage_of(snapshot), layout.to_components(),
                                                  (snapshot.game_id, snapshot.top))

    # ------------------------------------------------------------ editor
    async def _edit_loop(self, channel_id: int) -> None:
        retry = RETRY_FIRST
        while channel_id in self._dirty:
            opening = self._opening.get(channel_id)
            if opening is not None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(opening.wait(), OPENING_PATIENCE)
            wait = self.budget.delay("PATCH", channel_id)  # waiting for the refill coalesces every change meanwhile
            if wait > 0:
                await asyncio.sleep(wait)
            self._dirty.discard(channel_id)
            snapshot = self._latest[channel_id]
            try:
                await self._show(snapshot)
                self.outages.recovered("table edits")
                retry = RETRY_FIRST
            except Exception as error:
                if not (is_outage(error) or isinstance(error, (Unavailable, Refused))):
                    log.exception("could not update the table message in %s", channel_id)
                else:  # keep trying: the table catches up when Discord (or the database) is back
                    self.outages.failed("table edits", error)
                    self._dirty.add(channel_id)
                    await asyncio.sleep(retry)
                    retry = min(retry * 2, RETRY_MAX)
                    continue
            if channel_id in self._dirty and self.edit_interval > 0:
                await asyncio.sleep(self.edit_interval)
        if self._latest[channel_id].closed:  # its last change is shown: nothing more to keep of this table
            del self._latest[channel_id]
            self._shown.pop(channel_id, None)
            if self._editors.get(channel_id) is asyncio.current_task():
                del self._editors[channel_id]

    async def _show(self, snapshot: TableSnapshot) -> None:
        channel_id = snapshot.channel_id
        shown = self._shown.get(channel_id)
        if shown is None and snapshot.message_id is not None:
            # After a restart or a takeover: the stored message shows this stage of the table.
            shown = self._shown[channel_id] = _Shown(snapshot.message_id, stage_of(snapshot))
        lang = self.public_lang(snapshot.guild_id, snapshot.language)
        if shown is not None and not too_old_to_edit(shown.message_id):
            if snapshot.closed or shown.stage == stage_of(snapshot):
                try:
                    return await self._edit(snapshot, shown, lang)
                except discord.NotFound:
                    log.info("the table message in %s was deleted; posting a new one", channel_id)
                except EditRefused:
                    pass  # Discord's one-hour edit limit after all: a fresh message below
        if snapshot.closed:  # nothing to post for a closed table: its last message just goes
            if shown is not None:
                self._delete_later(channel_id, shown.message_id)
            return
        await self._post_fresh(snapshot, shown, lang)

    async def _edit(self, snapshot: TableSnapshot, shown: _Shown, lang: str) -> None:
        top = (snapshot.game_id, snapshot.top)
        image = _image_name(snapshot)
        layout = table_layout(snapshot, lang, image=image, activity=self.offers_activity)
        payload = layout.to_components()
        if payload == shown.payload and top == shown.top:
            return  # the screen would not change
        attachments: list[Any] = list(shown.attachments)
        if top != shown.top:
            attachments = [await self._picture(snapshot, image)] if image else []
        self.budget.spend("PATCH", snapshot.channel_id)
        message = self._channel(snapshot).get_partial_message(shown.message_id)
        edited = await guarded_edit(self.edit_limits, shown.message_id, message.edit(view=layout, attachments=attachments))
        shown.payload, shown.top, shown.attachments = payload, top, tuple(edited.attachments)

    async def _post_fresh(self, snapshot: TableSnapshot, old: _Shown | None, lang: str) -> None:
        image = _image_name(snapshot)
        layout = table_layout(snapshot, lang, image=image, activity=self.offers_activity)
        files = [await self._picture(snapshot, image)] if image else []
        sent = await self._channel(snapshot).send(view=layout, files=files)
        try:
            await self.store_message(snapshot.channel_id, sent.id)
        except BaseException:
            self._delete_later(snapshot.channel_id, sent.id)  # one live message per table, even now
            raise
        self.fresh_posts += 1
        self._shown[snapshot.channel_id] = _Shown(sent.id, stage_of(snapshot), layout.to_components(),
                                                  (snapshot.game_id, snapshot.top), tuple(sent.attachments))
        if old is not None and old.message_id != sent.id:
            self._delete_later(snapshot.channel_id, old.message_id)

    async def _picture(self, snapshot: TableSnapshot, image: str) -> discord.File:
        assert snapshot.top is not None
        return await play_file(image, snapshot.top, snapshot.seat_name(snapshot.top_owner))

    def _channel(self, snapshot: TableSnapshot) -> Any:
        return self.bot.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)

    def _delete_later(self, channel_id: int, message_id: int) -> None:
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        delete_later(self._cleanups, message.delete(), what="old table message")

    async def close(self) -> None:
        for task in self._editors.values():
            task.cancel()


def _image_name(snapshot: TableSnapshot) -> str | None:
    """The picture's file name: a new name for each play, so no client shows an old picture from its cache."""
    if snapshot.top is None:
        return None
    return f"play-{snapshot.game_number}-{snapshot.top.mask:x}.jpg"
