"""The outbox's watchers (the Activity's hub) hear of each committed table at once, in commit order,
however far behind Discord's delivery runs; a failing watcher stops neither the others nor Discord."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from runtime.outbox import NullNotifier, Outbox


class StuckDiscord(NullNotifier):
    """Discord's delivery, held up (rate limits) until ``go`` is set."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.delivered: list[int] = []

    async def table_changed(self, snapshot) -> None:
        await self.go.wait()
        self.delivered.append(snapshot.version)


async def no_mark(_game_id: int) -> None:
    return None


async def test_watchers_hear_each_publish_at_once_and_in_order_while_discord_waits():
    discord = StuckDiscord()
    outbox = Outbox(discord, mark_posted=no_mark)
    heard: list[int] = []
    outbox.watch(lambda snapshot: heard.append(snapshot.version))
    for version in (1, 2, 3):
        outbox.publish(SimpleNamespace(channel_id=7, version=version))
        assert heard == list(range(1, version + 1))  # told within publish, before any delivery
    await asyncio.sleep(0.01)
    assert discord.delivered == []  # Discord's delivery still waits...
    discord.go.set()
    await outbox.flush()
    assert discord.delivered == [1, 2, 3]  # ...and then delivers everything, in order


async def test_a_failing_watcher_stops_neither_the_others_nor_discord(caplog):
    discord = StuckDiscord()
    discord.go.set()
    outbox = Outbox(discord, mark_posted=no_mark)
    heard: list[int] = []

    def broken(_snapshot) -> None:
        raise RuntimeError("boom")

    outbox.watch(broken)
    outbox.watch(lambda snapshot: heard.append(snapshot.version))
    outbox.publish(SimpleNamespace(channel_id=7, version=1))
    await outbox.flush()
    assert heard == [1] and discord.delivered == [1]
    assert "a watcher failed for table 7" in caplog.text
