"""Each player's private hand messages: the DM, and the ephemeral "My hand" view, kept current after every move.

**DMs.** A new DM for each game, edited after each move; when the player's DMs
are closed the ephemeral view serves instead and the player is told once.  A
DM channel not open yet is opened in the background (Discord lets a bot open
5 every 5 s, and the table must not wait for it).  A DM that reaches the
one-hour edit limit's age, or that Discord refuses to edit (30046), is
replaced by a fresh DM and deleted.  The first DM this process sends for a
table and player looks at the last messages of that DM channel: a hand
message of the same game, sent before a restart or by the process that held
the table before a takeover, is taken over and edited, and older ones are
deleted, so no stale Play or Pass button stays live.

**Ephemeral views.** An ephemeral message can only be changed through the
interaction that made it, while that interaction's token lives (15 minutes):
the latest view of each (table, player) is edited like the DM; an older one
is deleted when a newer one is shown.

Each hand message is changed one edit at a time (:meth:`HandMessages.answer`
waits for a refresh in flight, :data:`HAND_PATIENCE` at most before it
defers): the answer to the player's own press and the refresh after the next
move would otherwise race, and the older view could land last.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable, Hashable, NamedTuple

import discord

import db
from cogs.delivery.answers import defer, edit_own, lang_of, refuses_new_picture, reply
from cogs.delivery.limits import (
    REST_ERRORS, EditLimits, EditRefused, Outages, delete_later, guarded_edit, is_outage, too_old_to_edit,
)
from cogs.delivery.pictures import hand_file
from cogs.layouts.hand import HAND_IMAGE, hand_layout
from i18n import language_of
from runtime.snapshot import HandSnapshot
from tienlen.cards import mask_of

log = logging.getLogger(__name__)

__all__ = ["HandMessages", "ShownHand", "shown_hand", "needs_edit", "TOKEN_LIFETIME", "HAND_PATIENCE"]

RETRY_FIRST, RETRY_MAX = 1.0, 15.0  # seconds between attempts while Discord fails
HAND_PATIENCE = 0.25
"""Seconds an answer waits for a hand refresh in flight before it defers its interaction."""
TOKEN_LIFETIME = 14 * 60.0
"""Seconds an interaction's message stays editable here (Discord allows 15 min)."""
RETIRED_KEPT = 1024
"""Replaced ephemeral views remembered, so a late press on one does not bring it back."""
HISTORY_LOOKBACK = 10
"""DM messages looked at for hand messages sent before this process took the table."""
_ERRORS = REST_ERRORS


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
    it shows something else, and not a newer view of the same game (refreshes
    run in the background while a press is answered, so an older view can
    arrive last: it must not undo the newer one)."""
    game_id, version = shown.age
    if hand.game_id == game_id and hand.version < version:
        return False
    return shown_hand(hand).fingerprint != shown.fingerprint


async def _hand_message(hand: HandSnapshot, lang: str, *, notice: str | None = None,
                        shown: ShownHand | None = None) -> dict[str, Any]:
    """The layout showing ``hand`` and, when the picture changed since ``shown``, its picture."""
    kwargs: dict[str, Any] = {"layout": hand_layout(hand, lang, image=HAND_IMAGE, notice=notice)}
    if shown is None or shown_hand(hand).picture != shown.picture:
        kwargs["files"] = [await hand_file(HAND_IMAGE, hand.cards, hand.selected)] if hand.cards else []
    return kwargs


def _edit_kwargs(message: dict[str, Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"view": message["layout"]}
    if "files" in message:
        kwargs["attachments"] = message["files"]
    return kwargs


@dataclass
class _Ephemeral:
    interaction: discord.Interaction
    message_id: int | None
    original: bool
    """Whether it is the interaction's own response (else a follow-up)."""
    lang: str
    shows: ShownHand
    expires: float


