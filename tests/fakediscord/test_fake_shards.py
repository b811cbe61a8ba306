"""Self-tests: shards and several bot processes for one token.

Guilds are placed on a shard with ``add_guild_on_shard``; each bot (in-process
``ShardedSampleBot`` or a subprocess running ``sample_bot:sharded_main``) runs
some of the shards, and must receive exactly the events Discord would route to
them: a guild's events on ``(guild_id >> 22) % shard_count``, DMs on shard 0.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.fakediscord import FakeDiscord
from tests.fakediscord.sample_bot import ShardedSampleBot

REPO_ROOT = Path(__file__).resolve().parents[2]


def two_guilds(fake: FakeDiscord):
    """A guild on each shard of two, with every user as a member."""
    return [fake.add_guild_on_shard(shard, 2, f"shard{shard}", members=fake.users) for shard in (0, 1)]


def interactions_seen_by(fake: FakeDiscord, session) -> int:
    return sum(1 for e in fake.gateway.events if e.t == "INTERACTION_CREATE" and e.session_id == session.id)


async def test_guilds_land_on_the_shard_asked_for(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    for count in range(1, 6):
        for shard in range(count):
            guild = fake.add_guild_on_shard(shard, count, members=[fake.user("alice")])
            assert fake.shard_of(guild, count) == shard == (guild.id >> 22) % count
            assert [c.name for c in guild.channels] == ["general"]
            assert guild.member(fake.user("alice")) is not None and guild.member(fake.user("bob")) is None
    with pytest.raises(ValueError):
        fake.add_guild_on_shard(2, 2)
    ids = sorted(fake.world.ids.next() for _ in range(3))
    assert ids[0] > max(fake.world.guilds)  # ids keep increasing after a guild moved ahead


async def test_gateway_bot_recommends_the_configured_shard_count(fake_discord: FakeDiscord, start_bot) -> None:
    fake_discord.recommended_shards = 3
    handle = await start_bot(ShardedSampleBot())
    assert handle.bot.shard_count == 3
    assert fake_discord.connected_shards == [(0, 3), (1, 3), (2, 3)]
    assert len(fake_discord.sessions_for(None)) == 1  # DMs: shard 0 only


async def test_two_bots_each_get_only_their_shards_events(fake_discord: FakeDiscord, start_bot) -> None:
    fake = fake_discord
    g0, g1 = two_guilds(fake)
    zero = (await start_bot(ShardedSampleBot(shard_ids=[0], shard_count=2))).bot
    one = (await start_bot(ShardedSampleBot(shard_ids=[1], shard_count=2, sync=False))).bot
    assert fake.connected_shards == [(0, 2), (1, 2)]
    assert zero.get_guild(g0.id) is not None and zero.get_guild(g1.id) is None
    assert one.get_guild(g1.id) is not None and one.get_guild(g0.id) is None
    [session0], [session1] = fake.sessions_for(g0), fake.sessions_for(g1)
    assert session0.shard == (0, 2) and session1.shard == (1, 2) and fake.sessions_for(None) == [session0]

    bob = fake.user("bob")
    assert (await fake.slash(bob, "where", channel=g1.channels[0])).content.startswith("shard 1 ")
    assert (await fake.slash(bob, "where", channel=g0.channels[0])).content.startswith("shard 0 ")
    assert (await fake.slash(bob, "where", dm=True)).content.startswith("shard 0 ")
    assert (interactions_seen_by(fake, session0), interactions_seen_by(fake, session1)) == (2, 1)

    # Buttons and selects on a message in the second guild's channel.
    table = (await fake.slash(bob, "game create", channel=g1.channels[0], rules="mien-nam", bet=2)).message
    assert table.channel is g1.channels[0]
    assert (await fake.click(fake.user("carol"), table, "counter:0")).message.content == "count=1"
    owned = (await fake.slash(bob, "table", channel=g1.channels[0])).message
    assert (await fake.select(bob, owned, "owner:pick", ["3s", "2h"])).message.content == "picked 3s,2h"
    assert interactions_seen_by(fake, session0) == 2  # nothing of guild 1 reached shard 0


async def test_a_new_session_for_a_crashed_shard_receives_its_events(fake_discord: FakeDiscord, start_bot) -> None:
    fake = fake_discord
    g0, g1 = two_guilds(fake)
    await start_bot(ShardedSampleBot(shard_ids=[0], shard_count=2))
    first = await start_bot(ShardedSampleBot(shard_ids=[1], shard_count=2, sync=False))
    [dead] = fake.sessions_for(g1)
    await first.crash()
    await start_bot(ShardedSampleBot(shard_ids=[1], shard_count=2, sync=False))
    [live] = fake.sessions_for(g1)
    assert live is not dead and live.shard == (1, 2)
    # The crashed session is still resumable: Discord buffers its events too.
    assert set(fake.sessions_for(g1, connected=False)) == {dead, live}
    alice = fake.user("alice")
    assert (await fake.slash(alice, "where", channel=g1.channels[0])).content.startswith("shard 1 ")
    assert interactions_seen_by(fake, live) == 1
    assert sum('"INTERACTION_CREATE"' in frame for _, frame in dead.buffer) == 1  # buffered, never delivered


async def test_wait_for_shard_gives_up_with_a_clear_message(fake_discord: FakeDiscord) -> None:
    with pytest.raises(AssertionError, match="shard 3 of 4"):
        await fake_discord.wait_for_shard(3, 4, timeout=0.1)


async def start_shard_process(fake: FakeDiscord, shard_ids: str, shard_count: int) -> asyncio.subprocess.Process:
    env = {**os.environ, **fake.env(), "PYTHONPATH": str(REPO_ROOT),
           "SAMPLE_SHARD_IDS": shard_ids, "SAMPLE_SHARD_COUNT": str(shard_count)}
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.fakediscord.launch", "tests.fakediscord.sample_bot:sharded_main",
        cwd=REPO_ROOT, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )


async def test_bot_processes_per_shard_and_a_sigkilled_one_replaced(fake_discord: FakeDiscord) -> None:
    """Two processes (shard 0 and shard 1 of 2); SIGKILL shard 1's and start another for it."""
    fake = fake_discord
    g0, g1 = two_guilds(fake)
    processes = [await start_shard_process(fake, "0", 2), await start_shard_process(fake, "1", 2)]
    try:
        await fake.wait_for_shard(0, 2, timeout=30)
        await fake.wait_for_shard(1, 2, timeout=30)
        await fake.wait_for(lambda: any(c["name"] == "where" for c in fake.commands.list()), timeout=30,
                            what="the commands")
        dave = fake.user("dave")
        answers = [(await fake.slash(dave, "where", channel=g.channels[0])).content for g in (g0, g1)]
        assert answers == [f"shard 0 pid {processes[0].pid}", f"shard 1 pid {processes[1].pid}"]

        processes[1].send_signal(signal.SIGKILL)
        await processes[1].wait()
        await fake.wait_for(lambda: fake.connected_shards == [(0, 2)], what="shard 1's socket to drop")
        processes.append(await start_shard_process(fake, "1", 2))
        session = await fake.wait_for_shard(1, 2, timeout=30, new=True)
        assert fake.sessions_for(g1) == [session]
        answer = await fake.slash(dave, "where", channel=g1.channels[0])
        assert answer.content == f"shard 1 pid {processes[2].pid}"
        assert (await fake.slash(dave, "where", dm=True)).content == f"shard 0 pid {processes[0].pid}"
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()
