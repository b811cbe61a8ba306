"""What Discord's REST answers say about rate limits, the one-hour edit limit, and a tally of calls.

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

Messages older than an hour are a case apart: Discord lets a channel edit
only a few of them in a short window and then answers 429 with code
**30046** (the numbers are not published).  The bot never edits a message
older than :data:`EDIT_AGE_LIMIT` (its age comes from its snowflake, see
:func:`too_old_to_edit`); should Discord still answer 30046, the trace below
recognises it (:class:`EditLimits`) so the editor stops that edit at once
and posts a fresh message, rather than letting discord.py sleep and retry.

>>> import datetime
>>> now = datetime.datetime(2026, 12, 7, 20, 0, tzinfo=datetime.timezone.utc)
>>> made = discord.utils.time_snowflake(now - datetime.timedelta(minutes=56))
>>> too_old_to_edit(made, now=now), too_old_to_edit(made + (120_000 << 22), now=now)
(True, False)
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, TypeVar

import aiohttp

import discord

import runtime.outages as runtime_outages

from runtime.metrics import Metrics

__all__ = ["ChannelBudget", "GlobalPace", "Outages", "rest_trace", "is_outage", "EditLimits", "EDIT_LIMITED",
           "EDIT_AGE_LIMIT", "too_old_to_edit", "is_edit_limit", "EditRefused", "guarded_edit", "REST_ERRORS",
           "delete_later"]

EDIT_AGE_LIMIT = datetime.timedelta(minutes=55)
"""Discord limits edits of messages older than an hour; the bot edits none older than this."""
EDIT_LIMITED = 30046
"""Discord's error code: "Maximum number of edits to messages older than 1 hour reached"."""

log = logging.getLogger(__name__)

