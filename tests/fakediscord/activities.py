"""Discord's side of an Activity: OAuth2 codes and tokens, ``GET /users/@me`` with a Bearer token, activity instances.

What the Activity server (activity/) asks Discord, modelled as Discord answers it:

* ``POST /oauth2/token`` (form-encoded ``client_id``, ``client_secret``,
  ``grant_type=authorization_code``, ``code``): a code from :meth:`Activities.authorize`
  is good once, for the application it was made for, with the right secret; the
  answer is ``{"access_token", "token_type": "Bearer", "expires_in", "refresh_token", "scope"}``;
  anything else is ``400 {"error": "invalid_grant"}`` (or ``invalid_client``), as Discord answers.
* ``GET /users/@me`` with ``Authorization: Bearer <token>``: the token's user
  (with ``locale``, as the ``identify`` scope gives), ``401`` for an unknown or expired token.
* ``GET /applications/{app}/activity-instances/{instance_id}`` with the bot's token:
  ``{"application_id", "instance_id", "launch_id", "location": {"id", "kind": "gc",
  "channel_id", "guild_id"}, "users": [...]}``, ``404`` (10148-ish "Unknown instance") otherwise.

Tests drive it with ``fake.activities``::

    instance = fake.activities.launch(fake.channel, [alice, bob])   # an instance id
    code = fake.activities.authorize(alice)                            # what commands.authorize gives
    token = fake.activities.token_for(alice)                          # or skip the code
    fake.activities.expire(token)

An interaction answered with LAUNCH_ACTIVITY (12) starts an instance in its channel with its user
(``result.interaction.activity_instance``).

Discord's CDN, for the avatars the Activity's server shows on its seats (``cdn_base`` is the value for
``DISCORD_CDN_BASE``): ``GET /cdn/avatars/{user_id}/{hash}.png`` serves an avatar a test gave with
``fake.activities.set_avatar(user, png)`` (the user's ``avatar`` hash in ``GET /users/{id}`` then names it),
``GET /cdn/embed/avatars/{index}.png`` Discord's default avatars (0–5); anything else is 404.
``fake.activities.cdn_hits`` counts what the CDN served.
"""

from __future__ import annotations

import secrets
import struct
import time
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Optional

from aiohttp import web

from . import payloads
from .wire import ApiError, json_response

if TYPE_CHECKING:
    from .server import FakeDiscord
    from .world import Channel, User

__all__ = ["Activities", "ActivityInstance", "CLIENT_SECRET", "routes", "bearer_token", "png", "DEFAULT_AVATARS"]

CLIENT_SECRET = "fake-client-secret"
"""The application's OAuth2 client secret the fake accepts (``activities.client_secret`` changes it)."""
TOKEN_SECONDS = 604800
DEFAULT_AVATARS = 6
"""Discord's default avatars: ``embed/avatars/0.png`` … ``5.png``."""


