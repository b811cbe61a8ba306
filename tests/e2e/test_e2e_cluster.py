"""Several bot processes for one token, coordinated by PostgreSQL.

Three real ``python bot.py`` processes with ``CLUSTERS=2`` against the fake
Discord (two shards, a guild on each) and one fresh PostgreSQL database: two
hold the slots, the third is a standby.  Games run in both guilds; DM buttons
(which Discord delivers to shard 0) work for the table of the slot without
shard 0; SIGKILL of slot 1's holder mid-game hands its tables to the standby
and the game ends exactly as an uninterrupted game would.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, AsyncIterator

import aiohttp
import pytest

import db
from tests.e2e.cluster_support import free_port, fresh_database, metric, slot_holders
from tests.e2e.driver import TableDriver, baseline_key
from tests.e2e.process import REPO, BotProcess
from tienlen import Game

PG_URL = os.environ.get("TEST_DATABASE_URL")
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="a cluster needs PostgreSQL (set TEST_DATABASE_URL)"),
]
SHARDS = 2
TAKEOVER_TIMEOUT = 40.0


@pytest.fixture
async def cluster_db() -> AsyncIterator[str]:
    assert PG_URL is not None
    async with fresh_database(PG_URL) as url:
        yield url


@dataclass
class ChannelDriver(TableDriver):
    """A table driver for a table in any channel (not only the default one)."""

    channel: Any = None

    @property
    def channel_id(self) -> int:
        return self.channel.id


def guild_on_shard(fake: Any, shard: int, name: str) -> Any:
    """A new guild (with a channel and every user as a member) on ``shard``."""
    while True:
        guild = fake.add_guild(name)
        if (guild.id >> 22) % SHARDS == shard:
            break
    for user in fake.users:
        fake.add_member(user, guild)
    guild.test_channel = fake.add_channel("tienlen", guild=guild)
    return guild


async def open_table(fake: Any, channel: Any, players: list[Any]) -> ChannelDriver:
    host, *others = players
    created = await fake.slash(host, "tienlen create", rules="mien-nam", bet=10, channel=channel)
    driver = ChannelDriver(fake, created.message, "mien-nam", players=list(players), channel=channel)
    for user in others:
        assert (await fake.click(user, driver.table, driver.custom_id("join"))).ephemeral
    await fake.click(host, driver.table, driver.custom_id("start"))
    return driver


def cluster_process(fake: Any, url: str, clusters: int = 2) -> BotProcess:
    """A cluster member; its REST goes through DISCORD_API_BASE, as behind a rate-limit proxy."""
    process = BotProcess(fake, url, "--sync", CLUSTERS=str(clusters), SHARD_COUNT=str(SHARDS), DEV_GUILD_ID="",
                         TIENLEN_TEST_SEED="11", LOG_LEVEL="INFO", METRICS_PORT=str(free_port()),
                         TIENLEN_TEST_API_BASE="", DISCORD_API_BASE=fake.api_base)
    process.metrics_url = f"http://127.0.0.1:{process.env['METRICS_PORT']}"
    return process


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def wait_for_slots(fake: Any, url: str, processes: list[BotProcess], timeout: float = 60.0,
                         slots: int = 2) -> dict[int, BotProcess]:
    """Until every slot is held by a live process and both shards are connected."""
    by_pid = {process.pid: process for process in processes}

    async def ready() -> dict[int, BotProcess] | None:
        holders = await slot_holders(url)
        live = {slot: by_pid[pid] for slot, pid in holders.items()
                if pid in by_pid and by_pid[pid].process.returncode is None}
        shards = {session.shard[0] for session in fake.gateway.connected_sessions}
        if set(live) == set(range(slots)) and shards >= set(range(SHARDS)) and fake.commands.list(None):
            return live
        return None

    try:
        return await poll(ready, timeout=timeout, what="both slots held and both shards connected")
    except AssertionError:
        logs = "\n".join(process.stderr()[-2000:] for process in processes)
        raise AssertionError(f"the cluster did not form:\n{logs}") from None


def uninterrupted(record: dict[str, Any]) -> Game:
    """The same deal played to the end by the drivers' policy, without a break."""
    game = Game.from_json({**record, "actions": []})
    while not game.finished:
        seat = game.turn
        legal = game.legal_plays(seat)
        if legal:
            game.play(seat, min(legal, key=baseline_key))
        else:
            game.pass_turn(seat)
    return game


