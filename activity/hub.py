"""Who is connected to which table, and how each committed change reaches them.

The :class:`Hub` watches the runtime's outbox (:meth:`runtime.outbox.Outbox.watch`):
it is told of every committed change as it is published (the bot runs the push
on the event loop's next turn, once the step is done), in commit order and apart
from the Discord layer's delivery, and only queues frames, so a move reaches the
clients without waiting behind Discord's rate limits.  The hub words the public
table once per language and version, and each seated connection gets its own hand, read from the committed table through
:meth:`TableService.hand` — the same view the DM shows, never anyone else's.

Each :class:`Connection` has a bounded send queue written by its own task: a
client that stops reading fills it and is dropped (and a single send that
hangs longer than ``send_timeout`` drops it too), so a slow phone never holds
up the table or the other players.  One connection per user: a newer one
replaces the older, which is told why.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Callable

from aiohttp import web

from activity.views import hand_view, table_view
from i18n import language_of, t
from runtime.snapshot import HandSnapshot, TableSnapshot
from tienlen.table import TableError

if TYPE_CHECKING:
    from runtime.service import TableService

log = logging.getLogger(__name__)

__all__ = ["Connection", "Hub", "FrameBudget", "bye_frame", "goodbye", "CLOSE_REPLACED", "CLOSE_TOO_SLOW",
           "CLOSE_FLOOD"]

CLOSE_REPLACED, CLOSE_TOO_SLOW, CLOSE_FLOOD, CLOSE_AUTH = 4000, 4001, 4002, 4003
"""WebSocket close codes (4000–4999 are the application's own)."""


def bye_frame(code: str, text: str) -> str:
    """The last frame a client gets: why the server closes (``code``, an ``activity.error`` key) in words."""
    return json.dumps({"type": "bye", "code": code, "text": text}, ensure_ascii=False)


async def goodbye(ws: web.WebSocketResponse, code: str, lang: str, close_code: int) -> None:
    """Tell a socket that has no :class:`Connection` (refused, or relayed) why, in ``lang``, and close it."""
    with contextlib.suppress(Exception):
        await ws.send_str(bye_frame(code, t(lang, f"activity.error.{code}")))
        await ws.close(code=close_code, message=code.encode())


class FrameBudget:
    """A token bucket: ``rate`` frames a second, bursts of ``burst``.

    A frame beyond the budget is not refused but served late: :meth:`take` says how long to wait first,
    so a quick player (or a burst of taps) is paced, and nothing they sent is lost.

    >>> now = [0.0]
    >>> budget = FrameBudget(rate=10, burst=2, clock=lambda: now[0])
    >>> [budget.take() for _ in range(3)]
    [0.0, 0.0, 0.1]
    """

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = float(burst)
        self.stamp = clock()

    def take(self) -> float:
        """Spend one frame's token: the seconds to wait before serving it (0 while within the budget)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate) - 1
        self.stamp = now
        return 0.0 if self.tokens >= 0 else round(-self.tokens / self.rate, 6)


class Connection:
    """One client's WebSocket, once Discord has said who it is and where it plays."""

    def __init__(self, ws: web.WebSocketResponse, *, user_id: int, name: str, locale: str, channel_id: int,
                 guild_id: int, queue_size: int, send_timeout: float, transport: Any = None) -> None:
        self.ws = ws
        self.transport = transport  # the TCP connection, aborted when the client does not read
        self.user_id, self.name, self.locale = user_id, name, locale
        self.lang = language_of(locale)
        self.channel_id, self.guild_id = channel_id, guild_id
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=queue_size)
        self.send_timeout = send_timeout
        self.closed = False
        self.close_code: int | None = None
        self.sent = 0
        self._closing: asyncio.Task[None] | None = None
        self.writer = asyncio.create_task(self._write(), name=f"activity-send-{user_id}")

    def send(self, frame: "dict[str, Any] | str") -> bool:
        """Queue a frame; a full queue means the client does not read: drop it."""
        if self.closed:
            return False
        text = frame if isinstance(frame, str) else json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.info("activity: dropped user %s's connection (not reading)", self.user_id)
            self.drop(CLOSE_TOO_SLOW, "too_slow")
            return False
        return True

    async def _write(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await asyncio.wait_for(self.ws.send_str(text), self.send_timeout)
                self.sent += 1
            except (asyncio.TimeoutError, ConnectionError, RuntimeError):
                self.drop(CLOSE_TOO_SLOW, "too_slow")
                return

    def say_goodbye(self, code: int, reason: str, text: str) -> None:
        """Tell the client why (when it still reads), then close."""
        if self.closed:
            return
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(bye_frame(reason, text))
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        self.closed = True
        self.close_code = code
        self._closing = asyncio.get_running_loop().create_task(self._close_after_writer(code, reason))

    async def finished(self) -> None:
        """Wait until what was queued is written and the socket closed (the handler must not return
        before: aiohttp closes a socket whose handler returned, dropping what was not written yet)."""
        if self._closing is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._closing

    async def _close_after_writer(self, code: int, reason: str) -> None:
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self.writer), self.send_timeout)
        await self._close(code, reason)

    def drop(self, code: int, reason: str) -> None:
        """Close at once, without waiting for the queue (the client does not read)."""
        if self.writer is not asyncio.current_task():
            self.writer.cancel()
        already = self.closed
        self.closed = True
        self.close_code = self.close_code or code
        if not already or not self.ws.closed:
            self._closing = asyncio.get_running_loop().create_task(self._close(code, reason, abort=True))

    async def _close(self, code: int, reason: str, *, abort: bool = False) -> None:
        if abort and self.transport is not None:  # a client that does not read never answers the closing handshake
            self.transport.abort()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=code, message=reason.encode()), self.send_timeout)


