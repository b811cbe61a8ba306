"""Self-tests: login, gateway lifecycle (READY, RESUME, INVALID_SESSION), REST basics."""

from __future__ import annotations

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import FakeDiscord, InteractionTimeout, ResponseType
from tests.fakediscord.sample_bot import SampleBot


def gateway_events(fake: FakeDiscord, name: str) -> list:
    return [e for e in fake.gateway.events if e.t == name]


async def test_login_ready_and_guild_cache(fake_discord: FakeDiscord, start_bot) -> None:
    handle = await start_bot(SampleBot())
    bot = handle.bot
    guild = bot.get_guild(fake_discord.guild.id)
    assert bot.user.id == fake_discord.bot_user.id
    assert bot.application_id == fake_discord.application_id
    assert guild is not None and guild.get_channel(fake_discord.channel.id) is not None
    # Without the GUILD_MEMBERS intent Discord only sends the bot's own member.
    assert [m.name for m in guild.members] == [bot.user.name] and guild.member_count == 6
    assert guild.me.guild_permissions.send_messages
    counts = fake_discord.route_counts()
    assert counts["GET /users/@me"] == 1 and counts["PUT /applications/{app_id}/commands"] == 1
    ready, created = gateway_events(fake_discord, "READY"), gateway_events(fake_discord, "GUILD_CREATE")
    assert len(ready) == 1 and created[0].seq == ready[0].seq + 1


async def test_members_intent_gets_every_member(fake_discord: FakeDiscord, start_bot) -> None:
    intents = discord.Intents.default()
    intents.members = True
    handle = await start_bot(commands.Bot(command_prefix="!", intents=intents, guild_ready_timeout=0.05))
    guild = handle.bot.get_guild(fake_discord.guild.id)
    assert {m.name for m in guild.members} >= {"alice", "bob", "carol", "dave"} and guild.chunked
    late = fake_discord.add_user("late")
    await fake_discord.wait_for(lambda: guild.get_member(late.id), what="GUILD_MEMBER_ADD")