class HandMessages:
    """The DM and ephemeral hand messages of every player (see the module docstring)."""

    def __init__(self, bot: discord.Client, *, outages: Outages, edit_limits: EditLimits | None,
                 database: Callable[[], "db.Database | None"], table_gone: Callable[[int], bool],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.bot = bot
        self.outages = outages
        self.edit_limits = edit_limits
        self._database = database
        self._gone = table_gone
        self._clock = clock
        self._latest: dict[tuple[int, int], tuple[HandSnapshot, str]] = {}
        """(table, player): the newest hand the runtime sent, and its language."""
        self._locks = _Locks()
        """(table, player, in a DM): one lock per hand message."""
        self._followed: dict[int, set[int]] = {}
        self._dms: dict[tuple[int, int], tuple[discord.Message, ShownHand]] = {}
        self._dm_retries: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._dm_channel_ids: dict[int, int] = {}
        self._looked_back: set[tuple[int, int]] = set()
        self._opened_here: set[int] = set()
        """Tables this process opened: no other process can have sent their hands, so none is looked for."""
        self._ephemeral: dict[tuple[int, int], _Ephemeral] = {}
        self._retired: dict[int, None] = {}
        """Ephemeral views replaced by newer ones (oldest first, at most RETIRED_KEPT)."""
        self._cleanups: set[asyncio.Task[None]] = set()
        self.dm_closed: set[tuple[int, int]] = set()
        self._dm_notice_due: set[tuple[int, int]] = set()
        self.webhooks_refuse_pictures = False
        """Discord refused a new picture in a webhook edit once (discord-api-docs #7529): from then on a view
        whose picture changes is posted again at once, not first offered as an edit that would be refused."""

    # --------------------------------------------------------- the runtime's news
    async def show(self, user_id: int, hand: HandSnapshot, *, new_game: bool) -> None:
        """The runtime's new view of a hand: the ephemeral view, then the DM (a new one for a new game)."""
        self._note(user_id, hand)
        await self.refresh_ephemeral(user_id, hand)
        async with self._locks.hold((hand.channel_id, user_id, True)):
            if new_game:
                self._dms.pop((hand.channel_id, user_id), None)
            await self._send_dm(user_id, hand, lang=language_of(hand.locale))

    async def refresh_ephemeral(self, user_id: int, hand: HandSnapshot) -> None:
        """Bring the player's ephemeral view (if any) up to ``hand`` or newer."""
        async with self._locks.hold((hand.channel_id, user_id, False)):
            await self._refresh_ephemeral(user_id, self.newest(user_id, hand))

    def forget(self, channel_id: int, *, keep: "tuple[int, ...] | frozenset[int]") -> None:
        """Drop what is kept of the table's players not in ``keep`` (they left; a
        closed table keeps no one).  A hand message being changed keeps its lock
        until the change is done."""
        if not keep:
            self._opened_here.discard(channel_id)
        followed = self._followed.get(channel_id)
        if not followed:
            return
        for user_id in followed.difference(keep):
            key = (channel_id, user_id)
            self._latest.pop(key, None)  # a DM still to be sent finds nothing to send and stops
            self._dms.pop(key, None)
            self._dm_retries.pop(key, None)
            self._ephemeral.pop(key, None)
            self.dm_closed.discard(key)
            self._dm_notice_due.discard(key)
            self._looked_back.discard(key)
        followed.intersection_update(keep)
        if not followed:
            del self._followed[channel_id]

    def kept(self) -> int:
        """How many (table, player) pairs and locks are kept (tests, leaks)."""
        pairs = (set(self._latest) | set(self._dms) | set(self._dm_retries) | self.dm_closed | self._dm_notice_due
                 | set(self._ephemeral) | self._looked_back)
        return len(set(self._followed) | self._opened_here) + len(pairs) + len(self._locks)

    def opened_here(self, channel_id: int) -> None:
        """The table was just opened by this process: its players have no hand
        message from another process to take over (no DM history is read)."""
        self._opened_here.add(channel_id)

    def take_dm_notice(self, channel_id: int, user_id: int) -> bool:
        """True once after the player's DMs were found closed at this table."""
        key = (channel_id, user_id)
        if key in self._dm_notice_due:
            self._dm_notice_due.discard(key)
            return True
        return False

    def newest(self, user_id: int, hand: HandSnapshot) -> HandSnapshot:
        """``hand``, or the newer view of the same game the runtime has sent since."""
        known = self._latest.get((hand.channel_id, user_id))
        if known is not None and known[0].game_id == hand.game_id and known[0].version > hand.version:
            return known[0]
        return hand

    # ------------------------------------------------------ a player's own press
    async def answer(self, interaction: discord.Interaction, hand: HandSnapshot, *, update: bool,
                     notice: str | None = None) -> None:
        """Answer with the player's hand: the message pressed (``update``) or a new ephemeral one.

        A refresh of that message in flight finishes first, so this answer
        (showing the newest view) is the last word; if that takes more than
        :data:`HAND_PATIENCE`, the interaction is deferred meanwhile."""
        lang = lang_of(interaction)
        user_id = interaction.user.id
        in_dm = update and interaction.guild_id is None  # else an ephemeral view in the channel
        async with self.holding(hand.channel_id, user_id, lambda: defer(interaction, update=update), in_dm=in_dm):
            hand = self.newest(user_id, hand)
            message = await _hand_message(hand, lang, notice=notice)
            if not update:
                return self._remember_new(interaction, hand, await reply(interaction, **message))
            sent = await edit_own(interaction, **message)
            pressed = interaction.message
            if isinstance(sent, discord.Message) and pressed is not None and sent.id != pressed.id:
                pressed = sent  # the pressed message was too old to edit: a new one took its place
            if in_dm and pressed is not None:
                self.remember_dm(hand.channel_id, user_id, pressed, hand)
            elif pressed is not None:
                self.remember_ephemeral(interaction, hand, lang=lang, message_id=pressed.id)

    @contextlib.asynccontextmanager
    async def holding(self, channel_id: int, user_id: int, while_busy: Callable[[], Awaitable[Any]], *,
                      in_dm: bool) -> AsyncIterator[None]:
        """Hold the player's DM (``in_dm``) or ephemeral hand message while an answer shows their hand there:
        a refresh in flight finishes first; ``while_busy`` runs if that takes more than :data:`HAND_PATIENCE`."""
        async with self._locks.hold((channel_id, user_id, in_dm), patience=HAND_PATIENCE, while_busy=while_busy):
            yield

    def _remember_new(self, interaction: discord.Interaction, hand: HandSnapshot, sent: Any) -> None:
        if isinstance(sent, discord.InteractionCallbackResponse):
            self.remember_ephemeral(interaction, hand, lang=lang_of(interaction), message_id=sent.message_id)
        elif isinstance(sent, discord.WebhookMessage):
            self.remember_ephemeral(interaction, hand, lang=lang_of(interaction), message_id=sent.id, original=False)

    def remember_dm(self, channel_id: int, user_id: int, message: discord.Message, hand: HandSnapshot) -> None:
        """The player's press just updated this DM: it is their hand message from now on.

        A player can hold two hand messages for one table (a process that took
        the table over sent a fresh one while the old one still had live
        buttons): the one they used becomes the hand, the other is deleted."""
        if self._gone(channel_id):
            return
        key = (channel_id, user_id)
        self._follow(channel_id, user_id)
        self._looked_back.add(key)  # the player's own press showed which message is their hand
        previous = self._dms.get(key)
        self._dms[key] = (message, shown_hand(hand))
        if previous is not None and previous[0].id != message.id:
            self._delete_later(previous[0].delete())

    def remember_ephemeral(self, interaction: discord.Interaction, hand: HandSnapshot, *, lang: str,
                            message_id: int | None, original: bool = True) -> None:
        if self._gone(hand.channel_id) or message_id in self._retired:
            return  # a press on a view already replaced (and being deleted): the newer view stays the hand
        key = (hand.channel_id, interaction.user.id)
        self._follow(*key)
        previous = self._ephemeral.get(key)
        self._ephemeral[key] = _Ephemeral(interaction, message_id, original, lang, shown_hand(hand),
                                          self._clock() + TOKEN_LIFETIME)
        if previous is not None and previous.message_id not in (None, message_id):
            self._retire(previous)

    def _retire(self, shown: _Ephemeral) -> None:
        """Delete a replaced ephemeral view; a press on it that arrives meanwhile changes nothing here."""
        if shown.message_id is not None:
            self._retired[shown.message_id] = None
            while len(self._retired) > RETIRED_KEPT:
                self._retired.pop(next(iter(self._retired)))
        self._delete_later(_delete_ephemeral(shown))

    # ------------------------------------------------------------ ephemeral
    async def _refresh_ephemeral(self, user_id: int, hand: HandSnapshot) -> None:
        key = (hand.channel_id, user_id)
        shown = self._ephemeral.get(key)
        if shown is None:
            return
        if self._clock() >= shown.expires:
            del self._ephemeral[key]
            return
        if not needs_edit(hand, shown.shows):
            return
        message = await _hand_message(hand, shown.lang, shown=shown.shows)
        try:
            if message.get("files") and self.webhooks_refuse_pictures:
                await self._replace_ephemeral(shown, message)  # no edit that Discord has shown it refuses
            else:
                try:
                    await _edit_ephemeral(shown, _edit_kwargs(message))
                except discord.HTTPException as error:
                    if not (message.get("files") and refuses_new_picture(error)):
                        raise
                    self.webhooks_refuse_pictures = True
                    await self._replace_ephemeral(shown, message)
        except _ERRORS as error:
            # Dismissed by the player, token gone, or Discord failing: "My hand" shows it again.
            if self._ephemeral.get(key) is shown:
                del self._ephemeral[key]
            log.debug("could not refresh an ephemeral hand at table %s: %s", hand.channel_id, error)
            return
        shown.shows = shown_hand(hand)

    async def _replace_ephemeral(self, shown: _Ephemeral, message: dict[str, Any]) -> None:
        """Discord refused the new picture in a webhook edit (discord-api-docs #7529): the view
        comes again as a new ephemeral follow-up, and the old one goes."""
        sent = await shown.interaction.followup.send(view=message["layout"], files=message.get("files") or [],
                                                     ephemeral=True, wait=True)
        self._retire(_Ephemeral(**{**shown.__dict__}))
        shown.message_id, shown.original = sent.id, False

    # ------------------------------------------------------------------ DMs
    def _note(self, user_id: int, hand: HandSnapshot, lang: str | None = None) -> None:
        key = (hand.channel_id, user_id)
        self._follow(*key)
        known = self._latest.get(key)
        if known is None or known[0].game_id != hand.game_id or known[0].version <= hand.version:
            self._latest[key] = (hand, lang or language_of(hand.locale))

    def _follow(self, channel_id: int, user_id: int) -> None:
        self._followed.setdefault(channel_id, set()).add(user_id)

    async def send_dm(self, user_id: int, hand: HandSnapshot, *, lang: str) -> None:
        """Send (or edit in place) the player's DM hand message, one change at a time."""
        self._note(user_id, hand, lang)
        async with self._locks.hold((hand.channel_id, user_id, True)):
            await self._send_dm(user_id, hand, lang=lang)

    async def _send_dm(self, user_id: int, hand: HandSnapshot, *, lang: str) -> None:
        key = (hand.channel_id, user_id)
        if key in self.dm_closed:
            return
        previous = self._dms.get(key)
        if previous is None and user_id not in self._dm_channel_ids:
            # Opening a DM channel can wait seconds for Discord's bucket: it waits
            # apart, so the table's other news does not queue behind it.
            self._send_dm_later(user_id, key, delay=0.0)
            return
        if previous is not None and not needs_edit(hand, previous[1]):
            return
        try:
            if previous is None and key not in self._looked_back and key[0] not in self._opened_here:
                previous = await self._look_back(await self._dm_channel(user_id), key, hand)
            message = await self._write_dm(user_id, previous, hand, lang)
            if key in self._latest:  # else the player left (or the table closed) meanwhile
                self._dms[key] = (message, shown_hand(hand))
            self.outages.recovered("DMs")
        except discord.Forbidden:
            self.dm_closed.add(key)
            self._dm_notice_due.add(key)
            log.info("DMs closed for a player at table %s", hand.channel_id)
        except _ERRORS as error:
            self._dms.pop(key, None)
            if not is_outage(error):
                log.warning("could not DM a hand at table %s: %s", hand.channel_id, error)
                return
            self.outages.failed("DMs", error)
            self._send_dm_later(user_id, key)

    async def _write_dm(self, user_id: int, previous: tuple[discord.Message, ShownHand] | None, hand: HandSnapshot,
                        lang: str) -> discord.Message:
        """Edit the DM in place, or send a new one when there is none or it is too old to edit."""
        if previous is not None and not too_old_to_edit(previous[0].id):
            message = await _hand_message(hand, lang, shown=previous[1])
            try:
                return await guarded_edit(self.edit_limits, previous[0].id, previous[0].edit(**_edit_kwargs(message)))
            except (EditRefused, discord.NotFound):
                pass  # a fresh DM below
        message = await _hand_message(hand, lang)
        channel = await self._dm_channel(user_id)
        sent = await channel.send(view=message["layout"], files=message.get("files") or [])
        if previous is not None:
            self._delete_later(previous[0].delete())
        return sent

    async def _look_back(self, channel: Any, key: tuple[int, int], hand: HandSnapshot
                         ) -> tuple[discord.Message, ShownHand] | None:
        """Hand messages of this table sent before this process took it: the
        newest of this game is taken over, the others deleted (no live stale buttons)."""
        self._looked_back.add(key)
        prefix, game = "tl:h:", f":{key[0]}:{hand.game_id}"
        found: discord.Message | None = None
        try:
            async for message in channel.history(limit=HISTORY_LOOKBACK):
                ids = [cid for cid in _custom_ids(message) if cid.startswith(prefix) and f":{key[0]}:" in cid]
                mine = self.bot.user is not None and message.author.id == self.bot.user.id
                if not ids or not mine:
                    continue
                if found is None and any(game in cid for cid in ids):
                    found = message
                else:
                    self._delete_later(message.delete())
        except _ERRORS as error:
            log.debug("could not look back in a DM channel for table %s: %s", key[0], error)
        # An unknown fingerprint: the first refresh edits it whatever it shows.
        return (found, ShownHand((), (-1, -1), (hand.game_id, -1))) if found is not None else None

    async def _dm_channel(self, user_id: int) -> Any:
        """The player's DM channel: known here, stored by any process before, or opened now (and stored)."""
        channel_id = self._dm_channel_ids.get(user_id)
        database = self._database()
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
        """Send the player's latest hand in the background after ``delay``: once
        their DM channel is open, or again once Discord answers."""
        running = self._dm_retries.get(key)
        if running is not None and not running.done():
            return

        async def send() -> None:
            wait = delay
            while key not in self._dms and key not in self.dm_closed:
                await asyncio.sleep(wait)
                wait = min(max(wait * 2, RETRY_FIRST), RETRY_MAX)
                try:
                    await self._dm_channel(user_id)
                except Exception as error:
                    if not is_outage(error):  # refused, or the database failing: the next change tries again
                        log.warning("could not open a DM channel for table %s: %r", key[0], error)
                        return
                    self.outages.failed("DMs", error)
                    continue
                latest = self._latest.get(key)
                if latest is None:  # forgotten: the player left or the table closed
                    return
                hand, lang = latest
                await self.send_dm(user_id, hand, lang=lang)

        self._dm_retries[key] = asyncio.create_task(send(), name=f"dm-send-{key[0]}")

    # ------------------------------------------------------------- cleanup
    def _delete_later(self, deletion: Awaitable[Any]) -> None:
        delete_later(self._cleanups, deletion, what="old hand")

    async def close(self) -> None:
        for task in self._dm_retries.values():
            task.cancel()


async def _edit_ephemeral(shown: _Ephemeral, kwargs: dict[str, Any]) -> None:
    if shown.original:
        await shown.interaction.edit_original_response(**kwargs)
    else:
        assert shown.message_id is not None
        await shown.interaction.followup.edit_message(shown.message_id, **kwargs)


async def _delete_ephemeral(shown: _Ephemeral) -> None:
    if shown.original:
        await shown.interaction.delete_original_response()
    elif shown.message_id is not None:
        await shown.interaction.followup.delete_message(shown.message_id)


def _custom_ids(message: discord.Message) -> list[str]:
    """Every custom id on a message's components, nested ones included."""
    found: list[str] = []

    def visit(component: Any) -> None:
        custom_id = getattr(component, "custom_id", None)
        if custom_id:
            found.append(custom_id)
        for child in getattr(component, "children", None) or getattr(component, "components", None) or ():
            visit(child)
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            visit(accessory)

    for component in message.components:
        visit(component)
    return found


class _Locks:
    """One asyncio lock per key, kept only while someone holds it or waits for it."""

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
