"""What players must see, delivered after each commit until Discord takes it.

The runtime tells the Discord layer through a :class:`Notifier` (implemented
by the cogs).  The :class:`Outbox` calls it in the background, one table's
notifications in order, so nobody's interaction waits for other players'
DMs.  The Discord layer keeps table edits and hand DMs current itself,
retrying while Discord fails (it only ever needs to show the latest state).

End-of-game summaries are different: each one must arrive once.  The outbox
posts a summary until Discord confirms it (a 5xx, a 429 or a network error
raise :class:`Undelivered` and are tried again with capped backoff), then
marks the game's summary as posted in the database; after a restart, the
summaries never marked are made again from the stored games and posted.

Watchers (the Activity's hub) are told of each committed table at once, in
commit order, before and apart from the Discord layer: a watcher only queues
(it never waits), so its clients never wait behind Discord's rate limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from typing import Awaitable, Callable, Protocol

from runtime.snapshot import GameSummary, HandSnapshot, TableSnapshot

log = logging.getLogger(__name__)

__all__ = ["Notifier", "Undelivered", "Outbox", "NullNotifier", "RETRY_FIRST", "RETRY_MAX"]

RETRY_FIRST, RETRY_MAX = 1.0, 15.0
"""Seconds between attempts at a summary while Discord fails, doubling up to the cap."""
KEEP_POSTED = 4096
"""Games whose summary this process posted, remembered so that a second request does not post it twice."""


class Undelivered(Exception):
    """Discord did not take it now (an outage, a rate limit): try again later."""


class Notifier(Protocol):
    """What the runtime tells the Discord layer."""

    async def table_changed(self, snapshot: TableSnapshot) -> None: ...

    async def hands_dealt(self, snapshot: TableSnapshot, hands: dict[int, HandSnapshot]) -> None: ...

    async def hand_changed(self, snapshot: TableSnapshot, hand: HandSnapshot) -> None: ...

    async def post_summary(self, channel_id: int, guild_id: int, summary: GameSummary) -> None:
        """Post the summary; raise Undelivered to have it tried again."""


class NullNotifier:
    async def table_changed(self, snapshot: TableSnapshot) -> None:
        return None

    async def hands_dealt(self, snapshot: TableSnapshot, hands: dict[int, HandSnapshot]) -> None:
        return None

    async def hand_changed(self, snapshot: TableSnapshot, hand: HandSnapshot) -> None:
        return None

    async def post_summary(self, channel_id: int, guild_id: int, summary: GameSummary) -> None:
        return None


class Outbox:
    def __init__(self, notifier: Notifier, *, mark_posted: Callable[[int], Awaitable[None]]) -> None:
        self.notifier = notifier
        self._mark_posted = mark_posted
        self._queues: dict[int, asyncio.Task[None]] = {}
        self._summaries: OrderedDict[int, asyncio.Task[None]] = OrderedDict()
        self._watchers: list[Callable[[TableSnapshot], None]] = []

    def watch(self, watcher: Callable[[TableSnapshot], None]) -> None:
        """Call ``watcher(snapshot)`` at each publish, before Discord's delivery (it must not block)."""
        self._watchers.append(watcher)

    # ---------------------------------------------------------- table news
    def publish(self, snapshot: TableSnapshot, *, dealt: bool = False, hands: dict[int, HandSnapshot] | None = None,
                summary: GameSummary | None = None) -> None:
        """Queue a committed change for Discord: the table, then the hands,
        then the summary of a game that just ended.  Watchers are told now."""
        for watcher in self._watchers:
            try:
                watcher(snapshot)
            except Exception:  # a watcher never stops the table message
                log.exception("a watcher failed for table %s", snapshot.channel_id)
        channel_id = snapshot.channel_id
        previous = self._queues.get(channel_id)
        task = asyncio.create_task(self._deliver(previous, snapshot, dealt, hands or {}, summary),
                                   name=f"notify-{channel_id}")
        self._queues[channel_id] = task

    async def _deliver(self, previous: "asyncio.Task[None] | None", snapshot: TableSnapshot, dealt: bool,
                       hands: dict[int, HandSnapshot], summary: GameSummary | None) -> None:
        if previous is not None and not previous.done():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await previous
        if summary is not None:
            # The summary comes first (as players read the channel), unless Discord fails it.
            posting = self.summary(snapshot.channel_id, snapshot.guild_id, summary)
            with contextlib.suppress(Exception):
                await asyncio.wait({posting}, timeout=RETRY_FIRST)
        try:
            await self.notifier.table_changed(snapshot)
            if dealt:
                await self.notifier.hands_dealt(snapshot, hands)
            else:
                for hand in hands.values():
                    await self.notifier.hand_changed(snapshot, hand)
        except Exception:  # the Discord layer retries what it can; a failure never undoes a commit
            log.exception("notifier failed for table %s", snapshot.channel_id)

    # ------------------------------------------------------------ summaries
    def summary(self, channel_id: int, guild_id: int, summary: GameSummary) -> asyncio.Task[None]:
        """Post ``summary`` until Discord takes it (once per game, whoever asks again)."""
        game_id = summary.game_id
        assert game_id is not None
        if game_id in self._summaries:
            return self._summaries[game_id]
        task = self._summaries[game_id] = asyncio.create_task(self._post(channel_id, guild_id, summary),
                                                              name=f"summary-{game_id}")
        while len(self._summaries) > KEEP_POSTED and next(iter(self._summaries.values())).done():
            self._summaries.popitem(last=False)
        return task

    async def _post(self, channel_id: int, guild_id: int, summary: GameSummary) -> None:
        delay = RETRY_FIRST
        while True:
            try:
                await self.notifier.post_summary(channel_id, guild_id, summary)
                break
            except Undelivered:
                pass  # the Discord layer logs the outage once
            except Exception:
                log.exception("could not post the summary of game %s", summary.game_id)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX)
        delay = RETRY_FIRST
        while True:
            try:
                await self._mark_posted(summary.game_id or 0)
                return
            except Exception as error:
                log.warning("could not mark the summary of game %s as posted (%s); trying again",
                            summary.game_id, type(error).__name__)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX)

    def summary_pending(self, game_id: int) -> bool:
        task = self._summaries.get(game_id)
        return task is not None and not task.done()

    # ------------------------------------------------------------- shutdown
    async def flush(self, channel_id: int | None = None) -> None:
        """Wait until queued notifications have been handed to Discord (tests, shutdown)."""
        if channel_id is not None:
            tasks = [self._queues[channel_id]] if channel_id in self._queues else []
        else:
            tasks = list(self._queues.values())
        for task in tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task

    async def close(self) -> None:
        await self.flush()
        for task in self._summaries.values():
            task.cancel()
        for task in self._summaries.values():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task