async def test_commands_are_stored_with_ids(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    stored = {c["name"]: c for c in fake_discord.commands.list()}
    assert {"game", "whoami", "report", "dm", "post", "table"} <= set(stored)
    game_options = {o["name"]: o["type"] for o in stored["game"]["options"]}
    assert game_options == {"create": 1, "play": 1, "admin": 2}
    assert stored["table"]["contexts"] == [0]


async def test_guild_command_is_found_by_data_guild_id(fake_discord: FakeDiscord, start_bot) -> None:
    guild_id = fake_discord.guild.id

    class GuildBot(commands.Bot):
        async def setup_hook(self) -> None:
            @self.tree.command(name="ping", description="pong", guild=discord.Object(guild_id))
            async def ping(interaction: discord.Interaction) -> None:
                await interaction.response.send_message("pong")

            await self.tree.sync(guild=discord.Object(guild_id))

    await start_bot(GuildBot(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05))
    assert fake_discord.commands.list(guild_id)[0]["guild_id"] == str(guild_id)
    result = await fake_discord.slash(fake_discord.user("alice"), "ping")
    assert result.content == "pong"
    assert result.interaction.payload["data"]["guild_id"] == str(guild_id)


async def test_wrong_token_fails_login(fake_discord: FakeDiscord, start_bot) -> None:
    fake_discord.token = "the-right-token"
    with pytest.raises(discord.LoginFailure):
        await start_bot(SampleBot(), token="a-wrong-token")


async def test_autosharded_bot_uses_gateway_bot(fake_discord: FakeDiscord, start_bot) -> None:
    bot = commands.AutoShardedBot(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)

    @bot.tree.command(name="hi", description="hi")
    async def hi(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"hi from shard {interaction.guild.shard_id}")

    await start_bot(bot)
    await bot.tree.sync()
    assert fake_discord.route_counts()["GET /gateway/bot"] >= 1
    assert next(iter(fake_discord.gateway.sessions.values())).sharded
    assert (await fake_discord.slash(fake_discord.user("bob"), "hi")).content == "hi from shard 0"


async def test_dropped_gateway_resumes_same_session(fake_discord: FakeDiscord, start_bot) -> None:
    handle = await start_bot(SampleBot())
    session_id = handle.bot.ws.session_id
    fake_discord.drop_gateway()
    await fake_discord.wait_for(lambda: gateway_events(fake_discord, "RESUMED"), what="RESUMED")
    assert handle.bot.ws.session_id == session_id
    assert fake_discord.gateway.connected_sessions[0].connection.path == "/gateway/resume"
    result = await fake_discord.slash(fake_discord.user("alice"), "whoami")
    assert result.response_type is ResponseType.CHANNEL_MESSAGE


async def test_events_missed_while_disconnected_are_replayed(fake_discord: FakeDiscord, start_bot) -> None:
    intents = discord.Intents.default()
    intents.members = True
    handle = await start_bot(commands.Bot(command_prefix="!", intents=intents, guild_ready_timeout=0.05))
    fake_discord.drop_gateway()
    late = fake_discord.add_user("late")  # dispatched while the socket is dying
    await fake_discord.wait_for(lambda: gateway_events(fake_discord, "RESUMED"), what="RESUMED")
    guild = handle.bot.get_guild(fake_discord.guild.id)
    await fake_discord.wait_for(lambda: guild.get_member(late.id), what="the replayed GUILD_MEMBER_ADD")


async def test_invalid_session_makes_the_bot_identify_again(fake_discord: FakeDiscord, start_bot) -> None:
    handle = await start_bot(SampleBot())
    first_session = handle.bot.ws.session_id
    fake_discord.invalidate_sessions()
    await fake_discord.wait_for(lambda: len(gateway_events(fake_discord, "READY")) == 2, what="a second READY")
    await fake_discord.wait_for(lambda: handle.bot.is_ready() and handle.bot.ws.session_id != first_session)
    assert (await fake_discord.slash(fake_discord.user("alice"), "whoami")).content == "en-US|en-US"


async def test_json_is_plain_application_json_and_unknown_routes_404(fake_discord: FakeDiscord) -> None:
    headers = {"Authorization": "Bot anything"}
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{fake_discord.api_base}/users/@me", headers=headers) as response:
            assert response.headers["Content-Type"] == "application/json"
            assert (await response.json())["id"] == str(fake_discord.bot_user.id)
        async with session.get(f"{fake_discord.api_base}/users/@me") as response:
            assert response.status == 401
        async with session.post(f"{fake_discord.api_base}/not/modelled", headers=headers, json={}) as response:
            assert response.status == 404 and "does not model" in (await response.json())["message"]
    assert fake_discord.unknown_requests == ["POST /api/v10/not/modelled"]
    assert fake_discord.requests[-1].route == "UNKNOWN"
    with pytest.raises(AssertionError, match="unmodelled route"):
        fake_discord.check()
    fake_discord.unknown_requests.clear()  # expected here; keep the fixture's gap check green


async def test_second_callback_is_already_acknowledged(fake_discord: FakeDiscord) -> None:
    from tests.fakediscord.interactions import InteractionType

    sent = fake_discord.interactions.new(type=InteractionType.APPLICATION_COMMAND, user=fake_discord.user("alice"),
                                         channel=fake_discord.channel, guild=fake_discord.guild)
    url = f"{fake_discord.api_base}/interactions/{sent.id}/{sent.token}/callback?with_response=1"
    async with aiohttp.ClientSession() as session:
        async with session.post(url, json={"type": 4, "data": {"content": "one"}}) as response:
            assert response.status == 200
            assert (await response.json())["resource"]["message"]["content"] == "one"
        async with session.post(url, json={"type": 4, "data": {"content": "two"}}) as response:
            assert response.status == 400 and (await response.json())["code"] == 40060
        async with session.post(url.replace(sent.token, "forged"), json={"type": 5}) as response:
            assert (await response.json())["code"] == 10062


async def test_request_queue_sees_everything_the_bot_sends(fake_discord: FakeDiscord, start_bot) -> None:
    queue = fake_discord.subscribe()
    await start_bot(SampleBot())
    mark = fake_discord.mark()
    await fake_discord.slash(fake_discord.user("alice"), "game create", rules="mien-bac", bet=5)
    first = await queue.get()
    assert first.key == "GET /users/@me"
    assert [r.key for r in fake_discord.requests_since(mark)] == ["POST /interactions/{interaction_id}/{token}/callback"]


async def test_message_limits_are_enforced(fake_discord: FakeDiscord, start_bot) -> None:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)
    errors: list[int] = []

    @bot.tree.command(name="long", description="too long")
    async def long(interaction: discord.Interaction) -> None:
        try:
            await interaction.response.send_message("x" * 2001)
        except discord.HTTPException as error:
            errors.append(error.code)
            await interaction.response.send_message("ok")

    @app_commands.command(name="noop", description="noop")
    async def noop(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("noop")

    bot.tree.add_command(noop)
    await start_bot(bot)
    await bot.tree.sync()
    assert (await fake_discord.slash(fake_discord.user("alice"), "long")).content == "ok"
    assert errors == [50035]


async def test_raw_gateway_protocol(fake_discord: FakeDiscord) -> None:
    url = f"{fake_discord.gateway_url}?v=10&encoding=json&compress=zlib-stream"
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url) as ws:
            assert (await ws.receive_json())["op"] == 10
            await ws.send_json({"op": 1, "d": None})
            assert (await ws.receive_json())["op"] == 11
            await ws.send_json({"op": 6, "d": {"token": "t", "session_id": "bogus", "seq": 3}})
            assert await ws.receive_json() == {"op": 9, "d": False, "s": None, "t": None}
        async with session.ws_connect(url) as ws:
            await ws.receive_json()
            await ws.send_json({"op": 2, "d": {"token": "t", "intents": 1, "properties": {}}})
            ready, guild_create = await ws.receive_json(), await ws.receive_json()
            assert (ready["t"], ready["s"], guild_create["t"], guild_create["s"]) == ("READY", 1, "GUILD_CREATE", 2)
            assert ready["d"]["guilds"] == [{"id": str(fake_discord.guild.id), "unavailable": True}]
            assert guild_create["d"]["preferred_locale"] == "en-US"
            await ws.close(code=1000)
    await fake_discord.wait_for(lambda: not fake_discord.gateway.connected_sessions)
    assert fake_discord.gateway.sessions[ready["d"]["session_id"]].ended  # a 1000 close ends it


async def test_rejected_callback_is_explained_on_timeout(fake_discord: FakeDiscord, start_bot) -> None:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)

    @bot.tree.command(name="empty", description="sends nothing")
    async def empty(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(" ".strip())

    await start_bot(bot)
    await bot.tree.sync()
    with pytest.raises(InteractionTimeout, match="Cannot send an empty message"):
        await fake_discord.slash(fake_discord.user("alice"), "empty", timeout=0.5)


async def test_public_texts_cover_every_revision(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice = fake_discord.user("alice")
    table = (await fake_discord.slash(alice, "game create", rules="mien-nam", bet=1)).message
    await fake_discord.click(alice, table, "counter:0")
    await fake_discord.slash(alice, "game play", cards="3s")  # ephemeral: not public
    texts = "\n".join(fake_discord.public_texts())
    assert "rules=mien-nam" in texts and "count=1" in texts and "played 3s" not in texts
