"""The bot as a real process: SIGKILL in the middle of a game, restart, finish;
and the one-line message when there is no token."""

from __future__ import annotations

import subprocess
import sys

import db
from tests.e2e.driver import TableDriver
from tests.e2e.process import REPO, BotProcess
from tests.e2e.test_e2e_full_game import open_table
from tests.e2e.test_e2e_restart import _play_some
from tienlen import Game


async def test_sigkill_mid_game_then_a_new_process_finishes_it(fake_discord, tmp_path):
    fake = fake_discord
    url = f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"
    first = await BotProcess(fake, url, TIENLEN_TEST_SEED="7").start()
    try:
        driver = await open_table(fake, fake.users[:3], "mien-nam")
        await _play_some(driver, 6)
        await first.kill()
        second = await BotProcess(fake, url, TIENLEN_TEST_SEED="7").start()
        try:
            await fake.wait_for(lambda: "restarted" in driver.table.text(), timeout=20)
            await driver.play_to_the_end()
            await fake.wait_for(lambda: driver.phase() == "between", timeout=20)
        finally:
            await second.stop()
    finally:
        await first.stop()
    database = db.Database.from_url(url)
    try:
        games = await db.recent_games(database, fake.guild.id, fake.channel.id, limit=5)
        assert len(games) == 1
        stored = await db.load_game(database, games[0].game_id)
        record = dict(stored.record)
        record["actions"] = list(stored.actions)
        replay = Game.from_json(record)
        assert replay.finished and stored.settled_at is not None
        for seat, user in enumerate(fake.users[:3]):
            account = await db.get_account(database, fake.guild.id, user.id)
            assert account.balance == 1000 + replay.settlement()[seat] * 10
    finally:
        await database.dispose()


def test_without_a_token_the_bot_says_how_to_get_one_in_one_line(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "DISCORD_TOKEN": ""}
    result = subprocess.run([sys.executable, str(REPO / "bot.py")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 78  # a configuration error: the systemd unit does not restart it
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "discord.com/developers" in lines[0]


async def test_an_invalid_token_is_one_clear_line(tmp_path):
    import asyncio
    import os

    from tests.fakediscord import FakeDiscord

    async with FakeDiscord(token="the-right-token") as fake:
        env = {**os.environ, "PYTHONPATH": str(REPO), "DISCORD_TOKEN": "a-wrong-token",
               "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
               "TIENLEN_TEST_API_BASE": fake.api_base, "TIENLEN_TEST_GATEWAY_URL": fake.gateway_url}
        process = await asyncio.create_subprocess_exec(
            sys.executable, str(REPO / "bot.py"), cwd=str(tmp_path), env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 78
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "refused DISCORD_TOKEN" in lines[0]


async def test_a_hard_ai_seat_thinks_in_a_worker_process_of_the_real_bot(fake_discord, tmp_path):
    fake = fake_discord
    url = f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"
    bot = await BotProcess(fake, url, AI_WORKERS="1", AI_BUDGET_MS="30", TIENLEN_TEST_SEED="3").start()
    try:
        host, guest = fake.users[:2]
        created = await fake.slash(host, "tienlen create", rules="mien-nam", bet=10)
        await fake.slash(guest, "tienlen join")
        await fake.slash(host, "tienlen addbot", level="hard")
        driver = TableDriver(fake, created.message, "mien-nam", players=[host, guest])
        await fake.click(host, driver.table, driver.custom_id("start"))
        await driver.play_to_the_end()
        await fake.wait_for(lambda: driver.phase() == "between", timeout=30)
        assert bot.process is not None and bot.process.returncode is None
    finally:
        await bot.stop()
    database = db.Database.from_url(url)
    try:
        games = await db.recent_games(database, fake.guild.id, fake.channel.id, limit=1)
        stored = await db.load_game(database, games[0].game_id)
        record = dict(stored.record)
        record["actions"] = list(stored.actions)
        replay = Game.from_json(record)
        ai_seat = 2  # host, guest, then the AI
        assert replay.finished
        assert any(action.seat == ai_seat and action.kind == "play" for action in replay.actions)
    finally:
        await database.dispose()


def _start_without_discord(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "DISCORD_TOKEN": "some-token",
           "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}",
           "TIENLEN_TEST_API_BASE": "http://127.0.0.1:9/api/v10"}  # nothing listens on the discard port
    return subprocess.run([sys.executable, str(REPO / "bot.py"), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


def test_discord_out_of_reach_is_one_line_and_a_traceback_only_with_debug(tmp_path):
    result = _start_without_discord(tmp_path)
    assert result.returncode == 2  # a start-up failure a restart may fix (the unit restarts it)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Cannot reach Discord"), result.stderr

    debugging = _start_without_discord(tmp_path, "--debug")
    assert debugging.returncode == 2
    assert "Traceback" in debugging.stderr and "Cannot reach Discord" in debugging.stderr
