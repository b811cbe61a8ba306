"""What the Activity asks Discord: the OAuth2 code exchange, who a token belongs to, where an instance runs,
and a seated player's avatar.

Every call goes to the bot's REST base (``DISCORD_API_BASE`` when set, so a fake
Discord serves them in tests); avatar pictures come from Discord's CDN
(``DISCORD_CDN_BASE`` when set, read at call time, else
``https://cdn.discordapp.com``).  Discord's answers are the only source of who a
client is and which channel it plays in: the client's own words are never used.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

import aiohttp

__all__ = ["DiscordApi", "DiscordUser", "Instance", "Profile", "DiscordRefused", "DiscordUnreachable", "CDN",
           "MAX_IMAGE"]

TIMEOUT = aiohttp.ClientTimeout(total=10)
CDN = "https://cdn.discordapp.com"
MAX_IMAGE = 256 * 1024
"""Bytes of one CDN picture at most (a 64 px avatar is a few KB)."""
MAX_RATE_LIMIT_WAIT = 5.0
"""Seconds of 429s one call waits out before it gives up (the client then reconnects by itself)."""
INSTANCE_SECONDS = 30.0
"""How long an answer about an activity instance serves the players it counts."""
MAX_INSTANCES = 4096
_AVATAR_HASH = re.compile(r"(a_)?[0-9a-f]{1,64}")


class DiscordRefused(Exception):
    """Discord answered, and said no (a bad code, a forged or expired token, an unknown instance)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"Discord answered {status}")
        self.status = status


class DiscordUnreachable(Exception):
    """Discord did not answer (network, 5xx): try again later."""


@dataclass(frozen=True)
class DiscordUser:
    id: int
    name: str
    locale: str


@dataclass(frozen=True)
class Instance:
    """An activity instance, as Discord describes it: where it runs and who is in it."""

    instance_id: str
    channel_id: int | None
    guild_id: int | None
    users: frozenset[int]


@dataclass(frozen=True)
class Profile:
    """A user's public profile, as ``GET /users/{id}`` gives it to the bot: what its avatar is."""

    id: int
    avatar: str | None
    """The avatar's hash (None: Discord's default avatar)."""
    discriminator: str = "0"

    def avatar_path(self, size: int = 64) -> str:
        """The avatar's path on Discord's CDN: its own picture, or the default one Discord gives it."""
        if self.avatar:
            return f"/avatars/{self.id}/{self.avatar}.png?size={size}"
        legacy = self.discriminator.isdigit() and int(self.discriminator) != 0
        index = int(self.discriminator) % 5 if legacy else (self.id >> 22) % 6
        return f"/embed/avatars/{index}.png"


