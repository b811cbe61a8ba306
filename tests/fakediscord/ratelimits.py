"""Discord's REST rate limits, as the fake enforces them.

Two kinds of limit, as documented at https://discord.com/developers/docs/topics/rate-limits:

* **Per-route buckets.** Each modelled route belongs to a ``Bucket`` (a limit
  per window) and is counted separately per *top-level resource* -- the major
  parameter: ``channel_id``, ``guild_id`` or ``webhook_id`` + token -- and per
  bot token. Editing messages in one channel never slows another channel.
* **The global limit**: 50 requests per second per bot token, shared by every
  process and shard of that bot. Interaction endpoints (callbacks and the
  interaction webhook) are exempt, as on Discord.

A window opens with the first request after a reset and closes ``per``
seconds later (Discord's ``X-RateLimit-Reset-After`` counts from there).
Every limited response carries the ``X-RateLimit-*`` headers of its bucket;
a refused request is answered 429 with ``retry_after`` and is not executed.
discord.py reads those headers and waits before it would hit a 429, so a
single well-behaved client mostly *waits* rather than gets refused; 429s come
from several clients sharing a bucket or from clients ignoring the headers.

The clock is ``time.monotonic`` unless another is injected, so tests can
drive windows by hand. ``enabled = False`` turns every limit and header off.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Optional

from aiohttp import web

from .wire import json_response

# Parameters of a route path that make up Discord's "top-level resource".
MAJOR_PARAMETERS = ("channel_id", "guild_id")
WEBHOOK_PARAMETERS = (("app_id", "token"), ("interaction_id", "token"))

GLOBAL_LIMIT = 50
GLOBAL_PER = 1.0


@dataclass(frozen=True)
class Bucket:
    """A per-route limit: ``limit`` requests per ``per`` seconds, per top-level resource.

    ``name`` identifies the bucket (routes with the same name share it); its
    hash is sent as ``X-RateLimit-Bucket``. ``global_exempt`` routes do not
    count towards (or wait for) the global limit.
    """

    name: str
    limit: int
    per: float
    global_exempt: bool = False

    @property
    def hash(self) -> str:
        return hashlib.sha1(self.name.encode()).hexdigest()[:32]


# Limits as Discord answers them for a bot (observed values; Discord may change them).
MESSAGE_CREATE = Bucket("message-create", 5, 5.0)
MESSAGE_EDIT = Bucket("message-edit", 5, 5.0)
MESSAGE_DELETE = Bucket("message-delete", 5, 1.0)
DM_CREATE = Bucket("dm-create", 5, 5.0)
INTERACTION_CALLBACK = Bucket("interaction-callback", 1000, 1.0, global_exempt=True)
INTERACTION_WEBHOOK = Bucket("interaction-webhook", 5, 2.0, global_exempt=True)
DEFAULT_LIMIT, DEFAULT_PER = 50, 1.0

_WEBHOOK = "/webhooks/{app_id}/{token}"
_WEBHOOK_MESSAGE = _WEBHOOK + "/messages/{message_id}"
_CHANNEL_MESSAGE = "/channels/{channel_id}/messages/{message_id}"


def default_buckets() -> dict[str, Bucket]:
    """Route key ("METHOD /template", as ``RecordedRequest.key``) -> its bucket."""
    return {
        "POST /channels/{channel_id}/messages": MESSAGE_CREATE,
        f"PATCH {_CHANNEL_MESSAGE}": MESSAGE_EDIT,
        f"DELETE {_CHANNEL_MESSAGE}": MESSAGE_DELETE,
        "POST /users/@me/channels": DM_CREATE,
        "POST /interactions/{interaction_id}/{token}/callback": INTERACTION_CALLBACK,
        f"POST {_WEBHOOK}": INTERACTION_WEBHOOK,
        f"GET {_WEBHOOK_MESSAGE}": INTERACTION_WEBHOOK,
        f"PATCH {_WEBHOOK_MESSAGE}": INTERACTION_WEBHOOK,
        f"DELETE {_WEBHOOK_MESSAGE}": INTERACTION_WEBHOOK,
    }


# Routes with no limit at all: the CDN, and unmodelled routes (they are reported, not throttled).
UNLIMITED_ROUTES = ("GET /attachments/{attachment_id}/{filename}",)


@dataclass
class Window:
    """The state of one bucket for one resource: requests left until ``reset_at``."""

    limit: int
    per: float
    remaining: int = 0
    reset_at: Optional[float] = None  # None: no request since the last reset

    def refresh(self, now: float) -> None:
        if self.reset_at is None or now >= self.reset_at:
            self.remaining, self.reset_at = self.limit, None

    def take(self, now: float) -> bool:
        """Count one request; False (and nothing counted) if the window is exhausted."""
        self.refresh(now)
        if self.remaining <= 0:
            return False
        self.remaining -= 1
        if self.reset_at is None:
            self.reset_at = now + self.per
        return True

    def resize(self, limit: int, per: float) -> None:
        """Follow a changed limit; an open window gains (or loses) the difference."""
        if self.reset_at is not None:
            self.remaining = max(0, self.remaining + limit - self.limit)
        self.limit, self.per = limit, per

    def reset_after(self, now: float) -> float:
        return max(0.0, (self.reset_at if self.reset_at is not None else now + self.per) - now)


@dataclass
class Verdict:
    """The rate-limit outcome of one request: its headers, and whether it was refused."""

    bucket: Optional[Bucket] = None
    headers: dict[str, str] = field(default_factory=dict)
    scope: Optional[str] = None  # "user" or "global" when refused
    retry_after: float = 0.0

    @property
    def refused(self) -> bool:
        return self.scope is not None

    def stamp(self, response: web.StreamResponse) -> None:
        """Add this bucket's headers to a response the handler produced."""
        response.headers.update(self.headers)

    def response(self) -> web.Response:
        """The 429 Discord answers a refused request with."""
        body = {"message": "You are being rate limited.", "retry_after": round(self.retry_after, 3),
                "global": self.scope == "global"}
        answer = json_response(body, 429)
        answer.headers.update(self.headers)
        # Retry-After is whole seconds, rounded up; the body has the exact value.
        answer.headers["Retry-After"] = str(max(1, math.ceil(self.retry_after)))
        answer.headers["X-RateLimit-Scope"] = self.scope or "user"
        if self.scope == "global":
            answer.headers["X-RateLimit-Global"] = "true"
        return answer