async def stored_game(url: str, guild: Any, channel: Any) -> tuple[Any, Game]:
    database = db.Database.from_url(url)
    try:
        [summary] = await db.recent_games(database, guild.id, channel.id, limit=5)
        stored = await db.load_game(database, summary.game_id)
        return stored, Game.from_json({**stored.record, "actions": list(stored.actions)})
    finally:
        await database.dispose()


async def balances(url: str, guild: Any, users: list[Any]) -> dict[str, int]:
    database = db.Database.from_url(url)
    try:
        return {user.name: (await db.get_account(database, guild.id, user.id)).balance for user in users}
    finally:
        await database.dispose()


async def poll(predicate: Any, *, timeout: float, what: str) -> Any:
    """Await ``predicate()`` every 0.1 s until it is truthy."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if value := await predicate():
            return value
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def _healthy(process: BotProcess) -> bool:
    return await _health(process) == 200


async def _health(process: BotProcess) -> int | None:
    """The status of the process's /healthz, or None while it does not listen yet."""
    try:
        return (await get(f"{process.metrics_url}/healthz"))[0]
    except aiohttp.ClientError:
        return None


async def test_three_processes_two_slots_dm_forwarding_and_failover(fake_discord, cluster_db):
    fake = fake_discord
    fake.recommended_shards = SHARDS
    guilds = {shard: guild_on_shard(fake, shard, f"Guild on shard {shard}") for shard in range(SHARDS)}
    processes = [await cluster_process(fake, cluster_db).launch() for _ in range(3)]
    try:
        holders = await wait_for_slots(fake, cluster_db, processes)
        standby = next(process for process in processes if process not in holders.values())
        assert standby.process.returncode is None
        # The standby may still be starting its metrics server when the other two hold their slots.
        assert await poll(lambda: _health(standby), timeout=10, what="the standby's /healthz") == 503
        for holder in holders.values():
            await poll(lambda: _healthy(holder), timeout=10, what="a slot holder to be healthy")

        # A game in each slot's guild; every move by DM button (DMs arrive on shard 0).
        players = {0: fake.users[:2], 1: fake.users[2:4]}
        drivers = {slot: await open_table(fake, guilds[slot].test_channel, players[slot]) for slot in (0, 1)}
        await drivers[0].play_to_the_end()
        await fake.wait_for(lambda: drivers[0].phase() == "between", timeout=20, what="slot 0's game to end")
        for _ in range(4):
            user = await drivers[1].wait_for_human_turn()
            assert user is not None
            await drivers[1].play_turn(user)
        assert not drivers[1].ephemeral_hands  # the moves came from DM buttons, forwarded to slot 1

        # Slot 1's holder dies mid-game; the standby takes the slot and the game goes on.
        before_kill = fake.mark()
        await holders[1].kill()
        await fake.wait_for(lambda: "restarted" in drivers[1].table.text(), timeout=TAKEOVER_TIMEOUT,
                            what="the standby to resume slot 1's table")
        new_holders = await wait_for_slots(fake, cluster_db, processes)
        assert new_holders[1] is standby and new_holders[0] is holders[0]
        await drivers[1].play_to_the_end()
        await fake.wait_for(lambda: drivers[1].phase() == "between", timeout=20, what="slot 1's game to end")
        # The new owner wrote to the players' DM channels without reopening them.
        assert not [r for r in fake.requests_since(before_kill) if r.key == "POST /users/@me/channels"]

        status, forwarder = await get(f"{holders[0].metrics_url}/metrics")
        assert status == 200 and metric(forwarder, "tienlen_cluster_slot") == 0
        assert metric(forwarder, "tienlen_first_response_seconds_count") > 0
        assert metric(forwarder, "tienlen_rest_requests_total") > 0
        assert metric(forwarder, "tienlen_forwarded_interactions_total") >= 4  # slot 1's DM moves went through here
        _, successor = await get(f"{standby.metrics_url}/metrics")
        assert metric(successor, "tienlen_cluster_slot") == 1
        assert metric(successor, "tienlen_cluster_takeovers_total") == 1
        assert metric(successor, "tienlen_first_response_seconds_count") > 0  # forwarded DMs answered here
        assert metric(successor, "tienlen_db_transaction_seconds_count") > 0
    finally:
        for process in processes:
            await process.stop()

    for slot in (0, 1):
        guild = guilds[slot]
        stored, replay = await stored_game(cluster_db, guild, guild.test_channel)
        assert replay.finished and stored.settled_at is not None
        expected = uninterrupted(dict(stored.record))
        assert [action.to_json() for action in replay.actions] == [a.to_json() for a in expected.actions]
        assert replay.places == expected.places
        chips = await balances(cluster_db, guild, players[slot])
        assert chips == {user.name: 1000 + expected.settlement()[seat] * 10 for seat, user in enumerate(players[slot])}
        assert sum(chips.values()) == 1000 * len(players[slot])


