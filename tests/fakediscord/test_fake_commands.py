"""Self-tests: slash commands, options, autocomplete, ephemeral replies, defer + file, locales."""

from __future__ import annotations

import aiohttp
import pytest

from tests.fakediscord import ClientRefused, FakeDiscord, ResponseType
from tests.fakediscord.sample_bot import SampleBot


async def test_subcommand_with_choice_integer_and_boolean(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice = fake_discord.user("alice")
    result = await fake_discord.slash(alice, "game create", rules="mien-nam", bet=10, private=True)
    assert result.response_type is ResponseType.CHANNEL_MESSAGE and not result.ephemeral
    assert result.message.embeds[0]["description"] == "rules=mien-nam bet=10 private=True"
    assert result.message.custom_ids() == ["persist:join", "persist:slow", "counter:0"]
    assert result.message in fake_discord.messages()
    assert all(result.message in fake_discord.visible_to(u) for u in fake_discord.users)


@pytest.mark.parametrize("command, options, complaint", [
    ("game create", {"rules": "mien-trung", "bet": 10}, "not a choice"),
    ("game create", {"rules": "mien-nam", "bet": 500}, "outside"),
    ("game create", {"rules": "mien-nam"}, "required"),
    ("game create", {"rules": "mien-nam", "bet": 1, "colour": "red"}, "unknown option"),
    ("game", {}, "needs a subcommand"),
    ("game join", {}, "no subcommand"),
    ("nosuch", {}, "no slash command"),
])
async def test_client_side_validation(fake_discord: FakeDiscord, start_bot, command, options, complaint) -> None:
    await start_bot(SampleBot())
    with pytest.raises(ClientRefused, match=complaint):
        await fake_discord.slash(fake_discord.user("alice"), command, **options)


async def test_subcommand_group_with_user_option_and_permissions(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    admin = fake_discord.add_user("erin", manage_guild=True)
    bob = fake_discord.user("bob")
    allowed = await fake_discord.slash(admin, "game admin kick", player=bob)
    refused = await fake_discord.slash(bob, "game admin kick", player=admin)
    assert allowed.content == "kicked bob" and allowed.ephemeral
    assert refused.content == "You need Manage Server."
    resolved = allowed.interaction.payload["data"]["resolved"]
    assert set(resolved) == {"users", "members"} and str(bob.id) in resolved["members"]


async def test_autocomplete_returns_choices(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    choices = await fake_discord.autocomplete(fake_discord.user("alice"), "game play", "cards", "3")
    assert [c["value"] for c in choices] == ["3s", "3c", "3d", "3h"]
    assert await fake_discord.autocomplete(fake_discord.user("alice"), "game play", "cards", "9") == []


async def test_ephemeral_reply_is_only_visible_to_its_user(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice, bob = fake_discord.user("alice"), fake_discord.user("bob")
    result = await fake_discord.slash(alice, "game play", cards="3s")
    assert result.ephemeral and result.message.ephemeral_to is alice
    assert result.message in fake_discord.visible_to(alice)
    assert result.message not in fake_discord.visible_to(bob)
    assert result.message not in fake_discord.messages()


async def test_locales_reach_the_interaction(fake_discord: FakeDiscord, start_bot) -> None:
    vi_guild = fake_discord.add_guild("Sòng bài", preferred_locale="vi")
    vi_channel = fake_discord.add_channel("ban-choi", guild=vi_guild)
    minh = fake_discord.add_user("minh", locale="vi", guild=vi_guild)
    handle = await start_bot(SampleBot())
    assert (await fake_discord.slash(minh, "whoami", channel=vi_channel)).content == "vi|vi"
    assert (await fake_discord.slash(fake_discord.user("alice"), "whoami")).content == "en-US|en-US"
    assert handle.bot.get_guild(vi_guild.id).preferred_locale.value == "vi"


async def test_defer_then_followup_with_file(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    result = await fake_discord.slash(fake_discord.user("alice"), "report")
    assert result.response_type is ResponseType.DEFERRED_CHANNEL_MESSAGE and result.deferred
    message = await result.wait_final()
    assert message.content == "here is the report" and not message.loading
    assert [(a.filename, a.data) for a in message.attachments] == [("report.txt", b"score: 42\n")]
    upload = fake_discord.requests[-1]
    assert upload.key == "POST /webhooks/{app_id}/{token}" and upload.files[0].filename == "report.txt"
    async with aiohttp.ClientSession() as session:
        async with session.get(fake_discord.message_json(message)["attachments"][0]["url"]) as response:
            assert await response.read() == b"score: 42\n"


async def test_dm_context(fake_discord: FakeDiscord, start_bot) -> None:
    await start_bot(SampleBot())
    alice = fake_discord.user("alice")
    in_dm = await fake_discord.slash(alice, "whoami", dm=True)
    assert in_dm.content == "en-US|None" and in_dm.message.is_dm
    with pytest.raises(ClientRefused, match="not available in DMs"):
        await fake_discord.slash(alice, "table", dm=True)
