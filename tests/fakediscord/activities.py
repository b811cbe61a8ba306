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
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Optional

from aiohttp import web

from . import payloads
from .wire import ApiError, json_response

if TYPE_CHECKING:
    from .server import FakeDiscord
    from .world import Channel, User

__all__ = ["Activities", "ActivityInstance", "CLIENT_SECRET", "routes", "bearer_token"]

CLIENT_SECRET = "fake-client-secret"
"""The application's OAuth2 client secret the fake accepts (``activities.client_secret`` changes it)."""
TOKEN_SECONDS = 604800


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
    ]
