"""Discord's limit on edits to messages older than one hour (JSON error 30046).

What is known (checked December 2026):

* The error: ``30046 Maximum number of edits to messages older than 1 hour
  reached. Try again later`` (discord-api-docs ``topics/opcodes-and-status-codes``,
  added by discord/discord-api-docs PR #4381, January 2022). Discord "does not
  put rate limit details in the documentation" (a maintainer in
  discord/discord-api-docs #4413).
* The rate: "Messages older than 1 hour may only be edited 3 times per
  6-second window per channel" (discord-userdoccers, ``resources/message.mdx``,
  PR #551, May 2026). Bots also report slower windows, so it is configurable.
* The answer is HTTP 429 with a JSON body that discord.py reads as a rate limit
  (``retry_after``) and a ``Via`` header: the traceback in
  aikaterna/aikaterna-cogs #302 (discord.py 1.7.3, ``Message.edit``) ends in
  ``HTTPException: 429 Too Many Requests (error code: 30046)`` raised at
  ``http.py`` line 267, the "ran out of retries" raise after 5 attempts -- so
  the client slept and retried rather than raising at once.

How discord.py 2.7.1 treats it (``discord/http.py`` ``HTTPClient.request``; the
interaction callback and webhook routes in ``discord/webhook/async_.py`` do the
same): a 429 without ``Via`` (or with a non-JSON body) raises ``HTTPException``
at once; a 429 whose ``retry_after`` exceeds the client's
``max_ratelimit_timeout`` raises ``RateLimited``; any other 429 -- whatever the
bucket or ``X-RateLimit-Scope`` headers -- is slept on (``retry_after``) and
retried, up to 5 attempts, then ``HTTPException`` (``.status == 429``,
``.code == 30046``) is raised. With an honest ``retry_after`` the retry
usually lands in a fresh window: the bot *stalls* instead of seeing an error.

The fake: ``OldMessageEdits`` counts edits of messages older than
``old_after`` seconds (their age from ``Message.created_at``, set from the
snowflake, see ``World.backdated``) per channel, ``limit`` per ``per`` seconds
(scaled by the rate limits' ``time_scale``, like every other window; the
one-hour age is never scaled). A refused edit is not executed, is answered 429
with Discord's body, and is appended to ``refusals``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional

from aiohttp import web

from .ratelimits import Window
from .wire import ApiError, json_response

if TYPE_CHECKING:
    from .ratelimits import RateLimits
    from .world import Message

CODE = 30046
MESSAGE = "Maximum number of edits to messages older than 1 hour reached. Try again later."
OLD_AFTER = 3600.0
DEFAULT_LIMIT, DEFAULT_PER = 3, 6.0
# The edit paths: channel PATCH, webhook PATCH (@original, followups), interaction callback type 7.
PATHS = frozenset({"channel", "webhook", "callback"})


@dataclass
class EditRefusal:
    """One edit the fake refused with 30046."""

    message_id: int
    channel_id: int
    path: str  # "channel", "webhook" or "callback"
    age: float  # seconds, as the fake saw it
    retry_after: float
    at: float  # the rate limits' clock


class EditLimited(ApiError):
    """The 429 Discord answers an edit over the limit with."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(429, CODE, MESSAGE)
        self.retry_after = retry_after

    def response(self) -> web.Response:
        body = {"message": MESSAGE, "code": CODE, "retry_after": round(self.retry_after, 3), "global": False}
        answer = json_response(body, 429)
        # As for any 429; the middleware adds "Via", without which discord.py would raise at once.
        answer.headers["Retry-After"] = str(max(1, math.ceil(self.retry_after)))
        answer.headers["X-RateLimit-Scope"] = "user"
        return answer


class OldMessageEdits:
    """``FakeDiscord.edit_limit``: the per-channel limit on edits of hour-old messages.

    ``set_limit(3, 20.0)`` changes the window, ``enabled = False`` switches it
    off, ``paths`` selects which edit routes count, ``retry_after = 0.001``
    makes every refusal advertise that wait (so discord.py exhausts its five
    attempts and raises), ``wall_clock`` moves "now" for message ages.
    """

    def __init__(self, limits: "RateLimits", *, limit: int = DEFAULT_LIMIT, per: float = DEFAULT_PER,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self._limits = limits
        self.enabled = True
        self.limit, self.per = limit, per
        self.old_after = OLD_AFTER
        self.paths = set(PATHS)
        self.retry_after: Optional[float] = None  # None: the time until the window reopens
        self.wall_clock = wall_clock
        self.refusals: list[EditRefusal] = []
        self._windows: dict[int, Window] = {}

    def set_limit(self, limit: int, per: float) -> None:
        self.limit, self.per = limit, per

    def reset(self) -> None:
        """Forget every count (not the refusals)."""
        self._windows.clear()

    def age(self, message: "Message") -> float:
        return self.wall_clock() - message.created_at.timestamp()

    def admit(self, message: "Message", path: str) -> None:
        """Count an edit of ``message`` by ``path``; raise ``EditLimited`` if over the limit."""
        if not self.enabled or path not in self.paths:
            return
        age = self.age(message)
        if age <= self.old_after:
            return
        now = self._limits.clock()
        window = self._windows.setdefault(message.channel.id, Window(self.limit, self.per))
        window.resize(self.limit, self.per * self._limits.time_scale)
        if window.take(now):
            return
        wait = window.reset_after(now) if self.retry_after is None else self.retry_after
        self.refusals.append(EditRefusal(message.id, message.channel.id, path, age, wait, now))
        raise EditLimited(wait)
