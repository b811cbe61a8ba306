"""pytest fixtures for the fake Discord; load with ``pytest_plugins = ["tests.fakediscord.plugin"]``.

``fake_discord``: a started ``FakeDiscord`` with discord.py redirected to it;
on teardown it is stopped, the redirect undone, and the test fails if the bot
hit routes the fake does not model (set ``fake.fail_on_gaps = False`` to
only log them).

``start_bot``: ``handle = await start_bot(bot)`` starts any discord.py client
in-process against ``fake_discord`` and waits until it is READY; every bot
still running at teardown is closed cleanly.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable

import pytest_asyncio

from .runner import BotHandle
from .server import FakeDiscord


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    await fake.start()
    fake.patch_discord()
    try:
        yield fake
    finally:
        await fake.stop()
    if fake.fail_on_gaps:
        fake.check()


@pytest_asyncio.fixture
async def start_bot(fake_discord: FakeDiscord) -> AsyncIterator[Callable[..., Awaitable[BotHandle]]]:
    handles: list[BotHandle] = []

    async def start(bot: Any, token: str = "fake-bot-token", *, ready_timeout: float = 10.0) -> BotHandle:
        handle = BotHandle(fake_discord, bot, token)
        handles.append(handle)
        return await handle.start(ready_timeout)

    try:
        yield start
    finally:
        for handle in reversed(handles):
            await handle.stop()
