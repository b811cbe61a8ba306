"""Carrying a client's WebSocket to the cluster process that owns its table.

Discord's proxy (or the operator's reverse proxy) sends a client to whichever
bot process it likes, but only the process holding a guild's cluster slot may
act on its tables.  When a signed-in client's channel belongs to another slot,
its connection is relayed, frame by frame, to the owner's Activity server (the
address the owner published in ``cluster_slots``, see :mod:`db.cluster`).  The
client's ``hello`` is passed on unchanged and the owner signs the client in
again with Discord: nothing this process learnt is trusted over there, and no
frame is read or kept here.

A relayed connection carries the header :data:`RELAYED_HEADER`; a process that
receives one for a table it does not own either says so (``moving``) rather
than relaying again, so two processes that disagree for a moment (a takeover
in progress) never pass a client round in a loop.  When the owner goes away
(a restart, a takeover), the client is told ``restarting`` and closed with
1012; it reconnects by itself, and lands on the new owner through this relay.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import Any, Awaitable, Callable

import aiohttp
from aiohttp import WSMsgType, web

from activity.hub import goodbye

log = logging.getLogger(__name__)

__all__ = ["Relay", "RELAYED_HEADER", "CLOSE_RESTART"]

RELAYED_HEADER = "X-Tienlen-Relayed"
CLOSE_RESTART = 1012
"""RFC 6455 "service restart": the client should reconnect."""
CONNECT_SECONDS = 3.0
AVATAR_TIMEOUT = aiohttp.ClientTimeout(total=5.0)
"""An owner asked for an avatar answers within this, or the page shows initials."""


class Relay:
    """Relays client connections to the owner of their guild's tables.

    ``owner_of(guild_id)`` answers the owner's Activity address (``http://host:port``), or None when
    the owner has not published one (it is starting, or a takeover is under way).
    """

    def __init__(self, owner_of: Callable[[int], Awaitable[str | None]], *, max_frame: int,
                 send_timeout: float) -> None:
        self.owner_of = owner_of
        self.max_frame = max_frame
        self.send_timeout = send_timeout
        self.carried = 0
        self.owners: Counter[str] = Counter()
        """The owners' addresses this process carries clients to now (how many to each)."""
        self._session: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def carry(self, ws: web.WebSocketResponse, transport: Any, hello: str, guild_id: int, lang: str) -> None:
        """Carry ``ws`` (whose ``hello`` has been read; ``transport`` its TCP connection) to the owner
        until either side closes."""
        try:
            address = await self.owner_of(guild_id)
        except Exception:  # the database is away: the client retries
            log.warning("activity relay: could not look up the owner of guild %s", guild_id, exc_info=True)
            address = None
        if not address:
            await goodbye(ws, "moving", lang, CLOSE_RESTART)
            return
        try:
            upstream = await self._connect(address)
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
            log.info("activity relay: the owner of guild %s at %s does not answer", guild_id, address)
            await goodbye(ws, "moving", lang, CLOSE_RESTART)
            return
        self.carried += 1
        self.owners[address] += 1
        try:
            async with upstream:
                await upstream.send_str(hello)
                await self._pump_both(ws, transport, upstream, lang)
        finally:
            self.owners[address] -= 1
            if not self.owners[address]:
                del self.owners[address]

    async def avatar(self, user_id: int, etag: str | None) -> tuple[int, bytes, dict[str, str]] | None:
        """The avatar of ``user_id`` from an owner this process carries clients to (the page of a carried
        client asks here, where it loaded): (status, body, headers) of the first owner that knows the user,
        or None.  Each owner decides with its own rule (seated at a table its clients watch), and a
        relayed request is never relayed again, so this is no open proxy either."""
        headers = {RELAYED_HEADER: "1", **({"If-None-Match": etag} if etag else {})}
        for address in list(self.owners):
            try:
                async with self._client().get(f"{address}/api/avatar/{user_id}", headers=headers,
                                              timeout=AVATAR_TIMEOUT) as answer:
                    if answer.status == 404:
                        continue
                    kept = {name: answer.headers[name] for name in ("Cache-Control", "ETag", "Content-Type")
                            if name in answer.headers}
                    return answer.status, await answer.read(), kept
            except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
                continue
        return None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, connect=CONNECT_SECONDS))
        return self._session

    async def _connect(self, address: str) -> aiohttp.ClientWebSocketResponse:
        return await self._client().ws_connect(f"{address}/ws", headers={RELAYED_HEADER: "1"},
                                              max_msg_size=self.max_frame, heartbeat=30.0, autoping=True)

    async def _pump_both(self, ws: web.WebSocketResponse, transport: Any,
                         upstream: aiohttp.ClientWebSocketResponse, lang: str) -> None:
        down = asyncio.create_task(self._down(upstream, ws, transport, lang), name="activity-relay-down")
        up = asyncio.create_task(self._up(ws, upstream), name="activity-relay-up")
        try:
            await asyncio.wait({down, up}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (down, up):
                task.cancel()
            for task in (down, up):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            with contextlib.suppress(Exception):
                await upstream.close()

    async def _down(self, upstream: aiohttp.ClientWebSocketResponse, ws: web.WebSocketResponse, transport: Any,
                    lang: str) -> None:
        """The owner's frames to the client; the owner's close (with its code) closes the client."""
        async for message in upstream:
            if message.type is not WSMsgType.TEXT:
                continue
            try:
                await asyncio.wait_for(ws.send_str(message.data), self.send_timeout)
            except (asyncio.TimeoutError, ConnectionError, RuntimeError):
                if transport is not None:  # a client that does not read: dropped, as the owner drops one
                    transport.abort()
                return
        code = upstream.close_code
        if code is None or code in (1006, 1011) or upstream.exception() is not None:
            await goodbye(ws, "restarting", lang, CLOSE_RESTART)  # the owner went away without a word
        else:
            with contextlib.suppress(Exception):
                await ws.close(code=code, message=b"closed")

    async def _up(self, ws: web.WebSocketResponse, upstream: aiohttp.ClientWebSocketResponse) -> None:
        """The client's frames to the owner, unread (the owner checks them); the client's close closes it."""
        async for message in ws:
            if message.type is WSMsgType.TEXT:
                await upstream.send_str(message.data)
            elif message.type is WSMsgType.BINARY:
                await upstream.send_bytes(message.data)  # refused over there, with the reason
            elif message.type is WSMsgType.ERROR:
                break
        with contextlib.suppress(Exception):
            await upstream.close()

