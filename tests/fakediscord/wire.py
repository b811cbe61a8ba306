"""HTTP wire helpers: Discord-style JSON responses, errors and request bodies.

discord.py only parses a response body as JSON when its Content-Type header is
exactly ``application/json`` (``aiohttp.web.json_response`` appends a charset
and silently breaks login), so every JSON answer goes through ``json_response``.
Handlers raise ``ApiError`` for Discord error answers; a 5xx would make
discord.py retry with multi-second sleeps, so the fake never sends one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Optional

from aiohttp import web

_FILE_FIELD = re.compile(r"^files\[(\d+)\]$")


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={"Content-Type": "application/json"},
    )


def no_content() -> web.Response:
    return web.Response(status=204)


class ApiError(Exception):
    """A Discord error answer: HTTP status plus the JSON error code and message."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message = status, code, message

    def response(self) -> web.Response:
        return json_response({"code": self.code, "message": self.message}, self.status)


# The errors the fake answers with, named as in Discord's documentation.
def unknown_channel() -> ApiError:
    return ApiError(404, 10003, "Unknown Channel")


def unknown_message() -> ApiError:
    return ApiError(404, 10008, "Unknown Message")


def unknown_webhook() -> ApiError:
    return ApiError(404, 10015, "Unknown Webhook")


def unknown_interaction() -> ApiError:
    return ApiError(404, 10062, "Unknown interaction")


def already_acknowledged() -> ApiError:
    return ApiError(400, 40060, "Interaction has already been acknowledged.")


def cannot_dm() -> ApiError:
    return ApiError(403, 50007, "Cannot send messages to this user")


def invalid_form(detail: str) -> ApiError:
    return ApiError(400, 50035, f"Invalid Form Body: {detail}")


@dataclass
class Upload:
    """One ``files[n]`` part of a multipart request."""

    index: int
    filename: str
    data: bytes
    content_type: str


@dataclass
class Body:
    """A parsed request body: the JSON payload (or payload_json) and files."""

    json: Optional[Any]
    uploads: list[Upload]


async def read_body(request: web.Request) -> Body:
    if request.content_type.startswith("multipart/"):
        return await _read_multipart(request)
    if not request.can_read_body:
        return Body(None, [])
    if request.content_type == "application/x-www-form-urlencoded":  # the OAuth2 token endpoint
        return Body(dict(await request.post()), [])
    raw = await request.read()
    return Body(_parse_json(raw) if raw else None, [])


def _parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        raise ApiError(400, 50109, "The request body contains invalid JSON.") from None


async def _read_multipart(request: web.Request) -> Body:
    payload: Optional[Any] = None
    uploads: list[Upload] = []
    reader = await request.multipart()
    async for part in reader:
        name = part.name or ""
        data = await part.read(decode=False)
        if name == "payload_json":
            payload = _parse_json(data)
            continue
        match = _FILE_FIELD.match(name)
        if match:
            content_type = part.headers.get("Content-Type", "application/octet-stream")
            uploads.append(Upload(int(match.group(1)), part.filename or name, bytes(data), content_type))
    return Body(payload, uploads)