def test_more_than_one_cluster_slot_on_sqlite_is_one_line(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "DISCORD_TOKEN": "x", "CLUSTERS": "2",
           "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}"}
    result = subprocess.run([sys.executable, str(REPO / "bot.py")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 78  # a configuration error: not restarted by the unit
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "PostgreSQL" in lines[0] and "CLUSTERS=2" in lines[0]


async def test_a_paused_holder_loses_its_slot_and_cannot_write_over_the_new_owner(fake_discord, cluster_db):
    """SIGSTOP the only slot's holder: PostgreSQL ends its silent session, the
    standby takes over; when the old holder wakes up its writes are refused by
    the epoch fence and it stops, and the game ends as if nothing happened."""
    fake = fake_discord
    first = await cluster_process(fake, cluster_db, clusters=1).launch()
    await wait_for_slots(fake, cluster_db, [first], slots=1)
    second = await cluster_process(fake, cluster_db, clusters=1).launch()
    players = fake.users[:3]
    try:
        await asyncio.sleep(1)  # the second process is a standby now
        assert (await slot_holders(cluster_db))[0] == first.pid
        driver = await open_table(fake, fake.channel, players)
        for _ in range(3):
            user = await driver.wait_for_human_turn()
            await driver.play_turn(user)

        first.process.send_signal(signal.SIGSTOP)
        await poll(lambda: _holder_is(cluster_db, 0, second.pid), timeout=TAKEOVER_TIMEOUT,
                   what="the standby to take the paused holder's slot")
        await fake.wait_for(lambda: "restarted" in driver.table.text(), timeout=TAKEOVER_TIMEOUT,
                            what="the new holder to resume the table")
        first.process.send_signal(signal.SIGCONT)
        assert await asyncio.wait_for(first.process.wait(), 30) == 3  # it noticed, and stopped
        assert "lost" in first.stderr()
        await driver.play_to_the_end()
        await fake.wait_for(lambda: driver.phase() == "between", timeout=20, what="the game to end")
    finally:
        if first.process.returncode is None:
            first.process.send_signal(signal.SIGCONT)
        await first.stop()
        await second.stop()

    stored, replay = await stored_game(cluster_db, fake.guild, fake.channel)
    expected = uninterrupted(dict(stored.record))
    assert [action.to_json() for action in replay.actions] == [a.to_json() for a in expected.actions]
    chips = await balances(cluster_db, fake.guild, players)
    assert chips == {user.name: 1000 + expected.settlement()[seat] * 10 for seat, user in enumerate(players)}


async def _holder_is(url: str, slot: int, pid: int) -> bool:
    return (await slot_holders(url)).get(slot) == pid
