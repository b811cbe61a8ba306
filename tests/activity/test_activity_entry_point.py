"""``python bot.py --sync`` keeps the Entry Point command Discord gives an application with Activities
(Discord refuses, 50240, a bulk overwrite that leaves it out; discord.py's tree.sync() would)."""

from __future__ import annotations

import aiohttp

from i18n import t
from tests.fakediscord.commands import PRIMARY_ENTRY_POINT


async def test_the_fake_refuses_a_bulk_overwrite_without_the_entry_point(fake_discord):
    fake = fake_discord
    fake.commands.add_entry_point()
    url = f"{fake.api_base}/applications/{fake.world.application_id}/commands"
    async with aiohttp.ClientSession(headers={"Authorization": "Bot fake-bot-token"}) as http:
        async with http.put(url, json=[{"name": "ping", "description": "p", "type": 1}]) as refused:
            assert refused.status == 400 and (await refused.json())["code"] == 50240
        async with http.put(url, json=[{"name": "ping", "description": "p", "type": 1}]) as again:
            assert again.status == 400  # nothing was stored by the refused one
    assert [command["type"] for command in fake.commands.list()] == [PRIMARY_ENTRY_POINT]


async def test_a_global_sync_keeps_the_entry_point_and_registers_the_commands(fake_discord, start_bot, make_bot):
    fake = fake_discord
    entry = fake.commands.add_entry_point()
    bot = make_bot(sync_globally=True)
    await start_bot(bot)
    stored = fake.commands.list()
    entry_points = [command for command in stored if command["type"] == PRIMARY_ENTRY_POINT]
    assert [command["id"] for command in entry_points] == [entry["id"]] and entry_points[0]["handler"] == 2
    assert {"tienlen", "chips", "leaderboard"} <= {command["name"] for command in stored}
    answer = await fake.slash(fake.users[0], "tienlen join", dm=True, force=True)  # a global command answers
    assert answer.content == t("en", "error.guild_only")


async def test_a_global_sync_without_an_entry_point_is_discord_pys_own(fake_discord, start_bot, make_bot):
    fake = fake_discord
    await start_bot(make_bot(sync_globally=True))
    assert PRIMARY_ENTRY_POINT not in {command["type"] for command in fake.commands.list()}
    puts = [request for request in fake.requests if request.key == "PUT /applications/{app_id}/commands"]
    assert len(puts) == 1 and puts[0].status == 200
