"""The runtime's voice in Discord: table message edits, DMs of hands, summaries.

Implements :class:`runtime.outbox.Notifier`.  The public table message is
edited in place and the edits are coalesced (one in flight per table) and
paced by the channel's rate-limit bucket as Discord reports it (see
:mod:`cogs.rest_budget`): a busy table waits for the refill and then shows
its latest state, and never draws a 429.  Hands go by DM (a DM channel not
open yet is opened in the background: Discord lets a bot open 5 every 5 s,
and the table must not wait for it); when a player's DMs
are closed the ephemeral "My hand" view serves instead and the player is told
once; a player's latest ephemeral view is refreshed like a DM
(:mod:`cogs.ephemeral_hands`).  Each hand message (the DM, the ephemeral
view) is changed one edit at a time (:meth:`Messenger.showing_hand`): the
answer to the player's own press and the refresh after the next move would
otherwise race, and the older view could land last and stay.  When Discord fails (5xx, 429, no connection) table edits and DMs are
retried until it recovers, with one warning per outage; a summary that Discord did not take is
handed back to the runtime's outbox (:class:`runtime.outbox.Undelivered`), which tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Hashable

import aiohttp
import discord

import db
from cogs.views import summary_view, table_view
from cogs.ephemeral_hands import EphemeralHands
from cogs.hand_message import ShownHand, hand_edit, hand_message, needs_edit, shown_hand
from cogs.presenter import summary_embed, table_embed
from cogs.rest_budget import ChannelBudget, Outages, is_outage
from i18n import language_of, t
from runtime.outbox import Undelivered
from runtime.snapshot import GameSummary, HandSnapshot, TableSnapshot
from tienlen.table import Phase

if TYPE_CHECKING:
    from runtime.service import TableService

log = logging.getLogger(__name__)

__all__ = ["Messenger"]

PLAY_IMAGE = "play.jpg"
FINAL_IMAGE = "final.jpg"
RETRY_FIRST, RETRY_MAX = 1.0, 15.0  # seconds between attempts while Discord fails
HAND_PATIENCE = 0.25
"""Seconds an answer waits for a hand refresh in flight before it defers its interaction."""


class Messenger:
    def __init__(self, bot: discord.Client, *, edit_interval: float = 0.0, budget: ChannelBudget | None = None) -> None:
        self.bot = bot
        self.edit_interval = edit_interval
        """Extra pause between two edits of one table (the bucket already paces them)."""
        self.budget = budget or ChannelBudget()
        self.outages = Outages()
        self._dm_retries: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._dm_channel_ids: dict[int, int] = {}
        self._cleanups: set[asyncio.Task[None]] = set()
        self._latest_hands: dict[tuple[int, int], tuple[HandSnapshot, str]] = {}
        """(table, player): the newest hand the runtime sent, and its language."""
        self._hand_locks = _Locks()
        """(table, player, in a DM): one lock per hand message, so a slow DM (a
        DM channel waiting for Discord's bucket) never holds up the ephemeral view."""
        self._followed: dict[int, set[int]] = {}
        """Table -> the players whose hands are kept here (forgotten when they go, see :meth:`_forget`)."""
        self.tables: "TableService | None" = None
        self._latest: dict[int, TableSnapshot] = {}
        self._dirty: set[int] = set()
        self._editors: dict[int, asyncio.Task[None]] = {}
        self._shown_top: dict[int, Any] = {}
        # (table, player): the DM hand message and what it shows.
        self._dm_messages: dict[tuple[int, int], tuple[discord.Message, ShownHand]] = {}
        self.dm_closed: set[tuple[int, int]] = set()
        self._dm_notice_due: set[tuple[int, int]] = set()
        self.ephemeral = EphemeralHands()
        """Players' ephemeral "My hand" views, refreshed like the DMs."""

    # --------------------------------------------------------- language
    def public_lang(self, guild_id: int, chosen: str | None = None) -> str:
        """The language of a public message: the one the server chose, else its Discord language."""
        if chosen is not None:
            return language_of(chosen)
        guild = self.bot.get_guild(guild_id)
        return language_of(guild.preferred_locale if guild else None)

    # --------------------------------------------------------- Notifier
    async def table_changed(self, snapshot: TableSnapshot) -> None:
        current = self._latest.get(snapshot.channel_id)
        if current is None or snapshot.version >= current.version:
            self._latest[snapshot.channel_id] = snapshot
            if snapshot.closed or snapshot.phase is not Phase.PLAYING:
                self._forget(snapshot.channel_id, keep=() if snapshot.closed else _users(snapshot))
        if snapshot.closed:
            reason = next((event.other for event in snapshot.events if event.kind == "closed"), "ended")
            if reason != "ended":  # /tienlen end answers publicly itself
                await self.announce_closed(snapshot.channel_id, snapshot.guild_id, reason, snapshot.language)
        self._dirty.add(snapshot.channel_id)
        editor = self._editors.get(snapshot.channel_id)
        if editor is None or editor.done():
            self._editors[snapshot.channel_id] = asyncio.create_task(
                self._edit_loop(snapshot.channel_id), name=f"table-editor-{snapshot.channel_id}"
            )

    async def hands_dealt(self, snapshot: TableSnapshot, hands: dict[int, HandSnapshot]) -> None:
        self._forget(snapshot.channel_id, keep=_users(snapshot))  # who left since the last game
        for seat, hand in hands.items():
            user_id = snapshot.seats[seat].user_id
            if user_id is not None:
                await self._show_everywhere(user_id, hand, new_game=True)

    async def hand_changed(self, snapshot: TableSnapshot, hand: HandSnapshot) -> None:
        user_id = snapshot.seats[hand.seat].user_id if hand.seat < len(snapshot.seats) else None
        if user_id is not None:
            await self._show_everywhere(user_id, hand, new_game=False)

    async def _show_everywhere(self, user_id: int, hand: HandSnapshot, *, new_game: bool) -> None:
        """The runtime's new view of a hand: the ephemeral view, then the DM (a new
        message for a new game), each message under its own lock."""
        self._note_hand(user_id, hand)
        await self.refresh_ephemeral(user_id, hand)
        async with self._hand_locks.hold((hand.channel_id, user_id, True)):
            if new_game:
                self._dm_messages.pop((hand.channel_id, user_id), None)
            await self._send_hand_dm(user_id, hand, lang=language_of(hand.locale))

    async def refresh_ephemeral(self, user_id: int, hand: HandSnapshot) -> None:
        """Bring the player's ephemeral view (if any) up to ``hand`` or newer."""
        async with self._hand_locks.hold((hand.channel_id, user_id, False)):
            await self.ephemeral.refresh(user_id, self.newest_hand(user_id, hand))

    # ------------------------------------------------------ what is kept
    def _forget(self, channel_id: int, *, keep: "tuple[int, ...] | frozenset[int]") -> None:
        """Drop what is kept of the table's players who are not in ``keep`` (they
        left; a closed table keeps no one).  A hand message being changed keeps its
        lock until the change is done: the lock goes with its last holder."""
        followed = self._followed.get(channel_id)
        if not followed:
            return
        for user_id in followed.difference(keep):
            key = (channel_id, user_id)
            self._latest_hands.pop(key, None)  # a DM still to be sent finds nothing to send and stops
            self._dm_messages.pop(key, None)
            self._dm_retries.pop(key, None)
            self.dm_closed.discard(key)
            self._dm_notice_due.discard(key)
            self.ephemeral.forget(channel_id, user_id)
        followed.intersection_update(keep)
        if not followed:
            del self._followed[channel_id]

    def _follow(self, channel_id: int, user_id: int) -> None:
        self._followed.setdefault(channel_id, set()).add(user_id)

    def _gone(self, channel_id: int) -> bool:
        """The table closed: an answer that lands after that must not bring back what was forgotten."""
        return self.tables is not None and self.tables.table(channel_id) is None

    def kept(self) -> int:
        """How many tables and (table, player) pairs this messenger keeps anything of (tests, leaks)."""
        per_table = set(self._latest) | set(self._editors) | set(self._shown_top) | set(self._followed)
        per_player = (set(self._latest_hands) | set(self._dm_messages) | set(self._dm_retries) | self.dm_closed
                      | self._dm_notice_due | self.ephemeral.kept())
        return len(per_table) + len(per_player) + len(self._hand_locks)

    # ------------------------------------------------- one change at a time
    def _note_hand(self, user_id: int, hand: HandSnapshot, lang: str | None = None) -> None:
        key = (hand.channel_id, user_id)
        self._follow(hand.channel_id, user_id)
        known = self._latest_hands.get(key)
        if known is None or known[0].game_id != hand.game_id or known[0].version <= hand.version:
            self._latest_hands[key] = (hand, lang or language_of(hand.locale))

    def newest_hand(self, user_id: int, hand: HandSnapshot) -> HandSnapshot:
        """``hand``, or the newer view of the same game the runtime has sent since."""
        known = self._latest_hands.get((hand.channel_id, user_id))
        if known is not None and known[0].game_id == hand.game_id and known[0].version > hand.version:
            return known[0]
        return hand

    @contextlib.asynccontextmanager
    async def showing_hand(self, channel_id: int, user_id: int, while_busy: Callable[[], Awaitable[Any]], *,
                           in_dm: bool) -> AsyncIterator[None]:
        """Hold the player's DM (``in_dm``) or ephemeral hand message while an answer shows their hand there.

        A refresh of that message in flight finishes first, so the answer
        (showing :meth:`newest_hand`) is the last word.  If that takes more
        than :data:`HAND_PATIENCE`, ``while_busy`` runs first (it defers the
        interaction, which must be answered within 3 s)."""
        async with self._hand_locks.hold((channel_id, user_id, in_dm), patience=HAND_PATIENCE, while_busy=while_busy):
            yield

    # --------------------------------------------------------------- DMs
    def remember_dm(self, channel_id: int, user_id: int, message: discord.Message, hand: HandSnapshot) -> None:
        """The cog just updated this DM hand message in its interaction response.

        A player can hold two hand messages for one table (a process that took
        the table over sends a fresh one; the old one still has live buttons):
        the one they used becomes the hand, the other is deleted rather than
        left showing stale cards and controls."""
        if self._gone(channel_id):
            return
        key = (channel_id, user_id)
        self._follow(channel_id, user_id)
        previous = self._dm_messages.get(key)
        self._dm_messages[key] = (message, shown_hand(hand))
        if previous is not None and previous[0].id != message.id:
            task = asyncio.create_task(self._delete_quietly(previous[0]), name="delete-old-hand")
            self._cleanups.add(task)
            task.add_done_callback(self._cleanups.discard)

    @staticmethod
    async def _delete_quietly(message: discord.Message) -> None:
        try:
            await message.delete()
        except discord.HTTPException:
            log.debug("could not delete a replaced hand message", exc_info=True)

    def take_dm_notice(self, channel_id: int, user_id: int) -> bool:
        """True once after the player's DMs were found closed at this table."""
        key = (channel_id, user_id)
        if key in self._dm_notice_due:
            self._dm_notice_due.discard(key)
            return True
        return False

    def remember_ephemeral(self, interaction: discord.Interaction, hand: HandSnapshot, *, lang: str,
                           message_id: int | None, original: bool = True) -> None:
        """The cog just showed ``hand`` in an ephemeral view: it is kept current from now on."""
        if not self._gone(hand.channel_id):
            self._follow(hand.channel_id, interaction.user.id)
            self.ephemeral.remember(interaction, hand, lang=lang, message_id=message_id, original=original)

    async def send_hand_dm(self, user_id: int, hand: HandSnapshot, *, lang: str) -> None:
        """Send (or edit in place) the player's private hand message."""
        self._note_hand(user_id, hand, lang)
        async with self._hand_locks.hold((hand.channel_id, user_id, True)):
            await self._send_hand_dm(user_id, hand, lang=lang)

    async def _send_hand_dm(self, user_id: int, hand: HandSnapshot, *, lang: str) -> None:
        key = (hand.channel_id, user_id)
        if key in self.dm_closed:
            return
        previous = self._dm_messages.get(key)
        if previous is None and user_id not in self._dm_channel_ids:
            # Opening a DM channel can wait seconds for Discord's bucket (5 every
            # 5 s for the whole bot): it waits apart, so the table's other news
            # does not queue behind it, and the hand then sent is the newest.
            self._send_dm_later(user_id, key, delay=0.0)
            return
        if previous is not None and not needs_edit(hand, previous[1]):
            return
        try:
            if previous is not None:
                message = await previous[0].edit(**await hand_edit(hand, lang, previous[1]))
            else:
                channel = await self._dm_channel(user_id)
                message = await channel.send(**await hand_message(hand, lang))
            if key in self._latest_hands:  # else the player left (or the table closed) meanwhile
                self._dm_messages[key] = (message, shown_hand(hand))
            self.outages.recovered("DMs")
        except discord.Forbidden:
            self.dm_closed.add(key)
            self._dm_notice_due.add(key)
            log.info("DMs closed for a player at table %s", hand.channel_id)
        except (discord.HTTPException, aiohttp.ClientError, OSError, asyncio.TimeoutError) as error:
            self._dm_messages.pop(key, None)
            if not is_outage(error):
                log.warning("could not DM a hand at table %s: %s", hand.channel_id, error)
                return
            self.outages.failed("DMs", error)
            self._send_dm_later(user_id, key)

    async def _dm_channel(self, user_id: int) -> discord.abc.Messageable:
        """The player's DM channel: known in this process, stored by any process
        before, or opened now (and stored, so a takeover need not reopen it)."""
        channel_id = self._dm_channel_ids.get(user_id)
        database = self.tables.db if self.tables is not None else None
        if channel_id is None and database is not None:
            channel_id = await db.dm_channel_of(database, user_id)
        if channel_id is None:
            channel = await self.bot.create_dm(discord.Object(id=user_id))
            channel_id = channel.id
            if database is not None:
                await db.remember_dm_channel(database, user_id, channel_id)
        self._dm_channel_ids[user_id] = channel_id
        return self.bot.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    def _send_dm_later(self, user_id: int, key: tuple[int, int], *, delay: float = RETRY_FIRST) -> None:
        """Send the player's latest hand in the background, after ``delay``: once
        their DM channel is open, or again once Discord answers."""
        running = self._dm_retries.get(key)
        if running is not None and not running.done():
            return

        async def send() -> None:
            wait = delay
            while key not in self._dm_messages and key not in self.dm_closed:
                await asyncio.sleep(wait)
                wait = min(max(wait * 2, RETRY_FIRST), RETRY_MAX)
                try:
                    await self._dm_channel(user_id)
                except Exception as error:
                    if not is_outage(error):  # refused, or the database failing: the hand's next change tries again
                        log.warning("could not open a DM channel for table %s: %r", key[0], error)
                        return
                    self.outages.failed("DMs", error)
                    continue
                latest = self._latest_hands.get(key)
                if latest is None:  # forgotten: the player left or the table closed
                    return
                hand, lang = latest
                await self.send_hand_dm(user_id, hand, lang=lang)

        self._dm_retries[key] = asyncio.create_task(send(), name=f"dm-send-{key[0]}")

    # ------------------------------------------------------ table message
    async def _edit_loop(self, channel_id: int) -> None:
        retry = RETRY_FIRST
        while channel_id in self._dirty:
            # Waiting for the bucket's refill coalesces every change meanwhile.
            wait = self.budget.delay("PATCH", channel_id)
            if wait > 0:
                await asyncio.sleep(wait)
            self._dirty.discard(channel_id)
            snapshot = self._latest[channel_id]
            try:
                self.budget.spend("PATCH", channel_id)
                await self._render_table(snapshot)
                self.outages.recovered("table edits")
                retry = RETRY_FIRST
            except Exception as error:
                if not is_outage(error):
                    log.exception("could not update the table message in %s", channel_id)
                else:  # keep trying: the table catches up when Discord is back
                    self.outages.failed("table edits", error)
                    self._dirty.add(channel_id)
                    await asyncio.sleep(retry)
                    retry = min(retry * 2, RETRY_MAX)
                    continue
            if channel_id in self._dirty and self.edit_interval > 0:
                await asyncio.sleep(self.edit_interval)
        if self._latest[channel_id].closed:  # its last edit is made: nothing more to show of this table
            del self._latest[channel_id]
            self._shown_top.pop(channel_id, None)
            if self._editors.get(channel_id) is asyncio.current_task():
                del self._editors[channel_id]

    async def _render_table(self, snapshot: TableSnapshot) -> None:
        lang = self.public_lang(snapshot.guild_id, snapshot.language)
        files, image = await self._play_files(snapshot)
        embed = table_embed(snapshot, lang, image=image)
        view = table_view(snapshot, lang)
        channel = self.bot.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        if snapshot.message_id is not None:
            message = channel.get_partial_message(snapshot.message_id)
            kwargs: dict[str, Any] = {"embed": embed, "view": view}
            if files is not None:
                kwargs["attachments"] = files
            try:
                await message.edit(**kwargs)
                return
            except discord.NotFound:
                log.info("table message in %s was deleted; posting a new one", snapshot.channel_id)
        files, image = await self._play_files(snapshot, force=True)
        embed = table_embed(snapshot, lang, image=image)
        sent = await channel.send(embed=embed, view=view, files=files or [])
        if self.tables is not None and not snapshot.closed:
            await self.tables.set_message(snapshot.channel_id, sent.id)

    async def _play_files(
        self, snapshot: TableSnapshot, *, force: bool = False
    ) -> tuple[list[discord.File] | None, str | None]:
        """The picture of the play on top; None when the attachment need not change."""
        top = snapshot.top
        key = (snapshot.game_id, top)
        unchanged = self._shown_top.get(snapshot.channel_id) == key and not force
        self._shown_top[snapshot.channel_id] = key
        if top is None:
            return (None if unchanged else []), None
        if unchanged:
            return None, PLAY_IMAGE
        from render import render_play

        data = await asyncio.to_thread(render_play, top.cards, caption=snapshot.seat_name(snapshot.top_owner))
        return [discord.File(io.BytesIO(data), filename=PLAY_IMAGE)], PLAY_IMAGE

    async def post_summary(self, channel_id: int, guild_id: int, summary: GameSummary) -> None:
        """Post the end-of-game summary; raise Undelivered while Discord fails."""
        lang = self.public_lang(guild_id, summary.language)
        from render import render_final_hands

        data = await asyncio.to_thread(render_final_hands, [(name, list(cards)) for name, cards in summary.final_hands])
        channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            await channel.send(
                embed=summary_embed(summary, lang, image=FINAL_IMAGE),
                file=discord.File(io.BytesIO(data), filename=FINAL_IMAGE),
                **_with_view(summary_view(summary.game_id, lang)),
            )
        except (discord.HTTPException, aiohttp.ClientError, OSError, asyncio.TimeoutError) as error:
            if is_outage(error):
                self.outages.failed("summaries", error)
                raise Undelivered(str(error)) from error
            # Refused for good (no permission, the channel is gone): nothing to retry.
            log.warning("could not post the summary in %s: %s", channel_id, error)
            return
        self.outages.recovered("summaries")

    async def announce_closed(self, channel_id: int, guild_id: int, reason: str, chosen: str | None = None) -> None:
        lang = self.public_lang(guild_id, chosen)
        channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            await channel.send(t(lang, f"closed.{reason}"))
        except discord.HTTPException:
            log.warning("could not announce a closed table in %s", channel_id)

    async def close(self) -> None:
        for task in [*self._editors.values(), *self._dm_retries.values()]:
            task.cancel()


def _with_view(view: discord.ui.View | None) -> dict[str, Any]:
    return {"view": view} if view is not None else {}


def _users(snapshot: TableSnapshot) -> frozenset[int]:
    return frozenset(seat.user_id for seat in snapshot.seats if seat.user_id is not None)


class _Locks:
    """One asyncio lock per key, kept only while someone holds it or waits for it
    (one per hand message ever shown would pile up for the life of the process)."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[asyncio.Lock, int]] = {}

    def __len__(self) -> int:
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def hold(self, key: Hashable, *, patience: float | None = None,
                   while_busy: Callable[[], Awaitable[Any]] | None = None) -> AsyncIterator[None]:
        """Hold ``key``'s lock; if it is not free within ``patience`` s, run ``while_busy`` first, then wait on."""
        lock, users = self._locks.get(key, (None, 0))
        lock = lock or asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            try:
                await asyncio.wait_for(lock.acquire(), patience)
            except asyncio.TimeoutError:
                if while_busy is not None:
                    await while_busy()
                await lock.acquire()
            try:
                yield
            finally:
                lock.release()
        finally:
            lock, users = self._locks[key]
            if users > 1:
                self._locks[key] = (lock, users - 1)
            else:
                del self._locks[key]
