"""Seat avatars for the Activity, served by the bot itself (Discord's proxy lets the page load nothing else).

``GET /api/avatar/{user_id}`` (:meth:`activity.server.ActivityServer.avatar`) asks
:class:`Avatars` for a user's picture: the profile from ``GET /users/{id}``
with the bot's token, then the 64 px PNG from Discord's CDN (its own avatar,
or the default one Discord gives an account without one).  Pictures are kept
in a bounded cache (:data:`ENTRIES` users, each for :data:`KEEP_SECONDS`), a
burst of requests for one user makes one trip to Discord, and a user Discord
does not know is remembered as such for a while too.  Who may be shown is the
server's decision (only users at a table of this process): this module only
fetches and keeps.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

from activity.discord_api import DiscordApi, DiscordRefused

__all__ = ["Avatars", "Picture", "ENTRIES", "KEEP_SECONDS", "SIZE"]

ENTRIES = 512
"""Users whose picture is kept (a 64 px PNG is 2–10 KB: a few MB at most)."""
KEEP_SECONDS = 3600.0
"""How long a picture (or "no such user") is kept before Discord is asked again."""
SIZE = 64


@dataclass(frozen=True)
class Picture:
    data: bytes
    etag: str


class Avatars:
    def __init__(self, api: DiscordApi, *, entries: int = ENTRIES, keep_seconds: float = KEEP_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.api = api
        self.entries, self.keep_seconds, self.clock = entries, keep_seconds, clock
        self._kept: OrderedDict[int, tuple[float, Picture | None]] = OrderedDict()
        self._fetching: dict[int, asyncio.Task[Picture | None]] = {}
        self.fetched = 0
        """Trips to Discord (profile and picture), for tests and metrics."""

    async def picture(self, user_id: int) -> Picture | None:
        """``user_id``'s avatar (None: Discord knows no such user); raises DiscordUnreachable."""
        kept = self._kept.get(user_id)
        if kept is not None and self.clock() - kept[0] < self.keep_seconds:
            self._kept.move_to_end(user_id)
            return kept[1]
        task = self._fetching.get(user_id)
        if task is None:  # one trip to Discord for a burst; a client that goes away does not cancel it for others
            task = asyncio.get_running_loop().create_task(self._fetch_and_keep(user_id))
            self._fetching[user_id] = task
            task.add_done_callback(lambda done: self._done(user_id, done))
        return await asyncio.shield(task)

    def _done(self, user_id: int, task: "asyncio.Task[Picture | None]") -> None:
        if self._fetching.get(user_id) is task:
            del self._fetching[user_id]
        if not task.cancelled():
            task.exception()  # retrieved: Discord being down is answered (502), not logged as lost

    async def _fetch_and_keep(self, user_id: int) -> Picture | None:
        found = await self._fetch(user_id)
        self._keep(user_id, found)
        return found

    async def _fetch(self, user_id: int) -> Picture | None:
        self.fetched += 1
        try:
            profile = await self.api.profile(user_id)
            data = await self.api.picture(profile.avatar_path(SIZE))
        except DiscordRefused:
            return None
        return Picture(data=data, etag='"' + hashlib.sha1(data).hexdigest()[:20] + '"')

    def _keep(self, user_id: int, found: Picture | None) -> None:
        self._kept[user_id] = (self.clock(), found)
        self._kept.move_to_end(user_id)
        while len(self._kept) > self.entries:
            self._kept.popitem(last=False)