class RateLimits:
    """The fake's rate limiter; ``FakeDiscord.rate_limits``.

    Change a route's limit with ``set_limit("PATCH /channels/{channel_id}/messages/{message_id}", 10, 5.0)``
    (keys as ``RecordedRequest.key``), the global one with ``global_limit``/``global_per``,
    forget all counts with ``reset()``, and switch everything off with ``enabled = False``.
    """

    def __init__(self, *, enabled: bool = True, time_scale: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.enabled = enabled
        # Multiplies every window: 0.05 turns 5 per 5 s into 5 per 0.25 s (Discord's rules at test speed).
        self.time_scale = time_scale
        self.clock = clock
        self.wall_clock = wall_clock
        self.global_limit = GLOBAL_LIMIT
        self.global_per = GLOBAL_PER
        self.buckets: dict[str, Bucket] = default_buckets()
        self.default_limit, self.default_per = DEFAULT_LIMIT, DEFAULT_PER
        self._windows: dict[tuple[str, str, str], Window] = {}
        self._global: dict[str, Window] = {}

    # -- configuration ----------------------------------------------------

    def bucket_for(self, route_key: str) -> Optional[Bucket]:
        """The bucket of a route key, or None for routes that are never limited."""
        _, _, route = route_key.partition(" ")
        if route_key in UNLIMITED_ROUTES or route == "UNKNOWN":
            return None
        bucket = self.buckets.get(route_key)
        if bucket is None:  # every other route: a generous bucket of its own
            bucket = Bucket(f"route:{route_key}", self.default_limit, self.default_per,
                            global_exempt=route.startswith(("/interactions/", "/webhooks/")))
        return bucket

    def set_limit(self, route_key_or_bucket: str, limit: int, per: float) -> None:
        """Make a bucket allow ``limit`` requests per ``per`` seconds.

        Name it by a route key (``"PATCH /channels/{channel_id}/messages/{message_id}"``)
        or a bucket name (``"message-edit"``); every route sharing the bucket changes.
        """
        named = [key for key, bucket in self.buckets.items() if bucket.name == route_key_or_bucket]
        if named:
            current: Optional[Bucket] = self.buckets[named[0]]
        elif " /" in route_key_or_bucket:
            current = self.bucket_for(route_key_or_bucket)
        else:
            raise ValueError(f"no bucket named {route_key_or_bucket!r}")
        if current is None:
            raise ValueError(f"{route_key_or_bucket!r} is never rate limited")
        sharing = [key for key, bucket in self.buckets.items() if bucket.name == current.name]
        for key in sharing or [route_key_or_bucket]:
            self.buckets[key] = replace(current, limit=limit, per=per)

    def reset(self) -> None:
        """Forget every count: all buckets and the global limit start afresh."""
        self._windows.clear()
        self._global.clear()

    # -- the check ----------------------------------------------------------

    def admit(self, route_key: str, params: Mapping[str, str], token: Optional[str]) -> Verdict:
        """Count a request to ``route_key`` (path ``params``) by bot ``token``; refuse it if over a limit."""
        bucket = self.bucket_for(route_key)
        if not self.enabled or bucket is None:
            return Verdict()
        now = self.clock()
        if token and not bucket.global_exempt:
            held = self._global.setdefault(token, Window(self.global_limit, self.global_per))
            held.resize(self.global_limit, self.global_per * self.time_scale)
            if not held.take(now):
                return Verdict(bucket, scope="global", retry_after=held.reset_after(now))
        window = self._window(bucket, major_parameter(params), token or "")
        allowed = window.take(now)
        verdict = Verdict(bucket, self._headers(bucket, window, now))
        if not allowed:
            verdict.scope, verdict.retry_after = "user", window.reset_after(now)
        return verdict

    def remaining(self, route_key: str, *, token: str = "", **params: str) -> Optional[int]:
        """Requests left now in ``route_key``'s bucket for a resource (None if unlimited).

        e.g. ``remaining("PATCH /channels/{channel_id}/messages/{message_id}",
        token="fake-bot-token", channel_id=str(channel.id))``.
        """
        bucket = self.bucket_for(route_key)
        if bucket is None or not self.enabled:
            return None
        window = self._window(bucket, major_parameter(params), token)
        window.refresh(self.clock())
        return window.remaining

    def _window(self, bucket: Bucket, major: str, token: str) -> Window:
        window = self._windows.setdefault((bucket.name, major, token), Window(bucket.limit, bucket.per))
        window.resize(bucket.limit, bucket.per * self.time_scale)  # follow set_limit and time_scale changes
        return window

    def _headers(self, bucket: Bucket, window: Window, now: float) -> dict[str, str]:
        reset_after = window.reset_after(now)
        return {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(window.remaining),
            "X-RateLimit-Reset": f"{self.wall_clock() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket.hash,
        }


def major_parameter(params: Mapping[str, str]) -> str:
    """The top-level resource of a request: channel, guild, or webhook id + token."""
    for name in MAJOR_PARAMETERS:
        if name in params:
            return f"{name}={params[name]}"
    for id_name, token_name in WEBHOOK_PARAMETERS:
        if id_name in params and token_name in params:
            return f"webhook={params[id_name]}+{params[token_name]}"
    return ""
