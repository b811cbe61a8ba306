"""pytest fixtures for the fake Discord; load with ``pytest_plugins = ["tests.fakediscord.plugin"]``.

``fake_discord``: a started ``FakeDiscord`` with discord.py redirected to it;
on teardown it is stopped, the redirect undone, and the test fails if the bot
hit routes the fake does not model (set ``fake.fail_on_gaps = False`` to
only log them).

Its rate limits are Discord's with time compressed ``TIME_SCALE`` times
(5 edits per 0.1 s instead of per 5 s): tests play at machine speed, about a
hundred times faster than people, and with Discord's real windows every
end-to-end game would crawl. Headers, buckets and 429s behave as on Discord.
A test wanting Discord's real timing sets ``fake_discord.rate_limits.time_scale
= 1.0``; ``FAKE_DISCORD_TIME_SCALE=1`` does it for a whole run and
``FAKE_DISCORD_RATE_LIMITS=0`` switches the limits off.

``start_bot``: ``handle = await start_bot(bot)`` starts any discord.py client
in-process against ``fake_discord`` and waits until it is READY; every bot
still running at teardown is closed cleanly.
"""

from __future__ import annotations

import os
from typing import Any, AsyncIterator, Awaitable, Callable

import pytest_asyncio

from .ratelimits import RateLimits
from .runner import BotHandle
from .server import FakeDiscord

# Measured on the e2e suite: 0.02 costs it ~2 % in time, 0.05 ~45 %, 1.0 (real time) many minutes.
TIME_SCALE = 0.02


def fixture_rate_limits() -> RateLimits:
    """The fixture's limits: on and time-compressed unless the environment says otherwise."""
    enabled = os.environ.get("FAKE_DISCORD_RATE_LIMITS", "1").lower() not in ("0", "false", "off", "no")
    scale = float(os.environ.get("FAKE_DISCORD_TIME_SCALE") or TIME_SCALE)
    return RateLimits(enabled=enabled, time_scale=scale)


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(rate_limits=fixture_rate_limits())
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