class Hub:
    """The connected clients, by table and by user; what each change sends them."""

    def __init__(self, service: "TableService") -> None:
        self.service = service
        self.by_channel: dict[int, set[Connection]] = defaultdict(set)
        self.by_user: dict[int, Connection] = {}
        self._worded: dict[tuple[int, int, str], str] = {}
        self.pushed = 0

    # ------------------------------------------------------------ members
    def attach(self, connection: Connection) -> None:
        older = self.by_user.get(connection.user_id)
        if older is not None and older is not connection:
            self.detach(older)
            older.say_goodbye(CLOSE_REPLACED, "replaced", t(older.lang, "activity.error.replaced"))
        self.by_user[connection.user_id] = connection
        self.by_channel[connection.channel_id].add(connection)

    def detach(self, connection: Connection) -> None:
        if self.by_user.get(connection.user_id) is connection:
            del self.by_user[connection.user_id]
        members = self.by_channel.get(connection.channel_id)
        if members is not None:
            members.discard(connection)
            if not members:
                del self.by_channel[connection.channel_id]

    # ------------------------------------------------------------ frames
    def table_frame(self, snapshot: TableSnapshot, lang: str) -> str:
        """The public table in ``lang``, worded once per version (four clients, one wording)."""
        key = (snapshot.channel_id, snapshot.version, lang)
        text = self._worded.get(key)
        if text is None:
            view = table_view(snapshot, lang)
            text = json.dumps(view, ensure_ascii=False, separators=(",", ":"))
            if len(self._worded) > 4096:
                self._worded.clear()
            self._worded[key] = text
        return text

    def hand_of(self, connection: Connection) -> HandSnapshot | None:
        """The connection's own hand from the committed table (None: not playing here)."""
        try:
            return self.service.hand(connection.channel_id, connection.user_id)
        except TableError:
            return None

    def show(self, connection: Connection, snapshot: TableSnapshot | None = None) -> None:
        """Send one connection the table as it stands, and its own hand."""
        snapshot = snapshot or self.service.snapshot(connection.channel_id)
        if snapshot is None:
            connection.send({"type": "table", "phase": "none", "channel": str(connection.channel_id)})
            connection.send(hand_view(None, connection.lang))
            return
        connection.send(self.table_frame(snapshot, connection.lang))
        hand = None if snapshot.closed else self.hand_of(connection)
        connection.send(hand_view(hand, connection.lang))
        self.pushed += 1

    # ------------------------------------------------------------ the runtime's news
    def table_changed(self, snapshot: TableSnapshot) -> None:
        members = self.by_channel.get(snapshot.channel_id)
        if not members:
            return
        # The outbox delivers in commit order, but may run behind: show the newest committed table.
        latest = self.service.snapshot(snapshot.channel_id)
        shown = latest if latest is not None and latest.version >= snapshot.version else snapshot
        for connection in list(members):
            self.show(connection, shown)