class DiscordApi:
    def __init__(self, api_base: Callable[[], str], *, bot_token: str, application_id: Callable[[], int | None],
                 client_secret: str, cdn_base: Callable[[], str] | None = None) -> None:
        self._base = api_base  # read at call time: tests point discord.py at a fake after start-up
        self._cdn = cdn_base or (lambda: os.environ.get("DISCORD_CDN_BASE") or CDN)
        self._bot_token = bot_token
        self._application_id = application_id
        self._secret = client_secret
        self._session: aiohttp.ClientSession | None = None
        self._instances: dict[str, tuple[float, Instance]] = {}
        self.rate_limited = 0
        """429s waited out (for benchmarks and tests)."""

    @property
    def application_id(self) -> int | None:
        return self._application_id()

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=TIMEOUT)
        return self._session

    async def _call(self, method: str, path: str, **options: Any) -> Any:
        """One REST call; a 429 is waited out (its ``retry_after``) while the waits stay short, since a
        sign-in shares the bot token's global limit with the bot's own table edits."""
        url = self._base().rstrip("/") + path
        waited = 0.0
        while True:
            try:
                async with self._client().request(method, url, **options) as response:
                    if response.status == 429:
                        delay = await _retry_after(response)
                        if delay is not None and waited + delay <= MAX_RATE_LIMIT_WAIT:
                            waited += delay
                            self.rate_limited += 1
                        else:
                            raise DiscordUnreachable("Discord answered 429")
                    elif response.status >= 500:
                        raise DiscordUnreachable(f"Discord answered {response.status}")
                    elif response.status >= 400:
                        raise DiscordRefused(response.status)
                    else:
                        return await response.json(content_type=None)
            except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as error:
                raise DiscordUnreachable(type(error).__name__) from error
            await asyncio.sleep(delay)

    async def exchange(self, code: str) -> str:
        """The access token for an authorization code from the SDK's ``authorize``."""
        data = {"client_id": str(self._application_id() or ""), "client_secret": self._secret,
                "grant_type": "authorization_code", "code": code}
        answer = await self._call("POST", "/oauth2/token", data=data)
        token = answer.get("access_token") if isinstance(answer, dict) else None
        if not isinstance(token, str) or not token:
            raise DiscordRefused(400)
        return token

    async def user(self, access_token: str) -> DiscordUser:
        """Who ``access_token`` belongs to (``GET /users/@me`` with the user's token)."""
        answer = await self._call("GET", "/users/@me", headers={"Authorization": f"Bearer {access_token}"})
        if not isinstance(answer, dict) or "id" not in answer:
            raise DiscordRefused(401)
        name = answer.get("global_name") or answer.get("username") or str(answer["id"])
        return DiscordUser(id=int(answer["id"]), name=str(name)[:32], locale=str(answer.get("locale") or "en-US"))

    def kept_instance(self, instance_id: str) -> Instance | None:
        """The instance as Discord described it in the last :data:`INSTANCE_SECONDS` (None: ask again).

        Four players of one table sign in within moments: one answer serves those it counts; a player it
        does not count (who entered the instance since) must ask again, never be refused from it.
        """
        kept = self._instances.get(instance_id)
        if kept is None or time.monotonic() - kept[0] >= INSTANCE_SECONDS:
            return None
        return kept[1]

    async def instance(self, instance_id: str) -> Instance:
        """The activity instance (with the bot's token): its channel and its users."""
        instance = await self._fetch_instance(instance_id)
        if len(self._instances) >= MAX_INSTANCES:
            self._instances.clear()
        self._instances[instance_id] = (time.monotonic(), instance)
        return instance

    async def _fetch_instance(self, instance_id: str) -> Instance:
        application = self._application_id()
        answer = await self._call("GET", f"/applications/{application}/activity-instances/{instance_id}",
                                  headers={"Authorization": f"Bot {self._bot_token}"})
        if not isinstance(answer, dict):
            raise DiscordRefused(404)
        location = answer.get("location") or {}
        channel, guild = location.get("channel_id"), location.get("guild_id")
        return Instance(instance_id=instance_id, channel_id=int(channel) if channel else None,
                        guild_id=int(guild) if guild else None,
                        users=frozenset(int(user) for user in answer.get("users") or ()))

    async def profile(self, user_id: int) -> Profile:
        """``GET /users/{id}`` with the bot's token (404 → :class:`DiscordRefused`)."""
        answer = await self._call("GET", f"/users/{int(user_id)}", headers={"Authorization": f"Bot {self._bot_token}"})
        if not isinstance(answer, dict) or str(answer.get("id")) != str(user_id):
            raise DiscordRefused(404)
        avatar = answer.get("avatar")
        if not isinstance(avatar, str) or not _AVATAR_HASH.fullmatch(avatar):  # a hash goes into a URL: only a hash
            avatar = None
        return Profile(id=int(user_id), avatar=avatar, discriminator=str(answer.get("discriminator") or "0"))

    async def picture(self, path: str) -> bytes:
        """A PNG from Discord's CDN (``path`` from :meth:`Profile.avatar_path`); at most :data:`MAX_IMAGE` bytes."""
        url = self._cdn().rstrip("/") + path
        try:
            async with self._client().get(url) as response:
                if response.status >= 500 or response.status == 429:
                    raise DiscordUnreachable(f"the CDN answered {response.status}")
                if response.status >= 400:
                    raise DiscordRefused(response.status)
                if response.content_type != "image/png":
                    raise DiscordUnreachable(f"the CDN sent {response.content_type}")
                body = await response.content.read(MAX_IMAGE + 1)
        except (aiohttp.ClientError, asyncio.TimeoutError) as error:
            raise DiscordUnreachable(type(error).__name__) from error
        if len(body) > MAX_IMAGE:
            raise DiscordUnreachable("the picture is too big")
        return body

    async def close(self) -> None:
        self._instances.clear()
        if self._session is not None:
            await self._session.close()


async def _retry_after(response: aiohttp.ClientResponse) -> float | None:
    """Seconds a 429 asks to wait (its JSON ``retry_after``, else the Retry-After header)."""
    with contextlib.suppress(ValueError, aiohttp.ContentTypeError, TypeError):
        body = await response.json(content_type=None)
        if isinstance(body, dict) and isinstance(body.get("retry_after"), (int, float)):
            return max(0.0, float(body["retry_after"]))
    with contextlib.suppress(ValueError, TypeError):
        return max(0.0, float(response.headers.get("Retry-After", "")))
    return None
