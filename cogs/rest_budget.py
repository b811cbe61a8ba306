"""What Discord's REST answers say about rate limits, and a tally of calls.

Discord limits message writes per channel (edits of one channel's messages:
5 per 5 s) and tells, in every answer, how many calls are left in the
bucket and when it refills (``X-RateLimit-Remaining``, ``-Reset-After``).
:class:`ChannelBudget` keeps that per (method, channel) so the table editor
waits for a refill instead of drawing a 429, and edits as fast as the bucket
allows instead of at a fixed pace.  :func:`rest_trace` feeds it (and the
metrics) from the aiohttp session discord.py uses.

>>> budget = ChannelBudget(clock=lambda: 100.0)
>>> budget.delay("PATCH", 42)        # nothing known yet: go
0.0
>>> budget.observe("PATCH", 42, remaining=0, reset_after=2.5)
>>> budget.delay("PATCH", 42)
2.5
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

import aiohttp

import discord

import runtime.outages as runtime_outages

from runtime.metrics import Metrics

__all__ = ["ChannelBudget", "GlobalPace", "Outages", "rest_trace", "is_outage"]

log = logging.getLogger(__name__)

_CHANNEL_WRITE = re.compile(r"/channels/(\d+)/messages(?:/\d+)?$")
_CALLBACK = re.compile(r"/interactions/(\d+)/[^/]+/callback$")
# Answers to interactions (callbacks, followups by token) are outside the global limit.
_EXEMPT = re.compile(r"/(interactions|webhooks)/")


@dataclass
class _Bucket:
    remaining: int
    reset_at: float


class ChannelBudget:
    """Per (method, channel): calls left in Discord's bucket and when it refills."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._buckets: dict[tuple[str, int], _Bucket] = {}

    def observe(self, method: str, channel_id: int, *, remaining: int, reset_after: float) -> None:
        """Discord's word on the bucket, from an answer's headers."""
        self._buckets[(method, channel_id)] = _Bucket(remaining, self.clock() + reset_after)

    def delay(self, method: str, channel_id: int) -> float:
        """Seconds to wait before the next call (0: go now)."""
        bucket = self._buckets.get((method, channel_id))
        if bucket is None:
            return 0.0
        now = self.clock()
        if now >= bucket.reset_at:
            del self._buckets[(method, channel_id)]
            return 0.0
        return 0.0 if bucket.remaining > 0 else bucket.reset_at - now

    def spend(self, method: str, channel_id: int) -> None:
        """Count a call about to be made (the answer's headers correct it)."""
        bucket = self._buckets.get((method, channel_id))
        if bucket is not None and bucket.remaining > 0:
            bucket.remaining -= 1

    def forget(self, channel_id: int) -> None:
        for key in [key for key in self._buckets if key[1] == channel_id]:
            del self._buckets[key]


class GlobalPace:
    """This process's share of the token's global limit (50 requests/s for
    the whole bot): a token bucket that calls outside interaction answers
    wait on, so several processes without a shared proxy do not draw 429s.

    discord.py learns of the global limit only from a 429; pacing here keeps
    the processes of a cluster under it together."""

    def __init__(self, per_second: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = per_second
        self.clock = clock
        self._tokens = per_second
        self._last = clock()
        self._turn = asyncio.Lock()  # first come, first served

    async def acquire(self) -> None:
        async with self._turn:
            while True:
                now = self.clock()
                self._tokens = min(self.per_second, self._tokens + (now - self._last) * self.per_second)
                self._last = now
                if self._tokens >= 1:
                    self._tokens -= 1
                    return
                await asyncio.sleep((1 - self._tokens) / self.per_second)


def rest_trace(
    metrics: Metrics,
    budget: ChannelBudget,
    first_answer: Callable[[str], float | None],
    pace: GlobalPace | None = None,
) -> aiohttp.TraceConfig:
    """An aiohttp trace for discord.py's session: counts REST calls and 429s
    by route, keeps the channel budget, times each interaction's first answer
    (``first_answer(interaction_id)`` gives the seconds since it arrived), and
    paces calls to this process's share of the global limit."""
    trace = aiohttp.TraceConfig()

    async def on_request_start(_session: Any, _context: Any, params: aiohttp.TraceRequestStartParams) -> None:
        if pace is not None and not _EXEMPT.search(params.url.path):
            await pace.acquire()

    async def on_request_end(_session: Any, _context: Any, params: aiohttp.TraceRequestEndParams) -> None:
        path, response = params.url.path, params.response
        metrics.count_request(params.method, path, response.status)
        write = _CHANNEL_WRITE.search(path)
        if write is not None:
            _observe(budget, params.method, int(write.group(1)), response.headers)
        callback = _CALLBACK.search(path)
        if callback is not None:
            seconds = first_answer(callback.group(1))
            if seconds is not None:
                metrics.first_response.observe(seconds)

    trace.on_request_start.append(on_request_start)
    trace.on_request_end.append(on_request_end)
    return trace


def _observe(budget: ChannelBudget, method: str, channel_id: int, headers: Any) -> None:
    remaining, reset_after = headers.get("X-RateLimit-Remaining"), headers.get("X-RateLimit-Reset-After")
    if remaining is None or reset_after is None:
        return
    try:
        budget.observe(method, channel_id, remaining=int(remaining), reset_after=float(reset_after))
    except ValueError:
        return


def is_outage(error: BaseException) -> bool:
    """Discord (or the way to it) failing, not a refusal of this request:
    worth retrying until it comes back."""
    if isinstance(error, discord.HTTPException):
        return error.status >= 500 or error.status == 429
    return isinstance(error, (aiohttp.ClientError, OSError, asyncio.TimeoutError))


class Outages(runtime_outages.Outages):
    """One warning when a kind of REST call starts failing, one line when it
    works again: an outage of a minute must not log a traceback per edit."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__("Discord", logger=log, describe=_describe, clock=clock)


def _describe(error: BaseException) -> str:
    if isinstance(error, discord.HTTPException):
        return f"HTTP {error.status}"
    return type(error).__name__
