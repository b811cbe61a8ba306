"""Self-tests: bot restarts (clean and crash) against the same fake world, and a subprocess bot."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.fakediscord import FakeDiscord, run_bot
from tests.fakediscord.sample_bot import SampleBot

REPO_ROOT = Path(__file__).resolve().parents[2]


async def create_table(fake: FakeDiscord):
    result = await fake.slash(fake.user("alice"), "game create", rules="mien-nam", bet=3)
    return result.message


async def test_persistent_view_survives_a_clean_restart(fake_discord: FakeDiscord) -> None:
    async with run_bot(fake_discord, SampleBot()):
        table = await create_table(fake_discord)
    [old_session] = fake_discord.gateway.sessions.values()
    assert old_session.connection is None
    async with run_bot(fake_discord, SampleBot(sync=False)):
        joined = await fake_discord.click(fake_discord.user("bob"), table, "persist:join")
        counted = await fake_discord.click(fake_discord.user("bob"), table, "counter:0")
    assert joined.content == "bob joined"
    assert counted.message is table and table.content == "count=1"


async def test_persistent_view_survives_a_crash(fake_discord: FakeDiscord, start_bot) -> None:
    first = await start_bot(SampleBot())
    table = await create_table(fake_discord)
    await first.crash()
    assert first.task.done() and first.bot.ws.session_id in fake_discord.gateway.sessions
    crashed = fake_discord.gateway.sessions[first.bot.ws.session_id]
    assert crashed.connection is None and not crashed.ended  # still resumable, nobody resumes it
    await start_bot(SampleBot(sync=False))
    result = await fake_discord.click(fake_discord.user("carol"), table, "persist:join")
    assert result.content == "carol joined"


async def test_crash_cancels_the_bots_running_handlers(fake_discord: FakeDiscord, start_bot) -> None:
    first = await start_bot(SampleBot())
    table = await create_table(fake_discord)
    mark = fake_discord.mark()
    click = asyncio.create_task(fake_discord.click(fake_discord.user("bob"), table, "persist:slow", timeout=10))
    await fake_discord.wait_for(lambda: any(t.get_name().startswith("discord-ui-view-dispatch") for t in first._tasks))
    await first.crash()
    assert all(t.done() for t in first._tasks)
    click.cancel()
    assert fake_discord.requests_since(mark) == []  # the sleeping handler never answered


async def test_bot_in_a_subprocess(fake_discord: FakeDiscord) -> None:
    env = {**os.environ, **fake_discord.env(), "PYTHONPATH": str(REPO_ROOT)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.fakediscord.launch", "tests.fakediscord.sample_bot:main",
        cwd=REPO_ROOT, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await fake_discord.wait_for(lambda: fake_discord.commands.list(), timeout=20, what="the subprocess bot")
        await fake_discord.wait_for_bot()
        result = await fake_discord.slash(fake_discord.user("dave"), "whoami")
        assert result.content == "en-US|en-US"
    finally:
        process.kill()  # an unclean stop, as a crash would be
        await process.wait()
