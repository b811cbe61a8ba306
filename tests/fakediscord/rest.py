"""The fake Discord REST API (v10): routes, auth, request recording.

Every request passes through ``RestApi.middleware``, which parses the body
once (JSON or multipart), records it, applies the rate limits (``ratelimits``:
a refused request is answered 429 and not executed; every answer carries its
bucket's headers), converts ``ApiError`` into Discord's JSON error shape and
turns bugs in the fake into a 400 (never a 5xx, which discord.py would retry
with sleeps). Unknown routes answer 404 JSON and are kept in
``unknown_requests`` so gaps in the fake are visible.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional

from aiohttp import web

from . import activities, payloads
from .messaging import create_message, edit_message, validate_edit, validate_send
from .ratelimits import Verdict
from .wire import (
    ApiError, Body, Upload, cannot_dm, json_response, no_content, read_body, unknown_channel, unknown_message,
)
from .world import Channel, Message

if TYPE_CHECKING:
    from .server import FakeDiscord

log = logging.getLogger("fakediscord.rest")

API_PREFIX = "/api/v10"
# Interaction and webhook routes are authenticated by their token in the path.
_TOKEN_ROUTES = (f"{API_PREFIX}/interactions/", f"{API_PREFIX}/webhooks/", f"{API_PREFIX}/gateway", f"{API_PREFIX}/attachments/")
MAX_UPLOAD_BYTES = 10 * 1024 * 1024
BODY = web.RequestKey("body", Body)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class RecordedRequest:
    """One REST request the bot made, with its parsed body and our status."""

    method: str
    path: str
    route: str  # template, e.g. "/channels/{channel_id}/messages"; "UNKNOWN" if unmodelled
    query: dict[str, str]
    json: Any
    files: list[Upload] = field(default_factory=list)
    at: float = 0.0
    status: int = 0
    bucket: str = ""  # the rate-limit bucket's name ("" when not limited)
    rate_limited: Optional[str] = None  # "user" or "global" when answered 429


    @property
    def key(self) -> str:
        return f"{self.method} {self.route}"

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} -> {self.status}>"


class RestApi:
    def __init__(self, fake: "FakeDiscord") -> None:
        self._fake = fake
        self._world = fake.world

    def routes(self) -> list[web.RouteDef]:
        p = API_PREFIX
        return [
            web.get(f"{p}/gateway", self.get_gateway),
            web.get(f"{p}/gateway/bot", self.get_gateway_bot),
            web.get(f"{p}/users/@me", self.get_me),
            web.get(f"{p}/users/{{user_id}}", self.get_user),
            web.post(f"{p}/users/@me/channels", self.create_dm),
            web.get(f"{p}/oauth2/applications/@me", self.get_application),
            web.get(f"{p}/applications/@me", self.get_application),
            web.get(f"{p}/applications/{{app_id}}/commands", self.list_commands),
            web.put(f"{p}/applications/{{app_id}}/commands", self.put_commands),
            web.post(f"{p}/applications/{{app_id}}/commands", self.post_command),
            web.get(f"{p}/applications/{{app_id}}/commands/{{command_id}}", self.get_command),
            web.delete(f"{p}/applications/{{app_id}}/commands/{{command_id}}", self.delete_command),
            web.get(f"{p}/applications/{{app_id}}/guilds/{{guild_id}}/commands", self.list_commands),
            web.put(f"{p}/applications/{{app_id}}/guilds/{{guild_id}}/commands", self.put_commands),
            web.post(f"{p}/applications/{{app_id}}/guilds/{{guild_id}}/commands", self.post_command),
            web.get(f"{p}/applications/{{app_id}}/guilds/{{guild_id}}/commands/{{command_id}}", self.get_command),
            web.delete(f"{p}/applications/{{app_id}}/guilds/{{guild_id}}/commands/{{command_id}}", self.delete_command),
            web.get(f"{p}/guilds/{{guild_id}}", self.get_guild),
            web.get(f"{p}/guilds/{{guild_id}}/channels", self.get_guild_channels),
            web.get(f"{p}/guilds/{{guild_id}}/roles", self.get_guild_roles),
            web.get(f"{p}/guilds/{{guild_id}}/members/{{user_id}}", self.get_member),
            web.get(f"{p}/channels/{{channel_id}}", self.get_channel),
            web.post(f"{p}/channels/{{channel_id}}/typing", self.typing),
            web.get(f"{p}/channels/{{channel_id}}/messages", self.history),
            web.post(f"{p}/channels/{{channel_id}}/messages", self.create_channel_message),
            web.get(f"{p}/channels/{{channel_id}}/messages/{{message_id}}", self.get_channel_message),
            web.patch(f"{p}/channels/{{channel_id}}/messages/{{message_id}}", self.edit_channel_message),
            web.delete(f"{p}/channels/{{channel_id}}/messages/{{message_id}}", self.delete_channel_message),
            web.post(f"{p}/interactions/{{interaction_id}}/{{token}}/callback", self.interaction_callback),
            web.post(f"{p}/webhooks/{{app_id}}/{{token}}", self.webhook_execute),
            web.get(f"{p}/webhooks/{{app_id}}/{{token}}/messages/{{message_id}}", self.webhook_get),
            web.patch(f"{p}/webhooks/{{app_id}}/{{token}}/messages/{{message_id}}", self.webhook_edit),
            web.delete(f"{p}/webhooks/{{app_id}}/{{token}}/messages/{{message_id}}", self.webhook_delete),
            web.get(f"{p}/attachments/{{attachment_id}}/{{filename}}", self.download_attachment),
            *activities.routes(self._fake, p),
            web.route("*", "/{tail:.*}", self.unknown_route),
        ]

    # -- middleware -------------------------------------------------------

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await handler(request)
        record = RecordedRequest(
            method=request.method, path=request.path.removeprefix(API_PREFIX), route=_route_of(request),
            query=dict(request.query), json=None, at=asyncio.get_running_loop().time(),
        )
        response = await self._handle(request, handler, record)
        # Discord's API answers through Google's front end; discord.py takes a 429
        # without this header for a Cloudflare ban and raises instead of retrying.
        response.headers.setdefault("Via", "1.1 google")
        record.status = response.status
        self._fake._record(record)
        return response

    async def _handle(self, request: web.Request, handler: Handler, record: RecordedRequest) -> web.StreamResponse:
        verdict: Optional[Verdict] = None
        try:
            body = await read_body(request)
            record.json, record.files = body.json, body.uploads
            request[BODY] = body
            self._check_auth(request)
            verdict = self._admit(request, record)
            if verdict.refused:
                return verdict.response()
            _check_upload_sizes(body)
            response = await handler(request)
        except ApiError as error:
            response = error.response()
        except Exception as exc:  # a bug in the fake: report it, but never answer 5xx
            log.exception("fake discord failed on %s %s", request.method, request.path)
            self._fake.errors.append(f"{request.method} {request.path}: {exc!r}")
            response = ApiError(400, 0, f"fake discord error: {exc!r}").response()
        if verdict is not None:
            verdict.stamp(response)
        return response

    def _admit(self, request: web.Request, record: RecordedRequest) -> Verdict:
        """Count the request against its buckets; a refusal is recorded as a 429 of its scope."""
        header = request.headers.get("Authorization", "")
        token = header[4:] if header.startswith("Bot ") else None
        verdict = self._fake.rate_limits.admit(record.key, request.match_info, token)
        record.bucket = verdict.bucket.name if verdict.bucket else ""
        record.rate_limited = verdict.scope
        return verdict

    def _check_auth(self, request: web.Request) -> None:
        if not request.path.startswith(API_PREFIX) or request.path.startswith(_TOKEN_ROUTES):
            return
        # An Activity's server: the OAuth2 exchange carries the client secret, /users/@me a user's Bearer token.
        if request.path == f"{API_PREFIX}/oauth2/token":
            return
        if request.path == f"{API_PREFIX}/users/@me" and activities.bearer_token(request) is not None:
            return
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bot ") or not self._fake.token_ok(header[4:]):
            raise ApiError(401, 0, "401: Unauthorized")

    # -- gateway, users, application -------------------------------------

    async def get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self._fake.gateway_url})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return json_response({"url": self._fake.gateway_url, "shards": self._fake.recommended_shards,
                              "session_start_limit": limit})

    async def get_me(self, request: web.Request) -> web.Response:
        token = activities.bearer_token(request)
        if token is not None:  # a user's OAuth2 token (an Activity asking who its user is)
            return self._fake.activities.me(token)
        return json_response(payloads.client_user(self._world.bot_user))

    async def get_user(self, request: web.Request) -> web.Response:
        user = self._world.users.get(_id(request, "user_id"))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return json_response(payloads.user(user))

    async def get_application(self, request: web.Request) -> web.Response:
        bot = self._world.bot_user
        owner = next(iter(self._world.guilds.values())).owner if self._world.guilds else bot
        return json_response({
            "id": str(self._world.application_id), "name": bot.name, "description": "", "icon": None,
            "bot_public": True, "bot_require_code_grant": False, "owner": payloads.user(owner),
            "verify_key": "0" * 64, "flags": 0, "team": None, "summary": "",
            "bot": payloads.user(bot), "interactions_endpoint_url": None, "redirect_uris": [],
        })

    async def create_dm(self, request: web.Request) -> web.Response:
        data = _body(request).json or {}
        user = self._world.users.get(int(data.get("recipient_id", 0)))
        if user is None:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        # Opening the channel always works; sending into it is what DM settings block.
        return json_response(payloads.channel(self._world.dm_channel(user)))

    # -- application commands --------------------------------------------

    def _scope(self, request: web.Request) -> Optional[int]:
        if _id(request, "app_id") != self._world.application_id:
            raise ApiError(403, 50001, "Missing Access")
        guild_id = request.match_info.get("guild_id")
        if guild_id is not None and int(guild_id) not in self._world.guilds:
            raise ApiError(403, 50001, "Missing Access")
        return int(guild_id) if guild_id is not None else None

    async def list_commands(self, request: web.Request) -> web.Response:
        return json_response(self._fake.commands.list(self._scope(request)))

    async def put_commands(self, request: web.Request) -> web.Response:
        data = _body(request).json
        if not isinstance(data, list):
            raise ApiError(400, 50035, "Invalid Form Body: expected a list of commands")
        return json_response(self._fake.commands.bulk_overwrite(data, self._scope(request)))

    async def post_command(self, request: web.Request) -> web.Response:
        return json_response(self._fake.commands.upsert(_body(request).json, self._scope(request)), 201)

    async def get_command(self, request: web.Request) -> web.Response:
        command = self._fake.commands.get(_id(request, "command_id"), self._scope(request))
        if command is None:
            raise ApiError(404, 10063, "Unknown application command")
        return json_response(command)

    async def delete_command(self, request: web.Request) -> web.Response:
        if not self._fake.commands.delete(_id(request, "command_id"), self._scope(request)):
            raise ApiError(404, 10063, "Unknown application command")
        return no_content()

    # -- guilds ------------------------------------------------------------

    def _guild(self, request: web.Request):
        guild = self._world.guilds.get(_id(request, "guild_id"))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    async def get_guild(self, request: web.Request) -> web.Response:
        data = payloads.guild_create(self._guild(request))
        for key in ("channels", "members", "threads", "presences", "voice_states"):
            data.pop(key)  # GET /guilds/{id} does not include these
        return json_response(data)

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        return json_response([payloads.channel(c) for c in self._guild(request).channels])

    async def get_guild_roles(self, request: web.Request) -> web.Response:
        return json_response([payloads.role(r) for r in self._guild(request).roles])

    async def get_member(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        member = guild.members.get(_id(request, "user_id"))
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return json_response(payloads.member(member))

    # -- channels and their messages ---------------------------------------

    def _channel(self, request: web.Request) -> Channel:
        channel = self._world.channels.get(_id(request, "channel_id"))
        if channel is None:
            raise unknown_channel()
        return channel

    def _channel_message(self, request: web.Request) -> Message:
        channel = self._channel(request)
        message = self._world.messages.get(_id(request, "message_id"))
        # Ephemeral messages do not exist for the channel endpoints.
        if message is None or message.deleted or message.channel is not channel or message.ephemeral_to is not None:
            raise unknown_message()
        return message

    async def get_channel(self, request: web.Request) -> web.Response:
        return json_response(payloads.channel(self._channel(request)))

    async def typing(self, request: web.Request) -> web.Response:
        self._channel(request)
        return no_content()

    async def history(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        limit = min(int(request.query.get("limit", 50)), 100)
        before = int(request.query.get("before", 0)) or None
        after = int(request.query.get("after", 0)) or None
        messages = [m for m in self._world.messages_in(channel)
                    if (before is None or m.id < before) and (after is None or m.id > after)]
        chosen = messages[:limit] if after is not None else messages[-limit:]
        return json_response([self._fake.message_json(m) for m in reversed(chosen)])

    async def create_channel_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body = _body(request)
        data = validate_send(body.json, body.uploads)
        if channel.is_dm and channel.recipient is not None and not channel.recipient.dms_open:
            raise cannot_dm()
        message = create_message(self._world, channel, data, body.uploads)
        self._fake._announce("MESSAGE_CREATE", message)
        return json_response(self._fake.message_json(message))

    async def get_channel_message(self, request: web.Request) -> web.Response:
        return json_response(self._fake.message_json(self._channel_message(request)))

    async def edit_channel_message(self, request: web.Request) -> web.Response:
        message = self._channel_message(request)
        if message.author is not self._world.bot_user:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        body = _body(request)
        self._fake.edit_limit.admit(message, "channel")
        edit_message(self._world, message, validate_edit(body.json, message, body.uploads), body.uploads)
        self._fake._announce("MESSAGE_UPDATE", message)
        return json_response(self._fake.message_json(message))

    async def delete_channel_message(self, request: web.Request) -> web.Response:
        message = self._channel_message(request)
        message.deleted = True
        self._fake._announce("MESSAGE_DELETE", message)
        return no_content()

    # -- interactions and their webhook ------------------------------------

    async def interaction_callback(self, request: web.Request) -> web.Response:
        registry = self._fake.interactions
        answer = registry.respond(_id(request, "interaction_id"), request.match_info["token"], _body(request))
        if request.query.get("with_response", "false").lower() in ("0", "false"):
            return no_content()  # Discord only returns the callback resource when asked
        return json_response(answer)

    async def webhook_execute(self, request: web.Request) -> web.Response:
        registry = self._fake.interactions
        sent = registry.by_token(_id(request, "app_id"), request.match_info["token"])
        message = registry.followup(sent, _body(request))
        if request.query.get("wait", "false").lower() in ("0", "false"):
            return no_content()
        return json_response(self._fake.message_json(message))

    def _webhook_message(self, request: web.Request) -> Message:
        registry = self._fake.interactions
        sent = registry.by_token(_id(request, "app_id"), request.match_info["token"])
        return registry.find_message(sent, request.match_info["message_id"])

    async def webhook_get(self, request: web.Request) -> web.Response:
        return json_response(self._fake.message_json(self._webhook_message(request)))

    async def webhook_edit(self, request: web.Request) -> web.Response:
        message = self._fake.interactions.edit(self._webhook_message(request), _body(request))
        return json_response(self._fake.message_json(message))

    async def webhook_delete(self, request: web.Request) -> web.Response:
        self._fake.interactions.delete(self._webhook_message(request))
        return no_content()

    async def download_attachment(self, request: web.Request) -> web.Response:
        attachment = self._world.attachments.get(_id(request, "attachment_id"))
        if attachment is None:
            raise ApiError(404, 0, "404: Not Found")
        return web.Response(body=attachment.data, headers={"Content-Type": attachment.content_type})

    async def unknown_route(self, request: web.Request) -> web.Response:
        description = f"{request.method} {request.path}"
        log.warning("fake discord: unmodelled route %s", description)
        self._fake.unknown_requests.append(description)
        return json_response({"code": 0, "message": f"404: Not Found (fake discord does not model {description})"}, 404)


def _route_of(request: web.Request) -> str:
    route = request.match_info.route
    resource = route.resource
    canonical = resource.canonical if resource is not None else ""
    if canonical == "/{tail}":
        return "UNKNOWN"
    return canonical.removeprefix(API_PREFIX)


def _body(request: web.Request) -> Body:
    return request[BODY]


def _id(request: web.Request, name: str) -> int:
    raw = request.match_info[name]
    if not raw.isdigit():
        raise ApiError(400, 50035, f"Invalid Form Body: {name} is not a snowflake")
    return int(raw)


def _check_upload_sizes(body: Body) -> None:
    if any(len(upload.data) > MAX_UPLOAD_BYTES for upload in body.uploads):
        raise ApiError(413, 40005, "Request entity too large")
