"""Fixtures for the Activity's tests: the real bot, in-process, with its Activity server on a free port,
against the fake Discord (which answers the OAuth2 exchange, Bearer ``/users/@me`` and activity instances)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

import aiohttp
import pytest
import pytest_asyncio

from activity.settings import ActivitySettings
from tests.e2e.conftest import make_bot, settings  # noqa: F401  (the e2e bot fixtures)
from tests.fakediscord.activities import CLIENT_SECRET


class Client:
    """One Activity client: a WebSocket that keeps every frame it received, in order."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, user: Any) -> None:
        self.ws, self.user = ws, user
        self.frames: list[dict] = []
        self.raw: list[str] = []
        self.closed = asyncio.Event()
        self._new = asyncio.Event()
        self._reader = asyncio.create_task(self._read())
        self._next_id = 0

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.TEXT:
                self.raw.append(message.data)
                self.frames.append(json.loads(message.data))
                self._new.set()
        self.closed.set()
        self._new.set()

    async def send(self, frame: "dict | str | bytes") -> None:
        if isinstance(frame, bytes):
            await self.ws.send_bytes(frame)
        else:
            await self.ws.send_str(frame if isinstance(frame, str) else json.dumps(frame))

    async def ask(self, type_: str, **fields: Any) -> dict:
        """Send an action with a fresh id and wait for its answer (ok, error or selection)."""
        self._next_id += 1
        request_id = self._next_id
        await self.send({"type": type_, "id": request_id, **fields})
        return await self.wait(lambda frame: frame.get("id") == request_id and frame["type"] != "hand")

    async def wait(self, predicate, timeout: float = 5.0, *, since: int = 0) -> dict:
        async def find() -> dict:
            seen = since
            while True:
                for frame in self.frames[seen:]:
                    if predicate(frame):
                        return frame
                seen = len(self.frames)
                if self.closed.is_set():
                    raise AssertionError(f"closed before the frame came; got {self.frames[-3:]}")
                self._new.clear()
                await self._new.wait()
        return await asyncio.wait_for(find(), timeout)

    def latest(self, type_: str) -> dict | None:
        return next((frame for frame in reversed(self.frames) if frame["type"] == type_), None)

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


@pytest.fixture
def activity_settings() -> ActivitySettings:
    return ActivitySettings(port=0, host="127.0.0.1", client_secret=CLIENT_SECRET, test_hooks=True)


@pytest_asyncio.fixture
async def activity_bot(fake_discord, start_bot, make_bot, activity_settings, monkeypatch):  # noqa: F811
    monkeypatch.setenv("DISCORD_CDN_BASE", fake_discord.activities.cdn_base)  # avatars from the fake's CDN
    bot = make_bot()
    bot.activity_settings = activity_settings  # read by setup_hook (make_bot changes Settings only)
    await start_bot(bot)
    assert bot.activity_server is not None and bot.activity_server.port
    return bot


@pytest_asyncio.fixture
async def http():
    async with aiohttp.ClientSession() as session:
        yield session


def connector(fake, http, port: "Callable[[], int]", clients: list[Client]):
    """``await open_(user, instance)``: a client signed in to the Activity server on ``port()``."""

    async def open_(user, instance: str | None = None, *, token: str | None = None, hello: dict | None = None,
                    welcome: bool = True) -> Client:
        if instance is None:
            instance = fake.activities.launch(fake.channel, fake.users)
        ws = await http.ws_connect(f"http://127.0.0.1:{port()}/ws")
        client = Client(ws, user)
        clients.append(client)
        if token is None and user is not None:
            token = fake.activities.token_for(user)
        await client.send(hello if hello is not None else
                          {"type": "hello", "access_token": token, "instance_id": instance})
        if welcome:
            await client.wait(lambda frame: frame["type"] == "hand")
        return client

    return open_


@pytest_asyncio.fixture
async def connect(fake_discord, activity_bot, http):
    """``await connect(user, instance)``: a signed-in client (its welcome, table and hand received)."""
    clients: list[Client] = []
    yield connector(fake_discord, http, lambda: activity_bot.activity_server.port, clients)
    for client in clients:
        await client.close()
