"""The real bot as a separate process (``python bot.py``) talking to the fake Discord.

Used where a test or benchmark needs a true process boundary: a SIGKILL in the
middle of a game, or load where the bot must not share the generator's CPU.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


class BotProcess:
    def __init__(self, fake: Any, database_url: str, *args: str, repo: Path = REPO, **env: str) -> None:
        """``repo``: the checkout whose ``bot.py`` runs (another one for before/after benchmarks)."""
        self.fake = fake
        self.repo = repo
        self.args = list(args)
        self.env = {
            **os.environ,
            "DISCORD_TOKEN": "fake-bot-token",
            "DATABASE_URL": database_url,
            "DEV_GUILD_ID": str(fake.guild.id),
            "TIENLEN_TEST_API_BASE": fake.api_base,
            "TIENLEN_TEST_GATEWAY_URL": fake.gateway_url,
            "LOG_LEVEL": "WARNING",
            "AI_DELAY_SECONDS": "0",
            "AI_WORKERS": "0",
            "TIENLEN_TEST_EDIT_INTERVAL": "0",
            "PYTHONPATH": str(repo),
            **env,
        }
        self.process: asyncio.subprocess.Process | None = None

    async def launch(self) -> "BotProcess":
        """Start the process without waiting for anything."""
        # The log goes to a file: a pipe nobody reads would fill up and stall the bot.
        self.log = tempfile.NamedTemporaryFile(prefix="tienlen-bot-", suffix=".log", delete=False)
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, str(self.repo / "bot.py"), *self.args, cwd=str(self.repo), env=self.env,
            stdout=asyncio.subprocess.DEVNULL, stderr=self.log,
        )
        return self

    async def start(self, *, timeout: float = 60.0) -> "BotProcess":
        await self.launch()
        await self.fake.wait_for(lambda: not self.fake.gateway.connected_sessions, timeout=timeout,
                                 what="the previous bot's connection to drop")
        await self.fake.wait_for_bot(count=1, timeout=timeout)
        await self.fake.wait_for(lambda: self.fake.commands.list(self.fake.guild.id), timeout=timeout,
                                 what="the bot to register its commands")
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def rss_kib(self) -> int:
        """Resident memory of the bot process (Linux)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def cpu_seconds(self) -> float:
        """CPU time the bot process has used so far, user and system (Linux)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

    async def kill(self) -> None:
        """An unclean stop: SIGKILL, no chance to close anything."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> None:
        """A clean stop: SIGINT, as Ctrl+C would."""
        if self.process is None or self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(self.process.wait(), 15)
        except asyncio.TimeoutError:
            await self.kill()

    def stderr(self) -> str:
        """What the bot logged (warnings and errors)."""
        return Path(self.log.name).read_text(errors="replace") if self.process is not None else ""