def png(red: int, green: int, blue: int, size: int = 8) -> bytes:
    """A small solid PNG (what a CDN image looks like on the wire, without an image library)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes((red, green, blue)) * size for _ in range(size))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


@dataclass
class ActivityInstance:
    instance_id: str
    channel: "Channel"
    users: set[int] = field(default_factory=set)
    launch_id: str = ""


@dataclass
class _Token:
    user: "User"
    expires_at: float


class Activities:
    def __init__(self, fake: "FakeDiscord") -> None:
        self._fake = fake
        self.client_secret = CLIENT_SECRET
        self.codes: dict[str, "User"] = {}
        self.tokens: dict[str, _Token] = {}
        self.instances: dict[str, ActivityInstance] = {}
        self.exchanges = 0
        """Codes exchanged (successfully or not), for tests."""
        self.avatars: dict[tuple[int, str], bytes] = {}
        self.cdn_hits: list[str] = []
        """Paths the CDN served (or refused), in order."""

    # -- what tests do ------------------------------------------------------

    def launch(self, channel: "Channel", users: Iterable["User"] = ()) -> str:
        """Start an Activity in ``channel`` with ``users`` in it; its instance id."""
        instance_id = "i-" + secrets.token_hex(8)
        self.instances[instance_id] = ActivityInstance(instance_id, channel, {user.id for user in users},
                                                       launch_id=str(self._fake.world.ids.next()))
        return instance_id

    def enter(self, instance_id: str, user: "User") -> None:
        self.instances[instance_id].users.add(user.id)

    def authorize(self, user: "User") -> str:
        """The code the SDK's ``commands.authorize`` gives ``user``."""
        code = secrets.token_urlsafe(16)
        self.codes[code] = user
        return code

    def token_for(self, user: "User", *, seconds: float = TOKEN_SECONDS) -> str:
        token = secrets.token_urlsafe(24)
        self.tokens[token] = _Token(user, time.time() + seconds)
        return token

    def expire(self, token: str) -> None:
        self.tokens[token].expires_at = 0.0

    def set_avatar(self, user: "User", image: bytes | None = None) -> str:
        """Give ``user`` an avatar (a PNG; a small one by default); its hash, as ``GET /users/{id}`` shows it."""
        avatar = secrets.token_hex(16)
        self.avatars[(user.id, avatar)] = image if image is not None else png(200, 60, 90)
        user.avatar = avatar  # type: ignore[attr-defined]  (read by payloads.user)
        return avatar

    @property
    def cdn_base(self) -> str:
        """Value for ``DISCORD_CDN_BASE``: this fake's CDN."""
        return f"http://127.0.0.1:{self._fake.port}/cdn"

    # -- what Discord answers -------------------------------------------------

    def user_of(self, token: str) -> Optional["User"]:
        entry = self.tokens.get(token)
        if entry is None or entry.expires_at <= time.time():
            return None
        return entry.user

    async def exchange(self, request: web.Request) -> web.Response:
        self.exchanges += 1
        form = await request.post()
        if form.get("client_id") != str(self._fake.world.application_id) or form.get("client_secret") != self.client_secret:
            return web.json_response({"error": "invalid_client"}, status=401)
        if form.get("grant_type") != "authorization_code":
            return web.json_response({"error": "unsupported_grant_type"}, status=400)
        user = self.codes.pop(str(form.get("code", "")), None)  # a code is good once
        if user is None:
            return web.json_response({"error": "invalid_grant", "error_description": 'Invalid "code" in request.'},
                                     status=400)
        token = self.token_for(user)
        return web.json_response({"access_token": token, "token_type": "Bearer", "expires_in": TOKEN_SECONDS,
                                  "refresh_token": secrets.token_urlsafe(24), "scope": "identify"})

    def me(self, token: str) -> web.Response:
        user = self.user_of(token)
        if user is None:
            raise ApiError(401, 0, "401: Unauthorized")
        return json_response({**payloads.user(user), "locale": user.locale, "mfa_enabled": False, "flags": 0})

    async def instance(self, request: web.Request) -> web.Response:
        if int(request.match_info["app_id"]) != self._fake.world.application_id:
            raise ApiError(403, 50001, "Missing Access")
        found = self.instances.get(request.match_info["instance_id"])
        if found is None:
            raise ApiError(404, 10148, "Unknown activity instance")  # the code is a stand-in
        channel = found.channel
        guild_id = channel.guild.id if channel.guild is not None else None
        return json_response({
            "application_id": str(self._fake.world.application_id), "instance_id": found.instance_id,
            "launch_id": found.launch_id,
            "location": {"id": f"gc-{guild_id}-{channel.id}", "kind": "gc" if guild_id else "pc",
                         "channel_id": str(channel.id), "guild_id": str(guild_id) if guild_id else None},
            "users": [str(user) for user in sorted(found.users)],
        })


    async def cdn_avatar(self, request: web.Request) -> web.Response:
        self.cdn_hits.append(request.path)
        name = request.match_info["file"]
        found = None
        if name.endswith(".png") and request.match_info["user_id"].isdigit():
            found = self.avatars.get((int(request.match_info["user_id"]), name[:-4]))
        if found is None:
            return web.Response(status=404, text="Not Found")
        return web.Response(body=found, content_type="image/png")

    async def cdn_default(self, request: web.Request) -> web.Response:
        self.cdn_hits.append(request.path)
        index = request.match_info["index"]
        if not index.isdigit() or not 0 <= int(index) < DEFAULT_AVATARS:
            return web.Response(status=404, text="Not Found")
        shade = 40 * int(index)
        return web.Response(body=png(88, 101, 242 - shade), content_type="image/png")


def bearer_token(request: web.Request) -> Optional[str]:
    header = request.headers.get("Authorization", "")
    return header[len("Bearer "):] if header.startswith("Bearer ") else None


def routes(fake: "FakeDiscord", prefix: str) -> list[web.RouteDef]:
    """The OAuth2 token endpoint and the instance route (``GET /users/@me`` with a Bearer
    token is answered by the REST API's own route, which asks :func:`bearer_token`)."""
    activities = fake.activities
    return [
        web.post(f"{prefix}/oauth2/token", activities.exchange),
        web.get(f"{prefix}/applications/{{app_id}}/activity-instances/{{instance_id}}", activities.instance),
        web.get("/cdn/avatars/{user_id}/{file}", activities.cdn_avatar),
        web.get("/cdn/embed/avatars/{index}.png", activities.cdn_default),
    ]