_CHANNEL_WRITE = re.compile(r"/channels/(\d+)/messages(?:/\d+)?$")
_MESSAGE_EDIT = re.compile(r"/(?:channels/\d+|webhooks/\d+/[^/]+)/messages/(\d+)$")
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
    wait on, so that the bot never draws the global 429.

    discord.py learns of the global limit only from a 429, and then holds
    every call until the second is over; under load that is a storm every
    second: hundreds of refused calls, each retried, logged and thrown away
    at once, which stalls the event loop for whole tenths of a second
    (BENCHMARKS.md, "The table as a Discord Activity").  Discord counts the
    limit in fixed one-second windows, so the bucket holds ``burst`` tokens
    and refills at ``per_second - burst``: at most ``per_second`` calls in
    any second.

    >>> pace = GlobalPace(50)
    >>> pace.burst, pace.refill
    (5.0, 45.0)
    """

    def __init__(self, per_second: float, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        self.burst = max(1.0, per_second / 10)
        self.refill = max(per_second - self.burst, per_second / 2)  # (under 2 a second: close enough)
        self.clock, self.sleep = clock, sleep
        self._tokens = self.burst
        self._last = clock()
        self._turn = asyncio.Lock()  # first come, first served

    async def acquire(self) -> None:
        async with self._turn:
            while True:
                now = self.clock()
                self._tokens = min(self.burst, self._tokens + (now - self._last) * self.refill)
                self._last = now
                if self._tokens >= 1 - 1e-9:  # (rounding must not make a wait of nothing, forever)
                    self._tokens -= 1
                    return
                await self.sleep((1 - self._tokens) / self.refill)


def rest_trace(
    metrics: Metrics,
    budget: ChannelBudget,
    first_answer: Callable[[str], float | None],
    pace: GlobalPace | None = None,
    edit_limits: "EditLimits | None" = None,
) -> aiohttp.TraceConfig:
    """An aiohttp trace for discord.py's session: counts REST calls and 429s
    by route, keeps the channel budget, times each interaction's first answer
    (``first_answer(interaction_id)`` gives the seconds since it arrived), and
    paces calls to this process's share of the global limit; a 30046 answer
    to a message edit is told to ``edit_limits``."""
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
        if response.status == 429 and edit_limits is not None and params.method == "PATCH":
            edited = _MESSAGE_EDIT.search(path)
            if edited is not None and await _error_code(response) == EDIT_LIMITED:
                edit_limits.refused(int(edited.group(1)), str(params.url))
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


async def _error_code(response: aiohttp.ClientResponse) -> int | None:
    """The JSON error code of an answer (its body stays readable for discord.py)."""
    try:
        return int(json.loads(await response.read()).get("code"))
    except (ValueError, TypeError, AttributeError, aiohttp.ClientError):
        return None


def too_old_to_edit(message_id: int, *, now: datetime.datetime | None = None) -> bool:
    """Whether a message is too old for the bot to edit (its age from its snowflake)."""
    made = discord.utils.snowflake_time(message_id)
    return (now or discord.utils.utcnow()) - made >= EDIT_AGE_LIMIT


def is_edit_limit(error: BaseException) -> bool:
    """Discord refused an edit by its one-hour edit limit (code 30046)."""
    return isinstance(error, discord.HTTPException) and error.code == EDIT_LIMITED


class EditLimits:
    """Messages whose edits Discord refused with 30046, as the REST trace saw them.

    discord.py answers a 429 by sleeping and trying again, so an editor that
    waits for its edit would stall for as long as Discord refuses; the editor
    waits on :meth:`watch` beside its edit instead and gives the edit up the
    moment a refusal is seen.  discord.py's "we are being rate limited" line
    for such a request is dropped (:meth:`filter`): it is handled, not a
    warning."""

    def __init__(self) -> None:
        self._watchers: dict[int, asyncio.Event] = {}
        self._urls: dict[str, float] = {}
        self.refusals = 0

    def watch(self, message_id: int) -> asyncio.Event:
        """An event set when an edit of ``message_id`` is refused by 30046 (until :meth:`unwatch`)."""
        return self._watchers.setdefault(message_id, asyncio.Event())

    def unwatch(self, message_id: int) -> None:
        self._watchers.pop(message_id, None)

    def refused(self, message_id: int, url: str) -> None:
        self.refusals += 1
        self._urls[url] = time.monotonic()
        while len(self._urls) > 256:
            self._urls.pop(next(iter(self._urls)))
        watcher = self._watchers.get(message_id)
        if watcher is not None:
            watcher.set()
        log.info("Discord's one-hour edit limit refused an edit of message %s; a fresh message follows", message_id)

    def filter(self, record: logging.LogRecord) -> bool:
        """A logging filter for discord.http: False for its rate-limit line about a refused edit."""
        args = record.args if isinstance(record.args, tuple) else ()
        return not (len(args) >= 2 and str(args[1]) in self._urls and "rate limited" in str(record.msg))


REST_ERRORS = (discord.HTTPException, aiohttp.ClientError, OSError, asyncio.TimeoutError)
"""What a REST call to Discord can fail with."""


def delete_later(tasks: set[asyncio.Task[None]], deletion: Awaitable[Any], *, what: str) -> None:
    """Delete a replaced message in the background (nobody waits for it, and a failure only
    leaves a message without live use behind); ``tasks`` keeps the task alive until done."""

    async def delete() -> None:
        try:
            await deletion
        except REST_ERRORS as error:
            log.debug("could not delete %s: %s", what, error)

    task = asyncio.create_task(delete(), name=f"delete-{what.replace(' ', '-')}")
    tasks.add(task)
    task.add_done_callback(tasks.discard)


def is_outage(error: BaseException) -> bool:
    """Discord (or the way to it) failing, not a refusal of this request:
    worth retrying until it comes back."""
    if isinstance(error, discord.HTTPException):
        return error.status >= 500 or (error.status == 429 and error.code != EDIT_LIMITED)
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


class EditRefused(Exception):
    """Discord refused an edit by its one-hour edit limit (30046): post a fresh message instead."""


T = TypeVar("T")


async def guarded_edit(limits: "EditLimits | None", message_id: int, edit: "Awaitable[T]") -> T:
    """Await ``edit`` of message ``message_id``, giving it up at once (:class:`EditRefused`)
    when Discord refuses it by the one-hour edit limit, instead of waiting out
    discord.py's retries."""
    if limits is None:
        return await edit
    refused = limits.watch(message_id)
    task = asyncio.ensure_future(edit)
    watcher = asyncio.ensure_future(refused.wait())
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            try:
                return task.result()
            except discord.HTTPException as error:
                if is_edit_limit(error):
                    raise EditRefused(str(message_id)) from error
                raise
        task.cancel()
        raise EditRefused(str(message_id))
    finally:
        watcher.cancel()
        limits.unwatch(message_id)
